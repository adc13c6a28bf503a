"""Pooling layers against torch (values recorded by tests/golden/record_pool.py): F.max_pool1d/2d with
indices, dilation and ceil_mode (ties and NaN: the first maximum, NaN wins), avg_pool1d, avg_pool2d's
divisor_override, adaptive avg / max pools (1-d and 2-d, with indices) and their modules with reprs.
Gradients also against float64 finite differences; torch's errors for bad input."""

import ferrograd as fg
import ferrograd.nn.functional as F
import layer_cases as lc
import numpy as np
import pytest
from helpers import golden, gradcheck
from recorded import check

CASES = golden("pool")["cases"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"]["id"] for e in CASES])
def test_against_torch(entry):
    check(entry["case"]["id"], lambda: lc.run(entry["case"]), entry["expected"])


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool1d(x, 3, 2, 1),
        lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda x: F.adaptive_avg_pool1d(x, 3),
        lambda x: F.adaptive_max_pool1d(x, 3),
        lambda x: F.adaptive_max_pool2d(x.reshape(2, 3, 7), (2, 3)),
        lambda x: F.avg_pool2d(x.reshape(2, 3, 7), 2, padding=1, divisor_override=3),
    ],
    ids=["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "divisor"],
)
def test_gradcheck(fn, rng):
    gradcheck(fn, [rng.standard_normal((2, 3, 7))])  # distinct values: no ties at the maxima


def test_errors():
    x = fg.randn(2, 3, 5)
    lc.raises(
        RuntimeError,
        "max_pool1d() padding should be at most half of kernel size, but got padding=2 and kernel_size=2",
        lambda: F.max_pool1d(x, 2, padding=2),
    )
    lc.raises(RuntimeError, "max_pool1d() Invalid computed output size: 0", lambda: F.max_pool1d(x, 6))
    lc.raises(
        RuntimeError,
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[5]",
        lambda: F.max_pool1d(fg.randn(5), 2),
    )
    lc.raises(RuntimeError, "max_pool1d() kernel_size must be greater than zero, but got 0", lambda: F.max_pool1d(x, 0))
    lc.raises(RuntimeError, "max_pool1d() stride must be greater than zero, but got 0", lambda: F.max_pool1d(x, 2, 0))
    lc.raises(
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments "
        "for avg_pool1d)",
        lambda: F.avg_pool1d(fg.randn(5), 2),
    )
    lc.raises(
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1",
        lambda: F.avg_pool1d(x, 2, padding=2),
    )
    lc.raises(
        RuntimeError,
        "Given input size: (3x1x5). Calculated output size: (3x1x0). Output size is too small",
        lambda: F.avg_pool1d(x, 6),
    )
    lc.raises(
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments "
        "for adaptive_avg_pool1d)",
        lambda: F.adaptive_avg_pool1d(fg.randn(2, 3, 5, 4), 2),
    )
    lc.raises(
        RuntimeError,
        "adaptive_max_pool1d() argument 'output_size' should contain one int (got 2)",
        lambda: F.adaptive_max_pool1d(fg.randn(2, 5), (3, 2)),
    )
    lc.raises(
        RuntimeError,
        "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [3, 5]",
        lambda: F.adaptive_max_pool2d(fg.randn(3, 5), 2),
    )
    lc.raises(RuntimeError, "divisor must be not zero", lambda: F.avg_pool2d(fg.randn(2, 5, 5), 2, divisor_override=0))


