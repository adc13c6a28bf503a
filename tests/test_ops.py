"""Every op of issue 2: forward against numpy (float32 and float64, contiguous and
strided inputs) and gradient against float64 finite differences. Table-driven."""

import math
import operator
import warnings

import ferrograd as fg
import numpy as np
import pytest
from helpers import (
    AGAINST_TORCH,
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
F = fg.nn.functional
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def _gelu_tanh(a):
    return 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a**3)))


def _np_softmax(a, dim):
    e = np.exp(a - a.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def _softplus(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


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

# One row per argument-free elementwise unary op (the core's `for_each_unary_op!` registry): method name,
# numpy reference, input domain, PyTorch's grad_fn name, result dtype for an int64 input and for a bool
# input ("error" = NotImplementedError). Forward values, gradients, grad_fn names, function forms and
# integer inputs are all tested from it.
UNARY_OPS = [
    ("exp", np.exp, "small", "ExpBackward0", "float32", "float32"),
    ("log", np.log, "positive", "LogBackward0", "float32", "float32"),
    ("abs", np.abs, "nonzero", "AbsBackward0", "int64", "error"),
    ("absolute", np.abs, "nonzero", "AbsBackward0", "int64", "error"),
    ("sign", np.sign, "any", "SignBackward0", "int64", "bool"),
    ("sqrt", np.sqrt, "positive", "SqrtBackward0", "float32", "float32"),
    ("rsqrt", lambda a: 1 / np.sqrt(a), "positive", "RsqrtBackward0", "float32", "float32"),
    ("reciprocal", np.reciprocal, "nonzero", "ReciprocalBackward0", "float32", "float32"),
    ("exp2", np.exp2, "any", "Exp2Backward0", "float32", "float32"),
    ("expm1", np.expm1, "small", "Expm1Backward0", "float32", "float32"),
    ("log2", np.log2, "positive", "Log2Backward0", "float32", "float32"),
    ("log10", np.log10, "positive", "Log10Backward0", "float32", "float32"),
    ("log1p", np.log1p, "unit", "Log1PBackward0", "float32", "float32"),
    ("sin", np.sin, "any", "SinBackward0", "float32", "float32"),
    ("cos", np.cos, "any", "CosBackward0", "float32", "float32"),
    ("tan", np.tan, "unit", "TanBackward0", "float32", "float32"),
    ("asin", np.arcsin, "unit", "AsinBackward0", "float32", "float32"),
    ("arcsin", np.arcsin, "unit", "AsinBackward0", "float32", "float32"),
    ("acos", np.arccos, "unit", "AcosBackward0", "float32", "float32"),
    ("arccos", np.arccos, "unit", "AcosBackward0", "float32", "float32"),
    ("atan", np.arctan, "any", "AtanBackward0", "float32", "float32"),
    ("arctan", np.arctan, "any", "AtanBackward0", "float32", "float32"),
    ("asinh", np.arcsinh, "any", "AsinhBackward0", "float32", "float32"),
    ("arcsinh", np.arcsinh, "any", "AsinhBackward0", "float32", "float32"),
    ("acosh", np.arccosh, "above1", "AcoshBackward0", "float32", "float32"),
    ("arccosh", np.arccosh, "above1", "AcoshBackward0", "float32", "float32"),
    ("deg2rad", np.deg2rad, "any", "Deg2RadBackward0", "float32", "float32"),
    ("rad2deg", np.rad2deg, "any", "Rad2DegBackward0", "float32", "float32"),
    ("atanh", np.arctanh, "unit", "AtanhBackward0", "float32", "float32"),
    ("arctanh", np.arctanh, "unit", "AtanhBackward0", "float32", "float32"),
    ("sinh", np.sinh, "any", "SinhBackward0", "float32", "float32"),
    ("cosh", np.cosh, "any", "CoshBackward0", "float32", "float32"),
    ("tanh", np.tanh, "any", "TanhBackward0", "float32", "float32"),
    ("sigmoid", _sigmoid, "any", "SigmoidBackward0", "float32", "float32"),
    ("relu", lambda a: np.maximum(a, 0), "nonzero", "ReluBackward0", "int64", "error"),
    ("erf", _erf, "any", "ErfBackward0", "float32", "float32"),
    ("floor", np.floor, "any", "FloorBackward0", "int64", "error"),
    ("ceil", np.ceil, "any", "CeilBackward0", "int64", "error"),
    ("trunc", np.trunc, "any", "TruncBackward0", "int64", "error"),
    ("fix", np.trunc, "any", "TruncBackward0", "int64", "error"),
    ("frac", lambda a: a - np.trunc(a), "any", "FracBackward0", "error", "error"),
]


def _method(name):
    return lambda x: getattr(x, name)()


UNARY = [
    # id, ferrograd expression, numpy reference, input domain
    ("neg", lambda x: -x, np.negative, "any"),
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
    ("fg.absolute", lambda x: fg.absolute(x), np.abs, "nonzero"),
    ("square", lambda x: x.square(), np.square, "any"),
    ("logit", lambda x: x.logit(), lambda a: np.log(a / (1 - a)), "prob"),
    (
        "logit(eps)",
        lambda x: x.logit(eps=0.2),
        lambda a: np.log(np.clip(a, 0.2, 0.8) / (1 - np.clip(a, 0.2, 0.8))),
        "prob",
    ),
    ("round", lambda x: x.round(), np.round, "any"),
    ("round(decimals=1)", lambda x: x.round(decimals=1), lambda a: np.round(a * 10) / 10, "any"),
    ("round(decimals=-1)", lambda x: fg.round(x * 40, decimals=-1), lambda a: np.round(a * 4) * 10, "any"),
    ("nan_to_num", lambda x: x.nan_to_num(), np.nan_to_num, "any"),
    ("fg.nan_to_num(1,2,-2)", lambda x: fg.nan_to_num(x, 1.0, 2.0, -2.0), lambda a: a, "any"),
    ("F.relu", lambda x: F.relu(x), lambda a: np.maximum(a, 0), "nonzero"),
    ("F.sigmoid", lambda x: F.sigmoid(x), _sigmoid, "any"),
    ("F.tanh", lambda x: F.tanh(x), np.tanh, "any"),
    ("F.silu", lambda x: F.silu(x), lambda a: a * _sigmoid(a), "any"),
    ("F.gelu", lambda x: F.gelu(x), lambda a: 0.5 * a * (1 + _erf(a / math.sqrt(2))), "any"),
    ("F.gelu(tanh)", lambda x: F.gelu(x, approximate="tanh"), _gelu_tanh, "any"),
    ("F.softplus", lambda x: F.softplus(x), _softplus, "any"),
    (
        "F.softplus(beta,threshold)",
        lambda x: F.softplus(x, beta=2, threshold=1.5),
        lambda a: _softplus(a, 2.0, 1.5),
        "any",
    ),
    ("F.elu", lambda x: F.elu(x), lambda a: np.where(a > 0, a, np.expm1(a)), "any"),
    ("F.elu(alpha)", lambda x: F.elu(x, alpha=0.5), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a)), "any"),
    ("F.leaky_relu", lambda x: F.leaky_relu(x), lambda a: np.where(a > 0, a, 0.01 * a), "any"),
    ("F.leaky_relu(0.2)", lambda x: F.leaky_relu(x, 0.2), lambda a: np.where(a > 0, a, 0.2 * a), "any"),
    ("F.hardtanh", lambda x: F.hardtanh(x), lambda a: np.clip(a, -1, 1), "any"),
    ("F.hardtanh(-0.5,1.5)", lambda x: F.hardtanh(x, -0.5, 1.5), lambda a: np.clip(a, -0.5, 1.5), "any"),
] + [(name, _method(name), ref, domain) for name, ref, domain, *_ in UNARY_OPS]
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


UNARY_GRAD_FN = [
    # expression on a float tensor that requires grad, PyTorch's grad_fn name
    (lambda x: x.square(), "PowBackward0"),
    (lambda x: x.logit(), "LogitBackward0"),
    (lambda x: x.nan_to_num(), "NanToNumBackward0"),
    (lambda x: x.round(), "RoundBackward0"),
    (lambda x: x.round(decimals=2), "RoundBackward1"),
    (lambda x: F.silu(x), "SiluBackward0"),
    (lambda x: F.gelu(x), "GeluBackward0"),
    (lambda x: F.gelu(x, approximate="tanh"), "GeluBackward0"),
    (lambda x: F.softplus(x), "SoftplusBackward0"),
    (lambda x: F.elu(x), "EluBackward0"),
    (lambda x: F.leaky_relu(x), "LeakyReluBackward0"),
    (lambda x: F.hardtanh(x), "HardtanhBackward0"),
    (lambda x: F.relu(x), "ReluBackward0"),
] + [(_method(name), grad_fn) for name, _, _, grad_fn, *_ in UNARY_OPS]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=n + str(i)) for i, (f, n) in enumerate(UNARY_GRAD_FN)])
def test_unary_grad_fn_name(f, name):
    x = fg.tensor([0.25, 0.5], requires_grad=True)
    assert f(x).grad_fn.name() == name


UNARY_FUNCTIONS = [
    "square",
    "logit",
    "round",
] + [name for name, *_ in UNARY_OPS]


@pytest.mark.parametrize("name", UNARY_FUNCTIONS)
def test_unary_function_form_matches_method(name):
    x = fg.tensor([0.1, 0.4, 0.8, 0.3], dtype=fg.float64)
    via_fn = getattr(fg, name)(x)
    assert_tensor(via_fn, to_numpy_(getattr(x, name)()), dtype="float64")


def to_numpy_(t):
    return np.array(t.detach().numpy())


# Registry ops whose in-place form torch has as a method only (no `torch.sign_`, `torch.absolute_`).
NO_INPLACE_FUNCTION = {"absolute", "sign", "sgn"}


# torch names the in-place forms of these ops' rules differently and has no derivative for them: backward
# through one raises NotImplementedError.
INPLACE_GRAD_FN = {"asinh": "AsinhBackward1", "arcsinh": "AsinhBackward1"}
INPLACE_GRAD_FN |= {"atanh": "AtanhBackward1", "arctanh": "AtanhBackward1"}
INPLACE_GRAD_FN |= {"acosh": "AcoshBackward1", "arccosh": "AcoshBackward1"}
NO_INPLACE_DERIVATIVE = {"asinh", "arcsinh", "atanh", "arctanh", "acosh", "arccosh"}


def _inplace_rows():
    for name, ref, domain, grad_fn, *_ in UNARY_OPS:
        yield pytest.param(name, ref, domain, INPLACE_GRAD_FN.get(name, grad_fn), id=name)


@pytest.mark.parametrize("name,ref,domain,grad_fn", list(_inplace_rows()))
def test_unary_inplace_form(name, ref, domain, grad_fn, rng):
    """`x.name_()` writes the op's values into x, returns x, bumps its version, takes the op's grad_fn and
    gives the out-of-place op's gradient (float64, against the method's)."""
    a = random_array(rng, (2, 3), domain)
    leaf = fg.tensor(a, dtype=fg.float64, requires_grad=True)
    t = leaf * 1
    version = t._version
    assert getattr(t, name + "_")() is t
    assert t._version == version + 1
    assert_tensor(t, ref(a), dtype="float64")
    assert t.grad_fn.name() == grad_fn
    if name in NO_INPLACE_DERIVATIVE:
        op = grad_fn.removesuffix("Backward1").lower()
        with pytest.raises(NotImplementedError, match=f"the derivative for 'inplace version of {op}' is not"):
            t.sum().backward()
        return
    t.sum().backward()
    want = fg.tensor(a, dtype=fg.float64, requires_grad=True)
    getattr(want, name)().sum().backward()
    assert_tensor(leaf.grad, to_numpy_(want.grad))


@pytest.mark.parametrize("name,domain", [(row[0], row[2]) for row in UNARY_OPS])
def test_unary_inplace_through_a_view(name, domain, rng):
    """A write through a view of a graph tensor goes through its base (torch's CopySlices)."""
    a = random_array(rng, (2, 3), domain)
    leaf = fg.tensor(a, dtype=fg.float64, requires_grad=True)
    base = leaf * 1
    getattr(base[0], name + "_")()
    if name in NO_INPLACE_DERIVATIVE:
        return
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    want = fg.tensor(a[0], dtype=fg.float64, requires_grad=True)
    getattr(want, name)().sum().backward()
    base.sum().backward()
    assert_tensor(leaf.grad[0], to_numpy_(want.grad))
    assert_tensor(leaf.grad[1], np.ones(3))


@pytest.mark.parametrize("name", [row[0] for row in UNARY_OPS])
def test_unary_inplace_function_form(name):
    x = fg.tensor([0.1, 0.4, 0.8], dtype=fg.float64)
    want = getattr(x, name)()
    if name in NO_INPLACE_FUNCTION:
        assert not hasattr(fg, name + "_")
        return
    assert getattr(fg, name + "_")(x) is x
    assert_tensor(x, to_numpy_(want), dtype="float64")


@pytest.mark.parametrize("name,int_dtype", [(row[0], row[4]) for row in UNARY_OPS])
def test_unary_inplace_on_int(name, int_dtype):
    """An int tensor keeps its dtype: ops computing in float cannot write into it (torch's message)."""
    x = fg.tensor([1, 2, 3])
    if int_dtype == "int64":
        want = getattr(x, name)()
        getattr(x, name + "_")()
        assert_tensor(x, to_numpy_(want), dtype="int64")
    elif int_dtype == "float32":
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            getattr(x, name + "_")()
    else:
        with pytest.raises(NotImplementedError):
            getattr(x, name + "_")()


# The registry's aliases: torch's errors name the op they stand for.
ALIASES = {"absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh"}
ALIASES |= {"arctanh": "atanh", "fix": "trunc", "arccosh": "acosh"}

# Registry ops whose function form torch gives no `out=`.
NO_OUT = {"relu"}


@pytest.mark.parametrize("name,domain,int_dtype", [(row[0], row[2], row[4]) for row in UNARY_OPS])
def test_unary_out(name, domain, int_dtype, rng):
    """`fg.name(x, out=o)` returns o holding the values (an empty out resized); a wider float out is taken by
    the ops that compute in float, refused by those that keep their input's dtype (torch's rule)."""
    a = random_array(rng, (2, 3), domain)
    x = fg.tensor(a, dtype=fg.float32)
    if name in NO_OUT:
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            getattr(fg, name)(x, out=fg.empty(2, 3))
        return
    want = to_numpy_(getattr(x, name)())
    same = fg.empty(2, 3)
    assert getattr(fg, name)(x, out=same) is same
    assert_tensor(same, want, dtype="float32")
    empty = fg.empty(0)
    assert getattr(fg, name)(x, out=empty) is empty
    assert_tensor(empty, want, dtype="float32")
    wider = fg.empty(2, 3, dtype=fg.float64)
    if int_dtype == "float32":
        assert getattr(fg, name)(x, out=wider) is wider
        assert_tensor(wider, want, dtype="float64", rtol=1e-6, atol=1e-6)
    else:
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
            getattr(fg, name)(x, out=wider)


@pytest.mark.parametrize("name,int_dtype", [(row[0], row[4]) for row in UNARY_OPS if row[0] not in NO_OUT])
def test_unary_out_errors(name, int_dtype):
    x = fg.tensor([0.25, 0.5], requires_grad=True)
    no_autograd = f"^{ALIASES.get(name, name)}\\(\\): functions with out=... arguments don't support automatic"
    with pytest.raises(RuntimeError, match=no_autograd):
        getattr(fg, name)(x, out=fg.empty(2))
    message = "result type Float can't be cast to the desired output type Long"
    if int_dtype != "float32":
        message = "Found dtype Long but expected Float"
    with pytest.raises(RuntimeError, match=message):
        getattr(fg, name)(x.detach(), out=fg.empty(2, dtype=fg.int64))


UNARY_INT_DTYPES = [
    # name, result dtype for int64 input ("error" = NotImplementedError), result for bool input
    ("square", "int64", "int64"),
    ("logit", "float32", "float32"),
    ("round", "int64", "error"),
] + [(name, int_dtype, bool_dtype) for name, _, _, _, int_dtype, bool_dtype in UNARY_OPS]


@pytest.mark.parametrize("name,int_dtype,bool_dtype", UNARY_INT_DTYPES)
def test_unary_int_and_bool_inputs(name, int_dtype, bool_dtype):
    for data, want in (([-2, 0, 3], int_dtype), ([True, False, True], bool_dtype)):
        x = fg.tensor(data)
        if want == "error":
            with pytest.raises(NotImplementedError, match="not (implemented|supported) for"):
                getattr(x, name)()
            continue
        a = np.array(data, dtype=np.float64)
        out = getattr(x, name)()
        ref = getattr(fg.tensor(a.tolist(), dtype=fg.float64), name)()
        assert_tensor(out, to_numpy_(ref), dtype=want)


@pytest.mark.parametrize(
    "f",
    [
        pytest.param(lambda x: F.silu(x), id="silu"),
        pytest.param(lambda x: F.gelu(x), id="gelu"),
        pytest.param(lambda x: F.softplus(x), id="softplus"),
        pytest.param(lambda x: F.elu(x), id="elu"),
        pytest.param(lambda x: F.leaky_relu(x), id="leaky_relu"),
        pytest.param(lambda x: x.frac(), id="frac"),
    ],
)
def test_float_only_activations_reject_int(f):
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        f(fg.tensor([1, 2]))


def test_round_decimals():
    x = fg.tensor([1.2345, -2.5, 0.125, 1234.5678], dtype=fg.float64)
    assert_tensor(x.round(decimals=2), np.array([1.23, -2.5, 0.12, 1234.57]))
    assert_tensor(x.round(decimals=-2), np.array([0.0, -0.0, 0.0, 1200.0]))
    with pytest.raises(NotImplementedError, match="\"round_cpu\" not implemented for 'Long'"):
        fg.tensor([15, 25]).round(decimals=-1)


