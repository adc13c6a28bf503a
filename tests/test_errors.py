"""Errors: PyTorch's exception types and phrases (each checked against torch 2.15), and
failed calls leave their tensors unchanged. Matches are regex *searches*, so a prefix
such as torch's "mm: " before "mat1 and mat2 ..." is allowed."""

import collections
import fractions
import re
import warnings

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

# ---------------------------------------------------------------------------
# the errors listed in issue 2
# ---------------------------------------------------------------------------


def test_backward_of_non_scalar_needs_a_gradient():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_backward_through_tensor_without_grad():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        fg.ones(3).sum().backward()
    x = fg.ones(3, requires_grad=True)
    with fg.no_grad():
        y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        y.backward()


BROADCAST_ERRORS = [
    ((3,), (2,), 3, 2, 0),
    ((2, 3), (2, 4), 3, 4, 1),
    ((4, 1, 3), (2, 2), 3, 2, 2),
    ((0,), (2,), 0, 2, 0),
    ((2, 3, 4), (3, 3, 4), 2, 3, 0),
]
BINARY_FNS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "eq": lambda a, b: a.eq(b),
    "lt": lambda a, b: a < b,
}


@pytest.mark.parametrize("op", list(BINARY_FNS))
@pytest.mark.parametrize("shape_a,shape_b,size_a,size_b,dim", BROADCAST_ERRORS, ids=str)
def test_broadcast_mismatch(op, shape_a, shape_b, size_a, size_b, dim):
    message = (
        rf"The size of tensor a \({size_a}\) must match the size of tensor b \({size_b}\) "
        rf"at non-singleton dimension {dim}"
    )
    with pytest.raises(RuntimeError, match=message):
        BINARY_FNS[op](fg.ones(shape_a), fg.ones(shape_b))


def test_broadcast_mismatch_exact_phrase_from_the_issue():
    with pytest.raises(RuntimeError) as info:
        fg.ones(3, requires_grad=True) + fg.ones(2)
    assert "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0" in str(
        info.value
    )


@pytest.mark.parametrize(
    "shape_a,shape_b,shown",
    [
        ((3, 4), (5, 6), "3x4 and 5x6"),
        ((2, 3), (2, 4), "2x3 and 2x4"),
        ((1, 1), (2, 1), "1x1 and 2x1"),
    ],
)
def test_matmul_shape_mismatch(shape_a, shape_b, shown):
    a = fg.ones(shape_a, requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"mat1 and mat2 shapes cannot be multiplied \({shown}\)"):
        a @ fg.ones(shape_b)
    with pytest.raises(RuntimeError, match=rf"mat1 and mat2 shapes cannot be multiplied \({shown}\)"):
        a.matmul(fg.ones(shape_b))


@pytest.mark.parametrize(
    "shape_a,shape_b",
    [((2, 3, 4), (2, 5, 6)), ((2, 3, 4), (5, 6)), ((2, 3, 4), (3, 4, 2))],
    ids=str,
)
def test_batched_matmul_mismatch(shape_a, shape_b):
    # torch's wording varies with its internal dispatch (bmm, folding into mm, broadcasting)
    with pytest.raises(RuntimeError):
        fg.ones(shape_a) @ fg.ones(shape_b)


def test_matmul_dtype_mismatch():
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        fg.ones(2, 2) @ fg.ones(2, 2, dtype=fg.float64)


@pytest.mark.parametrize(
    "out_shape,grad_shape",
    [((3,), (2,)), ((3,), (1, 3)), ((), (3,)), ((2, 3), (3, 2))],
    ids=str,
)
def test_gradient_of_wrong_shape(out_shape, grad_shape):
    x = fg.ones(out_shape, requires_grad=True)
    shown = lambda s: re.escape("Size(" + str(list(s)) + ")")
    message = (
        rf"Mismatch in shape: grad_output\[0\] has a shape of \w+\.{shown(grad_shape)} "
        rf"and output\[0\] has a shape of \w+\.{shown(out_shape)}"
    )
    with pytest.raises(RuntimeError, match=message):
        (x * 2).backward(fg.ones(grad_shape))


