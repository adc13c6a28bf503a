"""The ops of the core's `for_each_param_unary_op!` registry (`nn.functional`'s elu, selu, celu, leaky_relu,
hardtanh, softplus, threshold, gelu, silu, hardsigmoid, hardswish, mish, logsigmoid, hardshrink, softshrink),
table-driven: one row per op gives its forward against numpy (float32 and float64, every layout, torch's
defaults and other parameters), gradcheck, its grad_fn, `inplace=True` and `F.<name>_` (the tensor itself, the
same values and gradients, the leaf error), and the `F.` signature's defaults against the registry's, and the
registry against torch's signature."""

import ast
import inspect
import math

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH, CONTIGUOUS, EXPANDED, STEPPED, TRANSPOSED, assert_tensor, gradcheck, make_input

F = fg.nn.functional
FLOATS = ["float32", "float64"]


def _softplus(a, beta, threshold):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def _erf(a):
    return np.vectorize(math.erf)(a)


def _gelu(a, approximate):
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))
    return 0.5 * a * (1 + _erf(a / math.sqrt(2)))


# One row per op: its name; torch's signature, which ferrograd's registry must declare (checked below): the
# in-place flag ("inplace": F.<name> takes inplace= and F.<name>_ exists; "inplace_arg": inplace= only) and
# each parameter with its Rust type and default ("" where torch has none); parameters other than the
# defaults; numpy reference of (input, **parameters); grad_fn name
PARAM_OPS = [
    (
        "softplus",
        ("", [("beta", "f64", "1.0"), ("threshold", "f64", "20.0")]),
        {"beta": 2.0, "threshold": 1.5},
        _softplus,
        "SoftplusBackward0",
    ),
    (
        "elu",
        ("inplace", [("alpha", "f64", "1.0")]),
        {"alpha": 0.5},
        lambda a, alpha: np.where(a > 0, a, alpha * np.expm1(a)),
        "EluBackward0",
    ),
    (
        "selu",
        ("inplace", []),
        {},
        lambda a: 1.0507009873554805 * np.where(a > 0, a, 1.6732632423543772 * np.expm1(a)),
        "EluBackward0",
    ),
    (
        "celu",
        ("inplace", [("alpha", "f64", "1.0")]),
        {"alpha": -1.5},
        lambda a, alpha: np.where(a > 0, a, alpha * np.expm1(a / alpha)),
        "CeluBackward0",
    ),
    (
        "leaky_relu",
        ("inplace", [("negative_slope", "f64", "0.01")]),
        {"negative_slope": 0.2},
        lambda a, negative_slope: np.where(a > 0, a, a * negative_slope),
        "LeakyReluBackward0",
    ),
    (
        "hardtanh",
        ("inplace", [("min_val", "f64", "-1.0"), ("max_val", "f64", "1.0")]),
        {"min_val": -0.5, "max_val": 1.5},
        lambda a, min_val, max_val: np.clip(a, min_val, max_val),
        "HardtanhBackward0",
    ),
    (
        "threshold",
        ("inplace", [("threshold", "f64", ""), ("value", "f64", "")]),
        {"threshold": 0.1, "value": -2.0},
        lambda a, threshold, value: np.where(a <= threshold, value, a),
        "ThresholdBackward0",
    ),
    ("gelu", ("", [("approximate", "&str", '"none"')]), {"approximate": "tanh"}, _gelu, "GeluBackward0"),
    ("silu", ("inplace_arg", []), {}, lambda a: a / (1 + np.exp(-a)), "SiluBackward0"),
    ("hardsigmoid", ("inplace_arg", []), {}, lambda a: np.clip(a + 3, 0, 6) / 6, "HardsigmoidBackward0"),
    ("hardswish", ("inplace_arg", []), {}, lambda a: a * np.clip(a + 3, 0, 6) / 6, "HardswishBackward0"),
    ("mish", ("inplace_arg", []), {}, lambda a: a * np.tanh(np.log1p(np.exp(a))), "MishBackward0"),
    ("logsigmoid", ("", []), {}, lambda a: -np.logaddexp(0.0, -a), "LogSigmoidBackward0"),
    (
        "hardshrink",
        ("", [("lambd", "f64", "0.5")]),
        {"lambd": 0.3},
        lambda a, lambd: np.where(np.abs(a) <= lambd, 0.0, a),
        "HardshrinkBackward0",
    ),
    (
        "softshrink",
        ("", [("lambd", "f64", "0.5")]),
        {"lambd": 0.3},
        lambda a, lambd: np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0.0)),
        "SoftshrinkBackward0",
    ),
]
TORCH_SIGNATURES = {name: signature for name, signature, *_ in PARAM_OPS}
REGISTRY = (
    TORCH_SIGNATURES
    if AGAINST_TORCH
    else {name: (flag, params) for name, _, flag, params in fg._core._param_unary_ops()}
)