def _max_pool_2x2_reference(a):
    """numpy max_pool2d(kernel 2, stride 2) with torch's rules: the first maximum of a window in row-major
    order wins a tie, and a NaN wins over any number (a later NaN over an earlier one)."""
    n, c, h, w = a.shape
    vals = np.empty((n, c, h // 2, w // 2), a.dtype)
    idx = np.empty(vals.shape, np.int64)
    for p in np.ndindex(n, c):
        for i in range(h // 2):
            for j in range(w // 2):
                best_at, best = None, None
                for di, dj in ((0, 0), (0, 1), (1, 0), (1, 1)):
                    y, x = 2 * i + di, 2 * j + dj
                    v = a[p][y, x]
                    if best is None or v > best or np.isnan(v):
                        best_at, best = y * w + x, v
                vals[p][i, j], idx[p][i, j] = best, best_at
    return vals, idx


@pytest.mark.parametrize("width", [9, 71])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool2d_2x2_ties_nan_and_gradient(dtype, width):
    # LeNet's MaxPool2d(2) takes an unrolled path: values, indices and gradients against the rule above,
    # on an odd-sized image (its last row and column fall outside every window); 71 columns give 35 windows a
    # row, so the vectorised body (16 or 8 windows at a time) and its tail both run
    rng = np.random.default_rng(5)
    a = rng.integers(-2, 3, (2, 3, 7, width)).astype(dtype)  # many ties
    a[0, 0, 0, 1] = np.nan
    a[0, 1, 2, :2] = np.nan  # two NaNs in one window: the later wins
    a[1, 2, 4:6, 4:6] = -np.inf
    a[1, 0, 2:4, width - 3 : width - 1] = np.nan  # the last window of a row, all NaN
    a[1, 1, 3, width // 2] = np.nan
    want_v, want_i = _max_pool_2x2_reference(a)
    x = fg.from_numpy(a.copy()).requires_grad_()
    v, i = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(v.detach().numpy(), want_v)
    np.testing.assert_array_equal(i.numpy(), want_i)
    g = rng.standard_normal(want_v.shape).astype(dtype)
    v.backward(fg.from_numpy(g))
    want_g = np.zeros(a.shape, dtype).reshape(2, 3, -1)
    for p in np.ndindex(2, 3):
        np.add.at(want_g[p], want_i[p].ravel(), g[p].ravel())
    np.testing.assert_array_equal(x.grad.numpy(), want_g.reshape(a.shape))
    assert v.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def test_max_pool2d_2x2_gradcheck(rng):
    gradcheck(lambda x: F.max_pool2d(x, 2), [rng.standard_normal((2, 3, 6, 5))])
    gradcheck(lambda x: F.max_pool2d(x, 2, 2, 0, 1, True), [rng.standard_normal((1, 2, 5, 5))])  # ceil: edge windows


def test_adaptive_avg_pool_of_no_planes_to_a_huge_size():
    # no output elements: an empty result (torch's), never a list of 2**40 windows (the fuzz, seed 14)
    x = fg.empty(2, 0, 3, dtype=fg.float64, requires_grad=True)
    y = F.adaptive_avg_pool1d(x, 2**40)
    assert y.shape == (2, 0, 2**40) and y.requires_grad
    assert F.adaptive_avg_pool2d(fg.empty(0, 2, 3), (2**40, 1)).shape == (0, 2**40, 1)
    assert F.adaptive_avg_pool3d(fg.empty(0, 2, 2, 2), (2**40, 1, 1)).shape == (0, 2**40, 1, 1)
    v, i = F.adaptive_max_pool3d(fg.empty(0, 2, 2, 2), (2**40, 1, 1), return_indices=True)
    assert v.shape == i.shape == (0, 2**40, 1, 1) and i.dtype == fg.int64
    # an output whose windows can be listed keeps the pool's node
    e = fg.empty(0, 2, 2, 2, requires_grad=True)
    assert F.adaptive_avg_pool3d(e, (3, 1, 1)).grad_fn.name() == "AdaptiveAvgPool3DBackward0"
    assert F.adaptive_max_pool3d(e, (3, 1, 1)).grad_fn.name() == "AdaptiveMaxPool3DBackward0"
    empty_1d = F.adaptive_avg_pool1d(fg.empty(2, 0, 3, requires_grad=True), 4)
    assert empty_1d.grad_fn.name() == F.adaptive_avg_pool1d(fg.ones(2, 1, 3, requires_grad=True), 4).grad_fn.name()
