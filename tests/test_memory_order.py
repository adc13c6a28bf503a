"""Elementwise results keep their first operand's memory order, as PyTorch's do (`x.T.exp()` is
transposed too), and reductions of permuted inputs read them in place. Expected strides were read off
PyTorch 2.15; values are checked against numpy."""

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from hypothesis import given, settings
from hypothesis import strategies as st


def arange(*shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) / 7 - 1


@pytest.mark.parametrize(
    "make, want",
    [
        # (ferrograd expression over b = [4, 3] and c = [2, 3, 4].permute(2, 0, 1), PyTorch's strides)
        (lambda b, c: b.T.exp(), (1, 3)),
        (lambda b, c: b.T + 1, (1, 3)),
        (lambda b, c: 2 * b.T, (1, 3)),
        (lambda b, c: b.T + b.T, (1, 3)),
        (lambda b, c: b.T + b.T.contiguous(), (1, 3)),
        (lambda b, c: b.T.contiguous() + b.T, (4, 1)),
        (lambda b, c: b.T + fg.ones(3, 1), (1, 3)),
        (lambda b, c: b.T.relu(), (1, 3)),
        (lambda b, c: b.T.sigmoid(), (1, 3)),
        (lambda b, c: b.T.to(fg.float64), (1, 3)),
        (lambda b, c: b.T > 0, (1, 3)),
        (lambda b, c: b.T.maximum(b.T.contiguous()), (1, 3)),
        (lambda b, c: c.exp(), (1, 12, 4)),
        (lambda b, c: c * 2, (1, 12, 4)),
        (lambda b, c: -c, (1, 12, 4)),
        (lambda b, c: c.sum(0), (3, 1)),
        (lambda b, c: c.sum(1), (3, 1)),
        (lambda b, c: b[:, ::2].exp(), (2, 1)),
        # clone() preserves the memory format; contiguous() and reshape's copy are row-major
        (lambda b, c: b.T.clone(), (1, 3)),
        (lambda b, c: b.T.to(copy=True), (1, 3)),
        (lambda b, c: b.T[:, ::2].clone(), (1, 3)),
        (lambda b, c: c.clone(), (1, 12, 4)),
        (lambda b, c: c[::2].clone(), (1, 6, 2)),
        (lambda b, c: b[None].expand(2, 4, 3).clone(), (12, 3, 1)),
        (lambda b, c: b.T.contiguous(), (4, 1)),
        (lambda b, c: c.contiguous(), (6, 3, 1)),
        (lambda b, c: b.T.reshape(12), (1,)),
    ],
)
def test_result_strides_follow_pytorch(make, want):
    bn, cn = arange(4, 3), arange(2, 3, 4).transpose(2, 0, 1)
    b, c = fg.tensor(arange(4, 3)), fg.tensor(arange(2, 3, 4)).permute(2, 0, 1)
    assert c.stride() == (1, 12, 4)
    out = make(b, c)
    assert out.stride() == want
    # same values as computing on contiguous copies
    ref = make(fg.from_numpy(np.ascontiguousarray(bn)), fg.from_numpy(np.ascontiguousarray(cn)))
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def memory_order(strides, shape):
    """The dims of size > 1 by descending stride (stable); size-1 dims keep their places."""
    movable = [d for d, n in enumerate(shape) if n > 1]
    order = list(range(len(shape)))
    for slot, d in zip(movable, sorted(movable, key=lambda d: -strides[d])):
        order[slot] = d
    return order


@settings(max_examples=80, deadline=None)
@given(
    arr=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5), elements=st.floats(-3, 3)
    ),
    data=st.data(),
    op=st.sampled_from(["exp", "neg", "tanh", "mul2", "add_self", "sub_col", "to32", "abs"]),
)
def test_dense_permuted_inputs_give_values_of_numpy_in_their_memory_order(arr, data, op):
    perm = data.draw(st.permutations(range(arr.ndim)))
    x = fg.from_numpy(arr).permute(*perm)
    xn = arr.transpose(perm)
    ops = {
        "exp": (lambda t: t.exp(), np.exp),
        "neg": (lambda t: -t, np.negative),
        "tanh": (lambda t: t.tanh(), np.tanh),
        "abs": (lambda t: t.abs(), np.abs),
        "mul2": (lambda t: t * 2, lambda a: a * 2),
        "add_self": (lambda t: t + t, lambda a: a + a),
        "sub_col": (lambda t: t - fg.ones(t.shape[-1]), lambda a: a - 1),
        "to32": (lambda t: t.float(), lambda a: a.astype(np.float32)),
    }
    f, fn = ops[op]
    out = f(x)
    np.testing.assert_allclose(out.numpy(), fn(xn), rtol=1e-6, atol=1e-7)
    assert out.shape == xn.shape
    order = memory_order(x.stride(), x.shape)
    assert out.permute(*order).is_contiguous(), (x.stride(), out.stride())