def test_hardtanh_on_int_keeps_int():
    assert_tensor(F.hardtanh(fg.tensor([-3, 0, 2])), np.array([-1, 0, 1]), dtype="int64")


def _grad_of(f, data):
    x = fg.tensor(data, dtype=fg.float64, requires_grad=True)
    f(x).sum().backward()
    return to_numpy_(x.grad)


@pytest.mark.parametrize(
    "f,data,expected",
    [
        # PyTorch's choices at kinks, poles and outside the domain
        pytest.param(lambda x: x.abs(), [0.0, 1.0, -1.0], [0.0, 1.0, -1.0], id="abs-at-0"),
        pytest.param(lambda x: x.relu(), [0.0, 1.0, -1.0], [0.0, 1.0, 0.0], id="relu-at-0"),
        pytest.param(lambda x: x.sqrt(), [0.0, 1.0, -1.0], [np.inf, 0.5, np.nan], id="sqrt-at-0"),
        pytest.param(lambda x: x.rsqrt(), [0.0, 1.0, -1.0], [-np.inf, -0.5, np.nan], id="rsqrt-at-0"),
        pytest.param(lambda x: x.reciprocal(), [0.0, 1.0], [-np.inf, -1.0], id="reciprocal-at-0"),
        pytest.param(lambda x: x.sign(), [0.0, 2.0, -1.0], [0.0, 0.0, 0.0], id="sign"),
        pytest.param(lambda x: x.round(), [0.5, 2.3], [0.0, 0.0], id="round"),
        pytest.param(lambda x: x.frac(), [-1.5, 2.3], [1.0, 1.0], id="frac"),
        pytest.param(lambda x: x.logit(), [0.0, 1.0, 1.2, 0.5], [np.inf, np.inf, np.nan, 4.0], id="logit-outside"),
        pytest.param(lambda x: x.logit(eps=0.1), [0.1, 0.0, 1.0, 0.5], [1 / 0.09, 0.0, 0.0, 4.0], id="logit-eps"),
        pytest.param(lambda x: F.hardtanh(x), [-1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 1.0, 0.0], id="hardtanh-bounds"),
        pytest.param(lambda x: F.leaky_relu(x), [0.0, 1.0, -1.0], [0.01, 1.0, 0.01], id="leaky-at-0"),
        pytest.param(lambda x: F.elu(x), [0.0, 1.0, -1.0], [1.0, 1.0, math.exp(-1)], id="elu-at-0"),
        pytest.param(lambda x: F.softplus(x), [30.0, 0.0], [1.0, 0.5], id="softplus-threshold"),
    ],
)
def test_unary_grad_at_special_points(f, data, expected):
    np.testing.assert_allclose(_grad_of(f, data), expected, rtol=1e-12)


def test_unary_special_values():
    x = fg.tensor([float("nan"), -0.5, 0.5, 1.5, 2.5, float("inf")])
    assert_tensor(x.sign(), np.array([0.0, -1.0, 1.0, 1.0, 1.0, 1.0]))
    assert_tensor(x.round(), np.array([np.nan, -0.0, 0.0, 2.0, 2.0, np.inf]))
    assert_tensor(x.relu(), np.array([np.nan, 0.0, 0.5, 1.5, 2.5, np.inf]))
    assert_tensor(x.sigmoid(), np.array([np.nan, *_sigmoid(np.array([-0.5, 0.5, 1.5, 2.5])), 1.0]))
    assert_tensor(F.softplus(fg.tensor([-100.0, 100.0])), np.array([0.0, 100.0]))


SECOND_DERIVATIVES = [
    # f, f'' as numpy
    pytest.param(lambda x: x.tanh(), lambda a: -2 * np.tanh(a) * (1 - np.tanh(a) ** 2), id="tanh"),
    pytest.param(
        lambda x: x.sigmoid(), lambda a: _sigmoid(a) * (1 - _sigmoid(a)) * (1 - 2 * _sigmoid(a)), id="sigmoid"
    ),
    pytest.param(lambda x: x.sin(), lambda a: -np.sin(a), id="sin"),
    pytest.param(lambda x: x.exp2(), lambda a: np.exp2(a) * math.log(2) ** 2, id="exp2"),
    pytest.param(lambda x: x.sqrt(), lambda a: -0.25 * a**-1.5, id="sqrt"),
    pytest.param(lambda x: x.atan(), lambda a: -2 * a / (1 + a * a) ** 2, id="atan"),
    pytest.param(lambda x: x.erf(), lambda a: -4 * a / math.sqrt(math.pi) * np.exp(-a * a), id="erf"),
    pytest.param(lambda x: F.softplus(x), lambda a: _sigmoid(a) * (1 - _sigmoid(a)), id="softplus"),
    pytest.param(lambda x: F.gelu(x), lambda a: np.exp(-a * a / 2) / math.sqrt(2 * math.pi) * (2 - a * a), id="gelu"),
]


@pytest.mark.parametrize("f,f2", SECOND_DERIVATIVES)
def test_unary_double_backward(f, f2):
    a = np.array([0.3, 0.9, 1.7])
    x = fg.tensor(a, dtype=fg.float64, requires_grad=True)
    y = f(x).sum()
    y.backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(to_numpy_(x.grad), f2(a), rtol=1e-9, atol=1e-12)


def test_activation_argument_errors():
    x = fg.tensor([1.0])
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="foo")
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)


# ---------------------------------------------------------------------------
# binary tensor-tensor arithmetic with broadcasting
# ---------------------------------------------------------------------------

BINARY = [
    # id, operator, numpy reference, domain of a, domain of b
    ("add", operator.add, np.add, "any", "any"),
    ("sub", operator.sub, np.subtract, "any", "any"),
    ("mul", operator.mul, np.multiply, "any", "any"),
    ("div", operator.truediv, np.divide, "any", "nonzero"),
    ("div(floor)", lambda x, y: fg.div(x, y, rounding_mode="floor"), np.floor_divide, "any", "nonzero"),
    ("div(trunc)", lambda x, y: x.div(y, rounding_mode="trunc"), lambda a, b: np.trunc(a / b), "any", "nonzero"),
    ("//", operator.floordiv, np.floor_divide, "any", "nonzero"),
    ("add(alpha)", lambda x, y: fg.add(x, y, alpha=2.5), lambda a, b: a + 2.5 * b, "any", "any"),
    ("sub(alpha)", lambda x, y: x.sub(y, alpha=-3), lambda a, b: a + 3 * b, "any", "any"),
    ("pow", operator.pow, np.power, "positive", "any"),
    ("maximum", lambda x, y: fg.maximum(x, y), np.maximum, "any", "any"),
    ("minimum", lambda x, y: x.minimum(y), np.minimum, "any", "any"),
    ("atan2", lambda x, y: fg.atan2(x, y), np.arctan2, "any", "nonzero"),
    ("fmod", lambda x, y: x.fmod(y), np.fmod, "any", "nonzero"),
    ("hypot", lambda x, y: fg.hypot(x, y), np.hypot, "nonzero", "any"),
    ("copysign", lambda x, y: x.copysign(y), np.copysign, "nonzero", "nonzero"),
    ("fmax", lambda x, y: fg.fmax(x, y), np.fmax, "any", "any"),
    ("fmin", lambda x, y: x.fmin(y), np.fmin, "any", "any"),
    ("logaddexp", lambda x, y: fg.logaddexp(x, y), np.logaddexp, "any", "any"),
    ("logaddexp2", lambda x, y: x.logaddexp2(y), np.logaddexp2, "any", "any"),
    ("ldexp", lambda x, y: fg.ldexp(x, y), lambda a, b: a * np.exp2(b), "any", "any"),
    ("remainder", lambda x, y: fg.remainder(x, y), np.remainder, "any", "nonzero"),
    ("%", operator.mod, np.remainder, "any", "nonzero"),
    ("clamp(min=t)", lambda x, y: x.clamp(min=y), np.maximum, "any", "any"),
    ("clamp(max=t)", lambda x, y: fg.clamp(x, max=y), np.minimum, "any", "any"),
    ("lerp(0.3)", lambda x, y: x.lerp(y, 0.3), lambda a, b: a + 0.3 * (b - a), "any", "any"),
    ("lerp(0.8)", lambda x, y: fg.lerp(x, y, 0.8), lambda a, b: a + 0.8 * (b - a), "any", "any"),
    ("where", lambda x, y: fg.where(x > y, x, y), np.maximum, "any", "any"),
]
BINARY_PARAMS = [pytest.param(f, ref, da, db, id=name) for name, f, ref, da, db in BINARY]
# torch has no derivative for floor_divide (`//`): test_floor_divide_has_no_derivative
NO_DERIVATIVE = {"//"}
BINARY_GRAD_PARAMS = [
    pytest.param(f, ref, da, db, id=name) for name, f, ref, da, db in BINARY if name not in NO_DERIVATIVE
]

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
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_GRAD_PARAMS)
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
@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_GRAD_PARAMS)
def test_binary_grad_strided(f, ref, dom_a, dom_b, shape_a, lay_a, shape_b, lay_b, rng):
    sa = random_array(rng, lay_a.storage_shape(shape_a), dom_a)
    sb = random_array(rng, lay_b.storage_shape(shape_b), dom_b)
    gradcheck(lambda p, q: f(lay_a.fg_view(p, shape_a), lay_b.fg_view(q, shape_b)), [sa, sb])


@pytest.mark.parametrize("f,ref,dom_a,dom_b", BINARY_GRAD_PARAMS)
def test_same_tensor_on_both_sides_grad(f, ref, dom_a, dom_b, rng):
    gradcheck(lambda x: f(x, x), [random_array(rng, (2, 3), "positive")])


