"""fractional_max_pool2d/3d and FractionalMaxPool2d/3d: seeded outputs, indices and gradients, edges, errors and
reprs against PyTorch (tests/golden/fractional_pool.json; cases in tests/cases_fractional_pool.py), windows and
maxima against a numpy rendering of torch's interval rule, gradients (and gradients of gradients) against finite
differences in float64 with fixed samples."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_fractional_pool import CASES
from helpers import first_gradient, gradcheck
from recorded import check, expected

EXPECTED = expected("fractional_pool", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _starts(sample, size, out, kernel, dt):
    """torch's window starts along one dim, each step rounded to `dt` and truncated to int."""
    starts = [0] * out
    if out > 1:
        alpha = dt(size - kernel) / dt(out - 1)
        for i in range(out - 1):
            starts[i] = int((dt(i) + sample) * alpha) - int(sample * alpha)
    if out > 0:
        starts[-1] = size - kernel
    return starts


def _reference(x, kernel, out, samples):
    """(values, indices) of a fractional max pool over the last len(kernel) dims of (N, C, ...) `x`."""
    n = len(kernel)
    dt = x.dtype.type
    sizes = x.shape[2:]
    # the samples drive (W, H) in 2-D and (T, H, W) in 3-D
    order = [1, 0] if n == 2 else [0, 1, 2]
    values = np.empty(x.shape[:2] + tuple(out), dtype=x.dtype)
    indices = np.empty(values.shape, dtype=np.int64)
    for b in range(x.shape[0]):
        for c in range(x.shape[1]):
            starts = [_starts(samples[b, c, order[d]], sizes[d], out[d], kernel[d], dt) for d in range(n)]
            plane = x[b, c].reshape(-1)
            flat = np.arange(plane.size).reshape(sizes)
            for o in np.ndindex(*out):
                window = tuple(slice(starts[d][o[d]], starts[d][o[d]] + kernel[d]) for d in range(n))
                taps = flat[window].reshape(-1)
                best = taps[0]
                for t in taps[1:]:
                    if plane[t] > plane[best] or np.isnan(plane[t]):
                        best = t
                values[(b, c) + o] = plane[best]
                indices[(b, c) + o] = best
    return values, indices


SHAPES = [
    ((2, 3, 9, 7), (2, 2), (4, 3)),
    ((1, 2, 15, 11), (3, 2), (7, 10)),
    ((2, 1, 6, 6), (1, 1), (5, 2)),
    ((1, 2, 31, 17), (2, 3), (15, 8)),
    ((1, 2, 7, 6, 8), (2, 2, 3), (3, 4, 2)),
    ((2, 1, 9, 5, 6), (1, 2, 2), (8, 2, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, kernel, out", SHAPES)
def test_against_numpy(rng, dtype, shape, kernel, out):
    x = rng.standard_normal(shape).astype(dtype)
    x[(0, 0) + (1,) * (len(shape) - 2)] = np.nan
    samples = rng.uniform(0, 1, (shape[0], shape[1], len(kernel))).astype(dtype)
    pool = F.fractional_max_pool2d if len(kernel) == 2 else F.fractional_max_pool3d
    got, idx = pool(fg.tensor(x), kernel, output_size=out, return_indices=True, _random_samples=fg.tensor(samples))
    want, want_idx = _reference(x, kernel, out, samples)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
def test_seeded_draw_is_rand_of_n_c_dims(dtype):
    """Without _random_samples the pool uses `rand(N, C, dims)` in the input's dtype from the global generator."""
    x = fg.arange(2 * 3 * 10 * 9, dtype=dtype).reshape(2, 3, 10, 9).remainder(17)
    fg.manual_seed(7)
    seeded = F.fractional_max_pool2d(x, 2, output_size=(4, 5), return_indices=True)
    fg.manual_seed(7)
    samples = fg.rand(2, 3, 2, dtype=dtype)
    given = F.fractional_max_pool2d(x, 2, output_size=(4, 5), return_indices=True, _random_samples=samples)
    assert fg.equal(seeded[0], given[0]) and fg.equal(seeded[1], given[1])


def _distinct(rng, shape):
    """Values without ties (a max pool's gradient is undefined at a tie)."""
    return rng.permutation(math.prod(shape)).reshape(shape) * 0.1 + rng.uniform(0, 0.01, shape)


DIFFERENTIABLE = [
    pytest.param(
        lambda t: F.fractional_max_pool2d(
            t, 3, output_size=(4, 3), _random_samples=fg.tensor([[[0.3, 0.8], [0.6, 0.1]]], dtype=fg.float64)
        ),
        (1, 2, 7, 6),
        id="2d(overlapping)",
    ),
    pytest.param(
        lambda t: F.fractional_max_pool2d(
            t, 2, output_size=4, _random_samples=fg.tensor([[[0.5, 0.2]]], dtype=fg.float64)
        ),
        (1, 9, 8),
        id="2d(unbatched)",
    ),
    pytest.param(
        lambda t: F.fractional_max_pool3d(
            t, 2, output_size=(2, 3, 2), _random_samples=fg.tensor([[[0.2, 0.4, 0.9]]] * 2, dtype=fg.float64)
        ),
        (2, 1, 4, 5, 4),
        id="3d",
    ),
]


@pytest.mark.parametrize("f, shape", DIFFERENTIABLE)
def test_gradcheck(rng, f, shape):
    gradcheck(f, [_distinct(rng, shape)])


@pytest.mark.parametrize("f, shape", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f, shape):
    gradcheck(first_gradient(f), [_distinct(rng, shape)])
