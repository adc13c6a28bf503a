"""ferrograd: PyTorch-style tensors and autograd on a Rust core.

`import ferrograd as fg` gives tensors with `requires_grad`, `grad_fn`, `backward`, `.grad`,
`detach()` and `no_grad()` with PyTorch's semantics, names and printing.
"""
import builtins

from . import _core
from ._core import (
    Tensor,
    arange,
    cat,
    from_numpy,
    full,
    is_grad_enabled,
    manual_seed,
    ones,
    promote_types,
    rand,
    randn,
    stack,
    tensor,
    where,
    zeros,
)
from ._core import dtype
from ._core import float32, float64, int64
from ._core import bool as bool  # noqa: A001 - PyTorch's name for the dtype
from ._size import Size
from .grad_mode import enable_grad, inference_mode, is_inference_mode_enabled, no_grad, set_grad_enabled
from . import autograd
from . import nn
from . import return_types

float = float32  # noqa: A001
double = float64
long = int64

__version__ = "0.1.0"


def FloatTensor(*args) -> Tensor:
    """Legacy constructor: a float32 tensor from data, or zeros of the given sizes."""
    return Tensor(*args).float()


def DoubleTensor(*args) -> Tensor:
    return Tensor(*args).double()


def LongTensor(*args) -> Tensor:
    return Tensor(*args).long()


def is_tensor(obj) -> "builtins.bool":
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()


def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"`ferrograd.{name}(input, ...)` is `input.{name}(...)`."
    return fn


# Function forms of tensor methods (`fg.exp(x)`, `fg.matmul(a, b)`), as PyTorch offers them.
for _name in [
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "eq", "ne", "lt", "le", "gt", "ge",
    "sum", "mean", "norm", "all", "any", "matmul", "mm", "bmm", "mv", "dot", "reshape", "transpose",
    "t", "permute", "unsqueeze", "squeeze", "clone", "detach",
    # elementwise unary
    "abs", "absolute", "sign", "sqrt", "rsqrt", "square", "reciprocal", "exp2", "expm1", "log2", "log10",
    "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf",
    "logit", "floor", "ceil", "round", "trunc", "frac",
    # elementwise binary, clamp, logic
    "maximum", "minimum", "atan2", "arctan2", "fmod", "remainder", "clamp", "clip", "clamp_min", "clamp_max",
    "lerp", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "allclose",
    "equal",
    # reductions
    "prod", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "logsumexp", "cumsum",
    # nn
    "softmax", "log_softmax", "addmm",
    # shape ops
    "flatten", "unflatten", "movedim", "moveaxis", "swapaxes", "swapdims", "narrow", "flip", "fliplr", "flipud",
    "roll", "tile", "tril", "triu", "diagonal", "diag", "split", "chunk", "unbind",
    # indexing
    "index_select", "gather", "scatter", "scatter_add", "index_add", "masked_fill", "masked_select",
    "take_along_dim", "nonzero",
]:
    globals()[_name] = _method(_name)
del _name

concat = cat
concatenate = cat


__all__ = [
    "Tensor", "Size", "dtype", "tensor", "ones", "zeros", "full", "arange", "rand", "randn", "manual_seed",
    "from_numpy", "cat", "concat", "concatenate", "stack", "float32", "float64", "int64", "bool", "float", "double", "long", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled", "autograd", "nn", "FloatTensor", "DoubleTensor", "LongTensor",
]
