"""Edge cases of nan_to_num, any/all with dims, vector norms, cumprod, sort/argsort/topk, unfold,
outer/trace/baddbmm and einsum: special values, zero sizes, dtypes, views and torch's errors.
Expected values that are not plain numpy come from PyTorch 2.x (noted where so)."""

import math

import ferrograd as fg
import numpy as np
import pytest
from helpers import assert_tensor, gradcheck, to_numpy

nan, inf = math.nan, math.inf


def _grad(f, data):
    x = fg.tensor(data, dtype=fg.float64, requires_grad=True)
    f(x).sum().backward()
    return x.grad


# ---------------------------------------------------------------------------
# nan_to_num
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,np_dtype", [("float32", np.float32), ("float64", np.float64)])
def test_nan_to_num_defaults_are_the_dtype_limits(dtype, np_dtype):
    x = fg.tensor([nan, inf, -inf, 1.5], dtype=getattr(fg, dtype))
    big = np.finfo(np_dtype).max
    assert_tensor(x.nan_to_num(), np.array([0.0, big, -big, 1.5], dtype=np_dtype), dtype=dtype, rtol=0, atol=0)
    assert_tensor(fg.nan_to_num(x, nan=2.0, posinf=3.0), np.array([2.0, 3.0, -big, 1.5]), dtype=dtype)
    assert_tensor(x.nan_to_num(0.5, 2.0, -3.0), np.array([0.5, 2.0, -3.0, 1.5]), dtype=dtype)


def test_nan_to_num_keeps_ints_and_bools():
    assert_tensor(fg.tensor([1, 2]).nan_to_num(nan=1.5), np.array([1, 2]), dtype="int64")
    assert_tensor(fg.nan_to_num(fg.tensor([True, False])), np.array([True, False]), dtype="bool")


def test_nan_to_num_gradient_is_zero_where_replaced():
    np.testing.assert_array_equal(to_numpy(_grad(lambda x: x.nan_to_num(), [nan, inf, -inf, 1.0])), [0, 0, 0, 1])


# ---------------------------------------------------------------------------
# any / all with dims
# ---------------------------------------------------------------------------

ANY_ALL = [
    pytest.param({"dim": 0}, lambda a, f: f(a, axis=0), id="dim0"),
    pytest.param({"dim": -1}, lambda a, f: f(a, axis=-1), id="dim-1"),
    pytest.param({"dim": (0, 2)}, lambda a, f: f(a, axis=(0, 2)), id="tuple"),
    pytest.param({"dim": 1, "keepdim": True}, lambda a, f: f(a, axis=1, keepdims=True), id="keepdim"),
    pytest.param({"dim": (-1, 0), "keepdim": True}, lambda a, f: f(a, axis=(-1, 0), keepdims=True), id="tuple-keepdim"),
    pytest.param({}, lambda a, f: f(a), id="none"),
]


@pytest.mark.parametrize("kw,ref", ANY_ALL)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_any_all_with_dims(kw, ref, dtype, rng):
    a = rng.integers(0, 2, (3, 2, 4)) * rng.integers(1, 3, (3, 2, 4))
    x = fg.tensor(a).to(getattr(fg, dtype)).transpose(0, 1).transpose(0, 1)[:, :, ::1]
    assert_tensor(x.any(**kw), ref(a != 0, np.any), dtype="bool")
    assert_tensor(fg.all(x, **kw), ref(a != 0, np.all), dtype="bool")


def test_any_all_of_empty_and_nan():
    assert_tensor(fg.zeros(0, 2).all(0), np.array([True, True]), dtype="bool")
    assert_tensor(fg.zeros(0, 2).any(0), np.array([False, False]), dtype="bool")
    assert_tensor(fg.zeros(2, 0).any(1, keepdim=True), np.zeros((2, 1), bool), dtype="bool")
    assert_tensor(fg.tensor([nan, 0.0]).any(0), np.array(True), dtype="bool")


