"""conv3d, conv_transpose3d and the 3-D pools (max, avg, adaptive, lp) with their modules: values, edges,
errors, saved fields, grad_fn names and reprs against PyTorch (tests/golden/conv3d.json; cases in
tests/cases_conv3d.py), forward values against a numpy reference, gradients and gradients of gradients against
finite differences in float64, and the modules' default initialisation."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_conv3d import CASES
from helpers import first_gradient, gradcheck
from recorded import check, expected

EXPECTED = expected("conv3d", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _numpy_conv3d(x, w, b, stride, padding, dilation, groups):
    """The 3-D cross-correlation by its definition: every output a sum over its window's taps."""
    n, c, *vol = x.shape
    o, cg, *k = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out = [(vol[d] + 2 * padding[d] - dilation[d] * (k[d] - 1) - 1) // stride[d] + 1 for d in range(3)]
    y = np.zeros((n, o, *out))
    per_group = o // groups
    for oc in range(o):
        g = oc // per_group
        for a in range(k[0]):
            for b_ in range(k[1]):
                for e in range(k[2]):
                    starts = [t * dilation[d] for d, t in enumerate((a, b_, e))]
                    window = xp[
                        :,
                        g * cg : (g + 1) * cg,
                        starts[0] : starts[0] + stride[0] * (out[0] - 1) + 1 : stride[0],
                        starts[1] : starts[1] + stride[1] * (out[1] - 1) + 1 : stride[1],
                        starts[2] : starts[2] + stride[2] * (out[2] - 1) + 1 : stride[2],
                    ]
                    y[:, oc] += np.einsum("ncdhw,c->ndhw", window, w[oc, :, a, b_, e])
    if b is not None:
        y += b.reshape(1, o, 1, 1, 1)
    return y


CONV_GRID = [
    dict(stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1),
    dict(stride=(2, 1, 3), padding=(1, 0, 2), dilation=(1, 1, 1), groups=1),
    dict(stride=(1, 2, 1), padding=(2, 1, 1), dilation=(2, 1, 2), groups=2),
    dict(stride=(3, 3, 2), padding=(1, 1, 0), dilation=(1, 2, 1), groups=4),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CONV_GRID)
def test_conv3d_against_numpy(rng, dtype, kw):
    x = rng.uniform(-1, 1, (2, 4, 6, 7, 5))
    w = rng.uniform(-1, 1, (8, 4 // kw["groups"], 3, 2, 3))
    b = rng.uniform(-1, 1, 8)
    want = _numpy_conv3d(x, w, b, **kw)
    t = getattr(fg, dtype)
    got = F.conv3d(fg.tensor(x, dtype=t), fg.tensor(w, dtype=t), fg.tensor(b, dtype=t), **kw)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), want, **tol)


def test_conv_transpose3d_is_the_adjoint_of_conv3d(rng):
    """<conv3d(x, w), y> = <x, conv_transpose3d(y, w)> for every window, groups included."""
    for kw in CONV_GRID:
        x = rng.uniform(-1, 1, (2, 4, 6, 7, 5))
        w = rng.uniform(-1, 1, (8, 4 // kw["groups"], 3, 2, 3))
        y = _numpy_conv3d(x, w, None, **kw)
        g = rng.uniform(-1, 1, y.shape)
        vol = x.shape[2:]
        sizes = [
            (y.shape[2 + d] - 1) * kw["stride"][d] - 2 * kw["padding"][d] + kw["dilation"][d] * (w.shape[2 + d] - 1) + 1
            for d in range(3)
        ]
        output_padding = [v - s for v, s in zip(vol, sizes)]
        back = F.conv_transpose3d(fg.tensor(g), fg.tensor(w), None, output_padding=output_padding, **kw)
        assert list(back.shape) == list(x.shape)
        np.testing.assert_allclose(float((y * g).sum()), float((x * back.numpy()).sum()), rtol=1e-10)


GRADCHECKED = [
    pytest.param(lambda x, w, b: F.conv3d(x, w, b), [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,)], id="conv3d"),
    pytest.param(
        lambda x, w, b: F.conv3d(x, w, b, (2, 1, 2), (1, 0, 1), (1, 2, 1), 2),
        [(2, 4, 3, 4, 3), (2, 2, 2, 2, 2), (2,)],
        id="conv3d_strided_groups",
    ),
    pytest.param(lambda x, w: F.conv3d(x, w, padding="same"), [(2, 3, 3, 2), (1, 2, 2, 3, 2)], id="conv3d_same"),
    pytest.param(
        lambda x, w, b: F.conv_transpose3d(x, w, b, 2, 1, 1),
        [(1, 2, 2, 2, 2), (2, 2, 2, 2, 2), (2,)],
        id="conv_transpose3d",
    ),
    pytest.param(
        lambda x, w: F.conv_transpose3d(x, w, None, 1, 0, (1, 0, 0), 2, (2, 1, 1)),
        [(1, 4, 2, 2, 2), (4, 1, 2, 2, 1)],
        id="conv_transpose3d_groups_dilation",
    ),
    pytest.param(lambda x: F.max_pool3d(x, 2, 1, 1), [(1, 2, 3, 3, 3)], id="max_pool3d"),
    pytest.param(lambda x: F.avg_pool3d(x, 3, 2, 1, True, False), [(1, 2, 4, 3, 5)], id="avg_pool3d"),
    pytest.param(lambda x: F.avg_pool3d(x, 2, 1, divisor_override=3), [(2, 3, 3, 3)], id="avg_pool3d_divisor"),
    pytest.param(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [(1, 2, 3, 4, 5)], id="adaptive_avg_pool3d"),
    pytest.param(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), [(1, 2, 3, 4, 5)], id="adaptive_max_pool3d"),
    pytest.param(lambda x: F.lp_pool3d(x, 2, 2, 1), [(1, 2, 3, 3, 3)], id="lp_pool3d"),
]


@pytest.mark.parametrize("f, shapes", GRADCHECKED)
def test_gradcheck(rng, f, shapes):
    # distinct values a few finite-difference steps apart: no window of a max pool holds a near-tie
    inputs = [rng.permutation(math.prod(s)).reshape(s) / 7.0 + 0.5 for s in shapes]
    gradcheck(f, inputs)


SECOND_ORDER = [
    pytest.param(lambda x: F.conv3d(x, fg.ones(2, 2, 2, 2, 2, dtype=fg.float64), None, 1, 1), id="conv3d_input"),
    pytest.param(
        lambda w: F.conv3d(fg.arange(54.0, dtype=fg.float64).reshape(1, 2, 3, 3, 3).cos(), w, None, 2, 1),
        id="conv3d_weight",
    ),
    pytest.param(
        lambda x: F.conv_transpose3d(x, fg.ones(2, 3, 2, 2, 2, dtype=fg.float64).cumsum(1), None, 2, 1, 1),
        id="conv_transpose3d",
    ),
    pytest.param(lambda x: F.max_pool3d(x, 2, 1), id="max_pool3d"),
    pytest.param(lambda x: F.avg_pool3d(x, 3, 2, 1), id="avg_pool3d"),
    pytest.param(lambda x: F.adaptive_avg_pool3d(x, (2, 1, 2)), id="adaptive_avg_pool3d"),
]
SECOND_ORDER_SHAPES = {
    "conv3d_input": (1, 2, 3, 3, 3),
    "conv3d_weight": (2, 2, 2, 2, 2),
    "conv_transpose3d": (1, 2, 2, 2, 2),
    "max_pool3d": (1, 1, 3, 3, 3),
    "avg_pool3d": (1, 1, 3, 4, 3),
    "adaptive_avg_pool3d": (1, 1, 3, 3, 4),
}


@pytest.mark.parametrize("f", SECOND_ORDER)
def test_gradient_of_gradient(rng, request, f):
    shape = SECOND_ORDER_SHAPES[request.node.callspec.id]
    gradcheck(first_gradient(f), [rng.permutation(math.prod(shape)).reshape(shape) / 5.0 - 1.0])


def test_conv3d_gradient_of_gradient_reaches_the_weight(rng):
    """The input gradient built with create_graph depends on the weight: its own gradient matches torch's rule."""
    x = fg.tensor(rng.uniform(-1, 1, (1, 2, 3, 3, 3)), requires_grad=True)
    w = fg.tensor(rng.uniform(-1, 1, (2, 2, 2, 2, 2)), requires_grad=True)
    (gx,) = fg.autograd.grad(F.conv3d(x, w).sum(), x, create_graph=True)
    assert gx.grad_fn is not None
    (gw,) = fg.autograd.grad(gx.pow(2).sum(), w)
    # gx = conv_transpose3d(ones, w): its square's weight gradient, by finite differences in one entry
    eps = 1e-6
    w_np = w.detach().numpy().copy()

    def energy(wv):
        g = F.conv_transpose3d(fg.ones(1, 2, 2, 2, 2, dtype=fg.float64), fg.tensor(wv))
        return float(g.pow(2).sum())

    for idx in [(0, 0, 0, 0, 0), (1, 1, 1, 0, 1)]:
        plus, minus = w_np.copy(), w_np.copy()
        plus[idx] += eps
        minus[idx] -= eps
        np.testing.assert_allclose(gw.numpy()[idx], (energy(plus) - energy(minus)) / (2 * eps), rtol=1e-6)


def test_max_pool3d_indices_round_trip(rng):
    """Each index points at the kept value in its volume, and max_unpool3d puts it back there."""
    x = rng.standard_normal((2, 3, 5, 6, 7))
    values, indices = F.max_pool3d(fg.tensor(x), 3, 2, 1, return_indices=True)
    flat = x.reshape(2, 3, -1)
    kept = np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), -1).reshape(values.shape)
    np.testing.assert_array_equal(kept, values.numpy())
    restored = F.max_unpool3d(values, indices, 3, 2, 1, output_size=x.shape[-3:]).numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(restored, indices.numpy().reshape(2, 3, -1), -1), kept.reshape(2, 3, -1)
    )
    # nothing but the kept values: every other position is zero
    assert np.count_nonzero(restored) <= values.numel()