INT_REQUIRES_GRAD = [
    pytest.param(lambda: fg.tensor([1, 2], requires_grad=True), id="tensor"),
    pytest.param(lambda: fg.tensor([True], requires_grad=True), id="tensor-bool"),
    pytest.param(lambda: fg.ones(2, dtype=fg.int64, requires_grad=True), id="ones-int"),
    pytest.param(lambda: fg.zeros(2, dtype=fg.bool, requires_grad=True), id="zeros-bool"),
    pytest.param(lambda: fg.arange(3, requires_grad=True), id="arange"),
    pytest.param(lambda: fg.full((2,), 7, requires_grad=True), id="full"),
    pytest.param(lambda: fg.tensor([1, 2]).requires_grad_(), id="requires_grad_"),
    pytest.param(lambda: setattr(fg.tensor([1, 2]), "requires_grad", True), id="setter"),
]


@pytest.mark.parametrize("call", INT_REQUIRES_GRAD)
def test_requires_grad_on_integer_tensor(call):
    # torch's capitalisation and wording vary by entry point ("Only Tensors of floating
    # point and complex dtype ...", "only Tensors of floating point dtype ...").
    with pytest.raises(
        RuntimeError, match=r"(?i)only Tensors of floating point (and complex )?dtype can require gradients"
    ):
        call()


def test_requires_grad_on_integer_tensor_exact_phrase_from_the_issue():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        fg.tensor([1, 2], requires_grad=True)


WRONG_TYPES = [
    # call, a phrase that names the argument (None: any TypeError)
    pytest.param(lambda: fg.tensor([1.0], dtype="float32"), "dtype", id="tensor-dtype-str"),
    pytest.param(lambda: fg.tensor([1.0], dtype=np.float32), "dtype", id="tensor-dtype-numpy"),
    pytest.param(lambda: fg.ones(2, requires_grad="yes"), "requires_grad", id="ones-requires_grad"),
    pytest.param(lambda: fg.ones("a"), "size", id="ones-size"),
    pytest.param(lambda: fg.full((2,), "a"), "fill_value", id="full-fill_value"),
    pytest.param(lambda: fg.arange("a"), "end", id="arange-end"),
    pytest.param(lambda: fg.rand("a"), "size", id="rand-size"),
    pytest.param(lambda: fg.ones(2, 3).sum(dim="a"), "dim", id="sum-dim"),
    pytest.param(lambda: fg.ones(2, 3).sum(0, keepdim="yes"), "keepdim", id="sum-keepdim"),
    pytest.param(lambda: fg.ones(2, 3).mean(dim=1.0), "dim", id="mean-dim"),
    pytest.param(lambda: fg.ones(2, 3).reshape("a"), "shape", id="reshape-shape"),
    pytest.param(lambda: fg.ones(2, 3).transpose(0, "1"), "dim1", id="transpose-dim1"),
    pytest.param(lambda: fg.ones(2, 3).unsqueeze(1.5), "dim", id="unsqueeze-dim"),
    pytest.param(lambda: fg.ones(2, 3).size("a"), "dim", id="size-dim"),
    pytest.param(lambda: fg.ones(2, 3).expand("a"), "size", id="expand-size"),
    pytest.param(lambda: fg.ones(1).requires_grad_("yes"), "requires_grad", id="requires_grad_"),
    pytest.param(lambda: fg.ones(1, requires_grad=True).sum().backward("a"), "gradient", id="backward-gradient"),
    pytest.param(lambda: fg.from_numpy([1.0]), "ndarray", id="from_numpy-list"),
    pytest.param(lambda: fg.tensor("abc"), None, id="tensor-str"),
    pytest.param(lambda: fg.ones(2) + "a", None, id="add-str"),
    pytest.param(lambda: fg.ones(2) * None, None, id="mul-None"),
    pytest.param(lambda: fg.ones(2) ** "a", None, id="pow-str"),
    pytest.param(lambda: fg.ones(2, 2) @ [[1.0]], None, id="matmul-list"),
    pytest.param(lambda: fg.ones(2, 2) @ 2, None, id="matmul-int"),
    pytest.param(lambda: fg.ones(2) < None, None, id="lt-None"),
    pytest.param(lambda: fg.ones(2).eq("a"), None, id="eq-str"),
]


