"""Every op of issue 2: forward against numpy (float32 and float64, contiguous and
strided inputs) and gradient against float64 finite differences. Table-driven."""

import operator

import numpy as np
import pytest

import ferrograd as fg
from helpers import (
    CONTIGUOUS,
    EXPANDED,
    STEPPED,
    TRANSPOSED,
    assert_tensor,
    dtype_name,
    gradcheck,
    layouts_for,
    make_input,
    random_array,
    result_dtype,
    tensor_operand,
)

FLOATS = ["float32", "float64"]


def _cases(shapes, only=None):
    """(shape, layout) pairs for every layout applicable to each shape."""
    out = []
    for shape in shapes:
        for lay in layouts_for(shape):
            if only is None or lay in only:
                out.append(pytest.param(shape, lay, id=f"{shape}-{lay.name}"))
    return out


# ---------------------------------------------------------------------------
# unary ops and tensor-scalar arithmetic
# ---------------------------------------------------------------------------

UNARY = [
    # id, ferrograd expression, numpy reference, input domain
    ("neg", lambda x: -x, np.negative, "any"),
    ("exp", lambda x: x.exp(), np.exp, "small"),
    ("log", lambda x: x.log(), np.log, "positive"),
    ("x+2", lambda x: x + 2, lambda a: a + 2, "any"),
    ("2+x", lambda x: 2 + x, lambda a: 2 + a, "any"),
    ("x+0.5", lambda x: x + 0.5, lambda a: a + 0.5, "any"),
    ("x-2", lambda x: x - 2, lambda a: a - 2, "any"),
    ("2-x", lambda x: 2 - x, lambda a: 2 - a, "any"),
    ("x*3", lambda x: x * 3, lambda a: a * 3, "any"),
    ("3*x", lambda x: 3 * x, lambda a: 3 * a, "any"),
    ("x*-1.5", lambda x: x * -1.5, lambda a: a * -1.5, "any"),
    ("x/3", lambda x: x / 3, lambda a: a / 3, "any"),
    ("3/x", lambda x: 3 / x, lambda a: 3 / a, "nonzero"),
    ("x**2", lambda x: x**2, lambda a: a**2, "any"),
    ("x**3", lambda x: x**3, lambda a: a**3, "any"),
    ("x**0", lambda x: x**0, lambda a: a**0, "any"),
    ("x**0.5", lambda x: x**0.5, np.sqrt, "positive"),
    ("x**-1.5", lambda x: x**-1.5, lambda a: a**-1.5, "positive"),
    ("2**x", lambda x: 2**x, lambda a: 2.0**a, "any"),
    ("0.5**x", lambda x: 0.5**x, lambda a: 0.5**a, "any"),
]
UNARY_PARAMS = [pytest.param(f, ref, dom, id=name) for name, f, ref, dom in UNARY]

