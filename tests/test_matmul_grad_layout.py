"""The gradients of a matrix product's factors come out in each factor's memory order (as PyTorch's
mm_mat1/mm_mat2_backward), so a leaf used transposed (Linear's weight) gets a row-major .grad; values
against numpy for every layout of both factors, with mm, addmm and F.linear."""

import ferrograd as fg
import numpy as np
import pytest


def leaf(a, transposed):
    """A leaf holding `a`, and the matrix used in the product (its transpose view when `transposed`)."""
    t = fg.tensor((a.T if transposed else a).copy(), requires_grad=True)
    return t, (t.t() if transposed else t)


@pytest.mark.parametrize("a_t", [False, True])
@pytest.mark.parametrize("b_t", [False, True])
@pytest.mark.parametrize("op", ["mm", "addmm"])
def test_factor_gradients_in_every_layout(a_t, b_t, op):
    r = np.random.default_rng(3)
    a, b, w = r.standard_normal((4, 3)), r.standard_normal((3, 5)), r.standard_normal((4, 5))
    a_leaf, a_used = leaf(a, a_t)
    b_leaf, b_used = leaf(b, b_t)
    out = a_used.mm(b_used) if op == "mm" else fg.addmm(fg.zeros(5, dtype=fg.float64), a_used, b_used)
    (out * fg.tensor(w)).sum().backward()
    ga, gb = w @ b.T, a.T @ w
    np.testing.assert_allclose(a_leaf.grad.numpy(), ga.T if a_t else ga, rtol=1e-12)
    np.testing.assert_allclose(b_leaf.grad.numpy(), gb.T if b_t else gb, rtol=1e-12)
    assert a_leaf.grad.is_contiguous() and b_leaf.grad.is_contiguous()


def test_linear_weight_grad_is_row_major_and_right():
    r = np.random.default_rng(4)
    x, w, bias, g = (r.standard_normal(s) for s in ((6, 3), (2, 3), (2,), (6, 2)))
    weight = fg.tensor(w, requires_grad=True)
    xt = fg.tensor(x, requires_grad=True)
    out = fg.nn.functional.linear(xt, weight, fg.tensor(bias))
    out.backward(fg.tensor(g))
    assert weight.grad.is_contiguous() and weight.grad.stride() == (3, 1)
    np.testing.assert_allclose(weight.grad.numpy(), g.T @ x, rtol=1e-12)
    np.testing.assert_allclose(xt.grad.numpy(), g @ w, rtol=1e-12)


@pytest.mark.parametrize("k", [256, 512])
def test_products_with_strided_right_factors_match_numpy(k):
    """Right factors whose columns sit a multiple of 256 elements apart: a Linear-style `w.t()` (copied
    dense before the product) and a column broadcast (stride 0, which must not be), against numpy."""
    r = np.random.default_rng(k)
    a = r.standard_normal((40, k)).astype(np.float32)
    w = r.standard_normal((48, k)).astype(np.float32)
    v = r.standard_normal(k).astype(np.float32)
    x = fg.tensor(a)
    wide = fg.tensor(w).t()
    spread = fg.tensor(v).unsqueeze(1).expand(k, 48)
    assert spread.stride() == (1, 0)
    np.testing.assert_allclose((x @ wide).numpy(), a @ w.T, rtol=1e-4, atol=1e-3)
    want = np.repeat((a @ v)[:, None], 48, axis=1)
    np.testing.assert_allclose((x @ spread).numpy(), want, rtol=1e-4, atol=1e-3)