def test_any_all_dim_errors():
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)"
    ):
        fg.ones(2, 2).all(dim=-3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        fg.ones(2, 2).any(dim=(0, 0))


# ---------------------------------------------------------------------------
# vector norms
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f,data,expected",
    [
        # gradients from torch at zeros and ties
        pytest.param(lambda x: x.norm(), [[0.0, 0.0], [0.0, 0.0]], [[0, 0], [0, 0]], id="2-at-origin"),
        pytest.param(lambda x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]], [[0, 0], [0.6, 0.8]], id="2-dim-one-zero-row"),
        pytest.param(lambda x: x.norm(1), [[0.0, -2.0], [3.0, 4.0]], [[0, -1], [1, 1]], id="1"),
        pytest.param(
            lambda x: x.norm(inf, dim=1),
            [[-3.0, 3.0, 1.0], [2.0, 0.0, 5.0]],
            [[-0.5, 0.5, 0], [0, 0, 1]],
            id="inf-ties",
        ),
        pytest.param(
            lambda x: x.norm(-inf), [[-3.0, 3.0, 1.0], [2.0, -1.0, 5.0]], [[0, 0, 0.5], [0, -0.5, 0]], id="-inf-ties"
        ),
        pytest.param(lambda x: x.norm(3), [[0.0, 0.0]], [[0, 0]], id="3-at-origin"),
        pytest.param(lambda x: x.norm(0.5), [[0.0, 1.0, 4.0]], [[0, 3, 1.5]], id="0.5-with-a-zero"),
        pytest.param(lambda x: x.norm(1.5), [[0.0, 0.0]], [[0, 0]], id="1.5-at-origin"),
    ],
)
def test_norm_gradients_at_special_points(f, data, expected):
    np.testing.assert_allclose(to_numpy(_grad(f, data)), expected, atol=1e-12)


def test_norm_zero_counts_nonzeros_and_has_no_gradient():
    x = fg.tensor([[1.0, 0.0, nan], [0.0, 0.0, -2.0]], requires_grad=True)
    assert_tensor(x.norm(0, dim=1), np.array([2.0, 1.0]))
    y = x.norm(0)
    assert y.grad_fn.name() == "LinalgVectorNormBackward0"
    y.backward()
    assert x.grad is None  # torch gives no gradient at all for the 0-"norm"


def test_norm_special_values_and_sizes():
    assert_tensor(fg.tensor([nan, 1.0, inf]).norm(inf), np.array(nan))
    assert_tensor(fg.tensor([inf, 1.0]).norm(), np.array(inf))
    assert_tensor(fg.tensor(-3.0).norm(1), np.array(3.0))
    assert_tensor(fg.tensor(3.0).norm(2, dim=0), np.array(3.0))
    assert_tensor(fg.zeros(0, 3).norm(dim=0), np.zeros(3))
    assert_tensor(fg.zeros(0, 3).norm(1, dim=1), np.zeros(0))
    assert_tensor(fg.zeros(0).norm(), np.array(0.0))
    assert fg.ones(2, 3).norm(dtype=fg.float64).dtype == fg.float64
    assert fg.ones(2, 3, dtype=fg.float64).norm(p="fro", dim=(0, 1)).shape == ()


@pytest.mark.parametrize(
    "call,exc,phrase",
    [
        pytest.param(
            lambda: fg.zeros(0).norm(inf),
            RuntimeError,
            "cannot compute the inf norm on an empty tensor because the operation does not have an identity",
            id="inf-empty",
        ),
        pytest.param(
            lambda: fg.zeros(0, 3).norm(-inf, dim=0),
            RuntimeError,
            "cannot compute the -inf norm on the dimension 0because this dimension is empty",
            id="-inf-empty-dim",
        ),
        pytest.param(
            lambda: fg.tensor([1, 2]).norm(),
            NotImplementedError,
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
            id="int",
        ),
        pytest.param(
            lambda: fg.ones(2).norm(dtype=fg.int64),
            RuntimeError,
            "dtype should be floating point or complex, but got Long",
            id="int-dtype",
        ),
        pytest.param(lambda: fg.ones(2, 2).norm("abc"), RuntimeError, "Order abc not supported", id="bad-order"),
        pytest.param(lambda: fg.ones(2, 2).norm(2, dim=2), IndexError, "Dimension out of range", id="dim"),
    ],
)
def test_norm_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_norm_double_backward():
    for f in (lambda x: x.norm(), lambda x: x.norm(3, dim=1), lambda x: x.norm(1.5)):
        gradcheck(lambda x, f=f: _first_grad(f, x), [np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])])


def _first_grad(f, x):
    """The gradient of f(x).sum() as a differentiable function of x."""
    if not x.requires_grad:  # gradcheck's finite-difference passes only read values
        x = x.detach().requires_grad_()
    (g,) = fg.autograd.grad(f(x).sum(), [x], create_graph=True)
    return g


# ---------------------------------------------------------------------------
# cumprod
# ---------------------------------------------------------------------------


