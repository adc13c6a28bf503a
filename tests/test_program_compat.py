"""Small things public PyTorch programs (the tutorials, pytorch/examples) touch that once stopped them or made
them print differently: the legacy `Tensor.type()`, the edge order of a reflected operator's node (the
tutorials walk `grad_fn.next_functions[0][0]`), and implicit-dim warnings of the functional forms
attributed to the user's line."""

import subprocess
import sys
import textwrap
import warnings

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from helpers import assert_tensor

# torch's CUDA builds without a driver fail differently from its CPU build (which ferrograd follows)
NO_CUDA = (RuntimeError, AssertionError)

LEGACY_NAMES = [
    (fg.float32, "torch.FloatTensor"),
    (fg.float64, "torch.DoubleTensor"),
    (fg.float16, "torch.HalfTensor"),
    (fg.bfloat16, "torch.BFloat16Tensor"),
    (fg.int64, "torch.LongTensor"),
    (fg.int32, "torch.IntTensor"),
    (fg.int16, "torch.ShortTensor"),
    (fg.int8, "torch.CharTensor"),
    (fg.uint8, "torch.ByteTensor"),
    (fg.bool, "torch.BoolTensor"),
]


@pytest.mark.parametrize(("dtype", "name"), LEGACY_NAMES)
def test_type_names_and_casts(dtype, name):
    x = fg.tensor([0, 1, 2]).to(dtype)
    assert x.type() == name
    assert x.type(name) is x and x.type(dtype) is x  # already of that type: the tensor itself
    for other, other_name in LEGACY_NAMES:
        by_name, by_dtype = x.type(other_name), x.type(dtype=other)
        assert by_name.dtype == by_dtype.dtype == other and by_name.type() == other_name
        assert_tensor(by_name.to(fg.float64), [0, 1, 1] if fg.bool in (dtype, other) else [0, 1, 2])


def test_type_cast_is_differentiable_and_leaves_the_input():
    x = fg.tensor([1.5, -2.0], requires_grad=True)
    y = x.type(fg.float64)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    (y * y).sum().backward()
    assert_tensor(x.grad, [3.0, -4.0], dtype="float32")
    assert x.dtype == fg.float32


def test_type_bad_arguments():
    x = fg.ones(2)
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        x.type("torch.Foo")
    with pytest.raises(ValueError, match="invalid type: 'float'"):
        x.type("float")
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(3)
    with pytest.raises(NO_CUDA):
        x.type("torch.cuda.FloatTensor")
    assert x.dtype == fg.float32


@pytest.mark.parametrize("expression", ["2 * b", "b * 2", "2 + b", "b + 2", "2.5 * b", "b - 2"])
def test_scalar_operand_edge_is_second(expression):
    """torch records `2 * b` as `b.mul(2)`: b's edge first, the number's (None) second, whichever side it is on."""
    b = fg.ones(3, requires_grad=True).sin()
    y = eval(expression, {}, {"b": b})
    (first, first_index), (second, second_index) = y.grad_fn.next_functions
    assert type(first).__name__ == "SinBackward0" and first_index == 0
    assert second is None and second_index == 0


# torch's nodes for a number on the left: rsub and pow keep only the tensor's edge; `n / x` is
# `x.reciprocal() * n` (seen in torch 2.15)
NUMBER_FIRST = [
    ("2 - b", "RsubBackward1", ["SinBackward0"]),
    ("2 ** b", "PowBackward2", ["SinBackward0"]),
    ("2 / b", "MulBackward0", ["ReciprocalBackward0", None]),
]


@pytest.mark.parametrize("expression, node, inputs", NUMBER_FIRST, ids=[e for e, _, _ in NUMBER_FIRST])
def test_number_first_operators_record_torchs_nodes(expression, node, inputs):
    b = fg.tensor([0.5, 1.5, 2.0], dtype=fg.float64, requires_grad=True).sin()
    y = eval(expression, {}, {"b": b})
    assert y.grad_fn.name() == node
    assert [f and f.name() for f, _ in y.grad_fn.next_functions] == inputs
    (g,) = fg.autograd.grad(y.sum(), b)
    s = np.sin([0.5, 1.5, 2.0])
    want = {"2 - b": -np.ones(3), "2 ** b": 2.0**s * np.log(2.0), "2 / b": -2.0 / s**2}[expression]
    assert_tensor(g, want, dtype="float64")


def test_reflected_operators_keep_values_and_gradients():
    b = fg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = 3 * b + (1 + b) * b
    y.sum().backward()
    assert_tensor(y, [3 * 0.5 + 1.5 * 0.5, -3.0 + 0.0, 6.0 + 6.0], dtype="float32")
    assert_tensor(b.grad, [3 + 1 + 2 * 0.5, 3 + 1 - 2.0, 3 + 1 + 4.0], dtype="float32")
    i = fg.tensor([1, 2])
    assert (2 * i).dtype == fg.int64 and (2.0 * i).dtype == fg.float32 and (True + i).dtype == fg.int64


