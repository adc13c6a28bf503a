"""`ferrograd.nn.functional`: activations and losses with PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops.
"""
import warnings

from .. import _core
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


def _softmax_dim(name, ndim):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
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


def _reduction(size_average, reduce, reduction):
    """The `reduction` string, honouring the deprecated `size_average`/`reduce` flags as PyTorch does."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    return _core._nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits `input` (N, C, ...) or (C,) against class indices or class probabilities."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    if target.is_floating_point():
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, class_dim)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return loss
    # PyTorch: (1 - eps) * nll + eps / C * (loss against a uniform target), over non-ignored elements
    n_classes = input.shape[class_dim]
    w = None if weight is None else weight.reshape(_class_shape(logp, class_dim))
    smooth = -(logp if w is None else logp * w).sum(class_dim)
    keep = target != ignore_index
    smooth = _core.where(keep, smooth, 0.0)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        if w is None:
            smooth = smooth.sum() / keep.sum()
        else:
            classes = _core.arange(n_classes).reshape(_class_shape(logp, class_dim))
            t = target if logp.dim() == 1 else target.unsqueeze(1)
            target_w = ((classes == t) * w).sum(class_dim)
            smooth = smooth.sum() / (target_w * keep).sum()
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / n_classes)


def _class_shape(logp, class_dim):
    shape = [1] * logp.dim()
    shape[class_dim] = logp.shape[class_dim]
    return shape


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, class_dim):
    if target.shape != logp.shape:
        raise RuntimeError(f"Expected target size {list(logp.shape)}, got {list(target.shape)}")
    n_classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * weight.reshape(_class_shape(logp, class_dim))
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    if logp.numel() == 0:
        return -prod.sum() * float("nan")
    return -prod.sum() / (logp.numel() / n_classes)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", weight=None) -> Tensor:
    if weight is not None:
        raise ValueError("mse_loss(weight=...) is not supported yet")
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
    return _core._mse_loss(input, target, _reduction(size_average, reduce, reduction))


def linear(input: Tensor, weight: Tensor, bias=None) -> Tensor:
    """`input @ weight.T + bias`; with a bias it is one fused `addmm` (AddmmBackward0)."""
    return _core._linear(input, weight, bias)


__all__ = [
    "softmax", "log_softmax", "nll_loss", "cross_entropy", "mse_loss", "linear",
    "relu", "sigmoid", "tanh", "silu", "gelu", "softplus", "elu", "leaky_relu", "hardtanh",
]