def _defaults(name):
    return {p: ast.literal_eval(d) for p, _, d in REGISTRY[name][1] if d}


def _calls(name, params):
    """(parameters, the call) for torch's defaults (where the op has them) and for `params`."""
    out = [({**_defaults(name), **params}, params)]
    if len(_defaults(name)) == len(REGISTRY[name][1]):
        out.append((_defaults(name), {}))
    return out


ROWS = [pytest.param(name, params, ref, id=name) for name, _, params, ref, _ in PARAM_OPS]


def test_every_registry_op_has_a_row_and_torchs_signature():
    assert sorted(REGISTRY) == sorted(name for name, *_ in PARAM_OPS)
    assert REGISTRY == TORCH_SIGNATURES


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's F functions are builtins without an inspectable signature")
@pytest.mark.parametrize("name,params,ref", ROWS)
def test_signature_is_the_registry(name, params, ref):
    flag, declared = REGISTRY[name]
    sig = inspect.signature(getattr(F, name))
    expected = ["input", *(p for p, _, _ in declared), *(["inplace"] if flag else [])]
    assert list(sig.parameters) == expected
    for p, _, default in declared:
        want = inspect.Parameter.empty if not default else ast.literal_eval(default)
        assert sig.parameters[p].default == want
    has_function = flag == "inplace"
    assert hasattr(F, f"{name}_") == has_function and (f"{name}_" in F.__all__) == has_function
    assert name in F.__all__


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", [CONTIGUOUS, TRANSPOSED, STEPPED, EXPANDED], ids=lambda lay: lay.name)
@pytest.mark.parametrize("name,params,ref", ROWS)
def test_forward(name, params, ref, layout, dtype, rng):
    a, x = make_input(rng, (3, 4), layout, dtype)
    for values, kwargs in _calls(name, params):
        out = getattr(F, name)(x, **kwargs)
        assert_tensor(out, ref(a.astype(np.float64), **values), dtype=dtype)


@pytest.mark.parametrize("name,params,ref", ROWS)
def test_gradcheck_and_grad_fn(name, params, ref, rng):
    grad_fn = next(g for n, *_, g in PARAM_OPS if n == name)
    for _, kwargs in _calls(name, params):
        gradcheck(lambda x, kwargs=kwargs: getattr(F, name)(x, **kwargs), [rng.uniform(-3, 3, (2, 3))])
        assert getattr(F, name)(fg.ones(2, requires_grad=True), **kwargs).grad_fn.name() == grad_fn


@pytest.mark.parametrize("name,params,ref", [row for row in ROWS if REGISTRY[row.values[0]][0]])
def test_inplace_forms(name, params, ref, rng):
    # torch refuses the backward of an in-place elu/celu whose slope is negative (it cannot recover the input
    # from the output); ferrograd computes it, so the shared test takes celu's positive alpha
    params = {"alpha": 1.5} if name == "celu" else params
    a = rng.uniform(-3, 3, (2, 3))
    v = fg.tensor(rng.standard_normal((2, 3)))
    expected_leaf = fg.tensor(a, requires_grad=True)
    expected = getattr(F, name)(expected_leaf * 2, **params)
    expected.backward(v)
    forms = [lambda x: getattr(F, name)(x, **params, inplace=True)]
    if REGISTRY[name][0] == "inplace":
        forms.append(lambda x: getattr(F, f"{name}_")(x, **params))
    for form in forms:
        leaf = fg.tensor(a, requires_grad=True)
        x = leaf * 2
        out = form(x)
        assert out is x and x._version == 1
        assert_tensor(out, expected.detach().numpy())
        out.backward(v)
        assert_tensor(leaf.grad, expected_leaf.grad.numpy())
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            form(fg.tensor(a, requires_grad=True))
        plain = fg.tensor(a)
        assert form(plain) is plain and plain.allclose(getattr(F, name)(fg.tensor(a), **params))


