"""`ferrograd.nn.functional`: activations and losses with PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops.
"""
from .._core import Tensor


def _no_inplace(name, inplace):
    if inplace:
        raise ValueError(f"{name}(inplace=True) is not supported yet; use the out-of-place form")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    _no_inplace("relu", inplace)
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    _no_inplace("silu", inplace)
    return input._activation("silu")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return input._activation("gelu" if approximate == "none" else "gelu_tanh")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return input._activation("softplus", float(beta), float(threshold))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    _no_inplace("elu", inplace)
    return input._activation("elu", float(alpha))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _no_inplace("leaky_relu", inplace)
    return input._activation("leaky_relu", float(negative_slope))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    _no_inplace("hardtanh", inplace)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input._activation("hardtanh", float(min_val), float(max_val))


__all__ = [
    "relu", "sigmoid", "tanh", "silu", "gelu", "softplus", "elu", "leaky_relu", "hardtanh",
]