ELEMENTWISE_CASES = [
    pytest.param((), CONTIGUOUS, id="0d"),
    pytest.param((5,), CONTIGUOUS, id="5-contiguous"),
    pytest.param((5,), STEPPED, id="5-stepped"),
    pytest.param((2, 3), TRANSPOSED, id="2x3-transposed"),
    pytest.param((2, 3, 4), CONTIGUOUS, id="2x3x4-contiguous"),
    pytest.param((2, 3, 4), TRANSPOSED, id="2x3x4-transposed"),
    pytest.param((2, 3, 4), STEPPED, id="2x3x4-stepped"),
    pytest.param((2, 3, 4), EXPANDED, id="2x3x4-expanded"),
    pytest.param((0, 3), CONTIGUOUS, id="0x3-contiguous"),
    pytest.param((3, 0), TRANSPOSED, id="3x0-transposed"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout", ELEMENTWISE_CASES)
@pytest.mark.parametrize("f,ref,domain", UNARY_PARAMS)
def test_unary_forward(f, ref, domain, shape, layout, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype, domain)
    out = f(x)
    # Python scalars never change a float tensor's dtype.
    assert_tensor(out, ref(a.astype(np.float64)), dtype=dtype)
    assert not out.requires_grad


@pytest.mark.parametrize(
    "shape,layout",
    [
        pytest.param((), CONTIGUOUS, id="0d"),
        pytest.param((2, 3), CONTIGUOUS, id="2x3-contiguous"),
        pytest.param((2, 3), TRANSPOSED, id="2x3-transposed"),
        pytest.param((3, 2), STEPPED, id="3x2-stepped"),
        pytest.param((3, 2), EXPANDED, id="3x2-expanded"),
    ],
)
@pytest.mark.parametrize("f,ref,domain", UNARY_PARAMS)
def test_unary_grad(f, ref, domain, shape, layout, rng):
    storage = random_array(rng, layout.storage_shape(shape), domain)
    gradcheck(lambda s: f(layout.fg_view(s, shape)), [storage])


# ---------------------------------------------------------------------------
# binary tensor-tensor arithmetic with broadcasting
# ---------------------------------------------------------------------------

BINARY = [
    # id, operator, numpy reference, domain of a, domain of b
    ("add", operator.add, np.add, "any", "any"),
    ("sub", operator.sub, np.subtract, "any", "any"),
    ("mul", operator.mul, np.multiply, "any", "any"),
    ("div", operator.truediv, np.divide, "any", "nonzero"),
    ("pow", operator.pow, np.power, "positive", "any"),
]
BINARY_PARAMS = [pytest.param(f, ref, da, db, id=name) for name, f, ref, da, db in BINARY]

BROADCAST_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((4, 1, 3), (2, 1)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((), ()),
    ((1,), (2, 3)),
    ((0, 3), (3,)),
    ((2, 0), (1,)),
    ((1, 0), (3, 1)),
]
PAIR_PARAMS = [pytest.param(sa, sb, id=f"{sa}-{sb}") for sa, sb in BROADCAST_PAIRS]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape_a,shape_b", PAIR_PARAMS)
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_PARAMS)
def test_binary_forward_broadcast(f, ref, dom_a, dom_b, shape_a, shape_b, dtype, rng):
    a, x = make_input(rng, shape_a, CONTIGUOUS, dtype, dom_a)
    b, y = make_input(rng, shape_b, CONTIGUOUS, dtype, dom_b)
    assert_tensor(f(x, y), ref(a.astype(np.float64), b.astype(np.float64)), dtype=dtype)


@pytest.mark.parametrize("shape_a,shape_b", PAIR_PARAMS)
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_PARAMS)
def test_binary_grad_broadcast(f, ref, dom_a, dom_b, shape_a, shape_b, rng):
    a = random_array(rng, shape_a, dom_a)
    b = random_array(rng, shape_b, dom_b)
    gradcheck(f, [a, b])


STRIDED_PAIRS = [
    pytest.param((3, 4), TRANSPOSED, (3, 4), STEPPED, id="transposed-stepped"),
    pytest.param((3, 4), EXPANDED, (3, 4), TRANSPOSED, id="expanded-transposed"),
    pytest.param((2, 3, 4), STEPPED, (3, 4), EXPANDED, id="stepped-expanded-broadcast"),
    pytest.param((3, 1), TRANSPOSED, (2, 1, 4), STEPPED, id="transposed-stepped-broadcast"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape_a,lay_a,shape_b,lay_b", STRIDED_PAIRS)
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_PARAMS)
def test_binary_forward_strided(f, ref, dom_a, dom_b, shape_a, lay_a, shape_b, lay_b, dtype, rng):
    a, x = make_input(rng, shape_a, lay_a, dtype, dom_a)
    b, y = make_input(rng, shape_b, lay_b, dtype, dom_b)
    assert_tensor(f(x, y), ref(a.astype(np.float64), b.astype(np.float64)), dtype=dtype)


@pytest.mark.parametrize("shape_a,lay_a,shape_b,lay_b", STRIDED_PAIRS)
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_PARAMS)
def test_binary_grad_strided(f, ref, dom_a, dom_b, shape_a, lay_a, shape_b, lay_b, rng):
    sa = random_array(rng, lay_a.storage_shape(shape_a), dom_a)
    sb = random_array(rng, lay_b.storage_shape(shape_b), dom_b)
    gradcheck(lambda p, q: f(lay_a.fg_view(p, shape_a), lay_b.fg_view(q, shape_b)), [sa, sb])