def test_parameter_checks():
    x = fg.ones(3)
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2.0, 1.0, inplace=True)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError: alpha cannot be 0 for CELU$"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="^approximate argument must be either none or tanh.$"):
        F.gelu(x, approximate="exact")
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, but"):
        F.softshrink(x, -0.1)
    message = r"^lambda must be in range \[0, 1.79769e\+308\] for input dtype Double, but found -1.23457e\+08$"
    with pytest.raises(RuntimeError, match=message):
        F.softshrink(x.double(), -123456789.0)
    with pytest.raises(NotImplementedError, match="\"softshrink_check\" not implemented for 'Long'"):
        F.softshrink(fg.tensor([1, 2]), -1.0)
    with pytest.raises(NotImplementedError, match="\"hardshrink_cpu\" not implemented for 'Long'"):
        F.hardshrink(fg.tensor([1, 2]))
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_shrinks_at_their_bounds_and_nan():
    """softshrink gives x * 0 inside (-0.0 for a negative x, as torch's kernel), hardshrink 0; no gradient at
    +-lambd; NaN stays NaN and passes its gradient."""
    values = [-0.2, 0.2, float("nan"), -1.0, 1.0, 0.5, -0.5]
    x = fg.tensor(values, requires_grad=True)
    soft, hard = F.softshrink(x), F.hardshrink(x)
    assert np.array_equal(np.signbit(soft.detach().numpy()), [True, False, False, True, False, False, True])
    np.testing.assert_array_equal(soft.detach().numpy(), [0.0, 0.0, np.nan, -0.5, 0.5, 0.0, 0.0])
    np.testing.assert_array_equal(hard.detach().numpy(), [0.0, 0.0, np.nan, -1.0, 1.0, 0.0, 0.0])
    for out in (soft, hard):
        (grad,) = fg.autograd.grad(out.sum(), x)
        assert grad.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]


def test_threshold_keeps_nan_and_its_gradient():
    x = fg.tensor([float("nan"), 0.5, 1.0, 2.0], requires_grad=True)
    y = F.threshold(x, 1.0, -1.0)
    assert np.isnan(y.tolist()[0]) and y.tolist()[1:] == [-1.0, -1.0, 2.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 1.0]


def test_integer_inputs():
    """hardtanh and threshold keep integer dtypes (both numbers cast to the integer type, as torch's kernels do),
    in place too; the others refuse integers."""
    x = fg.tensor([1, 2, 3])
    assert F.threshold(x, 1.5, 0.0).dtype == fg.int64 and F.threshold(x, 1.5, 0.0).tolist() == [0, 2, 3]
    assert F.threshold_(x, 2.0, -1.0) is x and x.tolist() == [-1, -1, 3]
    y = fg.tensor([-3, 0, 2])
    assert F.hardtanh(y, inplace=True) is y and y.tolist() == [-1, 0, 1]
    with pytest.raises(NotImplementedError, match="\"elu_cpu\" not implemented for 'Long'"):
        F.elu(fg.tensor([1, 2]))


def test_inplace_forms_keep_the_result_as_torch(rng):
    """elu_, celu_ and leaky_relu_ record torch's result-keeping nodes (EluBackward1, ...): the gradient from
    the result equals the out-of-place one for a non-negative slope; with a negative slope the input cannot be
    told from the result, and backward refuses, as torch's does. threshold_ keeps its input, under its own name."""
    a = rng.uniform(-3, 3, (2, 3))
    for name, kwargs, node in [
        ("elu", {"alpha": 0.7}, "EluBackward1"),
        ("celu", {"alpha": 1.5}, "CeluBackward1"),
        ("leaky_relu", {"negative_slope": 0.2}, "LeakyReluBackward1"),
        ("threshold", {"threshold": 0.5, "value": -2.0}, "ThresholdBackward1"),
    ]:
        leaf, expected_leaf = fg.tensor(a, requires_grad=True), fg.tensor(a, requires_grad=True)
        getattr(F, name)(expected_leaf * 2, **kwargs).pow(2).sum().backward()
        out = getattr(F, name + "_")(leaf * 2, **kwargs)
        assert out.grad_fn.name() == node
        out.pow(2).sum().backward()
        assert_tensor(leaf.grad, expected_leaf.grad.numpy())
    for name, kwargs, message in [
        ("celu", {"alpha": -1.5}, "In-place elu backward calculation is triggered with a negative slope"),
        ("elu", {"alpha": -0.5}, "In-place elu backward calculation is triggered with a negative slope"),
        ("leaky_relu", {"negative_slope": -0.1}, "In-place leakyReLu backward calculation is triggered"),
    ]:
        out = getattr(F, name + "_")(fg.tensor(a, requires_grad=True) * 2, **kwargs).sum()
        with pytest.raises(RuntimeError, match=message):
            out.backward()


def test_leaky_relu_gradient_at_zero_and_nan_in_and_out_of_place():
    """The gradient is `g` above 0 and `slope · g` elsewhere (0 and NaN included), out of place and from the
    in-place form's kept result alike, float32 and float64."""
    for dtype in (fg.float32, fg.float64):
        for inplace in (False, True):
            x = fg.tensor([-1.0, -0.0, 0.0, 2.0, float("nan")], dtype=dtype, requires_grad=True)
            F.leaky_relu(x * 1, 0.2, inplace=inplace).backward(fg.full((5,), 3.0, dtype=dtype))
            np.testing.assert_allclose(x.grad.double().numpy(), [0.6, 0.6, 0.6, 3.0, 0.6], rtol=1e-7)
