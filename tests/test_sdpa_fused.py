"""F.scaled_dot_product_attention's no-dropout path as one node (torch's CPU flash path): values and gradients
against the composition written out here, gradcheck / gradgradcheck, and which calls record the one node."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from helpers import AGAINST_TORCH

FUSED = "ScaledDotProductFlashAttentionForCpuBackward0"


def reference(q, k, v, attn_mask=None, is_causal=False, scale=None):
    """softmax(q·kᵀ·scale + mask)·v with tensor ops; rows masked everywhere give zeros."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = (q @ k.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = fg.ones(q.shape[-2], k.shape[-2], dtype=fg.bool).tril()
    if attn_mask is not None and attn_mask.dtype == fg.bool:
        s = s.masked_fill(attn_mask.logical_not(), float("-inf"))
    elif attn_mask is not None:
        s = s + attn_mask
    live = (s != float("-inf")).any(-1, keepdim=True)
    return fg.where(live, fg.where(live, s, 0.0).softmax(-1), 0.0) @ v


def inputs(rng, dtype, batch=(2, 3), length=4, source=5, e=6, ev=6):
    shapes = [(*batch, length, e), (*batch, source, e), (*batch, source, ev)]
    return [fg.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]


def mask_for(kind, rng, length, source, dtype):
    if kind == "bool":
        return fg.tensor(rng.uniform(size=(length, source)) > 0.3)
    if kind == "fully_masked":
        m = rng.uniform(size=(2, 1, length, source)) > 0.3
        m[0, 0, length - 1] = False
        m[1, 0, 0] = False
        return fg.tensor(m)
    if kind == "float":
        return fg.tensor(rng.standard_normal((length, source)), dtype=dtype)
    if kind == "float_inf":
        m = rng.standard_normal((2, 3, length, source))
        m[1, 2, length - 1] = -np.inf  # a float mask can mask a row everywhere too
        return fg.tensor(m, dtype=dtype)
    return None


KINDS = ["none", "causal", "bool", "fully_masked", "float", "float_inf"]
SHAPES = [dict(), dict(length=5, source=5), dict(length=1, source=7, e=3, ev=3), dict(length=6, source=2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_fused_equals_composition(dtype, kind, shape, rng):
    dt = getattr(fg, dtype)
    q, k, v = inputs(rng, dt, **SHAPES[shape])
    mask = mask_for(kind, rng, q.shape[-2], k.shape[-2], dt)
    kw = {"is_causal": True} if kind == "causal" else {"attn_mask": mask}
    out = F.scaled_dot_product_attention(q, k, v, scale=0.4, **kw)
    assert type(out.grad_fn).__name__ == FUSED
    assert out.grad_fn.name() == FUSED
    g = fg.tensor(rng.standard_normal(tuple(out.shape)), dtype=dt)
    grads = fg.autograd.grad(out, [q, k, v], g)
    want = reference(q, k, v, scale=0.4, **kw)
    want_grads = fg.autograd.grad(want, [q, k, v], g)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), **tol)
    for got, exp in zip(grads, want_grads):
        assert np.isfinite(got.numpy()).all()
        np.testing.assert_allclose(got.numpy(), exp.numpy(), **tol)
    if kind == "fully_masked":
        assert (out.detach().numpy()[0, :, -1] == 0).all()


def test_saved_fields(rng):
    q, k, v = inputs(rng, fg.float32)
    node = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5).grad_fn
    assert node._saved_scale == 0.5
    assert node._saved_is_causal is True
    assert node._saved_dropout_p == 0.0
    assert node._saved_query.shape == q.shape and node._saved_value.shape == v.shape
    assert node._saved_key.shape == k.shape and node._saved_output.shape == q.shape
    assert tuple(node._saved_logsumexp.shape)[:3] == (2, 3, 4)


@pytest.mark.parametrize("kind", KINDS)
def test_gradcheck_and_gradgradcheck(kind, rng):
    q, k, v = inputs(rng, fg.float64, batch=(1, 2), length=3, source=4, e=2, ev=2)
    mask = mask_for(kind if kind != "float_inf" else "float", rng, 3, 4, fg.float64)
    if kind == "fully_masked":
        mask = mask[:1]
    kw = {"is_causal": True} if kind == "causal" else {"attn_mask": mask}
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw)
    assert gradcheck(fn, (q, k, v))
    if AGAINST_TORCH:
        # torch's flash node has no double backward; ferrograd's backward is recorded tensor ops
        with pytest.raises(RuntimeError, match="derivative for .*flash_attention_for_cpu_backward is not implemented"):
            gradgradcheck(fn, (q, k, v))
    else:
        assert gradgradcheck(fn, (q, k, v))


@pytest.mark.parametrize(
    "case",
    ["3d", "ev_differs", "broadcast_batch", "mask_requires_grad", "dropout"],
)
def test_composition_where_torch_composes(case, rng, seeded):
    dt = fg.float64
    q, k, v = inputs(rng, dt)
    kw = {}
    if case == "3d":
        q, k, v = (t.detach()[0].requires_grad_() for t in (q, k, v))
    elif case == "ev_differs":
        q, k, v = inputs(rng, dt, ev=3)
    elif case == "broadcast_batch":
        k, v = (t.detach()[:1].requires_grad_() for t in (k, v))
    elif case == "mask_requires_grad":
        kw["attn_mask"] = fg.tensor(rng.standard_normal((4, 5)), dtype=dt, requires_grad=True)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5 if case == "dropout" else 0.0, **kw)
    assert type(out.grad_fn).__name__ != FUSED
    if case != "dropout":
        np.testing.assert_allclose(out.detach().numpy(), reference(q, k, v, **kw).detach().numpy(), rtol=1e-10)
    if case == "mask_requires_grad":
        out.sum().backward()
        assert kw["attn_mask"].grad is not None and np.isfinite(kw["attn_mask"].grad.numpy()).all()