@pytest.mark.parametrize(
    "f",
    [
        pytest.param(operator.floordiv, id="//"),
        pytest.param(lambda x, y: fg.floor_divide(x, y), id="floor_divide"),
        pytest.param(lambda x, y: x.floor_divide(2.0), id="floor_divide(number)"),
        pytest.param(lambda x, y: 7.0 // x, id="number//"),
    ],
)
def test_floor_divide_has_no_derivative(f):
    x = fg.tensor([1.5, -2.5], requires_grad=True)
    y = fg.tensor([0.5, 2.0], requires_grad=True)
    out = f(x, y)
    assert out.requires_grad
    assert out.grad_fn is not None
    with pytest.raises(RuntimeError, match="^derivative for aten::floor_divide is not implemented$"):
        out.sum().backward()
    assert x.grad is None and y.grad is None
    # div(rounding_mode="floor") is differentiable (zero almost everywhere): test_rounded_division


TERNARY = [
    # id, ferrograd expression of three tensors, numpy reference, domains
    (
        "clamp(t,t)",
        lambda x, lo, hi: x.clamp(lo, hi),
        lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi),
        ("any", "any", "any"),
    ),
    (
        "clip(t,t)",
        lambda x, lo, hi: fg.clip(x, lo, hi),
        lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi),
        ("any", "any", "any"),
    ),
    ("lerp(t,t,t)", lambda a, b, w: a.lerp(b, w), lambda a, b, w: a + w * (b - a), ("any", "any", "any")),
    (
        "where(t>0,t,t)",
        lambda c, a, b: fg.where(c > 0, a, b),
        lambda c, a, b: np.where(c > 0, a, b),
        ("nonzero", "any", "any"),
    ),
]
TERNARY_SHAPES = [
    pytest.param((2, 3), (2, 3), (2, 3), id="same"),
    pytest.param((2, 3), (3,), (2, 1), id="broadcast"),
    pytest.param((3,), (2, 3), (), id="broadcast-0d"),
    pytest.param((0, 3), (3,), (1,), id="empty"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sa,sb,sc", TERNARY_SHAPES)
@pytest.mark.parametrize("f,ref,doms", [pytest.param(f, r, d, id=n) for n, f, r, d in TERNARY])
def test_ternary_forward(f, ref, doms, sa, sb, sc, dtype, rng):
    arrays, tensors = zip(*[make_input(rng, s, CONTIGUOUS, dtype, d) for s, d in zip((sa, sb, sc), doms)])
    assert_tensor(f(*tensors), ref(*[a.astype(np.float64) for a in arrays]), dtype=dtype)


@pytest.mark.parametrize("sa,sb,sc", TERNARY_SHAPES)
@pytest.mark.parametrize(
    "f,ref,doms", [pytest.param(f, r, d, id=n) for n, f, r, d in TERNARY if not n.startswith("where")]
)
def test_ternary_grad(f, ref, doms, sa, sb, sc, rng):
    gradcheck(f, [random_array(rng, s, d) for s, d in zip((sa, sb, sc), doms)])


def test_ternary_strided(rng):
    a, x = make_input(rng, (3, 4), TRANSPOSED)
    lo, tlo = make_input(rng, (3, 4), STEPPED)
    hi, thi = make_input(rng, (3, 4), EXPANDED)
    assert_tensor(x.clamp(tlo, thi), np.minimum(np.maximum(a, lo), hi))
    assert_tensor(x.lerp(tlo, thi), a + hi * (lo - a))


SCALAR_CLAMPS = [
    # id, ferrograd expression, numpy reference
    ("clamp(-0.5,0.5)", lambda x: x.clamp(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    ("clamp(min=0)", lambda x: x.clamp(min=0), lambda a: np.maximum(a, 0)),
    ("clamp(max=1)", lambda x: fg.clamp(x, max=1), lambda a: np.minimum(a, 1)),
    ("clip(0,1)", lambda x: x.clip(0, 1), lambda a: np.clip(a, 0, 1)),
    ("clamp_min(0.2)", lambda x: x.clamp_min(0.2), lambda a: np.maximum(a, 0.2)),
    ("clamp_max(0.2)", lambda x: fg.clamp_max(x, 0.2), lambda a: np.minimum(a, 0.2)),
    ("clamp(1,-1)", lambda x: x.clamp(1, -1), lambda a: np.full_like(a, -1)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout", ELEMENTWISE_CASES)
@pytest.mark.parametrize("f,ref", [pytest.param(f, r, id=n) for n, f, r in SCALAR_CLAMPS])
def test_clamp_scalar_forward(f, ref, shape, layout, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype)
    assert_tensor(f(x), ref(a.astype(np.float64)), dtype=dtype)


@pytest.mark.parametrize("shape,layout", _cases([(2, 3)]))
@pytest.mark.parametrize("f,ref", [pytest.param(f, r, id=n) for n, f, r in SCALAR_CLAMPS])
def test_clamp_scalar_grad(f, ref, shape, layout, rng):
    storage = random_array(rng, layout.storage_shape(shape))
    gradcheck(lambda s: f(layout.fg_view(s, shape)), [storage])


BINARY_GRAD_FN = [
    (lambda a, b: fg.maximum(a, b), "MaximumBackward0"),
    (lambda a, b: fg.minimum(a, b), "MinimumBackward0"),
    (lambda a, b: a.clamp(1.5, 2.5), "ClampBackward1"),
    (lambda a, b: a.clamp(min=1.5), "ClampBackward1"),
    (lambda a, b: a.clip(0, 2), "ClampBackward1"),
    (lambda a, b: a.clamp(b, None), "ClampBackward0"),
    (lambda a, b: a.clamp(b, b + 1), "ClampBackward0"),
    (lambda a, b: a.clamp_min(2.0), "ClampMinBackward0"),
    (lambda a, b: a.clamp_max(2.0), "ClampMaxBackward0"),
    (lambda a, b: fg.atan2(a, b), "Atan2Backward0"),
    (lambda a, b: fg.hypot(a, b), "HypotBackward0"),
    (lambda a, b: a.copysign(b), "CopysignBackward0"),
    (lambda a, b: fg.copysign(a, -1), "CopysignBackward1"),
    (lambda a, b: fg.fmax(a, b), "FmaxBackward0"),
    (lambda a, b: a.fmin(b), "FminBackward0"),
    (lambda a, b: fg.logaddexp(a, b), "LogaddexpBackward0"),
    (lambda a, b: a.logaddexp2(b), "Logaddexp2Backward0"),
    (lambda a, b: fg.nextafter(a, b), "NextafterBackward0"),
    (lambda a, b: fg.ldexp(a, b), "LdexpBackward0"),
    (lambda a, b: fg.float_power(a, b), "PowBackward1"),
    (lambda a, b: fg.heaviside(a, b), "torch::autograd::NotImplemented"),
    (lambda a, b: fg.lerp(a, b, 0.3), "LerpBackward0"),
    (lambda a, b: fg.lerp(a, b, b), "LerpBackward1"),
    (lambda a, b: fg.div(a, b, rounding_mode="floor"), "DivBackward2"),
    (lambda a, b: a.div(2, rounding_mode="trunc"), "DivBackward2"),
    (lambda a, b: fg.add(a, b, alpha=2), "AddBackward0"),
    (lambda a, b: a.sub(b, alpha=0.5), "SubBackward0"),
    (lambda a, b: fg.fmod(a, 1.5), "FmodBackward0"),
    (lambda a, b: fg.fmod(a, b), "FmodBackward1"),
    (lambda a, b: fg.remainder(a, 1.5), "RemainderBackward0"),
    (lambda a, b: a % 1.5, "RemainderBackward0"),
    (lambda a, b: fg.remainder(a, b), "RemainderBackward1"),
    (lambda a, b: fg.where(a > 1, a, b), "WhereBackward0"),
    (lambda a, b: fg.where(a > 1, a, 0.0), "WhereBackward0"),
    (lambda a, b: a.where(a > 1, b), "WhereBackward0"),
]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=f"{n}-{i}") for i, (f, n) in enumerate(BINARY_GRAD_FN)])
def test_binary_grad_fn_name(f, name):
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = fg.tensor([1.0, 3.0, 2.0], requires_grad=True)
    assert f(a, b).grad_fn.name() == name


def _grads(f, *datas):
    ts = [fg.tensor(d, dtype=fg.float64, requires_grad=True) for d in datas]
    f(*ts).sum().backward()
    return [to_numpy_(t.grad) if t.grad is not None else None for t in ts]


@pytest.mark.parametrize(
    "f,datas,expected",
    [
        # PyTorch's gradients at ties and bounds (checked against torch)
        pytest.param(fg.maximum, ([1.0, 2.0, 3.0], [1.0, 3.0, 2.0]), [[0.5, 0, 1], [0.5, 1, 0]], id="maximum-tie"),
        pytest.param(fg.minimum, ([1.0, 2.0, 3.0], [1.0, 3.0, 2.0]), [[0.5, 1, 0], [0.5, 0, 1]], id="minimum-tie"),
        pytest.param(lambda a: a.clamp(1, 3), ([1.0, 2.0, 3.0],), [[0, 1, 0]], id="clamp-scalar-bounds"),
        pytest.param(lambda a: a.clamp(min=1), ([1.0, 2.0, 3.0],), [[0, 1, 1]], id="clamp-min-bound"),
        pytest.param(lambda a: a.clamp(3, 1), ([1.0, 2.0, 3.0],), [[0, 0, 0]], id="clamp-crossed"),
        pytest.param(
            lambda a, lo, hi: a.clamp(lo, hi),
            ([1.0, 1.0, 3.0, 2.0, 0.0, 4.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 3.0, 3.0, 3.0, 3.0, 3.0]),
            [[1, 0.5, 0.5, 1, 0, 0], [0, 0.5, 0, 0, 1, 0], [0, 0, 0.5, 0, 0, 1]],
            id="clamp-tensor-ties",
        ),
        pytest.param(
            lambda a, lo, hi: a.clamp(lo, hi),
            ([2.0, 3.0, 0.0], [3.0, 3.0, 3.0], [1.0, 1.0, 1.0]),
            [[0, 0, 0], [0, 0, 0], [1, 1, 1]],
            id="clamp-tensor-crossed",
        ),
        pytest.param(lambda a, b: fg.fmod(a, b), ([3.0, -3.0], [2.0, 2.0]), [[1, 1], [-1, 1]], id="fmod"),
        pytest.param(lambda a, b: fg.remainder(a, b), ([3.0, -3.0], [2.0, 2.0]), [[1, 1], [-1, 2]], id="remainder"),
    ],
)
def test_binary_grad_at_ties(f, datas, expected):
    for got, want in zip(_grads(f, *datas), expected):
        np.testing.assert_allclose(got, want)


def test_binary_int_and_special_values():
    assert_tensor(fg.fmod(fg.tensor([-3, 3]), -2), np.array([-1, 1]), dtype="int64")
    assert_tensor(fg.remainder(fg.tensor([-3, 3]), -2), np.array([-1, -1]), dtype="int64")
    assert_tensor(fg.tensor([-3.0, 3.0]) % 2, np.array([1.0, 1.0]))
    assert_tensor(fg.maximum(fg.tensor([1, 2]), fg.tensor([1.5])), np.array([1.5, 2.0]), dtype="float32")
    assert_tensor(fg.maximum(fg.tensor([1, 5]), fg.tensor([3, 2])), np.array([3, 5]), dtype="int64")
    assert_tensor(fg.atan2(fg.tensor([1, 2]), fg.tensor([1, 1])), np.arctan2([1, 2], [1, 1]), dtype="float32")
    nan = float("nan")
    assert_tensor(fg.maximum(fg.tensor([1.0, nan]), fg.tensor([2.0, 0.0])), np.array([2.0, nan]))
    assert_tensor(fg.minimum(fg.tensor([1.0, 0.0]), fg.tensor([nan, 2.0])), np.array([nan, 0.0]))
    assert_tensor(fg.tensor([1.0, nan]).clamp(0, 0.5), np.array([0.5, nan]))
    assert_tensor(fg.tensor([1, 2]).clamp(0.5), np.array([1.0, 2.0]), dtype="float32")
    assert_tensor(fg.tensor([1, 2]).clamp(0, 1), np.array([1, 1]), dtype="int64")
    assert_tensor(fg.where(fg.tensor([True, False]), 1.0, 0.0), np.array([1.0, 0.0]), dtype="float32")
    assert_tensor(fg.where(fg.tensor([True, False]), fg.tensor([1, 2]), 0), np.array([1, 0]), dtype="int64")


def test_rounded_division():
    a, b = fg.tensor([-7, 7, -6]), fg.tensor([2, -2, 3])
    assert_tensor(fg.div(a, b, rounding_mode="floor"), np.array([-4, -4, -2]), dtype="int64")
    assert_tensor(a.div(b, rounding_mode="trunc"), np.array([-3, -3, -2]), dtype="int64")
    assert_tensor(a // 2, np.array([-4, 3, -3]), dtype="int64")
    assert_tensor(7 // fg.tensor([2, -2]), np.array([3, -4]), dtype="int64")
    assert_tensor(fg.tensor([-7, 7], dtype=fg.int8).div(2, rounding_mode="trunc"), np.array([-3, 3]), dtype="int8")
    assert_tensor(fg.tensor([5.0]).div(2, rounding_mode=None), np.array([2.5]))
    # Python's float floor division: 1.0 // 0.1 == 9.0 (0.1 is slightly more than a tenth)
    assert_tensor(
        fg.tensor([1.0, 2.0], dtype=fg.float64) // fg.tensor([0.1, 0.3], dtype=fg.float64),
        np.array([1.0 // 0.1, 2.0 // 0.3]),
        dtype="float64",
    )
    assert_tensor(fg.div(fg.tensor([1.0, -1.0, 0.0]), 0.0, rounding_mode="floor"), np.array([np.inf, -np.inf, np.nan]))
    assert str(fg.tensor(-0.5).div(1, rounding_mode="trunc").item()) == "-0.0"
    assert fg.tensor(-0.5).div(1, rounding_mode="floor").item() == -1.0
    assert fg.tensor([3, 4]).div(2).dtype == fg.float32
    x = fg.tensor([-7.5, 7.5], requires_grad=True)
    x.div(2, rounding_mode="floor").sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_add_sub_alpha():
    assert_tensor(fg.tensor([1, 2]).add(fg.tensor([3, 4]), alpha=2), np.array([7, 10]), dtype="int64")
    assert_tensor(fg.sub(fg.tensor([1.0, 2.0]), 1, alpha=0.5), np.array([0.5, 1.5]))
    assert_tensor(fg.tensor([1, 2], dtype=fg.int8).add(3, alpha=2), np.array([7, 8]), dtype="int8")
    x, y = fg.tensor([1.0, 2.0], requires_grad=True), fg.tensor([3.0, 4.0], requires_grad=True)
    x.sub(y, alpha=3).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and y.grad.tolist() == [-3.0, -3.0]
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating point number."
    ):
        fg.tensor([1, 2]).add(1, alpha=0.5)
    with pytest.raises(TypeError, match=r"^add\(\): argument 'alpha' must be Number, not str"):
        fg.tensor([1.0]).add(1, alpha="2")
    with pytest.raises(TypeError, match=r"^sub\(\): argument 'alpha' must be Number, not str"):
        fg.tensor([1.0]).sub(1, alpha="2")


def test_binary_errors():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fg.tensor([1, 2]).div(0, rounding_mode="floor")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fg.tensor([1, 2]) // fg.tensor([1, 0])
    with pytest.raises(
        RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'fl'"
    ):
        fg.tensor([1.0]).div(2, rounding_mode="fl")
    with pytest.raises(NotImplementedError, match="\"div_floor_cpu\" not implemented for 'Bool'"):
        fg.tensor([True]).div(fg.tensor([True]), rounding_mode="floor")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fg.tensor([1, 2]).fmod(0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fg.tensor([1, 2]).remainder(fg.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        fg.tensor([1.0]).clamp()
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        fg.lerp(fg.tensor([1, 2]), fg.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="must match the size"):
        fg.maximum(fg.ones(2), fg.ones(3))
    with pytest.raises(TypeError):
        fg.maximum(fg.ones(2), "a")
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        fg.where(fg.ones(2), fg.ones(2), fg.ones(2))


LOGICAL = [
    ("logical_and", np.logical_and),
    ("logical_or", np.logical_or),
    ("logical_xor", np.logical_xor),
]


@pytest.mark.parametrize("name,ref", LOGICAL)
@pytest.mark.parametrize(
    "a,b",
    [
        pytest.param([True, False, True, False], [True, True, False, False], id="bool"),
        pytest.param([1.0, 0.0, 2.5, 0.0], [[0], [3]], id="float-int-broadcast"),
        pytest.param([], [], id="empty"),
    ],
)
def test_logical_binary(name, ref, a, b):
    x, y = fg.tensor(a), fg.tensor(b)
    expected = ref(np.array(a, dtype=np.float64) != 0, np.array(b, dtype=np.float64) != 0)
    assert_tensor(getattr(x, name)(y), expected, dtype="bool")
    assert_tensor(getattr(fg, name)(x, y), expected, dtype="bool")


def test_logical_not_and_float_classes(rng):
    inf, nan = float("inf"), float("nan")
    x = fg.tensor([1.0, 0.0, inf, -inf, nan])
    assert_tensor(x.logical_not(), np.array([False, True, False, False, False]), dtype="bool")
    assert_tensor(fg.logical_not(fg.tensor([3, 0])), np.array([False, True]), dtype="bool")
    assert_tensor(x.isnan(), np.array([False, False, False, False, True]), dtype="bool")
    assert_tensor(fg.isinf(x), np.array([False, False, True, True, False]), dtype="bool")
    assert_tensor(x.isfinite(), np.array([True, True, False, False, False]), dtype="bool")
    assert_tensor(fg.tensor([1, 2]).isnan(), np.array([False, False]), dtype="bool")
    assert_tensor(fg.tensor([True]).isfinite(), np.array([True]), dtype="bool")
    a, t = make_input(rng, (3, 4), TRANSPOSED, domain="nonzero")
    assert_tensor((t / 0).isinf(), np.ones((3, 4), bool), dtype="bool")


def test_allclose_and_equal():
    a = fg.tensor([1.0, 2.0])
    assert fg.allclose(a, fg.tensor([1.0, 2.000001])) is True
    assert a.allclose(fg.tensor([1.0, 2.1])) is False
    assert a.allclose(fg.tensor([1.0, 2.1]), atol=0.2) is True
    assert a.allclose(fg.tensor([[1.0, 2.0]])) is True
    nan = float("nan")
    assert fg.allclose(fg.tensor([nan]), fg.tensor([nan])) is False
    assert fg.allclose(fg.tensor([nan]), fg.tensor([nan]), equal_nan=True) is True
    assert fg.allclose(fg.tensor([float("inf")]), fg.tensor([float("inf")])) is True
    with pytest.raises(RuntimeError, match="Float did not match Long"):
        fg.allclose(a, fg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Long did not match Float"):
        fg.tensor([1, 2]).allclose(a)
    with pytest.raises(RuntimeError, match="must match the size"):
        fg.allclose(a, fg.tensor([1.0, 2.0, 3.0]))
    assert fg.equal(fg.tensor([1, 2]), fg.tensor([1.0, 2.0])) is True
    assert a.equal(fg.tensor([[1.0, 2.0]])) is False
    assert a.equal(fg.tensor([1.0, 3.0])) is False
    assert a.t().equal(a) is True


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
    ("norm(1)", lambda x: x.norm(1), lambda a: np.abs(a).sum()),
    ("norm(inf,dim=1)", lambda x: x.norm(math.inf, dim=1), lambda a: np.abs(a).max(1)),
    ("norm(-inf,(0,2))", lambda x: fg.norm(x, -math.inf, (0, 2)), lambda a: np.abs(a).min((0, 2))),
    ("norm('fro',dim=(1,2))", lambda x: x.norm("fro", dim=(1, 2)), lambda a: np.sqrt((a * a).sum((1, 2)))),
    ("norm(3,-1,keepdim)", lambda x: x.norm(3, -1, True), lambda a: (np.abs(a) ** 3).sum(-1, keepdims=True) ** (1 / 3)),
    ("norm(0.5,dim=0)", lambda x: x.norm(0.5, dim=0), lambda a: np.sqrt(np.abs(a)).sum(0) ** 2),
    ("norm(-2,dim=1)", lambda x: x.norm(-2, dim=1), lambda a: (np.abs(a) ** -2).sum(1) ** -0.5),
    (
        "norm(2,dim=1,keepdim)",
        lambda x: x.norm(dim=1, keepdim=True),
        lambda a: np.linalg.norm(a, axis=1, keepdims=True),
    ),
    (
        "norm(dtype=float64)",
        lambda x: x.norm(dtype=fg.float64).float() if x.dtype == fg.float32 else x.norm(dtype=fg.float64),
        lambda a: np.sqrt((a * a).sum()),
    ),
    ("prod()", lambda x: x.prod(), lambda a: a.prod()),
    ("prod(1)", lambda x: fg.prod(x, 1), lambda a: a.prod(1)),
    ("prod(-1,keepdim)", lambda x: x.prod(-1, keepdim=True), lambda a: a.prod(-1, keepdims=True)),
    ("amax()", lambda x: x.amax(), lambda a: a.max()),
    ("amax(1)", lambda x: fg.amax(x, 1), lambda a: a.max(1)),
    ("amax((0,2))", lambda x: x.amax((0, 2)), lambda a: a.max((0, 2))),
    ("amin(-1,keepdim)", lambda x: x.amin(-1, keepdim=True), lambda a: a.min(-1, keepdims=True)),
    ("amin(dim=(0,1))", lambda x: fg.amin(x, dim=(0, 1)), lambda a: a.min((0, 1))),
    ("max()", lambda x: x.max(), lambda a: a.max()),
    ("min()", lambda x: fg.min(x), lambda a: a.min()),
    ("max(1).values", lambda x: x.max(1).values, lambda a: a.max(1)),
    ("max(-1,keepdim)[0]", lambda x: x.max(-1, keepdim=True)[0], lambda a: a.max(-1, keepdims=True)),
    ("min(dim=0).values", lambda x: fg.min(x, dim=0).values, lambda a: a.min(0)),
    ("var()", lambda x: x.var(), lambda a: a.var(ddof=1)),
    ("var(1)", lambda x: fg.var(x, 1), lambda a: a.var(1, ddof=1)),
    ("var((0,2),keepdim)", lambda x: x.var((0, 2), keepdim=True), lambda a: a.var((0, 2), ddof=1, keepdims=True)),
    ("var(1,unbiased=False)", lambda x: x.var(1, unbiased=False), lambda a: a.var(1)),
    ("var(correction=0)", lambda x: x.var(correction=0), lambda a: a.var()),
    ("std()", lambda x: x.std(), lambda a: a.std(ddof=1)),
    ("std(0)", lambda x: fg.std(x, 0), lambda a: a.std(0, ddof=1)),
    (
        "std(dim=(1,2),correction=2)",
        lambda x: x.std(dim=(1, 2), correction=2),
        lambda a: np.sqrt(((a - a.mean((1, 2), keepdims=True)) ** 2).sum((1, 2)) / 10),
    ),
    ("logsumexp(1)", lambda x: x.logsumexp(1), lambda a: np.log(np.exp(a).sum(1))),
    (
        "logsumexp((0,2),keepdim)",
        lambda x: fg.logsumexp(x, (0, 2), keepdim=True),
        lambda a: np.log(np.exp(a).sum((0, 2), keepdims=True)),
    ),
    ("cumsum(0)", lambda x: x.cumsum(0), lambda a: a.cumsum(0)),
    ("cumsum(1)", lambda x: fg.cumsum(x, 1), lambda a: a.cumsum(1)),
    ("cumsum(-1)", lambda x: x.cumsum(dim=-1), lambda a: a.cumsum(-1)),
    ("cumprod(0)", lambda x: x.cumprod(0), lambda a: a.cumprod(0)),
    ("cumprod(-1)", lambda x: fg.cumprod(x, dim=-1), lambda a: a.cumprod(-1)),
    ("sort().values", lambda x: x.sort().values, lambda a: np.sort(a, -1)),
    ("sort(0,descending)[0]", lambda x: x.sort(0, descending=True)[0], lambda a: -np.sort(-a, 0)),
    ("fg.sort(dim=1,stable)", lambda x: fg.sort(x, dim=1, stable=True).values, lambda a: np.sort(a, 1)),
    ("topk(2)", lambda x: x.topk(2).values, lambda a: -np.sort(-a, -1)[..., :2]),
    ("topk(3,dim=1,largest=False)", lambda x: fg.topk(x, 3, dim=1, largest=False)[0], lambda a: np.sort(a, 1)[:, :3]),
    ("topk(1,0,sorted=False)", lambda x: x.topk(1, 0, sorted=False).values, lambda a: a.max(0, keepdims=True)),
    ("F.softmax(1)", lambda x: F.softmax(x, 1), lambda a: _np_softmax(a, 1)),
    ("softmax(-1)", lambda x: x.softmax(-1), lambda a: _np_softmax(a, -1)),
    ("fg.softmax(0)", lambda x: fg.softmax(x, 0), lambda a: _np_softmax(a, 0)),
    ("F.log_softmax(1)", lambda x: F.log_softmax(x, dim=1), lambda a: np.log(_np_softmax(a, 1))),
    ("log_softmax(-1)", lambda x: x.log_softmax(-1), lambda a: np.log(_np_softmax(a, -1))),
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


REDUCTION_GRAD_FN = [
    (lambda x: x.prod(), "ProdBackward0"),
    (lambda x: x.prod(1), "ProdBackward1"),
    (lambda x: x.amax(), "AmaxBackward0"),
    (lambda x: x.amin(1), "AminBackward0"),
    (lambda x: x.max(), "MaxBackward1"),
    (lambda x: x.min(), "MinBackward1"),
    (lambda x: x.max(1).values, "MaxBackward0"),
    (lambda x: x.min(0)[0], "MinBackward0"),
    (lambda x: x.var(), "VarBackward0"),
    (lambda x: x.var(1), "VarBackward0"),
    (lambda x: x.std(), "StdBackward0"),
    (lambda x: x.std(1, correction=0), "StdBackward0"),
    (lambda x: x.logsumexp(1), "LogsumexpBackward0"),
    (lambda x: x.cumsum(1), "CumsumBackward0"),
    (lambda x: x.cumprod(1), "CumprodBackward0"),
    (lambda x: x.norm(), "LinalgVectorNormBackward0"),
    (lambda x: x.norm(1, dim=1), "LinalgVectorNormBackward0"),
    (lambda x: x.norm(math.inf, dim=(0, 1), keepdim=True), "LinalgVectorNormBackward0"),
    (lambda x: fg.norm(x, 0), "LinalgVectorNormBackward0"),
    (lambda x: x.sort().values, "SortBackward0"),
    (lambda x: x.topk(1).values, "TopkBackward0"),
]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=f"{n}-{i}") for i, (f, n) in enumerate(REDUCTION_GRAD_FN)])
def test_reduction_grad_fn_name(f, name):
    x = fg.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]], requires_grad=True)
    assert f(x).grad_fn.name() == name


@pytest.mark.parametrize(
    "f,expected",
    [
        # gradients at zeros and ties, from torch
        pytest.param(lambda x: x.prod(), [[0, 0, 0], [0, 90, 0]], id="prod-one-zero"),
        pytest.param(lambda x: x.prod(1), [[9, 3, 3], [0, 10, 0]], id="prod-dim"),
        pytest.param(lambda x: x.prod(1, keepdim=True), [[9, 3, 3], [0, 10, 0]], id="prod-keepdim"),
        pytest.param(lambda x: (x * 0).prod(1), [[0, 0, 0], [0, 0, 0]], id="prod-many-zeros"),
        pytest.param(lambda x: x.amax(), [[0, 0, 0], [0, 0, 1]], id="amax"),
        pytest.param(lambda x: x.amax(1), [[0, 0.5, 0.5], [0, 0, 1]], id="amax-tie"),
        pytest.param(lambda x: x.amin((0, 1)), [[0, 0, 0], [0, 1, 0]], id="amin"),
        pytest.param(lambda x: x.max(1).values, [[0, 1, 0], [0, 0, 1]], id="max-dim-first-index"),
        pytest.param(lambda x: x.min(0)[0], [[1, 0, 1], [0, 1, 0]], id="min-dim"),
        pytest.param(lambda x: x.cumsum(1), [[3, 2, 1], [3, 2, 1]], id="cumsum"),
        pytest.param(lambda x: x.cumprod(1), [[13, 4, 3], [1, 12, 0]], id="cumprod-zero"),
        pytest.param(lambda x: x.cumprod(0), [[3, 1, 6], [1, 3, 3]], id="cumprod-dim0-zero"),
        pytest.param(
            lambda x: x.sort(1).values * fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64),
            [[1, 2, 3], [2, 1, 3]],
            id="sort-ties-stable",
        ),
        pytest.param(
            lambda x: x.topk(2, dim=1).values * fg.tensor([1.0, 2.0], dtype=fg.float64),
            [[0, 1, 2], [2, 0, 1]],
            id="topk-ties",
        ),
        pytest.param(lambda x: x.norm(math.inf, dim=1), [[0, 0.5, 0.5], [0, 0, 1]], id="norm-inf-ties"),
    ],
)
def test_reduction_grad_special(f, expected):
    x = fg.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]], dtype=fg.float64, requires_grad=True)
    f(x).sum().backward()
    np.testing.assert_allclose(to_numpy_(x.grad), expected)