@pytest.mark.parametrize("call,phrase", WRONG_TYPES)
def test_wrong_argument_type(call, phrase):
    with pytest.raises(TypeError) as info:
        call()
    if phrase is not None:
        assert phrase in str(info.value), str(info.value)


def test_grad_assignment_of_wrong_type():
    x = fg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="grad"):
        x.grad = 3
    assert x.grad is None


INDEX_ERRORS = [
    pytest.param((3,), 5, r"index 5 is out of bounds for dimension 0 with size 3", id="past-end"),
    pytest.param((3,), -4, r"index -4 is out of bounds for dimension 0 with size 3", id="negative"),
    pytest.param((2, 3), (slice(None), 3), r"index 3 is out of bounds for dimension 1 with size 3", id="dim1"),
    pytest.param((2, 3), (0, 0, 0), r"too many indices for tensor of dimension 2", id="too-many"),
    pytest.param((), 0, r"invalid index of a 0-dim tensor", id="0d"),
    pytest.param((3,), 1.5, None, id="float"),
]


@pytest.mark.parametrize("shape,index,message", INDEX_ERRORS)
def test_index_out_of_range(shape, index, message):
    t = fg.zeros(shape)
    with pytest.raises(IndexError, match=message):
        t[index]
    with pytest.raises(IndexError, match=message):
        t[index] = 1.0


def test_size_of_0d_and_negative_step():
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(fg.tensor(1.0))
    with pytest.raises(ValueError, match="step must be greater than zero"):
        fg.arange(5)[::-1]


# ---------------------------------------------------------------------------
# more of torch's errors that the issue's API reaches
# ---------------------------------------------------------------------------

MORE_ERRORS = [
    # call, exception type, phrase
    pytest.param(
        lambda: fg.tensor([1, 2]).mean(), RuntimeError, r"mean\(\): could not infer output dtype", id="mean-int"
    ),
    pytest.param(
        lambda: fg.tensor([True]).mean(0), RuntimeError, r"mean\(\): could not infer output dtype", id="mean-bool"
    ),
    pytest.param(
        lambda: fg.tensor([1, 2]).norm(),
        RuntimeError,
        "Expected a floating point or complex tensor as input",
        id="norm-int",
    ),
    pytest.param(
        lambda: fg.tensor([2]) ** -1,
        RuntimeError,
        "Integers to negative integer powers are not allowed",
        id="int-pow-negative",
    ),
    pytest.param(
        lambda: -fg.tensor([True]),
        RuntimeError,
        r"Negation, the `-` operator, on a bool tensor is not supported",
        id="neg-bool",
    ),
    pytest.param(
        lambda: fg.tensor([True]) - fg.tensor([False]),
        RuntimeError,
        r"Subtraction, the `-` operator, with two bool tensors is not supported",
        id="sub-bools",
    ),
    pytest.param(
        lambda: fg.tensor([True]) - 1,
        RuntimeError,
        r"Subtraction, the `-` operator, with a bool tensor is not supported",
        id="sub-bool-int",
    ),
    pytest.param(
        lambda: fg.ones(2, requires_grad=True).numpy(),
        RuntimeError,
        r"Can't call numpy\(\) on Tensor that requires grad",
        id="numpy-requires-grad",
    ),
    pytest.param(
        lambda: fg.ones(2).item(), RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar", id="item"
    ),
    pytest.param(
        lambda: bool(fg.ones(2)),
        RuntimeError,
        "Boolean value of Tensor with more than one value is ambiguous",
        id="bool",
    ),
    pytest.param(
        lambda: fg.ones(6).view(4), RuntimeError, r"shape '\[4\]' is invalid for input of size 6", id="view-size"
    ),
    pytest.param(
        lambda: fg.ones(2, 3).reshape(4, -1),
        RuntimeError,
        r"shape '\[4, -1\]' is invalid for input of size 6",
        id="reshape-size",
    ),
    pytest.param(
        lambda: fg.ones(2, 3).t().view(6),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride",
        id="view-strided",
    ),
    pytest.param(
        lambda: fg.ones(3).expand(4),
        RuntimeError,
        r"The expanded size of the tensor \(4\) must match the existing size \(3\) at non-singleton dimension 0",
        id="expand",
    ),
    pytest.param(
        lambda: fg.ones(2, 3).transpose(0, 2),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
        id="transpose-dim",
    ),
    pytest.param(
        lambda: fg.ones(2, 3).sum(-3),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)",
        id="sum-dim",
    ),
    pytest.param(
        lambda: fg.ones(2, 3).unsqueeze(3),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)",
        id="unsqueeze-dim",
    ),
    pytest.param(lambda: fg.ones(2, 3).size(2), IndexError, r"Dimension out of range", id="size-dim"),
    pytest.param(
        lambda: fg.ones(2, 3, 4).t(),
        RuntimeError,
        r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D",
        id="t-3d",
    ),
    pytest.param(
        lambda: fg.ones(2, 3).permute(0, 0),
        RuntimeError,
        r"permute\(\): duplicate dims are not allowed",
        id="permute-dup",
    ),
    pytest.param(
        lambda: fg.tensor([[1, 2], [3]]),
        ValueError,
        r"expected sequence of length 2 at dim 1 \(got 1\)",
        id="ragged-list",
    ),
]