def test_conv3d_default_init():
    """kaiming_uniform(a=√5): weight and bias within ±1/√fan_in, spread over the range."""
    layer = nn.Conv3d(4, 8, (3, 2, 3), groups=2)
    fan_in = 2 * 3 * 2 * 3
    bound = 1 / math.sqrt(fan_in)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert w.shape == (8, 2, 3, 2, 3) and b.shape == (8,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform on ±bound: standard deviation bound/√3, over 288 draws
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound
    assert layer.weight.requires_grad and layer.weight.dtype == fg.float32
    transposed = nn.ConvTranspose3d(4, 6, 2, groups=2)
    # a transposed weight is (in, out/groups, k...): fan_in is its dim 1 times the kernel
    assert np.abs(transposed.weight.detach().numpy()).max() <= 1 / math.sqrt(3 * 8)


def test_modules_train_end_to_end(rng):
    """A small 3-D CNN's parameters all receive gradients of the right shapes."""
    model = nn.Sequential(
        nn.Conv3d(2, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool3d(2),
        nn.ConvTranspose3d(4, 2, 2, stride=2),
        nn.AvgPool3d(2),
        nn.AdaptiveAvgPool3d(1),
    )
    x = fg.tensor(rng.standard_normal((2, 2, 4, 4, 4)), dtype=fg.float32)
    model(x).sum().backward()
    for p in model.parameters():
        assert p.grad is not None and p.grad.shape == p.shape
        assert bool(p.grad.abs().sum() > 0)