def test_max_min_with_dim_return_values_and_indices(rng):
    a, x = make_input(rng, (3, 4), TRANSPOSED, domain="ties")
    for name, ref, arg in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
        out = getattr(x, name)(1)
        values, indices = out
        assert out.values is values and out.indices is indices
        assert type(out).__name__ == name
        assert_tensor(values, ref(a, 1))
        assert_tensor(indices, arg(a, 1), dtype="int64")
        kept = getattr(fg, name)(x, dim=0, keepdim=True)
        assert_tensor(kept.indices, arg(a, 0)[None], dtype="int64")
    assert repr(fg.tensor([1.0, 3.0]).max(0)).endswith("max(\nvalues=tensor(3.),\nindices=tensor(1))")
    assert_tensor(fg.max(fg.tensor([1.0, 5.0]), fg.tensor([2.0, 3.0])), np.array([2.0, 5.0]))
    assert_tensor(fg.tensor(5.0).max(0).indices, np.array(0), dtype="int64")


@pytest.mark.parametrize("n", [1000, 7])
def test_max_min_along_long_contiguous_rows_match_numpy_at_nans_ties_and_zeros(n):
    # 300 rows (split across threads at n = 1000; at 7, shorter than the vector kernel): values and first positions
    a = ((np.arange(300 * n) * 37 % 1009).astype(np.float32) - 500.0).reshape(300, n) * 0.25
    a[3, n // 2], a[3, n - 1] = np.nan, np.nan
    a[5, 1], a[5, n - 2] = 1e9, 1e9
    a[7], a[7, 2], a[7, 4] = -1.0, -0.0, 0.0
    a[9] = -np.inf
    a[11, n - 1] = np.inf
    x = fg.tensor(a)
    for name, arg in (("max", np.argmax), ("min", np.argmin)):
        values, indices = getattr(x, name)(-1)
        want = arg(a, -1)
        assert_tensor(indices, want, dtype="int64")
        picked = np.take_along_axis(a, want[:, None], -1)[:, 0]
        assert_tensor(values, picked)
        assert np.array_equal(np.signbit(to_numpy_(values)), np.signbit(picked))
        assert_tensor(getattr(x, "arg" + name)(-1), want, dtype="int64")
        assert_tensor(getattr(x, "a" + name)(-1), picked)


@pytest.mark.parametrize("shape,dim", [((300, 1000), 0), ((3, 300, 50), 1), ((9, 7, 5), 0)])
def test_max_min_along_a_dim_before_the_last_match_numpy_at_nans_ties_and_zeros(shape, dim):
    # columns reduced a row at a time (split across threads for 300 x 1000; bands across blocks for 3 x 300 x 50)
    a = ((np.arange(np.prod(shape)) * 37 % 1009).astype(np.float32) - 500.0).reshape(shape) * 0.25
    col = np.moveaxis(a, dim, -1)  # a view: writes land in a
    col[..., 3, 1], col[..., 3, 4] = np.nan, np.nan
    col[..., 4, 1], col[..., 4, -2] = 1e9, 1e9
    col[..., 2, :], col[..., 2, 1], col[..., 2, 3] = -1.0, -0.0, 0.0
    col[..., 0, :] = -np.inf
    x = fg.tensor(a)
    for name, arg in (("max", np.argmax), ("min", np.argmin)):
        values, indices = getattr(x, name)(dim)
        want = arg(a, dim)
        assert_tensor(indices, want, dtype="int64")
        picked = np.take_along_axis(a, np.expand_dims(want, dim), dim).squeeze(dim)
        assert_tensor(values, picked)
        assert np.array_equal(np.signbit(to_numpy_(values)), np.signbit(picked))
        assert_tensor(getattr(x, "arg" + name)(dim), want, dtype="int64")
        assert_tensor(getattr(x, "a" + name)(dim), picked)


@pytest.mark.parametrize("name,ref", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_argmax_argmin(name, ref, rng):
    a, x = make_input(rng, (3, 4, 2), STEPPED, domain="ties")
    assert_tensor(getattr(x, name)(), np.array(ref(a)), dtype="int64")
    for d in (0, 1, -1):
        assert_tensor(getattr(fg, name)(x, d), ref(a, d), dtype="int64")
        assert_tensor(getattr(x, name)(dim=d, keepdim=True), np.expand_dims(ref(a, d), d), dtype="int64")
    nan = float("nan")
    assert getattr(fg.tensor([1.0, nan, 3.0]), name)().item() == 1
    assert getattr(fg.tensor([[1, 2], [4, 0]]), name)(1).tolist() == ref(np.array([[1, 2], [4, 0]]), 1).tolist()


def test_reduction_dtypes_and_special_values():
    assert_tensor(fg.tensor([1, 2, 3]).prod(), np.array(6), dtype="int64")
    assert_tensor(fg.tensor([True, False]).prod(), np.array(0), dtype="int64")
    assert_tensor(fg.tensor([1, 2]).amax(), np.array(2), dtype="int64")
    assert_tensor(fg.tensor([True, False]).amax(), np.array(True), dtype="bool")
    assert_tensor(fg.tensor([1, 2]).logsumexp(0), np.array(np.log(np.exp(1) + np.exp(2))), dtype="float32")
    assert_tensor(fg.tensor([1, 2]).cumsum(0), np.array([1, 3]), dtype="int64")
    assert_tensor(fg.tensor([True, True]).cumsum(0), np.array([1, 2]), dtype="int64")
    assert_tensor(fg.tensor([1, 2]).cumsum(0, dtype=fg.float64), np.array([1.0, 3.0]), dtype="float64")
    nan, inf = float("nan"), float("inf")
    assert_tensor(fg.tensor([1.0, nan, 3.0]).max(), np.array(nan))
    assert_tensor(fg.tensor([1.0, nan, 3.0]).amin(), np.array(nan))
    assert_tensor(fg.tensor([1.0, 2.0]).var(unbiased=False), np.array(0.25))
    assert_tensor(fg.tensor([1.0, 2.0]).var(False), np.array(0.25))
    assert_tensor(fg.tensor([1.0]).var(), np.array(nan))
    assert_tensor(fg.tensor([1.0, 2.0]).var(correction=2), np.array(inf))
    assert_tensor(fg.tensor([inf, 1.0]).logsumexp(0), np.array(inf))
    assert_tensor(fg.tensor([-inf, -inf]).logsumexp(0), np.array(-inf))
    assert_tensor(fg.zeros(0, 3).logsumexp(0), np.full(3, -inf))
    assert_tensor(fg.zeros(0, 3).max(1).values, np.zeros(0))
    assert_tensor(fg.zeros(2, 0).cumsum(1), np.zeros((2, 0)))
    x = fg.tensor([[1.0, 2.0], [3.0, 3.0]], requires_grad=True)
    x.std(1).sum().backward()  # zero std: gradient 0, not NaN
    np.testing.assert_allclose(to_numpy_(x.grad), [[-0.7071067811865476, 0.7071067811865476], [0, 0]], rtol=1e-6)


@pytest.mark.parametrize("is_max", [True, False])
def test_amax_amin_over_rows_match_numpy_past_the_threaded_size_with_nans_and_empty_rows(is_max):
    # contiguous rows are reduced a vectorized run each, split across threads when large; NaN wins
    a = np.random.default_rng(5).standard_normal((300, 700)).astype(np.float32)
    a[7, 100] = np.nan
    a[299, :] = -np.inf if is_max else np.inf
    x = fg.tensor(a)
    f, ref = (fg.amax, np.max) if is_max else (fg.amin, np.min)
    for keepdim in (True, False):
        np.testing.assert_array_equal(f(x, -1, keepdim=keepdim).numpy(), ref(a, axis=-1, keepdims=keepdim))
    np.testing.assert_array_equal(f(x).numpy(), ref(a))
    assert f(fg.zeros(0, 5), -1).shape == (0,)


def test_reductions_of_0d_tensors():
    for f in (
        lambda x: x.prod(0),
        lambda x: x.prod(),
        lambda x: x.amax(0),
        lambda x: x.max(0).values,
        lambda x: x.var(0, correction=0),
        lambda x: x.logsumexp(0),
        lambda x: x.cumsum(0),
        lambda x: x.softmax(0),
    ):
        x = fg.tensor(2.0, dtype=fg.float64, requires_grad=True)
        y = f(x)
        assert y.shape == ()
        y.backward()
        assert x.grad.shape == ()


def test_reduction_errors():
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        fg.zeros(0).max()
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim to be specified"):
        fg.zeros(0).amax()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        fg.zeros(0, 3).max(0)
    with pytest.raises(
        IndexError, match=r"argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0"
    ):
        fg.zeros(0).argmax()
    with pytest.raises(NotImplementedError, match="std and var only support floating point"):
        fg.tensor([1, 2]).var()
    with pytest.raises(IndexError, match="Dimension out of range"):
        fg.ones(2, 3).amax(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fg.ones(2, 3).cumsum(-3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fg.ones(2, 3).max(5)
    with pytest.raises(TypeError):
        fg.ones(2).logsumexp()


def test_reduction_double_backward():
    a = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
    for f in (lambda x: x.logsumexp(1), lambda x: x.var(1), lambda x: x.std(0), lambda x: x.prod(1)):
        x = fg.tensor(a, dtype=fg.float64, requires_grad=True)
        y = f(x).sum()
        y.backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        x.grad = None
        (g * g).sum().backward()

        # numerical: d/dx sum(grad(x)^2), with grad from ferrograd
        def gsq(arr, f=f):
            t = fg.tensor(arr, dtype=fg.float64, requires_grad=True)
            f(t).sum().backward()
            return float((to_numpy_(t.grad) ** 2).sum())

        num = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            p, m = a.copy(), a.copy()
            p[idx] += 1e-6
            m[idx] -= 1e-6
            num[idx] = (gsq(p) - gsq(m)) / 2e-6
        np.testing.assert_allclose(to_numpy_(x.grad), num, rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------------------
# nn.functional: softmax family, losses, linear
# ---------------------------------------------------------------------------


def _np_cross_entropy(a, t, weight=None, ignore_index=-100, reduction="mean", log_probs=False):
    """numpy reference for nll_loss (log_probs=True) and cross_entropy with class indices."""
    class_dim = 0 if a.ndim == 1 else 1
    logp = a if log_probs else np.log(_np_softmax(a, class_dim))
    if a.ndim == 1:
        logp, t = logp[None], np.asarray(t)[None]
    logp = np.moveaxis(logp, 1, -1)  # (N, d..., C)
    w = np.ones(logp.shape[-1]) if weight is None else np.asarray(weight, dtype=np.float64)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    wt = w[safe] * keep
    losses = -picked * wt
    if reduction == "none":
        return losses[0] if a.ndim == 1 else losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / wt.sum()


LOSS_CASES = [
    # id, input shape, target (class indices), kwargs
    ("2d", (4, 3), [0, 2, 1, 2], {}),
    ("2d-sum", (4, 3), [0, 2, 1, 2], {"reduction": "sum"}),
    ("2d-none", (4, 3), [0, 2, 1, 2], {"reduction": "none"}),
    ("weight", (4, 3), [0, 2, 1, 2], {"weight": [0.2, 1.0, 3.0]}),
    ("weight-none", (4, 3), [0, 2, 1, 2], {"weight": [0.2, 1.0, 3.0], "reduction": "none"}),
    ("ignore_index", (4, 3), [0, -100, 1, 2], {}),
    ("ignore_index=1", (4, 3), [0, 1, 1, 2], {"ignore_index": 1, "weight": [0.5, 2.0, 1.5]}),
    ("1d", (5,), 3, {}),
    ("1d-none", (5,), 3, {"reduction": "none"}),
    ("spatial", (2, 3, 4), [[0, 1, 2, 0], [1, 1, 1, 2]], {}),
    ("spatial-none", (2, 3, 4), [[0, 1, 2, 0], [1, -100, 1, 2]], {"reduction": "none"}),
]
LOSS_PARAMS = [pytest.param(shape, target, kw, id=name) for name, shape, target, kw in LOSS_CASES]


def _loss_kwargs(kw):
    return {k: (fg.tensor(v, dtype=fg.float64) if k == "weight" else v) for k, v in kw.items()}


@pytest.mark.parametrize("shape,target,kw", LOSS_PARAMS)
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses(fn, shape, target, kw, rng):
    a = random_array(rng, shape)
    t = np.array(target)
    expected = _np_cross_entropy(a, t, log_probs=fn == "nll_loss", **kw)
    out = getattr(F, fn)(fg.tensor(a, dtype=fg.float64), fg.tensor(target), **_loss_kwargs(kw))
    assert_tensor(out, expected, dtype="float64")
    out32 = getattr(F, fn)(
        fg.tensor(a, dtype=fg.float32),
        fg.tensor(target),
        **{k: (v.float() if k == "weight" else v) for k, v in _loss_kwargs(kw).items()},
    )
    assert_tensor(out32, expected, dtype="float32", rtol=1e-5, atol=1e-6)
    gradcheck(lambda x: getattr(F, fn)(x, fg.tensor(target), **_loss_kwargs(kw)), [a])


def test_cross_entropy_on_strided_logits(rng):
    a, x = make_input(rng, (4, 3), TRANSPOSED)
    assert_tensor(F.cross_entropy(x, fg.tensor([0, 1, 2, 1])), _np_cross_entropy(a, np.array([0, 1, 2, 1])))
    storage = random_array(rng, (3, 9))
    gradcheck(lambda s: F.cross_entropy(s.t()[1::2], fg.tensor([0, 1, 2, 1])), [storage])


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"weight": [1.0, 2.0, 0.5]}], ids=str)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_with_probabilities(kw, smoothing, rng):
    a = random_array(rng, (4, 3))
    p = _np_softmax(random_array(rng, (4, 3)), 1)
    q = p * (1 - smoothing) + smoothing / 3
    w = np.ones(3) if "weight" not in kw else np.array(kw["weight"])
    per = -(np.log(_np_softmax(a, 1)) * q * w).sum(1)
    expected = {"none": per, "sum": per.sum()}.get(kw.get("reduction"), per.sum() / 4)
    f = lambda x: F.cross_entropy(x, fg.tensor(p, dtype=fg.float64), label_smoothing=smoothing, **_loss_kwargs(kw))
    assert_tensor(f(fg.tensor(a, dtype=fg.float64)), expected)
    gradcheck(f, [a])


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"weight": [0.2, 1.0, 3.0]}, {"ignore_index": 2}], ids=str)
def test_cross_entropy_label_smoothing(kw, rng):
    a = random_array(rng, (4, 3))
    t = np.array([0, 2, 1, 2])
    eps = 0.1
    nll = _np_cross_entropy(a, t, **kw)
    logp = np.log(_np_softmax(a, 1))
    w = np.ones(3) if "weight" not in kw else np.array(kw["weight"])
    keep = t != kw.get("ignore_index", -100)
    smooth = -(logp * w).sum(1) * keep
    if kw.get("reduction") == "sum":
        smooth = smooth.sum()
    else:
        smooth = smooth.sum() / (w[np.where(keep, t, 0)] * keep).sum()
    expected = (1 - eps) * nll + smooth * eps / 3
    f = lambda x: F.cross_entropy(x, fg.tensor(t), label_smoothing=eps, **_loss_kwargs(kw))
    assert_tensor(f(fg.tensor(a, dtype=fg.float64)), np.array(expected))
    gradcheck(f, [a])


