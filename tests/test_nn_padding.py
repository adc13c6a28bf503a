"""Padding layers and F.pad's modes: forwards against numpy's np.pad (constant, reflect, edge, wrap; negative
pads crop first) over 1 to 3 padded dims and strided inputs, gradcheck of each mode in float64, and the
layers' reprs, forwards and errors against PyTorch (tests/golden/padding.json; cases in
tests/cases_padding.py)."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_padding import CASES
from helpers import assert_tensor, gradcheck
from recorded import check, expected

EXPECTED = expected("padding", CASES)
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def pad_np(a, pad, mode, value=0.0):
    """F.pad's meaning in numpy: pad lists (before, after) from the last dim back; negative amounts crop. As in
    torch, circular padding wraps what is left after cropping; the other modes pad the whole input, then crop."""
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    positive = [(max(b, 0), max(e, 0)) for b, e in widths]
    kw = {"constant_values": value} if mode == "constant" else {}

    def crop(x):
        return x[tuple(slice(max(-b, 0), x.shape[d] - max(-e, 0)) for d, (b, e) in enumerate(widths))]

    if mode == "circular":
        return np.pad(crop(a), positive, mode="wrap")
    return crop(np.pad(a, positive, mode=NP_MODE[mode], **kw))


PADS = {
    1: [(1, 2), (3, 0), (-1, 2), (2, -1)],
    2: [(1, 2, 2, 1), (0, 3, 1, 0), (-1, 1, 2, -1)],
    3: [(1, 1, 1, 1, 1, 1), (2, 0, 0, 1, 1, 2), (-1, 1, 1, 0, 0, -1)],
}
CASES_NP = [(mode, k, pad) for mode in NP_MODE for k, pads in PADS.items() for pad in pads]


@pytest.mark.parametrize("mode,k,pad", CASES_NP)
def test_pad_against_numpy(mode, k, pad, rng):
    for batch in (True, False):
        shape = (2, 3, 4, 5, 4)[: k + 2] if batch else (3, 4, 5, 4)[: k + 1]
        x = rng.uniform(-1, 1, shape)
        want = pad_np(x, pad, mode)
        assert_tensor(F.pad(fg.tensor(x), pad, mode=mode), want, dtype="float64")
        # a transposed (strided) input reads the same values
        xt = fg.tensor(np.ascontiguousarray(np.swapaxes(x, 0, -1))).transpose(0, -1)
        assert_tensor(F.pad(xt, pad, mode=mode), want)
        assert_tensor(F.pad(fg.tensor(x, dtype=fg.float32), pad, mode=mode), want, dtype="float32")


@pytest.mark.parametrize("mode,k,pad", [c for c in CASES_NP if c[2] == PADS[c[1]][-1] or c[2] == PADS[c[1]][0]])
def test_pad_gradcheck(mode, k, pad, rng):
    x = rng.uniform(-1, 1, (2, 3, 4, 5, 4)[: k + 2])
    gradcheck(lambda a: F.pad(a, pad, mode=mode), [x])


@pytest.mark.parametrize(
    "layer,mode,k",
    [
        (nn.ReflectionPad1d, "reflect", 1),
        (nn.ReflectionPad2d, "reflect", 2),
        (nn.ReflectionPad3d, "reflect", 3),
        (nn.ReplicationPad1d, "replicate", 1),
        (nn.ReplicationPad2d, "replicate", 2),
        (nn.ReplicationPad3d, "replicate", 3),
        (nn.CircularPad1d, "circular", 1),
        (nn.CircularPad2d, "circular", 2),
        (nn.CircularPad3d, "circular", 3),
        (nn.ZeroPad1d, "constant", 1),
        (nn.ZeroPad2d, "constant", 2),
        (nn.ZeroPad3d, "constant", 3),
    ],
)
def test_layers_against_numpy_and_gradcheck(layer, mode, k, rng):
    pad = PADS[k][0]
    m = layer(pad)
    x = rng.uniform(-1, 1, (2, 3, 4, 5, 4)[: k + 2])
    assert_tensor(m(fg.tensor(x)), pad_np(x, pad, mode))
    gradcheck(m, [x])
    assert m.padding == tuple(pad)
    assert layer(2).padding == (2,) * (2 * k)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_constant_layers(k, rng):
    layer = getattr(nn, f"ConstantPad{k}d")(PADS[k][0], -2.5)
    x = rng.uniform(-1, 1, (2, 3, 4, 5, 4)[: k + 2])
    assert_tensor(layer(fg.tensor(x)), pad_np(x, PADS[k][0], "constant", -2.5))
    assert isinstance(getattr(nn, f"ZeroPad{k}d")(1), getattr(nn, f"ConstantPad{k}d"))


def test_circular_cropped_below_its_padding_is_refused():
    """torch's slice copies overlap here (its error names the overlap, or it reads uninitialised memory):
    a RuntimeError, with nothing written."""
    x = fg.tensor(np.arange(4.0).reshape(1, 1, 4))
    for pad in ((3, -2), (-2, 3)):
        with pytest.raises(RuntimeError):
            F.pad(x, pad, mode="circular")
    np.testing.assert_array_equal(x.numpy(), np.arange(4.0).reshape(1, 1, 4))


def test_circular_gradient_counts_each_read():
    x = fg.ones(1, 1, 3, dtype=fg.float64, requires_grad=True)
    F.pad(x, (3, 2), mode="circular").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[3.0, 3.0, 2.0]]])
