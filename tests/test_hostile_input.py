"""Sizes no machine can hold, and arguments of the wrong kind: PyTorch's exception type and phrase, raised
before anything is allocated, never a panic (pyo3's PanicException is a BaseException: `except Exception`
would not catch it) and never a crash."""

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

TOO_LARGE = "can't allocate memory: you tried to allocate {} bytes"


@pytest.mark.parametrize(
    "make, exc, phrase",
    [
        (lambda: fg.arange(1e19), RuntimeError, "invalid size, possible overflow?"),
        (lambda: fg.arange(-1e19), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
        (lambda: fg.arange(float("nan")), RuntimeError, "unsupported range: 0 -> nan"),
        (lambda: fg.arange(0, 10, float("inf")), RuntimeError, "step must be finite but got inf"),
        (
            lambda: fg.arange(0, 2**62),
            RuntimeError,
            "Storage size calculation overflowed with sizes=[4611686018427387904]",
        ),
        (
            lambda: fg.zeros(2**40, 2**40),
            RuntimeError,
            "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]",
        ),
        (
            lambda: fg.empty(2**40, 2**40),
            RuntimeError,
            "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]",
        ),
        (lambda: fg.empty(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
        (lambda: fg.ones(2**40), RuntimeError, TOO_LARGE.format(4 * 2**40)),
        (lambda: fg.randn(2**50), RuntimeError, TOO_LARGE.format(4 * 2**50)),
        (lambda: fg.full((2**40,), 1.0), RuntimeError, TOO_LARGE.format(4 * 2**40)),
        (lambda: fg.zeros(10**10), RuntimeError, TOO_LARGE.format(4 * 10**10)),
        (lambda: fg.ones(3).reshape(2**40, 2**40), RuntimeError, "is invalid for input of size 3"),
        # the product wraps to an empty input's size 0: torch's checked numel refuses it
        (lambda: fg.empty(2, 0).view(2**40, 2**40), RuntimeError, "numel: integer multiplication overflow"),
        (lambda: fg.empty(2, 0).view(2**40, 2**40, 0), RuntimeError, "numel: integer multiplication overflow"),
        (lambda: fg.view_copy(fg.empty(2, 0), (2**40, 2**40)), RuntimeError, "numel: integer multiplication overflow"),
        (lambda: fg.ones(1, 1).expand(2**40, 2**40), RuntimeError, "numel: integer multiplication overflow"),
        (
            lambda: fg.ones(2).repeat(2**40, 2**40),
            RuntimeError,
            "Storage size calculation overflowed with sizes=[1099511627776, 2199023255552]",
        ),
        (lambda: fg.ones(2).tile(2**40), RuntimeError, TOO_LARGE.format(4 * 2**41)),
        (lambda: fg.tensor(1.0).size(0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
        (lambda: fg.tensor(1.0).stride(-1), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ],
)
def test_impossible_sizes_raise_before_allocating(make, exc, phrase):
    with pytest.raises(exc) as info:
        make()
    assert phrase in str(info.value)


def test_linspace_of_an_impossible_length_raises():
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        fg.linspace(0, 1, 2**50)


def test_linspace_values_are_the_symmetric_formula():
    # steps counted up from start for the first half, down from end for the second (PyTorch's kernel)
    assert fg.linspace(0.0, 1.0, 5, dtype=fg.float64).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert fg.linspace(-1.0, 2.0, 4, dtype=fg.float64).tolist() == [-1.0, 0.0, 1.0, 2.0]
    assert fg.linspace(3.0, 3.0, 1).tolist() == [3.0]
    assert fg.linspace(0.0, 1.0, 0).tolist() == []
    t = fg.linspace(0.1, 0.7, 7, dtype=fg.float64).tolist()
    assert t[0] == 0.1 and t[-1] == 0.7 and len(t) == 7


def _leaf():
    return fg.ones(2, requires_grad=True)


@pytest.mark.parametrize(
    "call, exc, phrase",
    [
        (lambda x: fg.autograd.grad((x * 2).sum(), 3), TypeError, "'int' object is not iterable"),
        (
            lambda x: fg.autograd.grad((x * 2).sum(), "x"),
            RuntimeError,
            "all inputs have to be Tensors or GradientEdges, but got str",
        ),
        (
            lambda x: fg.autograd.grad((x * 2).sum(), [1]),
            RuntimeError,
            "all inputs have to be Tensors or GradientEdges, but got int",
        ),
        (
            lambda x: fg.autograd.grad((x * 2).sum(), [x, None]),
            RuntimeError,
            "all inputs have to be Tensors or GradientEdges, but got NoneType",
        ),
        (lambda x: fg.autograd.grad(3, x), TypeError, "'int' object is not iterable"),
        (
            lambda x: fg.autograd.grad((x * 2).sum(), x, grad_outputs=[3]),
            TypeError,
            "gradients can be either Tensors or None, but got int",
        ),
        (lambda x: (x * 2).sum().backward(inputs=3), TypeError, "'int' object is not iterable"),
        (
            lambda x: (x * 2).sum().backward(inputs=[1]),
            RuntimeError,
            "all inputs have to be Tensors or GradientEdges, but got int",
        ),
        (
            lambda x: (x * 2).sum().backward(inputs=[x, "a"]),
            RuntimeError,
            "all inputs have to be Tensors or GradientEdges, but got str",
        ),
        (lambda x: fg.autograd.backward(3), TypeError, "'int' object is not iterable"),
        (
            lambda x: fg.autograd.backward((x * 2).sum(), grad_tensors=[3]),
            TypeError,
            "gradients can be either Tensors or None, but got int",
        ),
    ],
)
def test_autograd_entry_points_reject_non_tensors_as_torch(call, exc, phrase):
    x = _leaf()
    with pytest.raises(exc) as info:
        call(x)
    assert phrase in str(info.value)
    assert x.grad is None


@pytest.mark.parametrize(
    "call, phrase",
    [
        (lambda: fg.asinh(1), "asinh(): argument 'input' (position 1) must be Tensor, not int"),
        (lambda: fg.cumprod((1,), 0), "cumprod(): argument 'input' (position 1) must be Tensor, not tuple"),
        (lambda: fg.nn.functional.relu(None), "relu(): argument 'input' (position 1) must be Tensor, not NoneType"),
        (lambda: fg.nn.functional.gelu("x"), "gelu(): argument 'input' (position 1) must be Tensor, not str"),
        (lambda: fg.nn.functional.linear(fg.ones(2, 3), 1), "linear(): argument 'weight'"),
        (lambda: fg.nn.Tanh()(2), "argument 'input' (position 1) must be Tensor, not int"),
        (lambda: fg.ones_like(0), "ones_like(): argument 'input' (position 1) must be Tensor, not int"),
    ],
)
def test_a_non_tensor_where_a_tensor_is_used_is_a_type_error(call, phrase):
    with pytest.raises(TypeError) as info:
        call()
    assert phrase in str(info.value)


@pytest.mark.skipif(AGAINST_TORCH, reason="a ferrograd test hook: a panic inside the Rust core")
@pytest.mark.parametrize(
    "kind, phrase",
    [
        ("panic", "ferrograd internal error (please report): deliberate panic for tests"),
        ("allocation", TOO_LARGE.format(4 * 2**50)),
    ],
)
def test_a_panic_in_the_core_is_a_runtime_error(kind, phrase):
    from ferrograd import _core

    with pytest.raises(RuntimeError) as info:
        _core._panic_for_tests(kind)
    assert phrase in str(info.value)


H = 2**40


@pytest.mark.parametrize(
    "call, exc",
    [
        (lambda: fg.nn.functional.conv2d(fg.ones(1, 1, 3, 3), fg.ones(1, 1, 1, 1), padding=H), RuntimeError),
        (lambda: fg.nn.functional.conv_transpose2d(fg.ones(1, 1, 3, 3), fg.ones(1, 1, 1, 1), stride=H), RuntimeError),
        (lambda: fg.nn.functional.adaptive_avg_pool2d(fg.ones(1, 1, 3, 3), H), RuntimeError),
        (lambda: fg.nn.functional.adaptive_max_pool2d(fg.ones(2, 1, 1), 2**62), RuntimeError),
        (lambda: fg.nn.functional.pad(fg.ones(2, 3), (H, 0)), RuntimeError),
        (lambda: fg.nn.functional.pad(fg.ones(1, 2, 3), (H, 0), mode="replicate"), RuntimeError),
        (lambda: fg.multinomial(fg.ones(3), H, True), RuntimeError),
        (lambda: fg.diag(fg.ones(3), 2**62), RuntimeError),
        (lambda: fg.nn.Linear(H, 2), RuntimeError),
        (lambda: fg.nn.Embedding(H, 1), RuntimeError),
        (lambda: fg.tensor(1.2).roll(1, 0), IndexError),
        (lambda: fg.tensor(1.0).unflatten(-1, (2,)), (IndexError, RuntimeError)),
    ],
)
def test_sizes_made_inside_an_op_are_checked_too(call, exc):
    # each of these aborted the process, hung, or panicked before the check
    with pytest.raises(exc):
        call()


@pytest.mark.skipif(AGAINST_TORCH, reason="torch visits each of the 2**40 taps of the window (it does not finish)")
def test_a_huge_pooling_window_over_a_small_input_is_quick():
    # only the taps inside the input are visited: one window of 2**40 (ceil mode) over 4 elements
    x = fg.tensor([[[1.0, 5.0, 2.0, 4.0]]])
    assert fg.nn.functional.max_pool1d(x, 2**40, 2**40, ceil_mode=True).tolist() == [[[5.0]]]


def test_an_empty_adaptive_pool_of_any_output_size_is_empty():
    out = fg.nn.functional.adaptive_max_pool1d(fg.ones(0, 3), 2**40)
    assert tuple(out.shape) == (0, 2**40)


def test_chunk_of_an_empty_dim_refuses_impossible_piece_counts():
    # an empty dim gives `chunks` empty pieces: counts no vector could hold are refused before any is made
    # (this panicked on capacity overflow)
    empty = fg.empty(0, dtype=fg.int64)
    with pytest.raises(RuntimeError, match=r"cannot create std::vector larger than max_size\(\)"):
        fg.chunk(empty, 2**63 - 1)
    with pytest.raises(RuntimeError, match="std::bad_alloc"):
        empty.chunk(2**45)
    assert [tuple(p.shape) for p in empty.chunk(3)] == [(0,)] * 3


@pytest.mark.skipif(AGAINST_TORCH, reason="torch builds the r-fold grid of positions (it does not finish)")
def test_combinations_of_a_huge_length_answer_at_once():
    # none to pick: an empty (0, r) selection, without building the grid; too many to pick: a RuntimeError
    assert tuple(fg.combinations(fg.tensor([]), 2**62).shape) == (0, 2**62)
    assert tuple(fg.combinations(fg.tensor([1.0, 2.0]), 2**62).shape) == (0, 2**62)
    with pytest.raises(RuntimeError, match="combinations: 2 elements taken"):
        fg.combinations(fg.tensor([1.0, 2.0]), 2**62, with_replacement=True)