def test_loss_edge_cases():
    nan = float("nan")
    x = fg.randn(2, 3)
    assert_tensor(F.nll_loss(x, fg.tensor([-100, -100])), np.array(nan))
    assert_tensor(F.nll_loss(x, fg.tensor([-100, -100]), reduction="sum"), np.array(0.0))
    assert_tensor(F.cross_entropy(fg.zeros(0, 3), fg.zeros(0, dtype=fg.int64)), np.array(nan))
    assert_tensor(F.cross_entropy(fg.zeros(0, 3), fg.zeros(0, dtype=fg.int64), reduction="sum"), np.array(0.0))
    big = fg.tensor([[1000.0, 0.0], [-1000.0, 0.0]], requires_grad=True)
    loss = F.cross_entropy(big, fg.tensor([0, 0]))
    assert_tensor(loss.detach(), np.array(500.0))
    loss.backward()
    assert_tensor(big.grad, np.array([[0.0, 0.0], [-0.5, 0.5]]))
    assert_tensor(F.softmax(fg.tensor([1000.0, 0.0]), 0), np.array([1.0, 0.0]))
    assert_tensor(F.log_softmax(fg.tensor([1000.0, 0.0]), 0), np.array([0.0, -1000.0]))
    assert_tensor(F.softmax(fg.tensor([-float("inf"), 0.0]), 0), np.array([0.0, 1.0]))
    assert_tensor(F.softmax(fg.tensor([float("inf"), 1.0]), 0), np.array([nan, nan]))
    assert_tensor(F.log_softmax(fg.tensor([-float("inf"), -float("inf")]), 0), np.array([nan, nan]))
    assert_tensor(F.softmax(fg.zeros(0, 3), 1), np.zeros((0, 3)))
    assert_tensor(
        F.softmax(fg.tensor([1.0, 2.0], dtype=fg.float32), 0, dtype=fg.float64),
        _np_softmax(np.array([1.0, 2.0]), 0),
        dtype="float64",
    )


def test_loss_errors():
    x = fg.randn(2, 3, requires_grad=True)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        F.nll_loss(x, fg.tensor([0, 3]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds."):
        F.cross_entropy(x, fg.tensor([0, -1]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.nll_loss(x, fg.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)."):
        F.cross_entropy(x, fg.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 3 classes or no classes"):
        F.nll_loss(x, fg.tensor([0, 1]), weight=fg.ones(2))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2\]"):
        F.nll_loss(fg.randn(2, 3, 4), fg.tensor([0, 1]))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.cross_entropy(x, fg.tensor([0, 2]), reduction="foo")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(x, fg.zeros(2, 3), reduction="foo")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.softmax(fg.tensor([1, 2, 3]), 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.log_softmax(fg.tensor([1.0, 2.0]), 1)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x4\)"):
        F.linear(x, fg.randn(4, 2))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "sa,la,sb,lb",
    [
        pytest.param((2, 3), CONTIGUOUS, (2, 3), CONTIGUOUS, id="same"),
        pytest.param((3, 4), TRANSPOSED, (3, 4), STEPPED, id="strided"),
        pytest.param((2, 3, 4), EXPANDED, (2, 3, 4), CONTIGUOUS, id="expanded"),
    ],
)
def test_mse_loss(reduction, sa, la, sb, lb, rng):
    a, x = make_input(rng, sa, la)
    b, y = make_input(rng, sb, lb)
    sq = (a - b) ** 2
    expected = {"mean": sq.mean(), "sum": sq.sum(), "none": sq}[reduction]
    assert_tensor(F.mse_loss(x, y, reduction=reduction), np.asarray(expected))
    gradcheck(
        lambda p, q: F.mse_loss(la.fg_view(p, sa), lb.fg_view(q, sb), reduction=reduction),
        [random_array(rng, la.storage_shape(sa)), random_array(rng, lb.storage_shape(sb))],
    )


def test_mse_loss_dtype_and_broadcast_warning():
    out = F.mse_loss(fg.ones(2, 3), fg.zeros(2, 3, dtype=fg.float64))
    assert_tensor(out, np.array(1.0), dtype="float64")
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(fg.ones(2, 3), fg.zeros(3))
    assert_tensor(out, np.array(1.0))


@pytest.mark.parametrize(
    "xs,bias",
    [
        pytest.param((4, 3), True, id="2d-bias"),
        pytest.param((4, 3), False, id="2d"),
        pytest.param((3,), True, id="1d-bias"),
        pytest.param((2, 4, 3), True, id="3d-bias"),
        pytest.param((0, 3), True, id="empty"),
    ],
)
def test_linear(xs, bias, rng):
    a, w, b = random_array(rng, xs), random_array(rng, (5, 3)), random_array(rng, (5,))
    expected = a @ w.T + (b if bias else 0)
    f64 = lambda arr: fg.tensor(arr, dtype=fg.float64)
    if bias:
        assert_tensor(F.linear(f64(a), f64(w), f64(b)), expected)
        gradcheck(lambda x, wt, bt: F.linear(x, wt, bt), [a, w, b])
    else:
        assert_tensor(F.linear(f64(a), f64(w)), expected)
        gradcheck(lambda x, wt: F.linear(x, wt), [a, w])


def test_linear_on_strided_input(rng):
    a, x = make_input(rng, (2, 4, 3), TRANSPOSED)
    w, b = random_array(rng, (5, 3)), random_array(rng, (5,))
    assert_tensor(F.linear(x, fg.tensor(w, dtype=fg.float64), fg.tensor(b, dtype=fg.float64)), a @ w.T + b)
    storage = random_array(rng, (2, 3, 4))
    gradcheck(lambda s, wt, bt: F.linear(s.transpose(-1, -2), wt, bt), [storage, w, b])


NN_GRAD_FN = [
    (lambda x: F.softmax(x, 1), "SoftmaxBackward0"),
    (lambda x: x.softmax(0), "SoftmaxBackward0"),
    (lambda x: F.log_softmax(x, 1), "LogSoftmaxBackward0"),
    (lambda x: F.cross_entropy(x, fg.tensor([0, 2])), "NllLossBackward0"),
    (lambda x: F.cross_entropy(x, fg.tensor([0, 2]), reduction="none"), "NllLossBackward0"),
    (lambda x: F.nll_loss(x, fg.tensor([0, 2]), reduction="sum"), "NllLossBackward0"),
    (lambda x: F.mse_loss(x, fg.zeros(2, 3)), "MseLossBackward0"),
    (lambda x: F.mse_loss(x, fg.zeros(2, 3), reduction="none"), "MseLossBackward0"),
    (lambda x: F.linear(x, fg.randn(4, 3)), "MmBackward0"),
    (lambda x: F.linear(x, fg.randn(4, 3), fg.randn(4)), "AddmmBackward0"),
    (lambda x: fg.addmm(fg.randn(4), x, fg.randn(3, 4)), "AddmmBackward0"),
    (lambda x: F.linear(x[0], fg.randn(4, 3), fg.randn(4)), "UnsafeViewBackward0"),
    (lambda x: F.linear(x.reshape(1, 2, 3), fg.randn(4, 3), fg.randn(4)), "UnsafeViewBackward0"),
    (lambda x: F.linear(x.expand(5, 2, 3), fg.randn(4, 3), fg.randn(4)), "AddBackward0"),
    (lambda x: F.linear(x.expand(5, 2, 3), fg.randn(4, 3)), "UnsafeViewBackward0"),
]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=f"{n}-{i}") for i, (f, n) in enumerate(NN_GRAD_FN)])
def test_nn_grad_fn_name(f, name):
    x = fg.randn(2, 3, requires_grad=True)
    assert f(x).grad_fn.name() == name


def test_cross_entropy_graph_is_nll_of_log_softmax():
    x = fg.randn(2, 3, requires_grad=True)
    node = F.cross_entropy(x, fg.tensor([0, 2])).grad_fn
    assert [n.name() for n, _ in node.next_functions] == ["LogSoftmaxBackward0"]


def test_softmax_double_backward():
    a = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
    for f in (lambda x: F.softmax(x, 1), lambda x: F.log_softmax(x, 0)):
        v = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])
        x = fg.tensor(a, dtype=fg.float64, requires_grad=True)
        (f(x) * fg.tensor(v, dtype=fg.float64)).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        (g * g).sum().backward()

        def gsq(arr, f=f, v=v):
            t = fg.tensor(arr, dtype=fg.float64, requires_grad=True)
            (f(t) * fg.tensor(v, dtype=fg.float64)).sum().backward()
            return float((to_numpy_(t.grad) ** 2).sum())

        num = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            p, m = a.copy(), a.copy()
            p[idx] += 1e-6
            m[idx] -= 1e-6
            num[idx] = (gsq(p) - gsq(m)) / 2e-6
        np.testing.assert_allclose(to_numpy_(x.grad), num, rtol=1e-4, atol=1e-6)


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
    assert_tensor(
        mm(x, y),
        expected,
        dtype=dtype,
        rtol=1e-4 if dtype == "float32" else None,
        atol=1e-5 if dtype == "float32" else None,
    )


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
    assert_tensor(
        x @ y,
        expected,
        dtype=dtype,
        rtol=1e-4 if dtype == "float32" else None,
        atol=1e-5 if dtype == "float32" else None,
    )


@pytest.mark.parametrize("shape_a,lay_a,shape_b,lay_b", MATMUL_STRIDED)
def test_matmul_grad_strided(shape_a, lay_a, shape_b, lay_b, rng):
    sa = random_array(rng, lay_a.storage_shape(shape_a))
    sb = random_array(rng, lay_b.storage_shape(shape_b))
    gradcheck(lambda p, q: lay_a.fg_view(p, shape_a) @ lay_b.fg_view(q, shape_b), [sa, sb])


LINALG = [
    # id, operand shapes, ferrograd expression, numpy reference
    ("outer", [(3,), (4,)], lambda a, b: fg.outer(a, b), np.outer),
    ("ger", [(2,), (3,)], lambda a, b: a.ger(b), np.outer),
    ("trace", [(3, 3)], lambda a: a.trace(), np.trace),
    ("trace-wide", [(2, 4)], lambda a: fg.trace(a), np.trace),
    ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda i, a, b: fg.baddbmm(i, a, b), lambda i, a, b: i + a @ b),
    (
        "baddbmm(beta,alpha)",
        [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
        lambda i, a, b: i.baddbmm(a, b, beta=0.5, alpha=-2),
        lambda i, a, b: 0.5 * i - 2 * (a @ b),
    ),
    (
        "baddbmm(broadcast input)",
        [(5,), (2, 3, 4), (2, 4, 5)],
        lambda i, a, b: fg.baddbmm(i, a, b, alpha=3),
        lambda i, a, b: i + 3 * (a @ b),
    ),
    (
        "einsum(ij,jk->ik)",
        [(3, 4), (4, 5)],
        lambda a, b: fg.einsum("ij,jk->ik", a, b),
        lambda a, b: np.einsum("ij,jk->ik", a, b),
    ),
    ("einsum(ij,kj)", [(3, 4), (5, 4)], lambda a, b: fg.einsum("ij,kj", [a, b]), lambda a, b: np.einsum("ij,kj", a, b)),
    (
        "einsum(bij,bjk->bik)",
        [(2, 3, 4), (2, 4, 5)],
        lambda a, b: fg.einsum("bij,bjk->bik", a, b),
        lambda a, b: np.einsum("bij,bjk->bik", a, b),
    ),
    (
        "einsum(bij,bkj->bki)",
        [(2, 3, 4), (2, 5, 4)],
        lambda a, b: fg.einsum("bij,bkj->bki", a, b),
        lambda a, b: np.einsum("bij,bkj->bki", a, b),
    ),
    (
        "einsum(ij,ij->)",
        [(3, 4), (3, 4)],
        lambda a, b: fg.einsum("ij,ij->", a, b),
        lambda a, b: np.einsum("ij,ij->", a, b),
    ),
    (
        "einsum(i,j->ij)",
        [(3,), (4,)],
        lambda a, b: fg.einsum("i,j->ij", (a, b)),
        lambda a, b: np.einsum("i,j->ij", a, b),
    ),
    ("einsum(ii->i)", [(3, 3)], lambda a: fg.einsum("ii->i", a), lambda a: np.einsum("ii->i", a)),
    ("einsum(ii)", [(3, 3)], lambda a: fg.einsum("ii", a), lambda a: np.einsum("ii", a)),
    ("einsum(iji->j)", [(3, 2, 3)], lambda a: fg.einsum("iji->j", a), lambda a: np.einsum("iji->j", a)),
    ("einsum(ij->ji)", [(3, 4)], lambda a: fg.einsum("ij->ji", a), lambda a: np.einsum("ij->ji", a)),
    ("einsum(ijk->j)", [(2, 3, 4)], lambda a: fg.einsum("ijk->j", a), lambda a: np.einsum("ijk->j", a)),
    (
        "einsum(...j,j->...)",
        [(2, 3, 4), (4,)],
        lambda a, b: fg.einsum("...j,j->...", a, b),
        lambda a, b: np.einsum("...j,j->...", a, b),
    ),
    (
        "einsum(b...,b...)",
        [(2, 3), (2, 3)],
        lambda a, b: fg.einsum("b...,b...", a, b),
        lambda a, b: np.einsum("b...,b...", a, b),
    ),
    (
        "einsum(...ij,...jk)",
        [(2, 3, 4), (4, 2)],
        lambda a, b: fg.einsum("...ij,...jk", a, b),
        lambda a, b: np.einsum("...ij,...jk", a, b),
    ),
    (
        "einsum(ab,bc,cd->ad)",
        [(2, 3), (3, 4), (4, 2)],
        lambda a, b, c: fg.einsum("ab,bc,cd->ad", a, b, c),
        lambda a, b, c: np.einsum("ab,bc,cd->ad", a, b, c),
    ),
    (
        "einsum(ij,jk,ik->i)",
        [(2, 3), (3, 4), (2, 4)],
        lambda a, b, c: fg.einsum("ij,jk,ik->i", a, b, c),
        lambda a, b, c: np.einsum("ij,jk,ik->i", a, b, c),
    ),
    (
        "einsum(bi,bj->bij)",
        [(2, 3), (2, 4)],
        lambda a, b: fg.einsum("bi,bj->bij", a, b),
        lambda a, b: np.einsum("bi,bj->bij", a, b),
    ),
    ("einsum(Ab,bA)", [(2, 3), (3, 2)], lambda a, b: fg.einsum("Ab,bA", a, b), lambda a, b: np.einsum("Ab,bA", a, b)),
    ("einsum(ij,j->i broadcast)", [(3, 1), (4,)], lambda a, b: fg.einsum("ij,j->i", a, b), lambda a, b: (a * b).sum(1)),
]


def _linalg_cases():
    out = []
    for name, shapes, f, ref in LINALG:
        out.append(pytest.param(shapes, [CONTIGUOUS] * len(shapes), f, ref, id=f"{name}-contiguous"))
        lays = [TRANSPOSED if len(s) >= 2 else STEPPED for s in shapes]
        out.append(pytest.param(shapes, lays, f, ref, id=f"{name}-strided"))
    return out


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes,layouts,f,ref", _linalg_cases())
def test_linalg_forward(shapes, layouts, f, ref, dtype, rng):
    pairs = [make_input(rng, s, lay, dtype) for s, lay in zip(shapes, layouts)]
    expected = ref(*[a.astype(np.float64) for a, _ in pairs])
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {}
    assert_tensor(f(*[x for _, x in pairs]), expected, dtype=dtype, **tol)


@pytest.mark.parametrize("shapes,layouts,f,ref", _linalg_cases())
def test_linalg_grad(shapes, layouts, f, ref, rng):
    storages = [random_array(rng, lay.storage_shape(s)) for s, lay in zip(shapes, layouts)]
    gradcheck(lambda *ts: f(*[lay.fg_view(t, s) for t, lay, s in zip(ts, layouts, shapes)]), storages)


