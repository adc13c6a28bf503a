"""Convolution layers against torch (values recorded by tests/golden/record_conv.py): F.conv_transpose1d/2d,
Conv1d/2d (strides, paddings incl. 'same'/'valid' and the padding modes, dilation, groups, unbatched) and
ConvTranspose1d/2d (output_padding, output_size): forward values, input / weight / bias gradients, reprs.
Gradients also against float64 finite differences; torch's errors for bad input."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import layer_cases as lc
import numpy as np
import pytest
from helpers import golden, gradcheck
from recorded import check

CASES = golden("conv")["cases"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"]["id"] for e in CASES])
def test_against_torch(entry):
    tol = (1e-4, 1e-5) if "float32" in entry["case"]["id"] else None
    check(entry["case"]["id"], lambda: lc.run(entry["case"]), entry["expected"], tol)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"stride": 2, "padding": 1, "output_padding": 1},
        {"groups": 2, "dilation": 2},
        {"stride": 1, "dilation": 2, "output_padding": 1},
    ],
)
def test_conv_transpose2d_gradcheck(kw, rng):
    x, w, b = (
        rng.standard_normal((1, 2, 3, 3)),
        rng.standard_normal((2, 2, 2, 3)),
        rng.standard_normal(2 * kw.get("groups", 1)),
    )
    gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), [x, w, b])


def test_conv_transpose1d_gradcheck(rng):
    x, w, b = rng.standard_normal((2, 2, 4)), rng.standard_normal((2, 3, 3)), rng.standard_normal(3)
    gradcheck(lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1), [x, w, b])


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv2d_padding_modes_gradcheck(mode, rng):
    conv = nn.Conv2d(2, 2, 3, padding=(1, 2), padding_mode=mode, dtype=fg.float64)
    with fg.no_grad():
        conv.weight.copy_(fg.tensor(rng.uniform(-1, 1, (2, 2, 3, 3))))
    gradcheck(lambda x: conv(x), [rng.standard_normal((1, 2, 4, 4))])


def test_circular_pad_gradcheck_and_values(rng):
    x = rng.standard_normal((1, 2, 3, 4))
    gradcheck(lambda t: F.pad(t, (2, 1, -1, 2), mode="circular"), [x])
    out = F.pad(fg.tensor(x), (2, 1, 1, 0), mode="circular").numpy()
    expected = np.concatenate([x[..., -1:, :], x], axis=-2)
    expected = np.concatenate([expected[..., -2:], expected, expected[..., :1]], axis=-1)
    np.testing.assert_array_equal(out, expected)


def test_errors():
    x = fg.randn(64, 3, 32, 32)
    lc.raises(
        RuntimeError,
        "Given groups=1, weight of size [6, 1, 5, 5], expected input[64, 3, 32, 32] to have 1 channels, but got 3 "
        "channels instead",
        lambda: nn.Conv2d(1, 6, 5)(x),
    )
    y = fg.randn(1, 3, 5, 5)
    lc.raises(
        RuntimeError,
        "Given transposed=1, weight of size [4, 2, 3, 3], expected input[1, 3, 5, 5] to have 4 channels, but got 3 "
        "channels instead",
        lambda: F.conv_transpose2d(y, fg.randn(4, 2, 3, 3)),
    )
    lc.raises(
        RuntimeError,
        "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
        "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1",
        lambda: F.conv_transpose2d(y, fg.randn(3, 2, 3, 3), output_padding=1),
    )
    lc.raises(
        RuntimeError,
        "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 3, 3]] "
        "instead",
        lambda: F.conv_transpose2d(y, fg.randn(3, 2, 3, 3), groups=2),
    )
    lc.raises(
        RuntimeError,
        "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [3, 5]",
        lambda: F.conv_transpose2d(fg.randn(3, 5), fg.randn(3, 2, 3, 3)),
    )
    lc.raises(
        RuntimeError,
        "Given transposed=1, weight of size [3, 2, 3, 3], expected bias to be 1-dimensional with 2 elements, but got "
        "bias of size [3] instead",
        lambda: F.conv_transpose2d(y, fg.randn(3, 2, 3, 3), bias=fg.randn(3)),
    )
    lc.raises(
        RuntimeError,
        "Given input size per channel: (1 x 1). Calculated output size per channel: (-3 x -3). Output size is too "
        "small",
        lambda: F.conv_transpose2d(fg.randn(1, 3, 1, 1), fg.randn(3, 2, 3, 3), padding=3),
    )
    lc.raises(
        RuntimeError,
        "negative padding is not supported",
        lambda: F.conv_transpose1d(fg.randn(1, 3, 5), fg.randn(3, 2, 3), padding=-1),
    )
    lc.raises(
        RuntimeError,
        "non-positive stride is not supported",
        lambda: F.conv_transpose1d(fg.randn(1, 3, 5), fg.randn(3, 2, 3), stride=0),
    )
    lc.raises(
        RuntimeError,
        "dilation should be greater than zero, but got dilation_height: 1, dilation_width: 0",
        lambda: F.conv_transpose1d(fg.randn(1, 3, 5), fg.randn(3, 2, 3), dilation=0),
    )
    lc.raises(ValueError, "in_channels must be divisible by groups", lambda: nn.Conv2d(3, 4, 3, groups=2))
    lc.raises(ValueError, "out_channels must be divisible by groups", lambda: nn.Conv2d(4, 3, 3, groups=2))
    lc.raises(ValueError, "groups must be a positive integer", lambda: nn.Conv1d(4, 4, 3, groups=0))
    lc.raises(
        ValueError, "padding='same' is not supported for strided convolutions", lambda: nn.Conv2d(1, 1, 3, 2, "same")
    )
    lc.raises(ValueError, "Invalid padding string 'full'", lambda: nn.Conv2d(1, 1, 3, padding="full"))
    lc.raises(ValueError, "padding_mode must be one of", lambda: nn.Conv2d(1, 1, 3, padding_mode="wrap"))
    lc.raises(
        ValueError,
        'Only "zeros" padding mode is supported for ConvTranspose2d',
        lambda: nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"),
    )
    lc.raises(
        ValueError,
        "requested an output size of [9, 9], but valid sizes range from [7, 7] to [8, 8]",
        lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)(fg.randn(1, 3, 4, 4), output_size=[9, 9]),
    )


def test_defaults_and_init(seeded):
    conv = nn.Conv2d(4, 6, (3, 2))
    assert conv.weight.shape == (6, 4, 3, 2) and conv.bias.shape == (6,)
    bound = 1 / np.sqrt(4 * 3 * 2)  # kaiming_uniform(a=sqrt(5)) and the bias: uniform(±1/sqrt(fan_in))
    assert np.abs(conv.weight.detach().numpy()).max() <= bound and np.abs(conv.bias.detach().numpy()).max() <= bound
    assert np.abs(conv.weight.detach().numpy()).max() > 0.5 * bound
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert t.weight.shape == (4, 3, 3, 3)  # (in, out / groups, k, k); fan_in = weight.size(1) * k * k
    assert np.abs(t.bias.detach().numpy()).max() <= 1 / np.sqrt(3 * 9)
    assert [n for n, _ in nn.Conv1d(2, 3, 3, bias=False).named_parameters()] == ["weight"]
    assert nn.Conv2d(2, 3, 3, dtype=fg.float64).weight.dtype == fg.float64
