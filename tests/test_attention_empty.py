"""F.scaled_dot_product_attention at zero sizes, as torch: heads of width 0 (E = 0 scores every key 0, so each
query gets the mean of the values; Ev = 0 gives an empty output), no keys (S = 0: zeros), no queries (L = 0),
on the fused 4-D path and the composed 3-D/2-D one; and torch's error for inputs below 2-D. Values from numpy."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest

SHAPES = [
    # (query, key, value)
    ((2, 3, 0), (2, 4, 0), (2, 4, 5)),
    ((1, 2, 3, 0), (1, 2, 4, 0), (1, 2, 4, 5)),
    ((3, 0), (4, 0), (4, 5)),
    ((1, 2, 3, 0), (1, 2, 4, 0), (1, 2, 4, 0)),
    ((2, 3, 2), (2, 4, 2), (2, 4, 0)),
    ((1, 1, 3, 2), (1, 1, 0, 2), (1, 1, 0, 5)),
    ((2, 3, 0), (2, 0, 0), (2, 0, 5)),
    ((1, 1, 0, 2), (1, 1, 4, 2), (1, 1, 4, 5)),
    ((1, 1, 0, 0), (1, 1, 4, 0), (1, 1, 4, 0)),
]


def sdpa_np(q, k, v, mask=None):
    """softmax(q kᵀ / sqrt(E)) v, with rows that see no key (S = 0 or all masked) giving zeros."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    live = np.isfinite(scores).any(-1, keepdims=True)
    weights = np.exp(scores - np.where(live, scores, 0).max(-1, keepdims=True, initial=0.0))
    weights = np.where(live, weights / np.where(live, weights.sum(-1, keepdims=True), 1), 0.0)
    return weights @ v


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_sizes(shapes, dtype, rng):
    q, k, v = (rng.standard_normal(s) for s in shapes)
    tq, tk, tv = (fg.tensor(a, dtype=getattr(fg, dtype), requires_grad=True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(tq, tk, tv)
    want = sdpa_np(q, k, v)
    assert tuple(out.shape) == want.shape and out.dtype == getattr(fg, dtype)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert tuple(tq.grad.shape) == q.shape and tuple(tk.grad.shape) == k.shape
    if q.shape[-1] == 0 and k.shape[-2] > 0:
        # every query weighs each key 1/S: dL/dv = L/S everywhere
        np.testing.assert_allclose(tv.grad.numpy(), np.full(v.shape, q.shape[-2] / k.shape[-2]), rtol=1e-6)
    assert np.isfinite(tv.grad.numpy()).all()


def test_zero_width_heads_with_masks_and_causal(rng):
    q, k, v = np.ones((2, 3, 0)), np.ones((2, 4, 0)), rng.standard_normal((2, 4, 5))
    tq, tk, tv = fg.tensor(q), fg.tensor(k), fg.tensor(v)
    mask = np.array([True, False, True, False])
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=fg.tensor(mask))
    np.testing.assert_allclose(out.numpy(), sdpa_np(q, k, v, mask), rtol=1e-12)
    none = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=fg.zeros(4, dtype=fg.bool))
    np.testing.assert_array_equal(none.numpy(), np.zeros((2, 3, 5)))
    causal = F.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    np.testing.assert_allclose(causal.numpy(), sdpa_np(q, k, v, np.tril(np.ones((3, 4), bool))), rtol=1e-12)
    scaled = F.scaled_dot_product_attention(tq, tk, tv, scale=2.0)
    np.testing.assert_allclose(scaled.numpy(), sdpa_np(q, k, v), rtol=1e-12)


@pytest.mark.parametrize(
    "shapes,dims",
    [(((3,), (3,), (3,)), (1, 1, 1)), (((), (), ()), (0, 0, 0)), (((3, 2), (4,), (4, 5)), (2, 1, 2))],
)
def test_inputs_below_2d(shapes, dims):
    q, k, v = (fg.ones(s) for s in shapes)
    message = (
        "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {} key.dim: {} and "
        "value.dim: {} instead.".format(*dims)
    )
    with pytest.raises(RuntimeError, match=f"^{message}$".replace(".", r"\.")):
        F.scaled_dot_product_attention(q, k, v)