LINALG_GRAD_FN = [
    # torch's names (einsum is composite: the name of its last op)
    (lambda a: fg.outer(a[0], a[1]), "MulBackward0"),
    (lambda a: a.trace(), "TraceBackward0"),
    (lambda a: fg.baddbmm(a, a[None], a[None]), "BaddbmmBackward0"),
    (lambda a: fg.einsum("ij,jk->ik", a, a), "ViewBackward0"),
    (lambda a: fg.einsum("ij,ij->", a, a), "ViewBackward0"),
    (lambda a: fg.einsum("bij,bjk->bik", a[None], a[None]), "ViewBackward0"),
    (lambda a: fg.einsum("i,j->ij", a[0], a[1]), "MulBackward0"),
    (lambda a: fg.einsum("ij->ji", a), "PermuteBackward0"),
    (lambda a: fg.einsum("ij->j", a), "SumBackward1"),
    (lambda a: fg.einsum("ii", a), "SumBackward1"),
    (lambda a: fg.einsum("...j,j->...", a, a[0]), "ViewBackward0"),
]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=f"{n}-{i}") for i, (f, n) in enumerate(LINALG_GRAD_FN)])
def test_linalg_grad_fn_name(f, name):
    x = fg.randn(3, 3, requires_grad=True)
    assert f(x).grad_fn.name() == name


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
    (
        "view-chain",
        (2, 3, 4),
        lambda x: x.transpose(0, 1).reshape(3, 8).t().unsqueeze(0),
        lambda a: a.swapaxes(0, 1).reshape(3, 8).T[None],
        True,
    ),
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


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_rows_picked_by_an_index_tensor_match_numpy_with_and_without_a_gradient(dtype, rng):
    # one index tensor on dim 0 copies whole rows when no gradient is recorded; the recorded path gives the same
    a, x = make_input(rng, (300, 7, 5), CONTIGUOUS, dtype)
    for idx in ([3, -1, 0, 3, 299], [[1, 2], [-300, 5]], [], np.array([4, 2], dtype=np.int32)):
        index = fg.tensor(np.asarray(idx, dtype=np.int64 if not isinstance(idx, np.ndarray) else idx.dtype))
        assert_tensor(x[index], a[np.asarray(idx, dtype=np.int64)], dtype=dtype)
    with pytest.raises(IndexError, match="index 300 is out of bounds for dimension 0 with size 300"):
        x[fg.tensor([0, 300])]
    w = fg.tensor(a.astype(np.float64), requires_grad=True)
    picked = w[fg.tensor([2, 2, 9])]
    assert type(picked.grad_fn).__name__ == "IndexBackward0"
    picked.sum().backward()
    want = np.zeros(a.shape)
    want[2], want[9] = 2.0, 1.0
    assert_tensor(w.grad, want, dtype="float64")


def test_getitem_of_0d_with_none_and_ellipsis():
    x = fg.tensor(2.5)
    assert_tensor(x[None], np.array([2.5]))
    assert_tensor(x[...], np.array(2.5))


# ---------------------------------------------------------------------------
# shape ops: joining, splitting, reordering, repeating, triangles and diagonals
# ---------------------------------------------------------------------------


def _pieces(out):
    """One tensor from an op's output: multi-output ops (split, unbind) become one weighted cat."""
    if isinstance(out, tuple):
        return fg.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(out)])
    return out


def _np_pieces(out):
    if isinstance(out, (tuple, list)):
        return np.concatenate([np.reshape(p, -1) * (i + 1) for i, p in enumerate(out)])
    return out


SHAPE_OPS = [
    # id, input shape, ferrograd expression, numpy reference
    ("cat(x,2x)", (2, 3, 4), lambda x: fg.cat([x, x * 2]), lambda a: np.concatenate([a, a * 2])),
    (
        "cat(dim=1)",
        (2, 3, 4),
        lambda x: fg.cat((x, x[:, :1] * 3), dim=1),
        lambda a: np.concatenate([a, a[:, :1] * 3], 1),
    ),
    ("cat(dim=-1)", (2, 3, 4), lambda x: fg.cat([x[..., 1:], x], -1), lambda a: np.concatenate([a[..., 1:], a], -1)),
    ("concat", (2, 3, 4), lambda x: fg.concat([x, x], 2), lambda a: np.concatenate([a, a], 2)),
    ("stack", (2, 3, 4), lambda x: fg.stack([x, x * 2]), lambda a: np.stack([a, a * 2])),
    ("stack(dim=2)", (2, 3, 4), lambda x: fg.stack([x, x * 2, x], 2), lambda a: np.stack([a, a * 2, a], 2)),
    ("stack(dim=-1)", (2, 3, 4), lambda x: fg.stack([x, -x], -1), lambda a: np.stack([a, -a], -1)),
    ("split(2)", (5, 3), lambda x: x.split(2), lambda a: np.split(a, [2, 4])),
    ("split(2,dim=1)", (2, 3, 4), lambda x: fg.split(x, 2, dim=1), lambda a: np.split(a, [2], 1)),
    ("split([1,3])", (2, 4), lambda x: x.split([1, 3], 1), lambda a: np.split(a, [1], 1)),
    ("split([0,2,1])", (3, 2), lambda x: x.split([0, 2, 1], 0)[1:], lambda a: np.split(a, [0, 2], 0)[1:]),
    ("chunk(3)", (7, 2), lambda x: x.chunk(3), lambda a: np.split(a, [3, 6])),
    ("chunk(2,-1)", (2, 3, 4), lambda x: fg.chunk(x, 2, -1), lambda a: np.split(a, 2, -1)),
    ("unbind", (3, 4), lambda x: x.unbind(), lambda a: list(a)),
    ("unbind(1)", (2, 3, 4), lambda x: fg.unbind(x, 1), lambda a: [a[:, i] for i in range(3)]),
    ("flatten", (2, 3, 4), lambda x: x.flatten(), lambda a: a.reshape(-1)),
    ("flatten(1)", (2, 3, 4), lambda x: x.flatten(1), lambda a: a.reshape(2, 12)),
    ("flatten(0,1)", (2, 3, 4), lambda x: fg.flatten(x, 0, 1), lambda a: a.reshape(6, 4)),
    ("unflatten", (2, 6), lambda x: x.unflatten(1, (2, 3)), lambda a: a.reshape(2, 2, 3)),
    ("unflatten(-1)", (2, 6), lambda x: x.unflatten(-1, (3, -1)), lambda a: a.reshape(2, 3, 2)),
    ("movedim(0,2)", (2, 3, 4), lambda x: x.movedim(0, 2), lambda a: np.moveaxis(a, 0, 2)),
    (
        "movedim((0,1),(2,0))",
        (2, 3, 4),
        lambda x: fg.movedim(x, (0, 1), (2, 0)),
        lambda a: np.moveaxis(a, (0, 1), (2, 0)),
    ),
    ("moveaxis(-1,0)", (2, 3, 4), lambda x: x.moveaxis(-1, 0), lambda a: np.moveaxis(a, -1, 0)),
    ("swapaxes", (2, 3, 4), lambda x: x.swapaxes(0, 2), lambda a: a.swapaxes(0, 2)),
    ("swapdims", (2, 3, 4), lambda x: fg.swapdims(x, 1, -1), lambda a: a.swapaxes(1, -1)),
    ("mT", (2, 3, 4), lambda x: x.mT, lambda a: a.swapaxes(-1, -2)),
    ("narrow", (4, 5), lambda x: x.narrow(1, 1, 3), lambda a: a[:, 1:4]),
    ("narrow(-2)", (4, 5), lambda x: fg.narrow(x, 0, -2, 2), lambda a: a[2:4]),
    ("flip(0)", (2, 3, 4), lambda x: x.flip(0), lambda a: np.flip(a, 0)),
    ("flip(0,2)", (2, 3, 4), lambda x: x.flip(0, 2), lambda a: np.flip(a, (0, 2))),
    ("flip((-1,))", (2, 3, 4), lambda x: fg.flip(x, (-1,)), lambda a: np.flip(a, -1)),
    ("fliplr", (3, 4), lambda x: x.fliplr(), np.fliplr),
    ("flipud", (3, 4), lambda x: x.flipud(), np.flipud),
    ("roll(2)", (3, 4), lambda x: x.roll(2), lambda a: np.roll(a, 2)),
    ("roll(1,0)", (3, 4), lambda x: x.roll(1, 0), lambda a: np.roll(a, 1, 0)),
    ("roll((-1,5),(0,1))", (3, 4), lambda x: fg.roll(x, (-1, 5), (0, 1)), lambda a: np.roll(a, (-1, 5), (0, 1))),
    ("repeat(2,1)", (3, 4), lambda x: x.repeat(2, 1), lambda a: np.tile(a, (2, 1))),
    ("repeat(2,1,3)", (3, 4), lambda x: x.repeat((2, 1, 3)), lambda a: np.tile(a, (2, 1, 3))),
    ("repeat(2,1,1,2)", (2, 3, 4), lambda x: x.repeat(2, 1, 1, 2), lambda a: np.tile(a, (2, 1, 1, 2))),
    ("repeat(0,2)", (3, 4), lambda x: x.repeat(0, 2), lambda a: np.tile(a, (0, 2))),
    ("repeat(3) of a scalar", (), lambda x: x.repeat(3), lambda a: np.tile(a, 3)),
    ("tile(2)", (3, 4), lambda x: x.tile(2), lambda a: np.tile(a, 2)),
    ("tile((2,1,2))", (3, 4), lambda x: fg.tile(x, (2, 1, 2)), lambda a: np.tile(a, (2, 1, 2))),
    ("tril", (3, 4), lambda x: x.tril(), np.tril),
    ("tril(-1)", (2, 3, 4), lambda x: x.tril(-1), lambda a: np.tril(a, -1)),
    ("triu", (4, 3), lambda x: fg.triu(x), np.triu),
    ("triu(2)", (2, 3, 4), lambda x: x.triu(diagonal=2), lambda a: np.triu(a, 2)),
    ("diagonal", (3, 4), lambda x: x.diagonal(), np.diagonal),
    ("diagonal(1)", (3, 4), lambda x: x.diagonal(1), lambda a: np.diagonal(a, 1)),
    ("diagonal(-1,1,2)", (2, 3, 4), lambda x: fg.diagonal(x, -1, 1, 2), lambda a: np.diagonal(a, -1, 1, 2)),
    ("diagonal(0,-1,0)", (3, 2, 4), lambda x: x.diagonal(0, -1, 0), lambda a: np.diagonal(a, 0, -1, 0)),
    ("diag(2d)", (3, 4), lambda x: x.diag(), np.diag),
    ("diag(2d,-2)", (3, 4), lambda x: fg.diag(x, -2), lambda a: np.diag(a, -2)),
    ("diag(1d)", (4,), lambda x: x.diag(), np.diag),
    ("diag(1d,1)", (3,), lambda x: fg.diag(x, 1), lambda a: np.diag(a, 1)),
    ("diag(1d,-2)", (3,), lambda x: x.diag(-2), lambda a: np.diag(a, -2)),
    ("unfold(1,2,1)", (3, 4), lambda x: x.unfold(1, 2, 1), lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, 1)),
    (
        "unfold(0,2,2)",
        (5, 3),
        lambda x: x.unfold(0, 2, 2),
        lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, 0)[::2],
    ),
    (
        "unfold(-1,3,1)",
        (2, 3, 4),
        lambda x: x.unfold(-1, 3, 1),
        lambda a: np.lib.stride_tricks.sliding_window_view(a, 3, -1),
    ),
    ("unfold(0,1,3)", (4,), lambda x: x.unfold(0, 1, 3), lambda a: a[::3, None]),
    ("broadcast_to", (3, 1), lambda x: x.broadcast_to((2, 3, 4)), lambda a: np.broadcast_to(a, (2, 3, 4))),
    ("fg.broadcast_to(-1)", (3, 1), lambda x: fg.broadcast_to(x, [-1, 2]), lambda a: np.broadcast_to(a, (3, 2))),
]


def _table_cases(table):
    """(shape, layout, f, ref) params for each (name, shape, f, ref) row, over every layout of its shape."""
    out = []
    for name, shape, f, ref in table:
        for lay in layouts_for(shape):
            out.append(pytest.param(shape, lay, f, ref, id=f"{name}-{lay.name}"))
    return out


SHAPE_CASES = _table_cases(SHAPE_OPS)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout,f,ref", SHAPE_CASES)
def test_shape_op_forward(shape, layout, f, ref, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype)
    out, expected = f(x), ref(a)
    if isinstance(out, tuple):
        assert len(out) == len(expected)
        for o, e in zip(out, expected):
            assert_tensor(o, e, dtype=dtype)
    else:
        assert_tensor(out, expected, dtype=dtype)


@pytest.mark.parametrize("shape,layout,f,ref", SHAPE_CASES)
def test_shape_op_grad(shape, layout, f, ref, rng):
    storage = random_array(rng, layout.storage_shape(shape))
    gradcheck(lambda s: _pieces(f(layout.fg_view(s, shape))), [storage])


SHAPE_GRAD_FN = [
    (lambda x: fg.cat([x, x]), "CatBackward0"),
    (lambda x: fg.stack([x, x]), "StackBackward0"),
    (lambda x: x.split(2)[0], "SplitBackward0"),
    (lambda x: x.split([1, 3])[1], "SplitWithSizesBackward0"),
    (lambda x: x.chunk(2)[0], "SplitBackward0"),
    (lambda x: x.unbind()[0], "UnbindBackward0"),
    (lambda x: x.flatten(), "ViewBackward0"),
    (lambda x: x.t().flatten(), "UnsafeViewBackward0"),
    (lambda x: x.unflatten(1, (2, 2)), "ViewBackward0"),
    (lambda x: x.movedim(0, 1), "PermuteBackward0"),
    (lambda x: x.swapaxes(0, 1), "TransposeBackward0"),
    (lambda x: x.mT, "TransposeBackward0"),
    (lambda x: x.narrow(1, 1, 2), "SliceBackward0"),
    (lambda x: x.flip(0), "FlipBackward0"),
    (lambda x: x.roll(1), "RollBackward0"),
    (lambda x: x.roll(1, 0), "RollBackward0"),
    (lambda x: x.repeat(2, 1), "RepeatBackward0"),
    (lambda x: x.tile(2), "RepeatBackward0"),
    (lambda x: x.tril(), "TrilBackward0"),
    (lambda x: x.triu(1), "TriuBackward0"),
    (lambda x: x.diagonal(), "DiagonalBackward0"),
    (lambda x: fg.diag(x), "DiagonalBackward0_copy"),
    (lambda x: fg.diag(x[0]), "DiagEmbedBackward0"),
    (lambda x: x[[0, 1]], "IndexBackward0"),
    (lambda x: x[x > 0], "IndexBackward0"),
    (lambda x: x.index_select(0, fg.tensor([0])), "IndexSelectBackward0"),
    (lambda x: x.gather(0, fg.tensor([[0, 1]])), "GatherBackward0"),
    (lambda x: fg.take_along_dim(x, fg.tensor([[0]]), 1), "GatherBackward0"),
    (lambda x: x.masked_fill(x > 0, 1.0), "MaskedFillBackward0"),
    (lambda x: x.masked_select(x > 0), "MaskedSelectBackward0"),
    (lambda x: x.scatter(0, fg.tensor([[0]]), 1.0), "ScatterBackward1"),
    (lambda x: x.scatter(0, fg.tensor([[0]]), x), "ScatterBackward0"),
    (lambda x: x.scatter_add(0, fg.tensor([[0]]), x), "ScatterAddBackward0"),
    (lambda x: x.index_add(0, fg.tensor([0]), x[:1]), "IndexAddBackward0"),
    (lambda x: x.unfold(0, 2, 1), "UnfoldBackward0"),
    (lambda x: x.broadcast_to((2, 4, 4)), "ExpandBackward0"),
]


@pytest.mark.parametrize("f,name", [pytest.param(f, n, id=f"{n}-{i}") for i, (f, n) in enumerate(SHAPE_GRAD_FN)])
def test_shape_and_index_grad_fn_name(f, name):
    x = fg.randn(4, 4, requires_grad=True)
    assert f(x).grad_fn.name() == name


def test_views_share_storage_and_remember_base():
    x = fg.zeros(4, 6)
    for v in [
        x.narrow(1, 1, 2),
        x.diagonal(),
        x.movedim(0, 1),
        x.swapaxes(0, 1),
        x.mT,
        *x.split(2),
        *x.unbind(1),
        *x.chunk(2),
    ]:
        v.add_(1)
    assert x.sum().item() == 8 + 4 + 24 * 6
    assert x.flatten(1, 1) is x


def test_split_grad_only_some_outputs_used():
    x = fg.arange(6.0).reshape(3, 2).requires_grad_()
    a, b, c = x.unbind()
    (b * 2).sum().backward()
    assert x.grad.tolist() == [[0, 0], [2, 2], [0, 0]]
    x.grad = None
    p, q = x.split([1, 2])
    q.sum().backward()
    assert x.grad.tolist() == [[0, 0], [1, 1], [1, 1]]


def test_shape_op_double_backward():
    x = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64, requires_grad=True)
    y = (fg.cat([x, x.flip(0)]) ** 2 * fg.arange(6.0)).sum()
    (g,) = fg.autograd.grad(y, x, create_graph=True)
    (gg,) = fg.autograd.grad(g.sum(), x)
    assert gg.tolist() == [2 * (0 + 5), 2 * (1 + 4), 2 * (2 + 3)]