@pytest.mark.parametrize("dims", [0, 1, (0, 1), (1, 2), 2, (0, 2)])
def test_sums_of_permuted_inputs_match_float64_numpy(dims):
    # large enough for the blocked, threaded kernel
    a = np.random.default_rng(3).standard_normal((60, 70, 80)).astype(np.float32)
    x = fg.from_numpy(a).permute(2, 0, 1)
    want = a.astype(np.float64).transpose(2, 0, 1).sum(axis=dims)
    np.testing.assert_allclose(x.sum(dims).numpy(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(x.mean(dims).numpy(), want / (a.size / want.size), rtol=1e-5, atol=1e-6)


def test_transposed_sum_of_a_big_matrix():
    a = np.random.default_rng(4).standard_normal((1024, 512)).astype(np.float32)
    t = fg.from_numpy(a).T
    for d in (0, 1):
        np.testing.assert_allclose(t.sum(d).numpy(), a.astype(np.float64).T.sum(d), rtol=1e-5, atol=1e-4)


def test_gradients_through_permuted_inputs():
    x = fg.tensor(arange(3, 4, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda a: (a.T.exp() * a.T + a.T.tanh()).sum(0), (x,))
    assert gradgradcheck(lambda a: (a.T.exp() * 2 - a.T).sum(1), (x,))
    y = (x.T * x.T).exp()
    assert y.stride() == (1, 4)
    y.sum().backward()
    xn = arange(3, 4, dtype=np.float64)
    np.testing.assert_allclose(x.grad.numpy(), 2 * xn * np.exp(xn * xn), rtol=1e-12)


def test_in_place_op_on_a_result_in_memory_order():
    x = fg.tensor(arange(4, 3)).T.exp()
    x.add_(1)
    x.mul_(fg.ones(3, 4))
    np.testing.assert_allclose(x.numpy(), np.exp(arange(4, 3).T) + 1, rtol=1e-6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(12)
    np.testing.assert_allclose(x.reshape(12).numpy(), (np.exp(arange(4, 3).T) + 1).reshape(12), rtol=1e-6)


def test_clone_of_a_permuted_leaf_is_a_clone_in_the_graph():
    a = fg.tensor(arange(3, 4, dtype=np.float64), requires_grad=True)
    out = a.T.clone()
    assert out.grad_fn.name() == "CloneBackward0" and out.stride() == (1, 4)
    (out * fg.tensor(arange(4, 3, dtype=np.float64))).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), arange(4, 3, dtype=np.float64).T)
    assert gradcheck(lambda x: x.T.clone() * x.T, (fg.tensor(arange(3, 4, dtype=np.float64), requires_grad=True),))
    assert a.T.contiguous().grad_fn.name() == "CloneBackward0"
    assert a.T.reshape(12).grad_fn.name() == "UnsafeViewBackward0"


@pytest.mark.parametrize(
    "rows, cols",
    # around the transpose's 8×8 blocks and its 16-row bands, and above its threading size (2**16)
    [(1, 1), (1, 9), (9, 1), (7, 7), (8, 8), (15, 17), (16, 16), (33, 70), (120, 64), (512, 512), (300, 2048)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_contiguous_of_a_transposed_matrix_matches_numpy(rows, cols, dtype):
    a = (np.arange(rows * cols).reshape(rows, cols) % 1009).astype(dtype)
    t = fg.tensor(a)
    for view, want in [
        (t.T, a.T),
        (t[:, 1:].T, a[:, 1:].T),  # columns further apart than the output's rows
        (t[: rows // 2 + 1, :].T, a[: rows // 2 + 1, :].T),
        (t[:, ::2].T, a[:, ::2].T),  # not a plain transpose: a strided walk
    ]:
        out = view.contiguous()
        assert out.is_contiguous()
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(view.clone().numpy(), want)


def test_contiguous_of_a_broadcast_and_a_permuted_tensor_matches_numpy():
    v = np.arange(5, dtype=np.float32)
    b = fg.tensor(v).unsqueeze(0).expand(4, 5).T  # strides (1, 0): the columns overlap
    np.testing.assert_array_equal(b.contiguous().numpy(), np.broadcast_to(v, (4, 5)).T)
    c = arange(6, 4, 5)
    p = fg.tensor(c).permute(2, 0, 1)  # collapses to a transposed (5, 24) matrix
    np.testing.assert_array_equal(p.contiguous().numpy(), c.transpose(2, 0, 1))
    x = fg.tensor(arange(40, 30), requires_grad=True)
    y = x.T.contiguous()
    assert type(y.grad_fn).__name__ == "CloneBackward0"
    (y * fg.tensor(arange(30, 40))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), arange(30, 40).T)