def test_cumprod_gradient_with_zeros():
    # from torch: only the first zero of a row passes gradient to the elements before it
    np.testing.assert_allclose(to_numpy(_grad(lambda x: x.cumprod(1), [[0.0, 2.0, 0.0, 3.0]])), [[3, 0, 0, 0]])
    gradcheck(lambda x: x.cumprod(1), [np.array([[0.0, 2.0, 0.5, 3.0], [1.5, 0.0, 0.0, -2.0], [0.7, -1.1, 0.0, 0.4]])])
    gradcheck(lambda x: x.cumprod(0), [np.array([[0.0, 2.0], [1.5, 0.0], [0.7, -1.1]])])
    gradcheck(
        lambda x: _first_grad(lambda t: t.cumprod(1), x), [np.array([[0.0, 2.0, 0.5, 3.0], [1.5, -0.5, 0.3, -2.0]])]
    )


def test_cumprod_dtypes_and_shapes():
    assert_tensor(fg.tensor([1, 2, 3]).cumprod(0), np.array([1, 2, 6]), dtype="int64")
    assert_tensor(fg.tensor([True, False]).cumprod(0), np.array([1, 0]), dtype="int64")
    assert_tensor(fg.tensor([1, 2]).cumprod(0, dtype=fg.float32), np.array([1.0, 2.0]), dtype="float32")
    assert_tensor(fg.tensor(2.5).cumprod(0), np.array(2.5))
    assert_tensor(fg.zeros(2, 0).cumprod(1), np.zeros((2, 0)))
    assert_tensor(fg.tensor([inf, 0.0, 2.0]).cumprod(0), np.array([inf, nan, nan]))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        fg.ones(2).cumprod(1)


# ---------------------------------------------------------------------------
# sort / argsort / topk
# ---------------------------------------------------------------------------


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = fg.tensor([3.0, nan, 1.0, nan, -1.0])
    values, indices = x.sort()
    assert_tensor(values, np.array([-1.0, 1.0, 3.0, nan, nan]))
    assert indices.tolist() == [4, 2, 0, 1, 3]
    values, indices = fg.sort(x, descending=True)
    assert_tensor(values, np.array([nan, nan, 3.0, 1.0, -1.0]))
    assert indices.tolist() == [1, 3, 0, 2, 4]
    assert fg.argsort(x).tolist() == [4, 2, 0, 1, 3]
    top = x.topk(3)
    assert_tensor(top.values, np.array([nan, nan, 3.0]))
    assert top.indices.tolist() == [1, 3, 0]
    assert x.topk(2, largest=False).indices.tolist() == [4, 2]


def test_sort_and_topk_results_and_types(rng):
    a = rng.integers(-3, 4, (4, 5)).astype(np.float64)
    x = fg.tensor(a).t()
    out = x.sort(dim=0, stable=True)  # torch takes dim by keyword alongside stable
    assert type(out).__name__ == "sort" and out.values is out[0] and out.indices is out[1]
    assert_tensor(out.indices, np.argsort(a.T, axis=0, kind="stable"), dtype="int64")
    assert_tensor(x.argsort(dim=1, descending=True), np.argsort(-a.T, axis=1, kind="stable"), dtype="int64")
    top = fg.topk(x, 2, dim=0)
    assert type(top).__name__ == "topk"
    # torch leaves the order of tied indices open: check what they point at
    assert_tensor(x.gather(0, top.indices), -np.sort(-a.T, axis=0)[:2])
    assert_tensor(top.values, -np.sort(-a.T, axis=0)[:2])
    assert repr(fg.tensor([2.0, 1.0]).sort()).endswith("sort(\nvalues=tensor([1., 2.]),\nindices=tensor([1, 0]))")
    assert_tensor(fg.tensor([[1, 3, 3, 2]]).topk(2).indices, np.array([[1, 2]]), dtype="int64")
    assert_tensor(fg.tensor([True, False, True]).sort().values, np.array([False, True, True]), dtype="bool")
    assert not x.argsort().requires_grad


def test_sort_and_topk_of_0d_and_empty():
    v, i = fg.tensor(3.0).sort()
    assert v.shape == () and i.item() == 0
    assert fg.tensor(3.0).topk(1).values.item() == 3.0
    v, i = fg.zeros(0, 3).sort(1)
    assert v.shape == (0, 3) and i.dtype == fg.int64
    assert fg.zeros(2, 0).topk(0).values.shape == (2, 0)
    assert fg.zeros(2, 3).topk(0).indices.shape == (2, 0)


