"""The fused layer_norm kernel (one pass a row) against the unfused composition of tensor ops (values and
gradients) and finite differences in float64: every affine combination, rows off the vector width, rows
enough to be split across threads, non-contiguous input and constant rows."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from helpers import assert_same, fused_tolerances


def layer_norm_reference(x, k, w=None, b=None, eps=1e-5):
    dims = list(range(x.dim() - k, x.dim()))
    mean = x.mean(dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dims, keepdim=True)
    out = (x - mean) / (var + eps).sqrt()
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out


LN_SHAPES = {
    "gpt": ((8, 32, 64), (64,)),
    "odd": ((3, 5, 7), (5, 7)),
    "threaded": ((300, 256), (256,)),
    "one_row": ((13,), (13,)),
    # the kernel's sums take 32 elements at a time, then 8, then one: 45 = 32 + 8 + 5 reaches every path
    "wide_narrow_tail": ((6, 45), (45,)),
}


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("shape", list(LN_SHAPES))
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_matches_composition(dtype, shape, affine, rng):
    xs, normalized = LN_SHAPES[shape]
    x = fg.tensor(rng.standard_normal(xs) * 3 + 1, dtype=dtype, requires_grad=True)
    w = (
        fg.tensor(rng.standard_normal(normalized), dtype=dtype, requires_grad=True)
        if affine in ("both", "weight")
        else None
    )
    b = (
        fg.tensor(rng.standard_normal(normalized), dtype=dtype, requires_grad=True)
        if affine in ("both", "bias")
        else None
    )
    out = F.layer_norm(x, normalized, w, b)
    want = layer_norm_reference(x, len(normalized), w, b)
    assert_same(out, want, dtype)
    inputs = [t for t in (x, w, b) if t is not None]
    g = fg.tensor(rng.standard_normal(xs), dtype=dtype)
    for got, exp in zip(fg.autograd.grad(out, inputs, g), fg.autograd.grad(want, inputs, g)):
        np.testing.assert_allclose(
            got.numpy(), exp.numpy(), **(dict(rtol=1e-3, atol=1e-4) if dtype == fg.float32 else fused_tolerances(dtype))
        )


def test_layer_norm_non_contiguous_and_constant_rows(rng):
    x = fg.tensor(rng.standard_normal((6, 4)), requires_grad=True)
    xt = x.t()  # (4, 6), rows strided
    w, b = fg.tensor(rng.standard_normal(6), requires_grad=True), fg.tensor(rng.standard_normal(6), requires_grad=True)
    assert_same(F.layer_norm(xt, (6,), w, b), layer_norm_reference(xt, 1, w, b), fg.float64)
    assert gradcheck(lambda a, ww, bb: F.layer_norm(a.t(), (6,), ww, bb), [x, w, b])
    const = fg.full((3, 5), 2.5, dtype=fg.float64, requires_grad=True)
    out = F.layer_norm(const, (5,))
    np.testing.assert_array_equal(out.detach().numpy(), np.zeros((3, 5)))
    up = fg.tensor(rng.standard_normal((3, 5)))
    (g,) = fg.autograd.grad(out, const, up)
    (want,) = fg.autograd.grad(layer_norm_reference(const, 1), const, up)
    # zero variance: dx = (g - mean(g)) / sqrt(eps)
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(g.numpy(), (up.numpy() - up.numpy().mean(1, keepdims=True)) / math.sqrt(1e-5), rtol=1e-9)


def test_layer_norm_recorded_backward_equals_kernel_backward(rng):
    """create_graph takes the tensor-op backward; its first derivative is the kernel's."""
    x = fg.tensor(rng.standard_normal((4, 8)), requires_grad=True)
    w = fg.tensor(rng.standard_normal(8), requires_grad=True)
    g = fg.tensor(rng.standard_normal((4, 8)))
    plain = fg.autograd.grad(F.layer_norm(x, (8,), w), [x, w], g)
    recorded = fg.autograd.grad(F.layer_norm(x, (8,), w), [x, w], g, create_graph=True)
    for a, r in zip(plain, recorded):
        np.testing.assert_allclose(a.numpy(), r.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert gradcheck(
        lambda a, ww: F.layer_norm(a, (2, 8), ww.expand(2, 8)), [x.detach()[:2].unsqueeze(0).requires_grad_(), w]
    )
