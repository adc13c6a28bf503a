"""The fused attention and layer_norm kernels against the unfused composition of tensor ops (values and
gradients) and finite differences in float64, at the sizes and layouts their vector loops and threads
branch on: non-contiguous views (the char-GPT's split + transpose), lengths off the vector width, causal
with L ≠ S and L = 1, broadcast and strided masks, rows enough to be split across threads."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from test_sdpa_fused import reference as attention_reference

FUSED = "ScaledDotProductFlashAttentionForCpuBackward0"


def gpt_qkv(rng, dtype, batch=2, length=33, heads=3, head=16):
    """q, k, v as the char-GPT makes them: one (B, L, 3·C) projection split and viewed as (B, H, L, D)."""
    c = heads * head
    qkv = fg.tensor(rng.standard_normal((batch, length, 3 * c)), dtype=dtype, requires_grad=True)
    q, k, v = qkv.split(c, dim=2)
    return qkv, [z.view(batch, length, heads, head).transpose(1, 2) for z in (q, k, v)]


def tolerances(dtype):
    return dict(rtol=2e-4, atol=2e-5) if dtype == fg.float32 else dict(rtol=1e-10, atol=1e-12)


def assert_same(got, want, dtype):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), **tolerances(dtype))


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("length", [1, 17, 33])
@pytest.mark.parametrize("is_causal", [True, False])
def test_attention_on_split_views(dtype, length, is_causal, rng):
    qkv, (q, k, v) = gpt_qkv(rng, dtype, length=length)
    assert not q.is_contiguous()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    assert type(out.grad_fn).__name__ == FUSED
    want = attention_reference(q, k, v, is_causal=is_causal)
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
    want = attention_reference(q, k, v, is_causal=True)
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
    want = attention_reference(q, k, v, attn_mask=mask.to(dtype) if kind.startswith("float32") else mask)
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
    attention_reference(*_heads(qkv, 2, 16), is_causal=True).sum().backward()
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
    want = attention_reference(q, k, v, is_causal=True)
    assert_same(out, want, fg.float32)
    g = fg.tensor(rng.standard_normal(shape), dtype=fg.float32)
    for got, exp in zip(fg.autograd.grad(out, [q, k, v], g), fg.autograd.grad(want, [q, k, v], g)):
        assert_same(got, exp, fg.float32)


# ---------------------------------------------------------------------------------------------------------
# layer_norm
# ---------------------------------------------------------------------------------------------------------


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
            got.numpy(), exp.numpy(), **(dict(rtol=1e-3, atol=1e-4) if dtype == fg.float32 else tolerances(dtype))
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