def test_sort_topk_errors():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        fg.ones(2, 3).topk(4)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        fg.ones(2, 3).topk(-1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        fg.ones(2, 3).sort(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fg.ones(2, 3).topk(1, dim=-3)
    with pytest.raises(TypeError):
        fg.ones(3).sort(0, False, True)  # stable is keyword-only, as in torch


def test_topk_gradient_scatters_to_selected_positions():
    g = _grad(
        lambda x: x.topk(2, dim=1).values * fg.tensor([10.0, 1.0], dtype=fg.float64), [[1.0, 5.0, 3.0], [4.0, 2.0, 0.0]]
    )
    np.testing.assert_array_equal(to_numpy(g), [[0, 10, 1], [10, 1, 0]])


# ---------------------------------------------------------------------------
# unfold
# ---------------------------------------------------------------------------


def test_unfold_is_a_view_with_torchs_strides():
    x = fg.arange(6.0).reshape(3, 2)
    u = x.unfold(0, 2, 1)
    assert u.shape == (2, 2, 2) and u.stride() == (2, 1, 2) and u.storage_offset() == 0
    assert not u.is_contiguous()
    x[1, 0] = 100.0
    assert u[0, 0, 1].item() == 100.0 and u[1, 0, 0].item() == 100.0
    assert x[1:].unfold(1, 1, 1).storage_offset() == 2


def test_unfold_gradient_adds_overlaps_and_skips_gaps():
    data = [[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]]
    np.testing.assert_array_equal(to_numpy(_grad(lambda x: x.unfold(1, 2, 1), data)), [[1, 2, 1], [1, 2, 1]])
    np.testing.assert_array_equal(to_numpy(_grad(lambda x: x.unfold(1, 1, 2), data)), [[1, 0, 1], [1, 0, 1]])
    gradcheck(lambda x: _first_grad(lambda t: t.unfold(0, 3, 2) ** 2, x), [np.arange(7.0)])


def test_unfold_edges_and_errors():
    assert_tensor(fg.tensor(3.0).unfold(0, 1, 1), np.array([3.0]))
    assert fg.ones(2, 3).unfold(1, 0, 1).shape == (2, 4, 0)
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 1 is 3 but size is 4"):
        fg.ones(2, 3).unfold(1, 4, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        fg.ones(2, 3).unfold(1, 2, 0)
    with pytest.raises(RuntimeError, match="size is -1 but must be >= 0"):
        fg.ones(3).unfold(0, -1, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fg.ones(2, 3).unfold(2, 1, 1)


# ---------------------------------------------------------------------------
# outer, trace, baddbmm, einsum
# ---------------------------------------------------------------------------


def test_trace_outer_baddbmm_dtypes_and_edges():
    assert_tensor(fg.tensor([[1, 2], [3, 4]]).trace(), np.array(5), dtype="int64")
    assert_tensor(fg.zeros(0, 3).trace(), np.array(0.0), dtype="float32")
    assert_tensor(
        fg.outer(fg.tensor([1, 2]), fg.tensor([1.0, 2.0])), np.array([[1.0, 2.0], [2.0, 4.0]]), dtype="float32"
    )
    # beta=0 ignores input, NaN included
    out = fg.baddbmm(fg.tensor(nan), fg.ones(1, 1, 2), fg.ones(1, 2, 1), beta=0)
    assert_tensor(out, np.array([[[2.0]]]))
    assert fg.baddbmm(fg.zeros(2, 1, 2), fg.zeros(2, 2, 3), fg.zeros(2, 3, 2)).shape == (2, 2, 2)
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x.trace().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), np.eye(2))


@pytest.mark.parametrize(
    "call,exc,phrase",
    [
        pytest.param(
            lambda: fg.trace(fg.zeros(2, 2, 2)),
            RuntimeError,
            "trace: expected a matrix, but got tensor with dim 3",
            id="trace-3d",
        ),
        pytest.param(
            lambda: fg.tensor([[True]]).trace(),
            NotImplementedError,
            "\"trace\" not implemented for 'Bool'",
            id="trace-bool",
        ),
        pytest.param(
            lambda: fg.outer(fg.ones(2, 2), fg.ones(2)),
            RuntimeError,
            "outer: Expected 1-D argument self, but got 2-D",
            id="outer-self",
        ),
        pytest.param(
            lambda: fg.ger(fg.ones(2), fg.ones(2, 2)),
            RuntimeError,
            "outer: Expected 1-D argument vec2, but got 2-D",
            id="outer-vec2",
        ),
        pytest.param(
            lambda: fg.baddbmm(fg.zeros(2, 2, 2), fg.zeros(2, 2, 3), fg.zeros(2, 4, 2)),
            RuntimeError,
            r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[2, 4\]",
            id="baddbmm-inner",
        ),
        pytest.param(
            lambda: fg.baddbmm(fg.zeros(3, 2, 2), fg.zeros(2, 2, 3), fg.zeros(2, 3, 2)),
            RuntimeError,
            "The expanded size of the tensor",
            id="baddbmm-input",
        ),
        pytest.param(
            lambda: fg.baddbmm(fg.zeros(2, 2, 2, dtype=fg.float64), fg.zeros(2, 2, 3), fg.zeros(2, 3, 2)),
            RuntimeError,
            "Input dtypes must be the same, got: input double, batch1: float, batch2: float",
            id="baddbmm-dtype",
        ),
        pytest.param(
            lambda: fg.einsum("ij,jk", fg.ones(2, 3)),
            RuntimeError,
            "einsum\\(\\): fewer operands were provided than specified in the equation",
            id="einsum-fewer",
        ),
        pytest.param(
            lambda: fg.einsum("ij", fg.ones(2, 3), fg.ones(2, 3)),
            RuntimeError,
            "more operands were provided than specified",
            id="einsum-more",
        ),
        pytest.param(
            lambda: fg.einsum("i", fg.ones(2, 3)),
            RuntimeError,
            r"the number of subscripts in the equation \(1\) does not match the number of dimensions \(2\) for "
            r"operand 0 and no ellipsis was given",
            id="einsum-ndim",
        ),
        pytest.param(
            lambda: fg.einsum("ij1", fg.ones(2, 3)),
            RuntimeError,
            r"invalid subscript given at index 2 in the equation string, subscripts must be in \[a-zA-Z\]",
            id="einsum-char",
        ),
        pytest.param(
            lambda: fg.einsum("ii", fg.ones(2, 3)),
            RuntimeError,
            "subscript i is repeated for operand 0 but the sizes don't match, 3 != 2",
            id="einsum-diag-size",
        ),
        pytest.param(
            lambda: fg.einsum("ij->k", fg.ones(2, 3)),
            RuntimeError,
            "output subscript k does not appear in the equation for any input operand",
            id="einsum-output",
        ),
        pytest.param(
            lambda: fg.einsum("ij->ii", fg.ones(2, 3)),
            RuntimeError,
            "output subscript i appears more than once in the output",
            id="einsum-output-twice",
        ),
        pytest.param(
            lambda: fg.einsum("ij,jk->ik", fg.ones(2, 3), fg.ones(4, 2)),
            RuntimeError,
            "subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
            id="einsum-sizes",
        ),
        pytest.param(
            lambda: fg.einsum("ijk...", fg.ones(2, 3)),
            RuntimeError,
            r"the number of subscripts in the equation \(3\) is more than the number of dimensions \(2\) for operand 0",
            id="einsum-too-many",
        ),
        pytest.param(
            lambda: fg.einsum("..ij", fg.ones(2, 3)),
            RuntimeError,
            "found '.' for operand 0 that is not part of any ellipsis",
            id="einsum-dots",
        ),
        pytest.param(
            lambda: fg.einsum("ij"),
            ValueError,
            "must specify the equation string and at least one operand",
            id="einsum-no-operands",
        ),
        pytest.param(lambda: fg.einsum("ij", [fg.ones(2, 2), 3]), TypeError, "Tensor", id="einsum-not-tensor"),
    ],
)
def test_linalg_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_einsum_implicit_output_order_and_broadcast(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 2))
    # implicit output: the letters used once, A-Z before a-z (as torch)
    assert fg.einsum("ba,Ab", fg.tensor(a), fg.tensor(b)).shape == (4, 3)
    assert_tensor(fg.einsum("ba,Ab", fg.tensor(a), fg.tensor(b)), np.einsum("ba,Ab", a, b))
    c = rng.standard_normal((2, 1, 3))
    d = rng.standard_normal((5, 3))
    assert_tensor(fg.einsum("...ij,kj->...ik", fg.tensor(c), fg.tensor(d)), np.einsum("...ij,kj->...ik", c, d))
    e = rng.standard_normal((3, 1, 4))
    f = rng.standard_normal((1, 2, 4))
    assert_tensor(
        fg.einsum("bij,bkj->bik", fg.tensor(e), fg.tensor(f)),
        np.einsum("bij,bkj->bik", np.broadcast_to(e, (3, 1, 4)), np.broadcast_to(f, (3, 2, 4))),
    )
    gradcheck(lambda x, y: fg.einsum("bij,bkj->bik", x, y), [e, f])
    gradcheck(lambda x: fg.einsum("ij,jk,kl->il", x, x.t(), x), [a])


def test_broadcast_to_and_layout_queries():
    x = fg.tensor([1.0, 2.0])
    y = fg.broadcast_to(x, (3, 2))
    assert y.stride() == (0, 1) and y.storage_offset() == 0 and not y.is_contiguous()
    assert_tensor(x.square(), np.array([1.0, 4.0]))
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size \(2\)"):
        x.broadcast_to((3,))