@pytest.mark.parametrize("call,exc,phrase", MORE_ERRORS)
def test_more_torch_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_requires_grad_of_non_leaf_cannot_be_changed():
    y = fg.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert y.requires_grad is True


def test_setitem_on_leaf_that_requires_grad():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place operation"):
        x[0] = 2.0
    assert x.tolist() == [1.0, 1.0, 1.0]
    x.detach()[0] = 2.0  # the documented way around it
    assert x.tolist() == [2.0, 1.0, 1.0]


# ---------------------------------------------------------------------------
# a failed call leaves its tensors unchanged
# ---------------------------------------------------------------------------


def _state(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad = None if t.grad is None else t.grad.tolist()
    return (t.detach().tolist(), tuple(t.shape), repr(t.dtype), t.requires_grad, t.is_leaf, grad)


def _tensors():
    x = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    (x * x).sum().backward()  # x.grad == 2x
    y = fg.arange(6.0).reshape(2, 3)
    i = fg.tensor([1, 2, 3])
    return {"x": x, "y": y, "i": i}


FAILING_CALLS = [
    pytest.param(lambda x, y, i: x + fg.ones(2), RuntimeError, id="broadcast"),
    pytest.param(lambda x, y, i: y.t() * x, RuntimeError, id="broadcast-strided"),
    pytest.param(lambda x, y, i: x @ y, RuntimeError, id="matmul"),
    pytest.param(lambda x, y, i: (x * 2).backward(), RuntimeError, id="backward-non-scalar"),
    pytest.param(lambda x, y, i: (x * 2).backward(fg.ones(3)), RuntimeError, id="backward-wrong-shape"),
    pytest.param(lambda x, y, i: y.sum().backward(), RuntimeError, id="backward-no-grad"),
    pytest.param(lambda x, y, i: i.requires_grad_(), RuntimeError, id="requires_grad-int"),
    pytest.param(lambda x, y, i: i.mean(), RuntimeError, id="mean-int"),
    pytest.param(lambda x, y, i: y[5], IndexError, id="getitem"),
    pytest.param(lambda x, y, i: y.__setitem__(5, 1.0), IndexError, id="setitem-index"),
    pytest.param(lambda x, y, i: y.__setitem__(0, fg.ones(7)), RuntimeError, id="setitem-shape"),
    pytest.param(lambda x, y, i: y.__setitem__((slice(None), 0), fg.ones(3)), RuntimeError, id="setitem-column-shape"),
    pytest.param(lambda x, y, i: x.__setitem__(0, 0.0), RuntimeError, id="setitem-leaf"),
    pytest.param(lambda x, y, i: y.view(7), RuntimeError, id="view"),
    pytest.param(lambda x, y, i: x.expand(3, 3), RuntimeError, id="expand"),
    pytest.param(lambda x, y, i: x.sum(dim=5), IndexError, id="sum-dim"),
    pytest.param(lambda x, y, i: x + "a", TypeError, id="add-str"),
]


@pytest.mark.parametrize("call,exc", FAILING_CALLS)
def test_failed_call_leaves_tensors_unchanged(call, exc):
    ts = _tensors()
    before = {k: _state(t) for k, t in ts.items()}
    with pytest.raises(exc):
        call(**ts)
    after = {k: _state(t) for k, t in ts.items()}
    assert after == before
    # and the tensors still work
    (ts["x"] * ts["y"]).sum().backward()
    np.testing.assert_allclose(
        ts["x"].grad.numpy(), 2 * np.arange(1.0, 7.0).reshape(2, 3) + np.arange(6.0).reshape(2, 3)
    )


# ---------------------------------------------------------------------------
# found by the hostile-input fuzz (tools/fuzz.py): torch's TypeErrors and RuntimeErrors, not AttributeErrors
# or a MemoryError from a size built before it was checked
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (
            lambda: fg.lstm_cell(-1.0, 0.0, -3, 0),
            TypeError,
            r"lstm_cell\(\): argument 'input' \(position 1\) must be Tensor, not float",
        ),
        (
            lambda: fg.lstm_cell(fg.zeros(2, 3), 5, fg.zeros(4, 3), fg.zeros(4, 3)),
            TypeError,
            "argument 'hx' .* must be tuple of Tensors, not int",
        ),
        (
            lambda: fg.gru_cell(0, fg.zeros(2, 3), fg.zeros(9, 3), fg.zeros(9, 3)),
            TypeError,
            r"gru_cell\(\): argument 'input' \(position 1\) must be Tensor, not int",
        ),
        (
            lambda: fg.rnn_relu_cell(np.zeros(0), fg.zeros(1, 3), fg.zeros(3, 3), fg.zeros(3, 3)),
            TypeError,
            "must be Tensor, not numpy.ndarray",
        ),
        (
            lambda: fg.detach_copy(fg.int8),
            TypeError,
            r"detach_copy\(\): argument 'input' \(position 1\) must be Tensor",
        ),
        (
            lambda: fg.detach_copy(fg.tensor(1.0), out=slice(None)),
            TypeError,
            "argument 'out' must be Tensor, not slice",
        ),
        (
            lambda: fg.nn.functional.soft_margin_loss((True, fg.zeros(2)), -3),
            TypeError,
            "argument 'input' .* must be Tensor, not tuple",
        ),
        (
            lambda: fg.nn.functional.soft_margin_loss(fg.zeros(2), 3),
            TypeError,
            "argument 'target' .* must be Tensor, not int",
        ),
        (
            lambda: fg.tensordot(fg.zeros(2, 2), fg.zeros(2, 2), 1 << 40),
            RuntimeError,
            "tensordot expects dims < ndim_a or ndim_b, but got dims=1099511627776",
        ),
        (
            lambda: fg.tensordot(fg.zeros(2, 2), fg.zeros(2), 2),
            RuntimeError,
            "tensordot expects dims < ndim_a or ndim_b, but got dims=2",
        ),
        (
            lambda: fg.resolve_conj([]),
            TypeError,
            r"resolve_conj\(\): argument 'input' \(position 1\) must be Tensor, not list",
        ),
        (
            lambda: fg.is_complex(3),
            TypeError,
            r"is_complex\(\): argument 'input' \(position 1\) must be Tensor, not int",
        ),
        (lambda: fg.real((0, 0)), TypeError, r"real\(\): argument 'input' \(position 1\) must be Tensor, not tuple"),
        (lambda: fg.hann_window(5, dtype=(1,)), TypeError, r"hann_window\(\)"),
        # every `out=` written by write_out checks it is a tensor first
        (lambda: fg.nuclear_norm(fg.ones(2, 2), out=np.zeros(1)), TypeError, r"numpy.ndarray"),
        (lambda: fg.frobenius_norm(fg.ones(2, 2), 0, out=[0.0]), TypeError, r"must be Tensor, not list"),
    ],
)
def test_fuzz_findings_raise_torchs_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# ---------------------------------------------------------------------------
# the offending type is named as torch's argument parser names it (CPython's tp_name): a class written in
# Python bare, a type from C with its module, a builtin bare; alike from the bindings and from Python
# ---------------------------------------------------------------------------