@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_PARAMS)
def test_same_tensor_on_both_sides_grad(f, ref, dom_a, dom_b, rng):
    gradcheck(lambda x: f(x, x), [random_array(rng, (2, 3), "positive")])


# ---------------------------------------------------------------------------
# type promotion (torch's rules; see helpers.result_dtype)
# ---------------------------------------------------------------------------

ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": operator.pow}


def _t(dtype, shape=(3,)):
    """A tensor operand spec: values 1..n (all ops defined, no zero divisors)."""
    return ("t", dtype, shape)


PROMOTION = [
    # lhs, op, rhs, expected result dtype (each checked against torch)
    (_t("int64"), "+", 1.5, "float32"),  # int tensor + Python float -> default float
    (_t("int64"), "*", 2, "int64"),
    (_t("int64"), "/", _t("int64"), "float32"),  # true division of ints
    (_t("int64"), "/", 2, "float32"),
    (7, "/", _t("int64"), "float32"),
    (_t("float32"), "+", _t("float64"), "float64"),
    (_t("float64"), "*", _t("float32"), "float64"),
    (_t("int64"), "+", _t("bool"), "int64"),
    (_t("bool"), "*", _t("int64"), "int64"),
    (_t("bool"), "+", 1, "int64"),
    (_t("bool"), "+", 1.5, "float32"),
    (_t("bool"), "+", True, "bool"),
    (_t("bool"), "+", _t("bool"), "bool"),  # logical or
    (_t("bool"), "*", _t("bool"), "bool"),  # logical and
    (_t("bool"), "/", _t("bool"), "float32"),
    (_t("int64"), "+", True, "int64"),
    (_t("float32"), "+", 2, "float32"),
    (_t("float64"), "-", 2.5, "float64"),
    (_t("float32"), "*", _t("int64"), "float32"),
    (_t("int64"), "-", _t("float64"), "float64"),
    (_t("float32"), "+", _t("float64", ()), "float32"),  # zero-dim tensors rank below dimensioned ones...
    (_t("int64"), "+", _t("float64", ()), "float64"),  # ...unless of a higher category
    (_t("bool"), "+", _t("int64", ()), "int64"),
    (_t("int64"), "*", _t("bool", ()), "int64"),
    (_t("float32", ()), "+", _t("float64", ()), "float64"),
    (_t("int64", ()), "+", 1.5, "float32"),
    (_t("int64"), "**", 2, "int64"),
    (_t("int64"), "**", 0.5, "float32"),
    (2, "**", _t("int64"), "int64"),
    (2.0, "**", _t("int64"), "float32"),
    (_t("int64"), "**", _t("int64"), "int64"),
    (_t("float32"), "**", _t("float64"), "float64"),
]


def _operand(spec):
    if isinstance(spec, tuple):
        _, dtype, shape = spec
        n = int(np.prod(shape))
        a = (np.arange(n).reshape(shape) % 3 + 1).astype({"bool": bool}.get(dtype, np.float64))
        return a, fg.tensor(a.tolist(), dtype=getattr(fg, dtype))
    return spec, spec


def _spec_id(spec):
    if isinstance(spec, tuple):
        return spec[1] + ("-0d" if spec[2] == () else "")
    return repr(spec)


