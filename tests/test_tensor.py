"""Tensor creation, dtypes, properties, Python/numpy conversions and in-place __setitem__."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import DTYPE_PREFIX, assert_tensor, dtype_name

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "alias,name",
    [
        ("float32", "float32"),
        ("float", "float32"),
        ("float64", "float64"),
        ("double", "float64"),
        ("int64", "int64"),
        ("long", "int64"),
        ("bool", "bool"),
    ],
)
def test_dtype_aliases_and_repr(alias, name):
    dtype = getattr(fg, alias)
    assert dtype == getattr(fg, name)
    assert repr(dtype) == DTYPE_PREFIX + name
    assert str(dtype) == DTYPE_PREFIX + name


def test_dtypes_are_distinct():
    dtypes = [fg.float32, fg.float64, fg.int64, fg.bool]
    for i, a in enumerate(dtypes):
        for j, b in enumerate(dtypes):
            assert (a == b) == (i == j)


# ---------------------------------------------------------------------------
# fg.tensor
# ---------------------------------------------------------------------------

TENSOR_DATA = [
    # data, expected dtype, expected numpy value
    pytest.param(3.5, "float32", np.array(3.5), id="float-scalar"),
    pytest.param(3, "int64", np.array(3), id="int-scalar"),
    pytest.param(True, "bool", np.array(True), id="bool-scalar"),
    pytest.param([1.0, 2.0, 3.0], "float32", np.array([1.0, 2.0, 3.0]), id="float-list"),
    pytest.param([1, 2, 3], "int64", np.array([1, 2, 3]), id="int-list"),
    pytest.param([1, 2.5], "float32", np.array([1.0, 2.5]), id="mixed-int-float"),
    pytest.param([True, 2], "int64", np.array([1, 2]), id="mixed-bool-int"),
    pytest.param([[True], [False]], "bool", np.array([[True], [False]]), id="bool-nested"),
    pytest.param([[1, 2], [3, 4], [5, 6]], "int64", np.arange(1, 7).reshape(3, 2), id="nested"),
    pytest.param([[[1.5]], [[2.5]]], "float32", np.array([[[1.5]], [[2.5]]]), id="3d"),
    pytest.param([], "float32", np.zeros(0), id="empty"),
    pytest.param([[], []], "float32", np.zeros((2, 0)), id="empty-2d"),
    pytest.param(np.array([1.5, 2.5]), "float64", np.array([1.5, 2.5]), id="np-float64"),
    pytest.param(np.array([1.5, 2.5], dtype=np.float32), "float32", np.array([1.5, 2.5]), id="np-float32"),
    pytest.param(np.array([[1, 2]], dtype=np.int64), "int64", np.array([[1, 2]]), id="np-int64"),
    pytest.param(np.array([True, False]), "bool", np.array([True, False]), id="np-bool"),
    pytest.param(np.array(2.5), "float64", np.array(2.5), id="np-0d"),
    pytest.param(
        np.arange(12.0).reshape(3, 4).T[::2], "float64", np.arange(12.0).reshape(3, 4).T[::2], id="np-strided"
    ),
]


@pytest.mark.parametrize("data,dtype,expected", TENSOR_DATA)
def test_tensor_infers_dtype(data, dtype, expected):
    t = fg.tensor(data)
    assert_tensor(t, expected, dtype=dtype)
    assert t.requires_grad is False
    assert t.is_leaf is True
    assert t.grad_fn is None
    assert t.grad is None


@pytest.mark.parametrize(
    "data,dtype,expected",
    [
        pytest.param([1.7, -1.7], "int64", [1, -1], id="float-to-int-truncates"),
        pytest.param([1, 2], "float64", [1.0, 2.0], id="int-to-double"),
        pytest.param([0, 2], "bool", [False, True], id="int-to-bool"),
        pytest.param(np.array([1, 2]), "float32", [1.0, 2.0], id="np-int-to-float"),
        pytest.param(np.array([0.1]), "float32", np.float32([0.1]), id="np-double-to-float"),
        pytest.param(7, "float64", 7.0, id="scalar"),
    ],
)
def test_tensor_with_dtype(data, dtype, expected):
    assert_tensor(fg.tensor(data, dtype=getattr(fg, dtype)), np.array(expected), dtype=dtype)


def test_tensor_copies_numpy_data():
    a = np.array([1.0, 2.0])
    t = fg.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_requires_grad(dtype):
    t = fg.tensor([1, 2], dtype=getattr(fg, dtype), requires_grad=True)
    assert t.requires_grad is True
    assert t.is_leaf is True
    assert t.grad is None
    assert dtype_name(t.dtype) == dtype


# ---------------------------------------------------------------------------
# factories
# ---------------------------------------------------------------------------

FACTORIES = [
    # id, call, expected dtype, expected value
    ("ones(2,3)", lambda: fg.ones(2, 3), "float32", np.ones((2, 3))),
    ("ones((2,3))", lambda: fg.ones((2, 3)), "float32", np.ones((2, 3))),
    ("ones([2,3])", lambda: fg.ones([2, 3]), "float32", np.ones((2, 3))),
    ("ones(())", lambda: fg.ones(()), "float32", np.ones(())),
    ("ones(int64)", lambda: fg.ones(2, dtype=fg.int64), "int64", np.ones(2)),
    ("ones(bool)", lambda: fg.ones(2, dtype=fg.bool), "bool", np.ones(2)),
    ("zeros(3)", lambda: fg.zeros(3), "float32", np.zeros(3)),
    ("zeros(0,2)", lambda: fg.zeros(0, 2), "float32", np.zeros((0, 2))),
    ("zeros(double)", lambda: fg.zeros(2, 2, dtype=fg.double), "float64", np.zeros((2, 2))),
    ("full(float)", lambda: fg.full((2, 3), 1.5), "float32", np.full((2, 3), 1.5)),
    ("full(int)", lambda: fg.full((2,), 7), "int64", np.full(2, 7)),
    ("full(bool)", lambda: fg.full((2,), True), "bool", np.full(2, True)),
    ("full(list-shape)", lambda: fg.full([2, 1], 3.0), "float32", np.full((2, 1), 3.0)),
    ("full(int,dtype)", lambda: fg.full((2,), 3, dtype=fg.float64), "float64", np.full(2, 3.0)),
    ("arange(5)", lambda: fg.arange(5), "int64", np.arange(5)),
    ("arange(3.0)", lambda: fg.arange(3.0), "float32", np.arange(3.0)),
    ("arange(1,4)", lambda: fg.arange(1, 4), "int64", np.arange(1, 4)),
    ("arange(0,1,0.25)", lambda: fg.arange(0, 1, 0.25), "float32", np.arange(0, 1, 0.25)),
    ("arange(0,5,2.5)", lambda: fg.arange(0, 5, 2.5), "float32", np.array([0.0, 2.5])),
    ("arange(5,0,-2)", lambda: fg.arange(5, 0, -2), "int64", np.array([5, 3, 1])),
    ("arange(dtype)", lambda: fg.arange(1, 4, dtype=fg.float64), "float64", np.arange(1.0, 4.0)),
    ("arange(empty)", lambda: fg.arange(0), "int64", np.zeros(0)),
]


@pytest.mark.parametrize("call,dtype,expected", [pytest.param(c, d, e, id=i) for i, c, d, e in FACTORIES])
def test_factory(call, dtype, expected):
    t = call()
    assert_tensor(t, expected, dtype=dtype)
    assert t.requires_grad is False


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: fg.ones(2, 2, requires_grad=True), id="ones"),
        pytest.param(lambda: fg.zeros(3, requires_grad=True), id="zeros"),
        pytest.param(lambda: fg.full((2,), 0.5, requires_grad=True), id="full"),
        pytest.param(lambda: fg.arange(3.0, requires_grad=True), id="arange"),
        pytest.param(lambda: fg.rand(2, 3, requires_grad=True), id="rand"),
        pytest.param(lambda: fg.randn(3, requires_grad=True), id="randn"),
        pytest.param(lambda: fg.randn(3, dtype=fg.float64, requires_grad=True), id="randn-double"),
    ],
)
def test_factory_requires_grad(call):
    t = call()
    assert t.requires_grad is True
    assert t.is_leaf is True
    assert t.grad_fn is None


@pytest.mark.parametrize("factory", [fg.rand, fg.randn], ids=["rand", "randn"])
def test_manual_seed_reproducible(factory):
    fg.manual_seed(1234)
    a = factory(100).tolist()
    b = factory(100).tolist()
    fg.manual_seed(1234)
    assert factory(100).tolist() == a
    assert factory(100).tolist() == b
    assert a != b
    fg.manual_seed(4321)
    assert factory(100).tolist() != a


def test_rand_range_and_dtype(seeded):
    x = fg.rand(10_000)
    assert dtype_name(x.dtype) == "float32"
    a = x.numpy()
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.02
    assert dtype_name(fg.rand(2, 2, dtype=fg.float64).dtype) == "float64"
    assert fg.rand(2, 3).shape == (2, 3)
    assert fg.rand((4,)).shape == (4,)


def test_randn_moments_and_dtype(seeded):
    x = fg.randn(20_000, dtype=fg.float64)
    assert dtype_name(x.dtype) == "float64"
    a = x.numpy()
    assert abs(a.mean()) < 0.05
    assert abs(a.std() - 1.0) < 0.05
    assert (a < 0).any() and (a > 0).any()
    assert dtype_name(fg.randn(3).dtype) == "float32"
    assert fg.randn(2, 3, 4).shape == (2, 3, 4)


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4), (1, 2, 3, 4)], ids=str)
def test_shape_size_dim_numel_len(shape):
    t = fg.zeros(shape)
    assert t.shape == shape
    assert tuple(t.shape) == shape
    assert t.size() == shape
    assert t.dim() == len(shape)
    assert t.numel() == int(np.prod(shape))
    for d in range(len(shape)):
        assert t.size(d) == shape[d]
        assert t.size(d - len(shape)) == shape[d]
        assert t.shape[d] == shape[d]
    if shape:
        assert len(t) == shape[0]


def test_size_is_a_tuple_of_ints():
    s = fg.ones(2, 3).size()
    assert list(s) == [2, 3]
    assert all(type(n) is int for n in s)
    assert s[-1] == 3


# ---------------------------------------------------------------------------
# conversions: tolist, item, bool, numpy
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "t,expected,elem_type",
    [
        pytest.param(lambda: fg.tensor([[1, 2], [3, 4]]), [[1, 2], [3, 4]], int, id="int"),
        pytest.param(lambda: fg.tensor([[True, False]]), [[True, False]], bool, id="bool"),
        pytest.param(lambda: fg.tensor([0.5, 2.0], dtype=fg.float64), [0.5, 2.0], float, id="double"),
        pytest.param(lambda: fg.tensor([0.1]), [float(np.float32(0.1))], float, id="float32-exact"),
        pytest.param(lambda: fg.arange(6).reshape(2, 3).t(), [[0, 3], [1, 4], [2, 5]], int, id="transposed"),
        pytest.param(lambda: fg.ones(2, 0), [[], []], None, id="empty"),
    ],
)
def test_tolist(t, expected, elem_type):
    out = t().tolist()
    assert out == expected
    if elem_type is not None:
        flat = np.array(out, dtype=object).ravel()
        assert all(type(v) is elem_type for v in flat)


@pytest.mark.parametrize(
    "t,expected",
    [
        pytest.param(lambda: fg.tensor(3), 3, id="int"),
        pytest.param(lambda: fg.tensor(True), True, id="bool"),
        pytest.param(lambda: fg.tensor([2.5]), 2.5, id="one-element"),
        pytest.param(lambda: fg.tensor([[0.1]]), float(np.float32(0.1)), id="float32"),
        pytest.param(lambda: fg.tensor(0.1, dtype=fg.float64), 0.1, id="double"),
        pytest.param(lambda: fg.ones(2, 3, requires_grad=True).sum(), 6.0, id="requires-grad"),
    ],
)
def test_item(t, expected):
    v = t().item()
    assert v == expected
    assert type(v) is type(expected)


@pytest.mark.parametrize(
    "data,expected",
    [(True, True), (False, False), ([0.0], False), ([[2]], True), (0.5, True)],
    ids=str,
)
def test_bool_of_one_element_tensor(data, expected):
    assert bool(fg.tensor(data)) is expected


def test_tensor_usable_in_python_conditions():
    # as in the tutorial: `while y.data.norm() < 1000:`
    y = fg.tensor([3.0, 4.0])
    n = 0
    while y.norm() < 1000:
        y = y * 2
        n += 1
    assert n == 8


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_numpy_dtype_and_values(dtype):
    t = fg.tensor([[1, 0, 2]], dtype=getattr(fg, dtype))
    a = t.numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}[dtype]
    assert a.shape == (1, 3)
    np.testing.assert_array_equal(a, np.array([[1, 0, 2]]).astype(a.dtype))


def test_numpy_shares_memory():
    t = fg.zeros(3)
    a = t.numpy()
    a[1] = 5.0
    assert t.tolist() == [0.0, 5.0, 0.0]
    t[2] = 7.0
    assert a.tolist() == [0.0, 5.0, 7.0]


def test_numpy_of_a_tensor_that_requires_grad_works_only_outside_grad_mode():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with fg.no_grad():
        a = x.numpy()
    with fg.inference_mode():
        b = x.numpy()
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(b, [1.0, 2.0])
    a[0] = 3.0  # the array shares the tensor's memory, as PyTorch's does
    assert x.tolist() == [3.0, 2.0]
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()  # grad mode is back on
    with fg.no_grad(), fg.enable_grad(), pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()


@pytest.mark.parametrize(
    "make,expected",
    [
        pytest.param(lambda: fg.arange(6.0).reshape(2, 3).t(), np.arange(6.0).reshape(2, 3).T, id="transposed"),
        pytest.param(lambda: fg.arange(10).reshape(2, 5)[:, 1::2], np.arange(10).reshape(2, 5)[:, 1::2], id="stepped"),
        pytest.param(lambda: fg.tensor([[1.0], [2.0]]).expand(2, 3), np.array([[1.0] * 3, [2.0] * 3]), id="expanded"),
        pytest.param(lambda: fg.ones(4, 2)[2], np.ones(2), id="offset"),
    ],
)
def test_numpy_of_views(make, expected):
    np.testing.assert_array_equal(make().numpy(), expected)
    np.testing.assert_array_equal(np.asarray(make()), expected)


def test_asarray():
    t = fg.tensor([[1.0, 2.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.shape == (1, 2)
    b = np.asarray(t, dtype=np.float64)
    assert b.dtype == np.float64
    np.testing.assert_array_equal(b, [[1.0, 2.0]])
    np.testing.assert_array_equal(np.asarray(fg.tensor(True)), np.array(True))


@pytest.mark.parametrize(
    "array",
    [
        pytest.param(np.array([1.5, 2.5], dtype=np.float32), id="float32"),
        pytest.param(np.array([[1.5], [2.5]]), id="float64"),
        pytest.param(np.array([1, -2], dtype=np.int64), id="int64"),
        pytest.param(np.array([True, False]), id="bool"),
        pytest.param(np.array(4.0), id="0d"),
        pytest.param(np.zeros((0, 3)), id="empty"),
    ],
)
def test_from_numpy_keeps_dtype_and_values(array):
    t = fg.from_numpy(array)
    name = {np.float32: "float32", np.float64: "float64", np.int64: "int64", np.bool_: "bool"}[array.dtype.type]
    assert_tensor(t, array, dtype=name)
    assert t.requires_grad is False


def test_from_numpy_is_zero_copy_both_ways():
    a = np.zeros((2, 3))
    t = fg.from_numpy(a)
    a[0, 1] = 4.0
    assert t[0, 1].item() == 4.0
    assert t.tolist() == [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0]]
    t[1, 2] = -1.0
    assert a[1, 2] == -1.0
    v = t.t()  # views of the tensor see the array too
    a[1, 0] = 9.0
    assert v[0, 1].item() == 9.0


def test_from_numpy_of_strided_array():
    base = np.arange(12.0).reshape(3, 4)
    view = base[:, ::2]
    t = fg.from_numpy(view)
    assert_tensor(t, view, dtype="float64")
    base[2, 2] = -5.0
    assert t[2, 1].item() == -5.0
    tt = fg.from_numpy(base.T)
    assert_tensor(tt, base.T, dtype="float64")


def test_from_numpy_keeps_array_alive():
    t = fg.from_numpy(np.arange(4.0))
    import gc

    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------------------
# __setitem__ (tensors that do not require grad)
# ---------------------------------------------------------------------------

SETITEMS = [
    # index, value (Python scalar or list turned into a tensor)
    pytest.param(0, 5.0, id="row-scalar"),
    pytest.param(-1, [1.0, 2.0, 3.0, 4.0], id="row-tensor"),
    pytest.param((1, 2), 7, id="element-int"),
    pytest.param((slice(None), 1), [9.0, 8.0, 7.0], id="column"),
    pytest.param((slice(None), 1), [5.0], id="column-broadcast"),
    pytest.param(slice(None, None, 2), 0.5, id="stepped-rows"),
    pytest.param((slice(1, None), slice(None, None, 3)), [[1.0, 2.0]], id="stepped-broadcast"),
    pytest.param(Ellipsis, [1.0, 2.0, 3.0, 4.0], id="ellipsis-broadcast"),
    pytest.param((None, 0), 3.0, id="none"),
    pytest.param(slice(2, 2), 1.0, id="empty"),
]


@pytest.mark.parametrize("index,value", SETITEMS)
def test_setitem(index, value):
    a = np.arange(12.0).reshape(3, 4)
    t = fg.tensor(a)
    a[index] = np.array(value)
    t[index] = fg.tensor(value, dtype=fg.float64) if isinstance(value, list) else value
    assert_tensor(t, a, dtype="float64")


def test_setitem_through_a_view_writes_the_base():
    t = fg.zeros(3, 4)
    v = t.t()
    v[1] = 2.0  # column 1 of t
    s = t[::2]
    s[:, 3] = 5.0  # rows 0 and 2
    expected = np.zeros((3, 4))
    expected[:, 1] = 2.0
    expected[::2, 3] = 5.0
    assert_tensor(t, expected)


def test_setitem_converts_value_dtype():
    t = fg.zeros(3, dtype=fg.int64)
    t[0] = 2.7  # truncates toward zero
    t[1] = True
    assert_tensor(t, np.array([2, 1, 0]), dtype="int64")
    f = fg.zeros(2)
    f[:] = fg.tensor([1, 2])
    f[0] = fg.tensor(0.25, dtype=fg.float64)
    assert_tensor(f, np.array([0.25, 2.0]), dtype="float32")


def test_setitem_0d():
    t = fg.tensor(1.0)
    t[...] = 3.0
    assert t.item() == 3.0
    t[()] = 4.0
    assert t.item() == 4.0