class _UserClass:
    pass


TYPE_NAMES = [
    (np.zeros(2), "numpy.ndarray"),
    (np.float64(1.5), "numpy.float64"),
    (_UserClass(), "_UserClass"),
    (fractions.Fraction(1, 2), "Fraction"),
    (collections.OrderedDict(), "collections.OrderedDict"),
    (range(2), "range"),
]
TYPE_NAME_CALLS = {
    "trapezoid (Python)": (lambda v: fg.trapezoid(v), r"trapezoid\(\): argument 'y' \(position 1\)"),
    "vander (Python)": (lambda v: fg.vander(v), r"vander\(\): argument 'x' \(position 1\)"),
    "detach_copy (Python)": (lambda v: fg.detach_copy(v), r"detach_copy\(\): argument 'input' \(position 1\)"),
    "real (Python)": (lambda v: fg.real(v), r"real\(\): argument 'input' \(position 1\)"),
    "exp (function form)": (lambda v: fg.exp(v), r"exp\(\): argument 'input' \(position 1\)"),
    "special.erfcx (Python)": (lambda v: fg.special.erfcx(v), r"special_erfcx\(\): argument 'input' \(position 1\)"),
    "mm (bindings)": (lambda v: fg.ones(2, 2).mm(v), r"mm\(\): argument 'mat2' \(position 1\)"),
}