@pytest.mark.parametrize(
    "lhs,op,rhs,expected",
    [pytest.param(*case, id=f"{_spec_id(case[0])}{case[1]}{_spec_id(case[2])}") for case in PROMOTION],
)
def test_type_promotion(lhs, op, rhs, expected):
    a, x = _operand(lhs)
    b, y = _operand(rhs)
    out = ARITH[op](x, y)
    assert dtype_name(out.dtype) == expected
    # The table agrees with the reference implementation of torch's rules.
    operands = [tensor_operand(v) if isinstance(s, tuple) else ("scalar", s) for s, v in ((lhs, x), (rhs, y))]
    promoted = result_dtype(*operands)
    if op == "/" and promoted in ("int64", "bool"):
        promoted = "float32"
    assert promoted == expected
    # Values: computed in float64, or exactly for integers.
    fa = np.asarray(a, dtype=np.float64)
    fb = np.asarray(b, dtype=np.float64)
    ref = ARITH[op](fa, fb)
    if expected == "bool":
        ref = {"+": np.logical_or, "*": np.logical_and}[op](fa != 0, fb != 0)
    assert_tensor(out, ref, dtype=expected)


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize(
    "f,ref",
    [
        pytest.param(lambda x: x.exp(), np.exp, id="exp"),
        pytest.param(lambda x: x.log(), np.log, id="log"),
    ],
)
def test_unary_float_ops_on_integers_give_float32(f, ref, dtype):
    a = np.array([1, 2, 3]) if dtype == "int64" else np.array([True, False, True])
    x = fg.tensor(a.tolist())
    with np.errstate(divide="ignore"):
        expected = ref(a.astype(np.float64))
    assert_tensor(f(x), expected, dtype="float32")


def test_neg_of_int_stays_int():
    assert_tensor(-fg.tensor([1, -2, 3]), np.array([-1, 2, -3]), dtype="int64")


def test_int_division_by_zero_is_ieee():
    out = fg.tensor([1, 0, -1]) / 0
    assert_tensor(out, np.array([np.inf, np.nan, -np.inf]), dtype="float32")


# ---------------------------------------------------------------------------
# comparisons, all/any
# ---------------------------------------------------------------------------

COMPARISONS = [
    # method name, operator, numpy reference
    ("eq", operator.eq, np.equal),
    ("ne", operator.ne, np.not_equal),
    ("lt", operator.lt, np.less),
    ("le", operator.le, np.less_equal),
    ("gt", operator.gt, np.greater),
    ("ge", operator.ge, np.greater_equal),
]
CMP_PARAMS = [pytest.param(m, f, ref, id=m) for m, f, ref in COMPARISONS]

CMP_OPERANDS = [
    # a, b: lists or Python scalars; ties on purpose
    pytest.param([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], [2.0, 2.0, 2.0], id="float-broadcast"),
    pytest.param([1.0, 2.0, 3.0], 2, id="float-int-scalar"),
    pytest.param([1, 2, 3], 2.0, id="int-float-scalar"),
    pytest.param([1, 2, 3], [1.5, 2.0, 3.5], id="int-float"),
    pytest.param([True, False], 1.0, id="bool-float-scalar"),
    pytest.param([True, False], [[True], [False]], id="bool-bool-broadcast"),
    pytest.param([], 1.0, id="empty"),
]


@pytest.mark.parametrize("a,b", CMP_OPERANDS)
@pytest.mark.parametrize("method,f,ref", CMP_PARAMS)
def test_comparison(method, f, ref, a, b):
    x = fg.tensor(a)
    y = fg.tensor(b) if isinstance(b, list) else b
    expected = ref(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64))
    assert_tensor(getattr(x, method)(y), expected, dtype="bool")
    assert_tensor(f(x, y), expected, dtype="bool")


@pytest.mark.parametrize("method,f,ref", CMP_PARAMS)
def test_comparison_scalar_on_the_left(method, f, ref):
    x = fg.tensor([1.0, 2.0, 3.0])
    assert_tensor(f(2, x), ref(2.0, np.array([1.0, 2.0, 3.0])), dtype="bool")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("method,f,ref", CMP_PARAMS)
