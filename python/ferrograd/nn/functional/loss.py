"""Losses with PyTorch's reductions, warnings and messages, including which side of a hinge or bound takes
the gradient."""

import math

from ... import _core
from ..._arg_errors import require_tensor
from ..._core import Tensor
from ..._utils import warn_at_function_caller
from ...grad_mode import no_grad
from ._common import _check_reduction, _loss_reduction, _reduce, _reduction, _warn_size_mismatch
from ._param_ops import logsigmoid
from .distance import pairwise_distance


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
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


def mse_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", weight=None
) -> Tensor:
    if weight is not None:
        raise ValueError("mse_loss(weight=...) is not supported yet")
    if target.shape != input.shape:
        warn_at_function_caller(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
        )
    return _core._mse_loss(input, target, _reduction(size_average, reduce, reduction))


def l1_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", weight=None
) -> Tensor:
    """Mean/sum/none of |input - target| (composed: AbsBackward0, then Mean/SumBackward0)."""
    if weight is not None:
        raise ValueError("l1_loss(weight=...) is not supported yet")
    reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    _warn_size_mismatch(input, target)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_size_mismatch(input, target)
    return _core._smooth_l1_loss(input, target, reduction, float(beta))


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """-w·(t·log x + (1 - t)·log(1 - x)), each log clamped at -100 as PyTorch does."""
    reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. "
            "Please ensure they have the same size."
        )
    return _core._binary_cross_entropy(input, target, reduction, weight)


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None
) -> Tensor:
    """BCE of sigmoid(input), computed from the logits without overflow."""
    reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _core._binary_cross_entropy_with_logits(input, target, reduction, weight, pos_weight)


def kl_div(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
) -> Tensor:
    """KL divergence with `input` as log-probabilities; target as probabilities (or log-probabilities)."""
    if reduction == "mean":
        warn_at_function_caller(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
        )
    if reduction != "batchmean":
        reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # as torch: xlogy is 0 where the target is 0 (the limit of t·log t), and so is its gradient there
        loss = _core._xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight=None) -> Tensor:
    """0.5·d² where |d| < delta, else delta·(|d| - delta/2), d = input - target (delta · smooth_l1 with beta
    delta)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_size_mismatch(input, target)
    if weight is None:
        return smooth_l1_loss(input, target, reduction=reduction, beta=delta) * delta
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _reduce(smooth_l1_loss(input, target, reduction="none", beta=delta) * delta * weight, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"):
    """log1p(exp(-target · input)), PyTorch's formula (so exp overflows to inf there too: 100 gives inf in
    float32, where a softplus would give 100)."""
    require_tensor(input, "soft_margin_loss", "input", 1)
    require_tensor(target, "soft_margin_loss", "target", 2)
    reduction = _loss_reduction(size_average, reduce, reduction)
    return _reduce((-target * input).exp().log1p(), reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -target · (input1 - input2) + margin)."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    margin_part = _core.where(target != 1, (margin - input).clamp_min(0), 0.0)
    self_part = _core.where(target != -1, input, 0.0)
    return _reduce(margin_part + self_part, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = 2 if dim == 1 else 1
    if input1.dim() != expected or input2.dim() != expected:
        raise RuntimeError(
            f"{dim}D target tensor expects {expected}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    denom = (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    cos = prod / denom
    pos = _core.where(target == 1, 1 - cos, 0.0)
    neg = _core.where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(pos + neg, reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the p-norm pairwise distance."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(anchor, positive, negative, lambda a, b: pairwise_distance(a, b, p, eps), margin, swap, reduction)


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D inputs"
        )
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """`triplet_margin_loss` with any distance (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """exp(input) - target·input (log_input), or input - target·log(input + eps); `full` adds Stirling's
    approximation of log(target!) where target > 1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = _core.where(target > 1, target, 1.0)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + _core.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
) -> Tensor:
    """0.5·(log var + (input - target)² / var) (+ 0.5·log 2π with `full`); var is floored at eps without
    autograd, as in PyTorch."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _core.full(input.shape, float(var), dtype=input.dtype)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass  # one dimension of size 1: a variance shared along it
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Mean over classes of the binary cross entropy of sigmoid(input) against 0/1 targets."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def _margin_input(input):
    """(batched?, input as a (N, C) matrix) for the multi-class margin losses."""
    ndim = input.dim()
    if not (ndim == 0 or (ndim == 1 and input.shape[0] != 0) or (ndim == 2 and input.shape[1] != 0)):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}"
        )
    return ndim == 2, input if ndim == 2 else input.reshape(1, -1)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Σ_{j ≠ y} max(0, margin - x[y] + x[j])^p / C per sample (weighted by weight[y]); no gradient at the
    hinge itself."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    batched, x = _margin_input(input)
    y = target.reshape(-1, 1)
    classes = x.shape[1]
    if y.numel() and (int(y.min()) < 0 or int(y.max()) >= classes):
        raise RuntimeError("target out of range")
    z = (margin - x.gather(1, y) + x).relu()
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y.reshape(-1)).unsqueeze(1)
    z = _core.where(_core.arange(classes) == y, 0.0, z)
    loss = z.sum(1) / classes
    return _reduce(loss if batched else loss.reshape(()), reduction)


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Σ over target classes j (the indices before the first -1) and non-target classes i of
    max(0, 1 - (x[j] - x[i])) / C per sample; no gradient at the hinge itself."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    batched, x = _margin_input(input)
    t = target.reshape(x.shape)
    classes = x.shape[1]
    listed = (t != -1).long().cumprod(1).bool()  # the entries before the first -1
    safe = _core.where(listed, t, 0)
    is_target = _core.zeros(x.shape, dtype=_core.int64).scatter_add(1, safe, listed.long()) > 0
    # hinge[n, j, i] = 1 - (x[n, j] - x[n, i]) for target j, non-target i
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).relu()
    pairs = is_target.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1))
    loss = _core.where(pairs, hinge, 0.0).sum((1, 2)) / classes
    return _reduce(loss if batched else loss.reshape(()), reduction)