@pytest.mark.parametrize("shape", [(40, 30, 50), (1000,), (3, 0, 4), (5, 1)])
def test_nonzero_of_a_random_mask_matches_numpy_in_row_major_order(shape):
    # every index written, kept only where the mask is set (no branch); strided and integer inputs too
    m = np.random.default_rng(len(shape)).standard_normal(shape) > 0
    want = np.stack(np.nonzero(m), 1) if m.ndim else np.zeros((int(m), 0))
    np.testing.assert_array_equal(fg.tensor(m).nonzero().numpy(), want)
    np.testing.assert_array_equal(fg.tensor(m.astype(np.int32) * 3).nonzero().numpy(), want)
    if m.ndim == 3:
        t = fg.tensor(np.ascontiguousarray(m.transpose(2, 1, 0))).permute(2, 1, 0)
        np.testing.assert_array_equal(t.nonzero().numpy(), want)
        np.testing.assert_array_equal(fg.tensor(m * 1.5)[fg.tensor(m)].numpy(), (m * 1.5)[m])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 9, 1000])
def test_prod_along_the_last_dim_matches_numpy_with_zeros_nans_and_past_the_threaded_size(dtype, n):
    # each run multiplied in eight lanes, runs split across the threads when large
    rng = np.random.default_rng(n)
    a = (1 + 0.01 * rng.standard_normal((300, n))).astype(dtype)
    a[3, 0], a[4, -1], a[5, n // 2] = 0.0, np.nan, np.inf
    got = fg.tensor(a).prod(-1)
    assert got.dtype == getattr(fg, dtype)
    np.testing.assert_allclose(got.numpy(), np.prod(a.astype(np.float64), -1).astype(dtype), rtol=1e-5)
    np.testing.assert_allclose(fg.tensor(a).prod(1, keepdim=True).numpy(), np.prod(a, 1, keepdims=True), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_flip_roll_tril_triu_match_numpy_past_the_threaded_size(dtype):
    # whole rows copied reversed, rolled or cut to a band, split across the threads when large (3 x 300 x 400);
    # a transposed input is copied first
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 300, 400)) * 10).astype(dtype)
    if dtype == "complex64":
        a = a + 1j * a[:, ::-1]
    for x, xa in [(fg.tensor(a), a), (fg.tensor(np.ascontiguousarray(a.transpose(0, 2, 1))).transpose(1, 2), a)]:
        np.testing.assert_array_equal(x.flip(0, 2).numpy(), a[::-1, :, ::-1])
        np.testing.assert_array_equal(x.flip(1).numpy(), a[:, ::-1])
        np.testing.assert_array_equal(x.roll((7, -450, 2), (2, 1, 2)).numpy(), np.roll(xa, (9, -450), (2, 1)))
        np.testing.assert_array_equal(x.roll(1001).numpy(), np.roll(xa, 1001))
        for k in [-301, -5, 0, 3, 399, 500]:
            np.testing.assert_array_equal(x.tril(k).numpy(), np.tril(xa, k))
            np.testing.assert_array_equal(x.triu(k).numpy(), np.triu(xa, k))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_cat_of_contiguous_inputs_matches_numpy_past_the_threaded_size(dim, dtype):
    # contiguous inputs of the output's dtype are copied block by block, rows split across the threads when large;
    # one piece is empty along the dim, and a transposed piece among them takes the general walk
    rng = np.random.default_rng(dim + 3)
    sizes = [(40, 300, 50), (40, 300, 50), (40, 300, 50)]
    pieces = []
    for i, shape in enumerate(sizes):
        shape = list(shape)
        shape[dim] = [17, 0, 40][i]
        pieces.append((rng.standard_normal(shape) * 10).astype(dtype))
    got = fg.cat([fg.tensor(a) for a in pieces], dim)
    assert got.dtype == getattr(fg, dtype)
    np.testing.assert_array_equal(got.numpy(), np.concatenate(pieces, dim))
    mixed = [fg.tensor(pieces[0]), fg.tensor(np.ascontiguousarray(pieces[2].T)).T]
    assert not mixed[1].is_contiguous()
    np.testing.assert_array_equal(fg.cat(mixed, dim).numpy(), np.concatenate([pieces[0], pieces[2]], dim))


