"""F.scaled_dot_product_attention's fused kernel (torch's CPU flash path, one node): values and gradients
against the composition written out here, gradcheck / gradgradcheck, which calls record the one node, and the
sizes and layouts its vector loops and threads branch on: non-contiguous views (the char-GPT's split +
transpose), lengths off the vector width, causal with L ≠ S and L = 1, broadcast and strided masks, rows
enough to be split across threads."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from helpers import AGAINST_TORCH, assert_same

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


# the fused kernel on the char-GPT's views, masks and threaded sizes


def gpt_qkv(rng, dtype, batch=2, length=33, heads=3, head=16):
    """q, k, v as the char-GPT makes them: one (B, L, 3·C) projection split and viewed as (B, H, L, D)."""
    c = heads * head
    qkv = fg.tensor(rng.standard_normal((batch, length, 3 * c)), dtype=dtype, requires_grad=True)
    q, k, v = qkv.split(c, dim=2)
    return qkv, [z.view(batch, length, heads, head).transpose(1, 2) for z in (q, k, v)]


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("length", [1, 17, 33])
@pytest.mark.parametrize("is_causal", [True, False])
def test_attention_on_split_views(dtype, length, is_causal, rng):
    qkv, (q, k, v) = gpt_qkv(rng, dtype, length=length)
    assert not q.is_contiguous()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    assert type(out.grad_fn).__name__ == FUSED
    want = reference(q, k, v, is_causal=is_causal)
    assert_same(out, want, dtype)
    g = fg.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype)
    (got,) = fg.autograd.grad(out, qkv, g)
    (expected,) = fg.autograd.grad(want, qkv, g)
    assert_same(got, expected, dtype)
    if is_causal:
        # row 0 sees only key 0: its output is value 0's row exactly
        np.testing.assert_array_equal(out.detach().numpy()[:, :, 0], v.detach().numpy()[:, :, 0])


def test_output_layout_follows_the_query(rng):
    """torch's flash path: a query split from one (B, L, 3·C) projection gives an output laid out (B, L, H, E)
    (so `.transpose(1, 2)` is contiguous), a contiguous (B, H, L, E) query a contiguous output."""
    _, (q, k, v) = gpt_qkv(rng, fg.float32, batch=2, length=5, heads=3, head=4)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out.stride() == (60, 4, 12, 1) and out.transpose(1, 2).is_contiguous()
    q, k, v = (t.contiguous() for t in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.stride() == (60, 20, 4, 1)


@pytest.mark.parametrize("length,source", [(5, 3), (3, 5), (1, 1), (1, 4)])
def test_causal_when_lengths_differ(length, source, rng):
    shapes = [(2, 2, length, 4), (2, 2, source, 4), (2, 2, source, 4)]
    q, k, v = (fg.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    want = reference(q, k, v, is_causal=True)
    assert_same(out, want, fg.float64)
    g = fg.tensor(rng.standard_normal(tuple(out.shape)))
    for got, exp in zip(fg.autograd.grad(out, [q, k, v], g), fg.autograd.grad(want, [q, k, v], g)):
        assert_same(got, exp, fg.float64)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [q, k, v])


@pytest.mark.parametrize("kind", ["per_head", "transposed", "bool_broadcast", "float32_mask_on_float64"])
def test_masks_broadcast_and_strided(kind, rng):
    dtype = fg.float64
    qkv, (q, k, v) = gpt_qkv(rng, dtype, batch=2, length=6, heads=2, head=3)
    if kind == "per_head":
        mask = fg.tensor(rng.standard_normal((1, 2, 6, 6)), dtype=dtype)
    elif kind == "transposed":
        mask = fg.tensor(rng.standard_normal((6, 6)), dtype=dtype).t()
        assert not mask.is_contiguous()
    elif kind == "bool_broadcast":
        keep = rng.uniform(size=(2, 1, 6, 6)) > 0.4
        keep[0, 0, 2] = False  # a row masked everywhere: zeros out, no NaN in the gradient
        mask = fg.tensor(keep)
    else:
        mask = fg.tensor(rng.standard_normal((6, 6)), dtype=fg.float32)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    want = reference(q, k, v, attn_mask=mask.to(dtype) if kind.startswith("float32") else mask)
    tol = fg.float32 if kind.startswith("float32") else dtype
    assert_same(out, want, tol)
    g = fg.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype)
    (got,) = fg.autograd.grad(out, qkv, g)
    (expected,) = fg.autograd.grad(want, qkv, g)
    assert np.isfinite(got.numpy()).all()
    assert_same(got, expected, tol)
    if not kind.startswith("float32"):
        assert gradcheck(lambda t: F.scaled_dot_product_attention(*_heads(t, 2, 3), attn_mask=mask), [qkv])


def _heads(qkv, heads, head):
    b, n, _ = qkv.shape
    return [z.view(b, n, heads, head).transpose(1, 2) for z in qkv.split(heads * head, dim=2)]


def test_attention_gradient_of_expanded_output_grad(rng):
    """`.sum().backward()` hands the node an expanded (stride 0) gradient."""
    qkv, (q, k, v) = gpt_qkv(rng, fg.float32, batch=1, length=9, heads=2, head=16)
    F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    got = qkv.grad.numpy().copy()
    qkv.grad = None
    reference(*_heads(qkv, 2, 16), is_causal=True).sum().backward()
    np.testing.assert_allclose(got, qkv.grad.numpy(), rtol=2e-4, atol=2e-5)


def test_attention_gradcheck_on_views(rng):
    qkv, _ = gpt_qkv(rng, fg.float64, batch=1, length=4, heads=2, head=3)
    assert gradcheck(lambda t: F.scaled_dot_product_attention(*_heads(t, 2, 3), is_causal=True), [qkv])
    assert gradcheck(lambda t: F.scaled_dot_product_attention(*_heads(t, 2, 3), scale=0.3), [qkv])


def test_attention_large_enough_to_thread(rng):
    """Enough heads × L × S × E for the kernel to split heads across threads."""
    shape = (4, 8, 64, 32)
    q, k, v = (fg.tensor(rng.standard_normal(shape), dtype=fg.float32, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    want = reference(q, k, v, is_causal=True)
    assert_same(out, want, fg.float32)
    g = fg.tensor(rng.standard_normal(shape), dtype=fg.float32)
    for got, exp in zip(fg.autograd.grad(out, [q, k, v], g), fg.autograd.grad(want, [q, k, v], g)):
        assert_same(got, exp, fg.float32)