def _implicit_dim_warning(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    (warning,) = [w for w in caught if "Implicit dimension choice" in str(w.message)]
    return warning


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_implicit_dim_warning_names_the_callers_line(name):
    x = fg.ones(2, 3)
    warning = _implicit_dim_warning(lambda: getattr(F, name)(x))
    assert warning.category is UserWarning and warning.filename == __file__
    assert str(warning.message) == (
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument."
    )


def _warnings_of(call, text):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if text in str(w.message)]


def test_a_functional_warning_names_the_line_that_called_the_function():
    """pytorch/examples' mnist_rnn puts 2-D input through two `Dropout2d`s: torch warns at the line in its
    `Dropout2d.forward` that calls `F.dropout2d`, one place, so the default filter prints it once; called
    directly, at the caller's line. Not at the wrapper that checks a function's arguments."""
    x = fg.ones(4, 3)
    (direct,) = _warnings_of(lambda: F.dropout2d(x), "Received a 2-D input to dropout2d")
    assert direct.filename == __file__
    layers = (fg.nn.Dropout2d(0.25), fg.nn.Dropout2d(0.5))
    through = _warnings_of(lambda: [layer(x) for layer in layers], "Received a 2-D input to dropout2d")
    assert len(through) == 2 and through[0].filename.replace("\\", "/").endswith("nn/modules/dropout.py")
    assert (through[0].filename, through[0].lineno) == (through[1].filename, through[1].lineno)
    (upsample,) = _warnings_of(lambda: F.upsample(fg.ones(1, 1, 2, 2), scale_factor=2), "upsample` is deprecated")
    assert upsample.filename == __file__
    (empty,) = _warnings_of(lambda: fg.nn.init.kaiming_uniform_(fg.empty(0, 3)), "zero-element tensors")
    (old_name,) = _warnings_of(lambda: fg.nn.init.xavier_uniform(fg.empty(2, 3)), "is now deprecated")
    (no_params,) = _warnings_of(lambda: fg.nn.utils.clip_grad_norm_((p for p in []), 1.0), "empty generator")
    assert empty.filename == old_name.filename == no_params.filename == __file__


def test_onnx_imports_and_is_not_exporting():
    import ferrograd.onnx

    assert ferrograd.onnx.is_in_onnx_export() is False
    assert callable(ferrograd.onnx.export)


def test_inplace_add_and_sub_take_alpha():
    p = fg.ones(3)
    assert p.add_(fg.tensor([1.0, 2.0, 3.0]), alpha=-0.5) is p
    assert_tensor(p, [0.5, 0.0, -0.5], dtype="float32")
    p.sub_(fg.tensor([1.0, 2.0, 3.0]), alpha=2)
    assert_tensor(p, [-1.5, -4.0, -6.5], dtype="float32")
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not str"):
        p.add_(fg.ones(3), alpha="x")
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point"):
        fg.ones(2, dtype=fg.int64).add_(fg.ones(2, dtype=fg.int64), alpha=0.5)
    assert_tensor(p, [-1.5, -4.0, -6.5], dtype="float32")


def test_deprecated_alpha_first_overload_works_and_warns_once():
    """`p.data.add_(-lr, p.grad.data)` (pytorch/examples' word_language_model): alpha first, then the tensor;
    torch warns of its deprecated overloads once a process, so a fresh interpreter sees the one warning."""
    program = textwrap.dedent(
        """
        import warnings
        import ferrograd as fg
        p = fg.tensor([1.0, 2.0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert p.add_(-0.5, fg.tensor([2.0, 4.0])) is p
            assert p.sub_(2, fg.tensor([1.0, 1.0])) is p
            assert p.add_(1, fg.tensor([1.0, 1.0])) is p
        print(p.tolist())
        print(len(caught), caught[0].category.__name__)
        print(str(caught[0].message))
        """
    )
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    values, count, message = run.stdout.split("\n", 2)
    assert values == "[-1.0, -1.0]" and count == "1 UserWarning"
    assert message.startswith(
        "This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)\n"
        "Consider using one of the following signatures instead:\n\tadd_(Tensor other, *, Number alpha = 1)"
    )


def test_inductor_cache_and_config_around_compile():
    """pytorch/tutorials' regional_compilation recipe times cold compiles inside `fresh_inductor_cache()`;
    scripts set inductor's config before compiling. The block runs and the compiled model gives its values."""
    import ferrograd._inductor.config as inductor_config
    import ferrograd._inductor.utils as inductor_utils

    assert inductor_config.coordinate_descent_tuning is False and inductor_config.fx_graph_cache is True
    assert inductor_config.triton.cudagraphs is False
    layer = fg.nn.Linear(3, 2)
    x = fg.ones(4, 3)
    with inductor_utils.fresh_inductor_cache():
        compiled = fg.compile(layer)
        out = compiled(x)
    assert fg.allclose(out, layer(x))