def test_comparison_strided(method, f, ref, dtype, rng):
    a, x = make_input(rng, (3, 4), TRANSPOSED, dtype, "ties")
    b, y = make_input(rng, (3, 4), STEPPED, dtype, "ties")
    c, z = make_input(rng, (3, 4), EXPANDED, dtype, "ties")
    assert_tensor(f(x, y), ref(a, b), dtype="bool")
    assert_tensor(getattr(z, method)(x), ref(c, a), dtype="bool")


@pytest.mark.parametrize(
    "data,all_,any_",
    [
        pytest.param([True, True], True, True, id="bool-all-true"),
        pytest.param([[True, False], [True, True]], False, True, id="bool-mixed"),
        pytest.param([False, False], False, False, id="bool-all-false"),
        pytest.param([1.0, 0.0], False, True, id="float"),
        pytest.param([0.5, -2.0], True, True, id="float-nonzero"),
        pytest.param([3, 0], False, True, id="int"),
        pytest.param([], True, False, id="empty"),
        pytest.param(True, True, True, id="0d"),
    ],
)
def test_all_any(data, all_, any_):
    x = fg.tensor(data)
    assert_tensor(x.all(), np.array(all_), dtype="bool")
    assert_tensor(x.any(), np.array(any_), dtype="bool")
    assert x.all().item() is all_
    assert x.any().item() is any_


def test_eq_all_on_strided_views():
    x = fg.arange(12.0).reshape(3, 4)
    assert x.t().t().eq(x).all().item() is True
    assert x[::2].eq(x[::2]).all().item() is True
    assert x.eq(x + 1).any().item() is False


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------

REDUCTIONS = [
    # id, ferrograd expression, numpy reference (on float64)
    ("sum()", lambda x: x.sum(), lambda a: a.sum()),
    ("sum(0)", lambda x: x.sum(0), lambda a: a.sum(0)),
    ("sum(-1)", lambda x: x.sum(-1), lambda a: a.sum(-1)),
    ("sum(dim=1,keepdim)", lambda x: x.sum(dim=1, keepdim=True), lambda a: a.sum(1, keepdims=True)),
    ("sum(dim=-2,keepdim)", lambda x: x.sum(dim=-2, keepdim=True), lambda a: a.sum(-2, keepdims=True)),
    ("sum((0,2))", lambda x: x.sum((0, 2)), lambda a: a.sum((0, 2))),
    ("sum(dim=(-1,0),keepdim)", lambda x: x.sum(dim=(-1, 0), keepdim=True), lambda a: a.sum((-1, 0), keepdims=True)),
    ("sum(dim=None,keepdim)", lambda x: x.sum(dim=None, keepdim=True), lambda a: a.sum(keepdims=True)),
    ("mean()", lambda x: x.mean(), lambda a: a.mean()),
    ("mean(0)", lambda x: x.mean(0), lambda a: a.mean(0)),
    ("mean(-1)", lambda x: x.mean(-1), lambda a: a.mean(-1)),
    ("mean(dim=1,keepdim)", lambda x: x.mean(dim=1, keepdim=True), lambda a: a.mean(1, keepdims=True)),
    ("mean((0,2))", lambda x: x.mean((0, 2)), lambda a: a.mean((0, 2))),
    ("mean(dim=(-1,0),keepdim)", lambda x: x.mean(dim=(-1, 0), keepdim=True), lambda a: a.mean((-1, 0), keepdims=True)),
    ("norm()", lambda x: x.norm(), lambda a: np.sqrt((a * a).sum())),
]
REDUCTION_PARAMS = [pytest.param(f, ref, id=name) for name, f, ref in REDUCTIONS]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout", _cases([(2, 3, 4)]))
@pytest.mark.parametrize("f,ref", REDUCTION_PARAMS)
def test_reduction_forward(f, ref, shape, layout, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype)
    assert_tensor(f(x), ref(a.astype(np.float64)), dtype=dtype)