@pytest.mark.parametrize("call", list(TYPE_NAME_CALLS))
@pytest.mark.parametrize("value,name", TYPE_NAMES, ids=lambda v: type(v).__name__ if not isinstance(v, str) else v)
def test_argument_errors_name_the_type_as_torch(call, value, name):
    fn, prefix = TYPE_NAME_CALLS[call]
    with pytest.raises(TypeError, match=prefix + " must be Tensor, not " + re.escape(name) + "$"):
        fn(value)


def test_running_stats_of_the_wrong_shape_are_left_as_they_were():
    """batch_norm_update_stats and batch_norm check both running statistics before writing either (the fuzz
    found the mean updated and then the variance refused)."""
    x = fg.arange(16.0).reshape(2, 2, 4)
    shapes = [((2, 1, 2, 3), (2,))]
    if not AGAINST_TORCH:  # torch writes the first C entries of a longer statistic unchecked; ferrograd refuses
        shapes += [((2,), (3,)), ((3,), (2,))]
    for mean_shape, var_shape in shapes:
        running_mean, running_var = fg.ones(mean_shape), fg.ones(var_shape)
        versions = (running_mean._version, running_var._version)
        with pytest.raises(RuntimeError):
            fg.batch_norm_update_stats(x, running_mean, running_var, 0.1)
        assert (running_mean._version, running_var._version) == versions
        assert running_mean.eq(1).all() and running_var.eq(1).all()
    with pytest.raises(TypeError, match=r"argument 'running_var' \(position 3\) must be Tensor, not str"):
        fg.batch_norm_update_stats(x, fg.zeros(2), "\x00", 0.1)