def test_cat_stack_dtype_promotion_and_empty():
    out = fg.cat([fg.tensor([1, 2]), fg.tensor([0.5])])
    assert out.dtype == fg.float32 and out.tolist() == [1.0, 2.0, 0.5]
    assert fg.cat([fg.zeros(2, 3), fg.tensor([])]).shape == (2, 3)
    assert fg.stack([fg.tensor(1.0), fg.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert [t.shape for t in fg.zeros(5).chunk(3)] == [(2,), (2,), (1,)]
    assert [t.shape for t in fg.zeros(6).chunk(4)] == [(2,), (2,), (2,)]
    assert fg.zeros(3, 0).split(2, 1)[0].shape == (3, 0)


@pytest.mark.parametrize(
    "f,exc,msg",
    [
        (
            lambda x: fg.cat([x, fg.zeros(3, 5)]),
            RuntimeError,
            "Sizes of tensors must match except in dimension 0. Expected size 6 but got size 5 for tensor number 1 "
            "in the list.",
        ),
        (lambda x: fg.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
        (lambda x: fg.cat(x), TypeError, "must be tuple of Tensors"),
        (
            lambda x: fg.cat([x], 2),
            IndexError,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        ),
        (
            lambda x: fg.stack([x, fg.zeros(3, 5)]),
            RuntimeError,
            "stack expects each tensor to be equal size, but got [4, 6] at entry 0 and [3, 5] at entry 1",
        ),
        (lambda x: x.narrow(1, 7, 1), IndexError, "start out of range (expected to be in range of [-6, 6], but got 7)"),
        (lambda x: x.narrow(1, 2, 5), RuntimeError, "start (2) + length (5) exceeds dimension size (6)."),
        (lambda x: x.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
        (
            lambda x: x.split([1, 2]),
            RuntimeError,
            "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at dimension 0), but got "
            "split_sizes=[1, 2]",
        ),
        (
            lambda x: x.movedim(0, 3),
            IndexError,
            "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
        ),
        (lambda x: x.movedim((0, 1), (1, 1)), RuntimeError, "movedim: repeated dim in `destination` ([1, 1])"),
        (
            lambda x: x.unflatten(1, (4, 2)),
            RuntimeError,
            "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input tensor",
        ),
        (lambda x: x.flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
        (lambda x: fg.diag(fg.zeros(2, 2, 2)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
        (lambda x: fg.zeros(3).tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
        (
            lambda x: x.repeat(2),
            RuntimeError,
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
        ),
        (lambda x: x.diagonal(0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
        (
            lambda x: fg.zeros(3).mT,
            RuntimeError,
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
        ),
    ],
)
def test_shape_op_errors(f, exc, msg):
    x = fg.zeros(4, 6)
    with pytest.raises(exc) as info:
        f(x)
    assert msg in str(info.value)


# ---------------------------------------------------------------------------
# advanced indexing and index ops
# ---------------------------------------------------------------------------

ADV_INDICES = [
    # applied to a numpy array and to a tensor of shape (4, 3, 5); lists stay lists, arrays become tensors
    [0, 2],
    np.array([[0, 1], [3, 3]]),  # (a list of lists is read as a tuple: test_list_of_lists_is_read_as_a_tuple)
    [-1, 0, -1],
    (slice(None), [2, 0]),
    (Ellipsis, [4, 0, 1]),
    ([0, 1], [1, 2]),
    ([[0], [3]], [1, 2]),  # broadcast to (2, 2)
    ([0, 1], slice(None), [1, 2]),  # separated: broadcast dims first
    (slice(1, 3), [0, 2], slice(None, None, 2)),
    (None, [1, 3], 1),
    (1, [0, 2]),
    np.array([0, 3]),
    (np.array([[1, 2]]), slice(None), np.array([[0], [4]])),
    [True, False, True, True],
    (slice(None), [False, True, True]),
    "mask3d",
    "mask2d",
]


def _adv_id(idx):
    return " ".join(_index_id(idx).replace("array", "arr").split())


def _adv_key(idx, a, tensor):
    """The index for numpy (`tensor=False`) or ferrograd; numpy arrays become int64 tensors."""
    if isinstance(idx, str):
        mask = a > 0 if idx == "mask3d" else a[..., 0] > 0
        return fg.tensor(mask) if tensor else mask
    items = idx if isinstance(idx, tuple) else (idx,)
    conv = []
    for it in items:
        if isinstance(it, np.ndarray):
            conv.append(fg.tensor(it) if tensor else it)
        elif isinstance(it, list) and not tensor:
            conv.append(np.array(it))
        else:
            conv.append(it)
    return tuple(conv) if isinstance(idx, tuple) else conv[0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("idx", ADV_INDICES, ids=_adv_id)
def test_advanced_getitem_forward(idx, dtype, rng):
    a, x = make_input(rng, (4, 3, 5), CONTIGUOUS, dtype)
    ref = make_input(np.random.default_rng(1), (4, 3, 5), CONTIGUOUS, "float64")[0]
    assert_tensor(x[_adv_key(idx, ref, True)], a[_adv_key(idx, ref, False)], dtype=dtype)


@pytest.mark.parametrize("layout", [TRANSPOSED, STEPPED, EXPANDED], ids=repr)
@pytest.mark.parametrize("idx", ADV_INDICES, ids=_adv_id)
def test_advanced_getitem_strided(idx, layout, rng):
    a, x = make_input(rng, (4, 3, 5), layout, "float64")
    ref = make_input(np.random.default_rng(1), (4, 3, 5), CONTIGUOUS, "float64")[0]
    assert_tensor(x[_adv_key(idx, ref, True)], a[_adv_key(idx, ref, False)], dtype="float64")


@pytest.mark.parametrize("idx", ADV_INDICES, ids=_adv_id)
def test_advanced_getitem_grad(idx, rng):
    ref = make_input(np.random.default_rng(1), (4, 3, 5), CONTIGUOUS, "float64")[0]
    gradcheck(lambda x: x[_adv_key(idx, ref, True)], [random_array(rng, (4, 3, 5))])


@pytest.mark.parametrize("idx", ADV_INDICES, ids=_adv_id)
def test_advanced_setitem(idx, rng):
    ref = make_input(np.random.default_rng(1), (4, 3, 5), CONTIGUOUS, "float64")[0]
    a = random_array(rng, (4, 3, 5))
    shape = a[_adv_key(idx, ref, False)].shape
    v = random_array(rng, shape)
    # forward, with a number and with a tensor of the indexed shape
    x = fg.tensor(a)
    x[_adv_key(idx, ref, True)] = fg.tensor(v)
    expected = a.copy()
    expected[_adv_key(idx, ref, False)] = v
    assert_tensor(x, expected, dtype="float64")
    x[_adv_key(idx, ref, True)] = 7.0
    expected[_adv_key(idx, ref, False)] = 7.0
    assert_tensor(x, expected, dtype="float64")

    # differentiable on a non-leaf, for both the tensor and the value (without repeated indices)
    def f(x, val):
        y = x * 1
        y[_adv_key(idx, ref, True)] = val
        return y

    if _adv_id(idx) not in ("[-1, 0, -1]", "arr([[0, 1], [3, 3]])"):  # repeated indices: the last write wins
        gradcheck(f, [a, v])


def test_list_of_lists_is_read_as_a_tuple():
    # torch still reads a short list holding lists, tensors, slices, ... or None as x[tuple(list)], and warns
    x = fg.arange(24.0).reshape(4, 6)
    deprecated = "Using a non-tuple sequence for multidimensional indexing is deprecated"
    with pytest.warns(UserWarning, match=deprecated):
        assert x[[[0, 1], [3, 3]]].tolist() == [3.0, 9.0]
    with pytest.warns(UserWarning, match=deprecated):
        assert x[[1, slice(None, None, 2)]].tolist() == [6.0, 8.0, 10.0]
    with pytest.warns(UserWarning, match=deprecated):
        assert x[[None]].shape == (1, 4, 6)
    with pytest.warns(UserWarning, match=deprecated):
        assert x[[fg.tensor(2), 1]].item() == 13.0
    with pytest.warns(UserWarning, match=deprecated):
        x[[[0, 1], [3, 3]]] = -1.0
    assert x[:2, 3].tolist() == [-1.0, -1.0] and x.sum().item() == sum(range(24)) - 3 - 9 - 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x[[0, 2]].shape == (2, 6)  # a list of ints indexes dim 0
        assert x[[[0, 1]] * 32].shape == (32, 2, 6)  # 32 or more items: one tensor index


def test_ranges_numpy_arrays_and_int32_tensors_index_as_lists_do():
    """pytorch/examples' mnist_forward_forward writes `x_[range(x.shape[0]), y] = x.max()`; torch reads any
    sequence as a tensor of indices (long, or a mask), takes int32 tensors as long ones and uint8 as a (deprecated)
    mask."""
    x = fg.arange(12.0).reshape(3, 4)
    assert x[range(2)].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert x[range(2), 1].tolist() == [1.0, 5.0] and x[range(0)].shape == (0, 4)
    assert x[np.array([0, 2])].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert x[np.array([0, 2], dtype=np.int32), 1].tolist() == [1.0, 9.0]
    assert x[np.array([True, False, True])].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert x[fg.tensor([2, 0], dtype=fg.int32)].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert x[fg.tensor(1, dtype=fg.int32)].tolist() == [4, 5, 6, 7]
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        assert x[fg.tensor([1, 0, 1], dtype=fg.uint8)].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    y = x.clone()
    y[range(3), [0, 1, 2]] = -1.0
    y[fg.tensor([0], dtype=fg.int32), 3] = -2.0
    assert y.diagonal().tolist() == [-1.0, -1.0, -1.0] and y[0, 3].item() == -2.0
    # a sequence's float values are truncated to long indices; a float or int16 tensor is refused
    assert x[np.array([0.5, 2.7])].tolist() == x[[0.5, 2.7]].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    for bad in (fg.tensor([1.5]), fg.tensor([1, 0], dtype=fg.int16)):
        with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
            x[bad]
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_advanced_setitem_broadcast_value_and_leaf_error():
    x = fg.zeros(3, 4)
    x[[0, 2]] = fg.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.tolist() == [[1, 2, 3, 4], [0, 0, 0, 0], [1, 2, 3, 4]]
    x[x > 2] = 0
    assert x.tolist() == [[1, 2, 0, 0], [0, 0, 0, 0], [1, 2, 0, 0]]
    w = fg.zeros(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."
    ):
        w[[0]] = 1.0
    with fg.no_grad():
        w[[0, 1]] = 1.0
    assert w.tolist() == [1.0, 1.0, 0.0]


def test_setitem_grad_fn_names():
    x = fg.randn(3, 4, requires_grad=True)
    y = x * 1
    # as PyTorch records them: a number through one index tensor is index_fill, else index_put
    for key, value, name in [
        ([0, 1], 0.0, "IndexFillBackward0"),
        (fg.tensor([0, 2]), 1, "IndexFillBackward0"),
        ((slice(None), [1, 2]), 0.0, "IndexFillBackward0"),
        ((..., [1]), 0.0, "IndexFillBackward0"),
        ([0, 1], fg.tensor(0.0), "IndexPutBackward0"),
        ([0, 1], fg.zeros(4), "IndexPutBackward0"),
        (([0, 1], [1, 2]), 0.0, "IndexPutBackward0"),
        (x.detach() > 0, 1.0, "MaskedFillBackward0"),
        (x.detach() > 0, fg.tensor(1.0), "IndexPutBackward0"),
    ]:
        y = x * 1
        y[key] = value
        assert y.grad_fn.name() == name, (key, value)
        y.sum().backward()
        expected = fg.ones(3, 4)
        expected[key] = 0.0
        assert x.grad.tolist() == expected.tolist(), (key, value)
        x.grad = None


def test_int_then_advanced_follows_torch_not_numpy():
    # torch applies the int first: x[0, :, [1, 2]] has shape (3, 2) (numpy gives (2, 3))
    a = np.arange(60.0).reshape(4, 3, 5)
    x = fg.tensor(a)
    assert_tensor(x[0, :, [1, 2]], a[0][:, [1, 2]])


def test_repeated_indices_accumulate_gradient():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


@pytest.mark.parametrize(
    "key,exc,msg",
    [
        ([4], IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
        ([-5], IndexError, "index -5 is out of bounds for dimension 0 with size 4"),
        (
            ([0, 1], [0, 1, 2]),
            IndexError,
            "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]",
        ),
        (
            [True, False],
            IndexError,
            "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [4, 6] at index 0",
        ),
        ("float", IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ],
)
def test_advanced_index_errors(key, exc, msg):
    x = fg.zeros(4, 6)
    if key == "float":
        key = fg.tensor([0.0])
    with pytest.raises(exc) as info:
        x[key]
    assert msg in str(info.value)


# torch's shapes (2.15): a bool index is a new dim indexed by [0] (True) or by nothing (False), a copy
@pytest.mark.parametrize(
    "key,shape",
    [
        (True, (1, 2, 3)),
        (False, (0, 2, 3)),
        ("T", (1, 2, 3)),
        ("F", (0, 2, 3)),
        ((0, True), (1, 3)),
        ((True, 1), (1, 3)),
        ((..., True), (2, 3, 1)),
        ((True, [0, 1]), (2, 3)),
    ],
)
def test_bool_scalar_index(key, shape):
    x = fg.arange(6.0).reshape(2, 3).requires_grad_()
    key = {"T": fg.tensor(True), "F": fg.tensor(False)}.get(key, key) if isinstance(key, str) else key
    y = x[key]
    assert tuple(y.shape) == shape
    assert y.grad_fn.name() == "IndexBackward0"
    np_key = bool(key) if isinstance(key, fg.Tensor) else key
    picked = np.arange(6).reshape(2, 3)[np_key]
    np.testing.assert_array_equal(y.detach().numpy(), picked.astype(np.float64))
    y.sum().backward()
    assert x.grad.reshape(-1).tolist() == np.bincount(picked.ravel(), minlength=6).astype(float).tolist()


def test_bool_scalar_index_assignment():
    z = fg.zeros(2, 3)
    z[True] = 1.0
    assert z.tolist() == [[1.0] * 3] * 2
    z = fg.zeros(2, 3)
    z[fg.tensor(False)] = 1.0
    assert z.tolist() == [[0.0] * 3] * 2
    z = fg.zeros(2, 3)
    z[0, True] = fg.tensor([1.0, 2.0, 3.0])
    assert z.tolist() == [[1.0, 2.0, 3.0], [0.0] * 3]
    s = fg.tensor(5.0)
    s[s > 3] = 0.0
    assert s.item() == 0.0
    assert s[True].tolist() == [0.0] and tuple(s[fg.tensor(False)].shape) == (0,)


INDEX_OPS = [
    # id, input shape, ferrograd expression, numpy reference
    ("index_select(0)", (4, 3), lambda x: x.index_select(0, fg.tensor([3, 0, 0])), lambda a: a[[3, 0, 0]]),
    ("index_select(-1)", (2, 3, 4), lambda x: fg.index_select(x, -1, fg.tensor([1, 3])), lambda a: a[..., [1, 3]]),
    (
        "gather(1)",
        (3, 4),
        lambda x: x.gather(1, fg.tensor([[0, 3], [1, 1], [2, 0]])),
        lambda a: np.take_along_axis(a, np.array([[0, 3], [1, 1], [2, 0]]), 1),
    ),
    (
        "gather(0)",
        (3, 4),
        lambda x: fg.gather(x, 0, fg.tensor([[2, 0, 1]])),
        lambda a: np.take_along_axis(a[:, :3], np.array([[2, 0, 1]]), 0),
    ),
    (
        "take_along_dim",
        (3, 4),
        lambda x: fg.take_along_dim(x, fg.tensor([[0], [3], [1]]), dim=1),
        lambda a: np.take_along_axis(a, np.array([[0], [3], [1]]), 1),
    ),
    (
        "take_along_dim(bcast)",
        (3, 4),
        lambda x: x.take_along_dim(fg.tensor([[0, 2]]), 1),
        lambda a: np.take_along_axis(a, np.array([[0, 2]] * 3), 1),
    ),
    # (dim=None flattens by a view: on a strided input it fails, test_take_along_dim_none_views_the_input)
    ("take_along_dim(None)", (3, 4), lambda x: x.take_along_dim(fg.tensor([11, 0])), lambda a: a.reshape(-1)[[11, 0]]),
    (
        "masked_select",
        (3, 4),
        lambda x: x.masked_select(fg.tensor([True, False, True, True])),
        lambda a: a[:, [True, False, True, True]].reshape(-1),
    ),
    (
        "masked_fill",
        (3, 4),
        lambda x: x.masked_fill(fg.tensor([[True], [False], [True]]), -1.5),
        lambda a: np.where([[True], [False], [True]], -1.5, a),
    ),
    (
        "scatter(value)",
        (3, 4),
        lambda x: x.scatter(1, fg.tensor([[0], [2], [3]]), 9.0),
        lambda a: _np_put_along(a, np.array([[0], [2], [3]]), 9.0, 1),
    ),
    (
        "scatter(src)",
        (3, 4),
        lambda x: x.scatter(0, fg.tensor([[2, 1, 0, 2]]), x[:1] * 3),
        lambda a: _np_put_along(a, np.array([[2, 1, 0, 2]]), a[:1] * 3, 0),
    ),
    (
        "scatter_add",
        (3, 4),
        lambda x: x.scatter_add(1, fg.tensor([[0, 0], [1, 3], [2, 2]]), x[:, :2] * 2),
        lambda a: _np_add_along(a, np.array([[0, 0], [1, 3], [2, 2]]), a[:, :2] * 2, 1),
    ),
    (
        "index_add",
        (4, 3),
        lambda x: x.index_add(0, fg.tensor([1, 3, 1]), x[:3] * 2),
        lambda a: _np_index_add(a, [1, 3, 1], a[:3] * 2, 1.0),
    ),
    (
        "index_add(alpha)",
        (4, 3),
        lambda x: fg.index_add(x, 1, fg.tensor([2, 0]), x[:, :2], alpha=-0.5),
        lambda a: _np_index_add(a.swapaxes(0, 1), [2, 0], a[:, :2].swapaxes(0, 1), -0.5).swapaxes(0, 1),
    ),
]


def _np_put_along(a, idx, src, axis):
    out = a.copy()
    src = np.broadcast_to(src, idx.shape) if np.ndim(src) == 0 else src[tuple(slice(0, n) for n in idx.shape)]
    np.put_along_axis(out, idx, src, axis)
    return out


def _np_add_along(a, idx, src, axis):
    out = a.copy()
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[axis] = idx[pos]
        out[tuple(target)] += src[pos]
    return out


def _np_index_add(a, idx, src, alpha):
    out = a.copy()
    np.add.at(out, idx, alpha * src)
    return out


INDEX_OP_CASES = [
    case
    for case in _table_cases(INDEX_OPS)
    if not (case.id.startswith("take_along_dim(None)-") and "contiguous" not in case.id)
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,layout,f,ref", INDEX_OP_CASES)
def test_index_op_forward(shape, layout, f, ref, dtype, rng):
    a, x = make_input(rng, shape, layout, dtype)
    assert_tensor(f(x), ref(a.astype(np.float64)), dtype=dtype)


@pytest.mark.parametrize("shape,layout,f,ref", INDEX_OP_CASES)
def test_index_op_grad(shape, layout, f, ref, rng):
    storage = random_array(rng, layout.storage_shape(shape))
    gradcheck(lambda s: f(layout.fg_view(s, shape)), [storage])


def test_index_ops_inplace_and_nonzero():
    x = fg.zeros(2, 3)
    x.masked_fill_(fg.tensor([[True, False, True], [False, False, False]]), 2.0)
    x.index_add_(0, fg.tensor([1]), fg.ones(1, 3))
    x.scatter_(1, fg.tensor([[1], [0]]), 5.0)
    x.scatter_add_(0, fg.tensor([[0, 0, 0]]), fg.ones(1, 3))
    assert x.tolist() == [[3.0, 6.0, 3.0], [5.0, 1.0, 1.0]]
    m = fg.tensor([[0.0, 1.0], [2.0, 0.0]])
    assert m.nonzero().tolist() == [[0, 1], [1, 0]]
    assert [t.tolist() for t in fg.nonzero(m, as_tuple=True)] == [[0, 1], [1, 0]]
    assert fg.tensor(3.0).nonzero().shape == (1, 0)
    assert fg.zeros(2, 0).nonzero().shape == (0, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, fg.tensor([2]))
    with pytest.raises(IndexError, match="index out of range in self"):  # no negative indices, unlike x[...]
        x.index_select(0, fg.tensor([-1]))
    with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 1 with size 3"):
        x.gather(1, fg.tensor([[9]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.index_select(0, fg.tensor([0.0]))


def test_take_along_dim_none_views_the_input():
    x = fg.arange(12.0).reshape(4, 3)
    assert x.take_along_dim(fg.tensor([11, 0])).tolist() == [11.0, 0.0]
    assert x.T.contiguous().take_along_dim(fg.tensor([[1], [0]])).tolist() == [3.0, 0.0]
    for strided in (x.T, x[:, ::2], x[:1].expand(4, 3)):
        with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride"):
            strided.take_along_dim(fg.tensor([1, 0]))
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride"):
        x.take_along_dim(fg.tensor([[1, 0], [2, 3]]).T)


def test_index_double_backward():
    x = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64, requires_grad=True)
    y = (x[[0, 2, 2]] ** 3).sum() + (x.gather(0, fg.tensor([1])) ** 2).sum()
    (g,) = fg.autograd.grad(y, x, create_graph=True)
    (gg,) = fg.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 2.0, 36.0]


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("index_rows", [300, 120])
def test_gather_and_its_gradient_match_numpy_past_the_threaded_size(dim, index_rows):
    # read from the index row by row, rows split across the threads; the gradient added back a row at a time (in
    # parallel when the index has self's shape but along the last dim)
    rng = np.random.default_rng(dim + index_rows)
    a = rng.standard_normal((300, 1000)).astype(np.float32)
    shape = [index_rows, 1000]
    shape[dim] = 700
    idx = rng.integers(0, a.shape[dim], shape)
    x = fg.tensor(a, requires_grad=True)
    y = x.gather(dim, fg.tensor(idx))
    np.testing.assert_array_equal(y.detach().numpy(), np.take_along_axis(a[: shape[0]] if dim == 1 else a, idx, dim))
    w = rng.standard_normal(shape).astype(np.float32)
    (y * fg.tensor(w)).sum().backward()
    want = np.zeros((300, 1000), np.float64)
    rows, cols = np.indices(shape)
    np.add.at(want, (idx, cols) if dim == 0 else (rows, idx), w)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dim", [0, 1])
def test_topk_sort_median_match_numpy_past_the_threaded_size(dim):
    # each row's indices found once (topk by one pass keeping the k best), rows split across the threads
    rng = np.random.default_rng(dim)
    a = rng.permutation(400 * 900).reshape(400, 900).astype(np.float32) - 1000.0  # distinct values
    x = fg.tensor(a, requires_grad=True)
    order = np.argsort(-a, axis=dim, kind="stable")
    for k in [1, 5, 100, a.shape[dim]]:
        values, indices = x.topk(k, dim)
        want = np.take(order, range(k), axis=dim)
        np.testing.assert_array_equal(indices.numpy(), want)
        np.testing.assert_array_equal(values.detach().numpy(), np.take_along_axis(a, want, dim))
    values, indices = x.sort(dim)
    np.testing.assert_array_equal(values.detach().numpy(), np.sort(a, axis=dim))
    np.testing.assert_array_equal(indices.numpy(), np.argsort(a, axis=dim, kind="stable"))
    med, at = x.median(dim)
    lower = np.sort(a, axis=dim).take((a.shape[dim] - 1) // 2, axis=dim)
    np.testing.assert_array_equal(med.detach().numpy(), lower)
    np.testing.assert_array_equal(np.take_along_axis(a, np.expand_dims(at.numpy(), dim), dim).squeeze(dim), lower)
    (x.topk(3, dim).values.sum() + med.sum()).backward()
    want = np.zeros_like(a)
    np.put_along_axis(want, np.take(order, range(3), axis=dim), 1.0, dim)
    np.put_along_axis(want, np.expand_dims(at.numpy(), dim), 1.0, dim)  # a median is never among the top 3
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_matches_numpy_past_the_threaded_size(dtype, dim):
    # floats accumulated in float64 (as torch), blocks of rows split across the threads
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 400, 500)) * 100).astype(dtype)
    want = np.cumsum(a.astype(np.float64 if dtype != "int64" else np.int64), axis=dim).astype(dtype)
    np.testing.assert_array_equal(fg.tensor(a).cumsum(dim).numpy(), want)
    t = fg.tensor(np.ascontiguousarray(a.transpose(2, 1, 0))).permute(2, 1, 0)
    np.testing.assert_array_equal(t.cumsum(dim).numpy(), want)


def test_index_and_mask_rows_and_their_gradients_match_numpy_past_the_threaded_size():
    # rows picked and their gradients added back a row at a time
    rng = np.random.default_rng(3)
    a = rng.standard_normal((600, 30, 40)).astype(np.float32)
    idx = rng.integers(-600, 600, 900)
    mask = rng.standard_normal((600, 30)) > 0
    x = fg.tensor(a, requires_grad=True)
    for key, np_key in [
        (fg.tensor(idx), idx),
        (fg.tensor(idx, dtype=fg.int32), idx),
        ((fg.tensor(idx[:50, None]), fg.tensor(idx[:20] % 30)), (idx[:50, None], idx[:20] % 30)),
        (fg.tensor(mask), mask),
        (fg.tensor(mask[:, 0]), mask[:, 0]),
    ]:
        x.grad = None
        y = x[key]
        np.testing.assert_array_equal(y.detach().numpy(), a[np_key])
        w = rng.standard_normal(y.shape).astype(np.float32)
        (y * fg.tensor(w)).sum().backward()
        want = np.zeros_like(a)
        np.add.at(want, np_key, w)
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mse_loss_matches_numpy_past_the_threaded_size(reduction, dtype):
    # mean and sum in one pass over both inputs (the difference squared in the dtype, summed in float64 parts)
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal((700, 900)).astype(dtype) for _ in range(2))
    d = a - b
    want = {"mean": (d * d).astype(np.float64).mean(), "sum": (d * d).astype(np.float64).sum(), "none": d * d}[
        reduction
    ]
    got = fg.nn.functional.mse_loss(fg.tensor(a), fg.tensor(b), reduction=reduction)
    assert got.dtype == getattr(fg, dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == "float32" else 1e-12)
    # broadcast and mixed dtypes take the general path
    with pytest.warns(UserWarning, match="target size"):
        mixed = fg.nn.functional.mse_loss(fg.tensor(a[:3]), fg.tensor(b[0].astype(np.float64)), reduction=reduction)
    d = a[:3].astype(np.float64) - b[0].astype(np.float64)
    np.testing.assert_allclose(mixed.numpy(), {"mean": (d * d).mean(), "sum": (d * d).sum(), "none": d * d}[reduction])


def test_addcmul_addcdiv_match_numpy_past_the_threaded_size():
    # three operands read in blocks across the threads, a broadcast one repeated from its block; addcmul is torch's
    # fma(value * t1, t2, self) (the float32 product is exact in float64), addcdiv self + value * t1 / t2
    rng = np.random.default_rng(12)
    x, a, b = (rng.standard_normal((700, 900)).astype(np.float32) for _ in range(3))
    v = np.float32(0.3)
    fused = ((v * a).astype(np.float64) * b.astype(np.float64) + x).astype(np.float32)
    np.testing.assert_array_equal(fg.addcmul(fg.tensor(x), fg.tensor(a), fg.tensor(b), value=0.3).numpy(), fused)
    row = b[0] + 3.0
    got = fg.addcdiv(fg.tensor(x), fg.tensor(a), fg.tensor(row), value=0.3).numpy()
    np.testing.assert_array_equal(got, x + (v * a) / row)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradient_of_an_expanded_gradient_is_the_dense_ones(approximate):
    # a sum's gradient is expanded (not dense): it is copied dense for the one-pass float32 kernel
    x = fg.tensor(np.random.default_rng(13).standard_normal(300_000).astype(np.float32), requires_grad=True)
    fg.nn.functional.gelu(x, approximate=approximate).sum().backward()
    expanded = x.grad
    x.grad = None
    fg.nn.functional.gelu(x, approximate=approximate).backward(fg.ones(300_000))
    np.testing.assert_array_equal(expanded.numpy(), x.grad.numpy())


@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_and_its_gradients_match_numpy_past_the_threaded_size(affine):
    # rows written once into a pooled buffer, split across the threads (every slot written: a stale one would show)
    rng = np.random.default_rng(14)
    x = rng.standard_normal((600, 700))
    w, b = (rng.standard_normal(700) for _ in range(2))
    g = rng.standard_normal((600, 700))
    for _ in range(2):  # the second time on buffers the first gave back
        xt = fg.tensor(x, requires_grad=True)
        wt, bt = (fg.tensor(v, requires_grad=True) for v in (w, b)) if affine else (None, None)
        y = fg.nn.functional.layer_norm(xt, (700,), wt, bt, eps=1e-5)
        y.backward(fg.tensor(g))
        mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
        xhat = (x - mean) / np.sqrt(var + 1e-5)
        np.testing.assert_allclose(y.detach().numpy(), xhat * w + b if affine else xhat, rtol=1e-9, atol=1e-12)
        gx = g * w if affine else g
        want = (gx - gx.mean(1, keepdims=True) - xhat * (gx * xhat).mean(1, keepdims=True)) / np.sqrt(var + 1e-5)
        np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-8, atol=1e-10)
        if affine:
            np.testing.assert_allclose(wt.grad.numpy(), (g * xhat).sum(0), rtol=1e-9)
            np.testing.assert_allclose(bt.grad.numpy(), g.sum(0), rtol=1e-9)


@pytest.mark.parametrize("dims", [None, 0, 1, (0, 2), 2, -1])
def test_float32_sums_stay_accurate_and_agree_across_thread_counts(dims):
    # float32 runs add four values a lane in float32 before float64 (and rows four at a time down long sums): within
    # float32's rounding of the values' size, and (ferrograd's promise, not torch's) the same bits whether the sum is
    # split across threads or not
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((300, 70, 130)) * 1e3).astype(np.float32)
    axis = dims if dims is None or isinstance(dims, tuple) else (dims,)
    exact = a.astype(np.float64).sum(axis=axis)
    size = np.abs(a.astype(np.float64)).sum(axis=axis)
    threads = fg.get_num_threads()
    try:
        fg.set_num_threads(2)
        two = (fg.tensor(a).sum() if dims is None else fg.tensor(a).sum(dims)).numpy()
        fg.set_num_threads(1)
        one = (fg.tensor(a).sum() if dims is None else fg.tensor(a).sum(dims)).numpy()
    finally:
        fg.set_num_threads(threads)
    if not AGAINST_TORCH:
        np.testing.assert_array_equal(one, two)
    assert np.all(np.abs(two.astype(np.float64) - exact) <= 4 * np.finfo(np.float32).eps * size)