@pytest.mark.parametrize("shape,layout", _cases([(2, 3, 4)]))
@pytest.mark.parametrize("f,ref", REDUCTION_PARAMS)
def test_reduction_grad(f, ref, shape, layout, rng):
    storage = random_array(rng, layout.storage_shape(shape))
    gradcheck(lambda s: f(layout.fg_view(s, shape)), [storage])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (0,), (0, 3), (3, 0, 2)], ids=str)
def test_full_reductions_any_shape(shape, dtype, rng):
    a, x = make_input(rng, shape, CONTIGUOUS, dtype)
    a = a.astype(np.float64)
    assert_tensor(x.sum(), np.array(a.sum()), dtype=dtype)
    with np.errstate(invalid="ignore"):
        assert_tensor(x.mean(), np.array(np.mean(a) if a.size else np.nan), dtype=dtype)
    assert_tensor(x.norm(), np.array(np.sqrt((a * a).sum())), dtype=dtype)


def test_mean_over_empty_dim_is_nan():
    assert_tensor(fg.zeros(0, 3).mean(0), np.full(3, np.nan), dtype="float32")
    assert_tensor(fg.zeros(0, 3).sum(0), np.zeros(3), dtype="float32")


@pytest.mark.parametrize(
    "data,dim,expected",
    [
        pytest.param([[1, 2, 3], [4, 5, 6]], None, 21, id="int"),
        pytest.param([[1, 2, 3], [4, 5, 6]], 0, [5, 7, 9], id="int-dim0"),
        pytest.param([[1, 2, 3], [4, 5, 6]], -1, [6, 15], id="int-dim-1"),
        pytest.param([True, False, True], None, 2, id="bool"),
        pytest.param([[True, False], [True, True]], 1, [1, 2], id="bool-dim1"),
    ],
)
def test_sum_of_int_and_bool_is_int64(data, dim, expected):
    x = fg.tensor(data)
    out = x.sum() if dim is None else x.sum(dim)
    assert_tensor(out, np.array(expected), dtype="int64")


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((1, 1), (1, 1)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),  # batched @ matrix
    ((3, 4), (2, 4, 5)),  # matrix @ batched
    ((1, 3, 4), (5, 4, 2)),  # broadcast batch dims
    ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 5)),
    ((3, 0), (0, 5)),  # empty inner dim: zeros
    ((2, 0, 3), (2, 3, 4)),
]
MATMUL_PARAMS = [pytest.param(sa, sb, id=f"{sa}@{sb}") for sa, sb in MATMUL_SHAPES]
MATMUL_FNS = [
    pytest.param(operator.matmul, id="@"),
    pytest.param(lambda x, y: x.matmul(y), id="method"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape_a,shape_b", MATMUL_PARAMS)
@pytest.mark.parametrize("mm", MATMUL_FNS)
def test_matmul_forward(mm, shape_a, shape_b, dtype, rng):
    a, x = make_input(rng, shape_a, CONTIGUOUS, dtype)
    b, y = make_input(rng, shape_b, CONTIGUOUS, dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert_tensor(mm(x, y), expected, dtype=dtype, rtol=1e-4 if dtype == "float32" else None, atol=1e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("shape_a,shape_b", MATMUL_PARAMS)
def test_matmul_grad(shape_a, shape_b, rng):
    gradcheck(operator.matmul, [random_array(rng, shape_a), random_array(rng, shape_b)])


MATMUL_STRIDED = [
    pytest.param((3, 4), TRANSPOSED, (4, 5), CONTIGUOUS, id="a-transposed"),
    pytest.param((3, 4), CONTIGUOUS, (4, 5), TRANSPOSED, id="b-transposed"),
    pytest.param((3, 4), TRANSPOSED, (4, 5), TRANSPOSED, id="both-transposed"),
    pytest.param((3, 4), STEPPED, (4, 5), STEPPED, id="both-stepped"),
    pytest.param((3, 4), EXPANDED, (4, 5), CONTIGUOUS, id="a-expanded-rows"),
    pytest.param((2, 3, 4), EXPANDED, (2, 4, 5), TRANSPOSED, id="batched-expanded-transposed"),
    pytest.param((2, 3, 4), STEPPED, (4, 2), TRANSPOSED, id="batched-stepped-matrix"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape_a,lay_a,shape_b,lay_b", MATMUL_STRIDED)
def test_matmul_forward_strided(shape_a, lay_a, shape_b, lay_b, dtype, rng):
    a, x = make_input(rng, shape_a, lay_a, dtype)
    b, y = make_input(rng, shape_b, lay_b, dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert_tensor(x @ y, expected, dtype=dtype, rtol=1e-4 if dtype == "float32" else None, atol=1e-5 if dtype == "float32" else None)


@pytest.mark.parametrize("shape_a,lay_a,shape_b,lay_b", MATMUL_STRIDED)
def test_matmul_grad_strided(shape_a, lay_a, shape_b, lay_b, rng):
    sa = random_array(rng, lay_a.storage_shape(shape_a))
    sb = random_array(rng, lay_b.storage_shape(shape_b))
    gradcheck(lambda p, q: lay_a.fg_view(p, shape_a) @ lay_b.fg_view(q, shape_b), [sa, sb])


def test_matmul_larger_than_a_kernel_block(rng):
    a, x = make_input(rng, (67, 129), CONTIGUOUS, "float64")
    b, y = make_input(rng, (129, 33), TRANSPOSED, "float64")
    assert_tensor(x @ y, a @ b, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------
# views and indexing
# ---------------------------------------------------------------------------

VIEWS = [
    # id, input shape, ferrograd expression, numpy reference, works on non-contiguous input
    ("reshape(6,4)", (2, 3, 4), lambda x: x.reshape(6, 4), lambda a: a.reshape(6, 4), True),
    ("reshape(-1)", (2, 3, 4), lambda x: x.reshape(-1), lambda a: a.reshape(-1), True),
    ("reshape(4,-1,2)", (2, 3, 4), lambda x: x.reshape(4, -1, 2), lambda a: a.reshape(4, -1, 2), True),
    ("reshape((3,8))", (2, 3, 4), lambda x: x.reshape((3, 8)), lambda a: a.reshape(3, 8), True),
    ("view(6,4)", (2, 3, 4), lambda x: x.view(6, 4), lambda a: a.reshape(6, 4), False),
    ("view(-1)", (2, 3, 4), lambda x: x.view(-1), lambda a: a.reshape(-1), False),
    ("view((4,6))", (2, 3, 4), lambda x: x.view((4, 6)), lambda a: a.reshape(4, 6), False),
    ("transpose(0,2)", (2, 3, 4), lambda x: x.transpose(0, 2), lambda a: a.swapaxes(0, 2), True),
    ("transpose(-1,-2)", (2, 3, 4), lambda x: x.transpose(-1, -2), lambda a: a.swapaxes(-1, -2), True),
    ("t()", (3, 4), lambda x: x.t(), lambda a: a.T, True),
    ("t()-1d", (5,), lambda x: x.t(), lambda a: a, True),
    ("permute(2,0,1)", (2, 3, 4), lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), True),
    ("permute((1,2,0))", (2, 3, 4), lambda x: x.permute((1, 2, 0)), lambda a: a.transpose(1, 2, 0), True),
    ("permute(-1,0,1)", (2, 3, 4), lambda x: x.permute(-1, 0, 1), lambda a: a.transpose(2, 0, 1), True),
    ("unsqueeze(0)", (2, 3), lambda x: x.unsqueeze(0), lambda a: a[None], True),
    ("unsqueeze(1)", (2, 3), lambda x: x.unsqueeze(1), lambda a: a[:, None], True),
    ("unsqueeze(-1)", (2, 3), lambda x: x.unsqueeze(-1), lambda a: a[..., None], True),
    ("squeeze()", (2, 1, 3, 1), lambda x: x.squeeze(), lambda a: a.squeeze(), True),
    ("squeeze(1)", (2, 1, 3), lambda x: x.squeeze(1), lambda a: a.squeeze(1), True),
    ("squeeze(-1)", (2, 3, 1), lambda x: x.squeeze(-1), lambda a: a.squeeze(-1), True),
    ("squeeze(0)-noop", (2, 3), lambda x: x.squeeze(0), lambda a: a, True),
    ("expand(2,3,4)", (3, 1), lambda x: x.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), True),
    ("expand(-1,4)", (3, 1), lambda x: x.expand(-1, 4), lambda a: np.broadcast_to(a, (3, 4)), True),
    ("expand((2,1,3))", (1, 3), lambda x: x.expand((2, 1, 3)), lambda a: np.broadcast_to(a, (2, 1, 3)), True),
    ("expand(0,3)", (1, 3), lambda x: x.expand(0, 3), lambda a: np.broadcast_to(a, (0, 3)), True),
    ("view-chain", (2, 3, 4), lambda x: x.transpose(0, 1).reshape(3, 8).t().unsqueeze(0), lambda a: a.swapaxes(0, 1).reshape(3, 8).T[None], True),
]


def _view_cases():
    out = []
    for name, shape, f, ref, strided_ok in VIEWS:
        for lay in layouts_for(shape):
            if lay is CONTIGUOUS or strided_ok:
                out.append(pytest.param(shape, lay, f, ref, id=f"{name}-{lay.name}"))
    return out


VIEW_CASES = _view_cases()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout,f,ref", VIEW_CASES)
def test_view_forward(shape, layout, f, ref, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype)
    assert_tensor(f(x), ref(a), dtype=dtype)


@pytest.mark.parametrize("shape,layout,f,ref", VIEW_CASES)
def test_view_grad(shape, layout, f, ref, rng):
    storage = random_array(rng, layout.storage_shape(shape))
    gradcheck(lambda s: f(layout.fg_view(s, shape)), [storage])


INDICES = [
    # the same index object is applied to a numpy array and to a tensor of shape (4, 3, 5)
    1,
    -1,
    slice(1, 3),
    slice(None, None, 2),
    slice(1, None, 3),
    slice(1, 10),  # end clamped
    slice(3, 1),  # empty
    (slice(None), 1),
    (Ellipsis, 0),
    (Ellipsis, slice(None, None, 2)),
    None,
    (slice(None), None),
    (0, slice(1, None), slice(None, None, 3)),
    (-1, -2, -3),  # a 0-dim tensor
    (slice(None), -1, None),
    (None, 1, Ellipsis, None),
    (slice(0, 4, 2), slice(2, 0)),
    Ellipsis,
]


def _index_id(idx):
    return repr(idx).replace("slice", "s").replace("Ellipsis", "...")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("idx", INDICES, ids=_index_id)
def test_getitem_forward(idx, dtype, rng):
    a, x = make_input(rng, (4, 3, 5), CONTIGUOUS, dtype)
    assert_tensor(x[idx], a[idx], dtype=dtype)


@pytest.mark.parametrize("layout", [TRANSPOSED, STEPPED, EXPANDED], ids=repr)
@pytest.mark.parametrize("idx", INDICES, ids=_index_id)
def test_getitem_strided(idx, layout, rng):
    a, x = make_input(rng, (4, 3, 5), layout, "float64")
    assert_tensor(x[idx], a[idx], dtype="float64")


@pytest.mark.parametrize("idx", INDICES, ids=_index_id)
def test_getitem_grad(idx, rng):
    gradcheck(lambda x: x[idx], [random_array(rng, (4, 3, 5))])


def test_getitem_of_0d_with_none_and_ellipsis():
    x = fg.tensor(2.5)
    assert_tensor(x[None], np.array([2.5]))
    assert_tensor(x[...], np.array(2.5))
