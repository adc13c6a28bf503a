"""Activations and softmaxes. Each follows PyTorch's definition, including which side of a tie or bound
takes the gradient. The elementwise ones that are one core op each (elu, selu, celu, leaky_relu, hardtanh,
softplus, threshold, gelu, silu, hardsigmoid, hardswish, mish, logsigmoid, hardshrink, softshrink) are
generated from the core's registry into `_param_ops.py`; rrelu is its own core op (it draws)."""

from ... import _core
from ..._core import Tensor
from ..._utils import warn_at_caller, warn_at_function_caller
from ._param_ops import hardtanh


def _floating_only(input, kernel):
    """PyTorch's error for an integer or bool input of a kernel that has only floating-point versions."""
    if isinstance(input, Tensor) and not input.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._scalar_type_name}'")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _softmax_dim(name, ndim):
    warn_at_caller(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument."
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return input.log_softmax(dim, dtype=dtype)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6), as `hardtanh(x, 0, 6)` (HardtanhBackward0, as in PyTorch)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """Leaky ReLU with a slope drawn from U(lower, upper) per element when training, (lower + upper) / 2 else
    (one core op, RreluWithNoiseBackward0/1 as torch's)."""
    return input._rrelu_(lower, upper, training) if inplace else input._rrelu(lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return input._rrelu_(lower, upper, training)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a · sigmoid(b) for the two halves a, b of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    _floating_only(input, "glu_cpu")
    half = input.shape[d] // 2  # (not chunk: an empty dimension is two empty halves)
    return input.narrow(d, 0, half) * input.narrow(d, half, half).sigmoid()


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return (-input).softmax(dim, dtype=dtype)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight · min(0, x), with one weight or one per channel (dim 1)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    if weight.numel() > 1 and input.dim() > 2:
        weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _core.where(input > 0, input, input * weight)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); `hard` gives one-hot samples with the soft gradient."""
    if eps != 1e-10:
        warn_at_function_caller("`eps` parameter is deprecated and has no effect.")
    uniform = _core.zeros(logits.shape, dtype=logits.dtype).uniform_()
    gumbels = -(-uniform.log1p().neg()).log()  # -log(Exp(1)), Exp(1) = -log(1 - U)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _core.zeros(logits.shape, dtype=logits.dtype).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
