"""`ferrograd.nn.functional`: activations and losses with PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops.
"""

import math
import numbers
import warnings

from .. import _core
from .._core import Tensor
from ..grad_mode import no_grad


def _inplace(input, fn):
    """`input` overwritten with `fn(input)` (PyTorch's `inplace=True`), returned. When autograd records, `fn`
    runs on a copy, so a function that saves its input for backward still has the original values."""
    src = input.clone() if input.requires_grad and _core.is_grad_enabled() else input
    return input.copy_(fn(src))


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, Tensor.relu)
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, silu)
    return input._activation("silu")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return input._activation("gelu" if approximate == "none" else "gelu_tanh")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return input._activation("softplus", float(beta), float(threshold))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, lambda x: elu(x, alpha))
    return input._activation("elu", float(alpha))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, lambda x: leaky_relu(x, negative_slope))
    return input._activation("leaky_relu", float(negative_slope))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace(input, lambda x: hardtanh(x, min_val, max_val))
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
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return ret


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


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _warn_size_mismatch(input, target, stacklevel=3):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=stacklevel,
        )


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


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
    return _core._pointwise_loss(input, target, "smooth_l1", reduction, beta=float(beta))


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
    return _core._pointwise_loss(input, target, "bce", reduction, weight=weight)


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None
) -> Tensor:
    """BCE of sigmoid(input), computed from the logits without overflow."""
    reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _core._pointwise_loss(input, target, "bce_with_logits", reduction, weight=weight, pos_weight=pos_weight)


def kl_div(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
) -> Tensor:
    """KL divergence with `input` as log-probabilities; target as probabilities (or log-probabilities)."""
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction != "batchmean":
        reduction = _check_reduction(_reduction(size_average, reduce, reduction))
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy: 0 where the target is 0 (the limit of t·log t)
        loss = target * _core.where(target == 0, 1.0, target).log() - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p (Bernoulli draws from the default generator) and
    scales the rest by 1 / (1 - p); the input itself when not training or p == 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_scalar_type_name(input)}")
    if p == 1.0:
        mask = _core.zeros(input.shape, dtype=input.dtype)
    else:
        mask = _core.zeros(input.shape, dtype=input.dtype).bernoulli(1.0 - p) / (1.0 - p)
    if inplace:
        return input.mul_(mask)
    return input * mask


def _scalar_type_name(t):
    return {"int64": "Long", "bool": "Bool"}.get(str(t.dtype).split(".")[-1], "Float")


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    return _core._layer_norm(input, [int(s) for s in normalized_shape], weight, bias, float(eps))


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """input / max(‖input‖_p along dim, eps) (DivBackward0); the norm's gradient is 0 at a zero vector."""
    if out is not None:
        raise ValueError("normalize(out=...) is not supported")
    if not input.is_floating_point():
        input.norm(p)  # raises torch's NotImplementedError for integral and bool inputs
    if p == math.inf:
        norm = input.abs().amax(dim, keepdim=True)
    else:
        total = input.abs().pow(p).sum(dim, keepdim=True)
        nonzero = total > 0
        norm = _core.where(nonzero, _core.where(nonzero, total, 1.0).pow(1.0 / p), 0.0)
    return input / norm.clamp_min(eps).expand_as(input)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx=None,
    max_norm=None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of `weight` picked by `input` (EmbeddingBackward0); the padding_idx row gets no gradient.
    `max_norm` renormalises the picked rows of `weight` in place first, as PyTorch does."""
    if sparse:
        raise ValueError("embedding(sparse=True) is not supported: ferrograd has no sparse gradients")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    out = _core._embedding(input, weight, padding_idx)
    return _scale_grad_by_freq(out, input, weight.size(0)) if scale_grad_by_freq else out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim."""
    if tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    elif num_classes < -1:
        raise RuntimeError("num_classes should be positive")
    if tensor.numel() > 0:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == _core.arange(num_classes)).long()


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pads the last len(pad) // 2 dims (pad lists (before, after) from the last dim backwards)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode == "circular":
        raise NotImplementedError("pad(mode='circular') is not supported yet")
    return _core._pad(input, [int(v) for v in pad], mode, value)


def _pair(value, name, n, func):
    """An int or a sequence of `n` ints as a list of n ints, with PyTorch's message for other lengths."""
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    values = [int(v) for v in value]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        if func.startswith("conv"):
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {n} values to match the convolution "
                f"dimensions, but got {name}={values}"
            )
        raise RuntimeError(f"{func}: {name} must either be a single int, or a tuple of two ints")
    return values


def _conv(func, n, input, weight, bias, stride, padding, dilation, groups):
    if not isinstance(input, Tensor):
        raise TypeError(f"{func}() received an invalid combination of arguments - got ({type(input).__name__}, ...)")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {func}, but got input of size: "
            f"{list(input.shape)}"
        )
    unbatched = input.dim() == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _pair(stride, "stride", n, func)
    dilation = _pair(dilation, "dilation", n, func)
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # total padding d·(k - 1) per dim; an odd total puts the extra element on the right
            totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            padding = [t // 2 for t in totals]
            extra = [t - 2 * (t // 2) for t in totals]
            if any(extra):
                pads = []
                for e in reversed(extra):
                    pads += [0, e]
                input = pad(input, pads)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _pair(padding, "padding", n, func)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {dilation}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if n == 1:
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
    out = _core._convolution(input, weight, bias, stride, padding, dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of (N, C, L) or (C, L) input with (O, C/groups, k) weight (ConvolutionBackward0)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of (N, C, H, W) or (C, H, W) input with (O, C/groups, kh, kw) weight,
    as im2col + one batched GEMM in the core (ConvolutionBackward0)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def _pool_args(func, kernel_size, stride, padding, dilation=1):
    kernel = _pair(kernel_size, "kernel_size", 2, func)
    stride = (
        kernel
        if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
        else _pair(stride, "stride", 2, func)
    )
    padding = _pair(padding, "padding", 2, func)
    dilation = _pair(dilation, "dilation", 2, func)
    if any(v < 0 for v in kernel + stride + padding + dilation):
        raise RuntimeError(f"{func}: kernel_size, stride, padding and dilation must be non-negative")
    return kernel, stride, padding, dilation


def max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Window maxima over the last two dims (MaxPool2DWithIndicesBackward0); NaN wins, as in PyTorch."""
    kernel, stride, padding, dilation = _pool_args("max_pool2d", kernel_size, stride, padding, dilation)
    values, indices = _core._max_pool2d(input, kernel, stride, padding, dilation, bool(ceil_mode))
    return (values, indices) if return_indices else values


def avg_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """Window means over the last two dims (AvgPool2DBackward0)."""
    if divisor_override is not None:
        raise ValueError("avg_pool2d(divisor_override=...) is not supported yet")
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding)
    return _core._avg_pool2d(input, kernel, stride, padding, bool(ceil_mode), bool(count_include_pad))


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Means over the (nearly) equal rectangles that tile the last two dims into `output_size`."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size, output_size)
    output_size = list(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    # None keeps the input's size
    size = [input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size)]
    if any(s < 0 for s in size):
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]}}}"
        )
    if size == [1, 1] and input.is_floating_point() and all(s > 0 for s in input.shape[-2:]):
        return input.mean((-2, -1), keepdim=True)  # as PyTorch: MeanBackward1
    return _core._adaptive_avg_pool2d(input, size)


def _blocks(func, size, kernel, dilation, padding, stride):
    if any(s <= 0 for s in stride):
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: {stride[1]}"
        )
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dilation[0]} dilation_width: "
            f"{dilation[1]}"
        )
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} kernel_width: {kernel[1]}"
        )
    return [(size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1 for d in range(2)]


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a (N, C, H, W) or (C, H, W) input as columns (N, C·kh·kw, L) (Im2ColBackward0)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    kernel, dilation = _pair(kernel_size, "kernel_size", 2, "unfold"), _pair(dilation, "dilation", 2, "unfold")
    padding, stride = _pair(padding, "padding", 2, "unfold"), _pair(stride, "stride", 2, "unfold")
    size = list(input.shape[-2:])
    out = _blocks("unfold", size, kernel, dilation, padding, stride)
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated shape of the "
            f"array of sliding blocks as ({max(out[0], 0)}, {max(out[1], 0)}), but its components must be at least one."
        )
    batched = input.dim() == 4
    cols = _core._im2col(input if batched else input.unsqueeze(0), kernel, stride, padding, dilation, out)
    return cols if batched else cols.squeeze(0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sums columns (N, C·kh·kw, L) back into a (N, C, H, W) image: the adjoint of `unfold` (Col2ImBackward0)."""
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    size = _pair(output_size, "output_size", 2, "fold")
    kernel, dilation = _pair(kernel_size, "kernel_size", 2, "fold"), _pair(dilation, "dilation", 2, "fold")
    padding, stride = _pair(padding, "padding", 2, "fold"), _pair(stride, "stride", 2, "fold")
    out = _blocks("fold", size, kernel, dilation, padding, stride)
    rows, blocks = input.shape[-2], input.shape[-1]
    if rows % (kernel[0] * kernel[1]) != 0:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={rows} and kernel_size=({kernel[0]}, {kernel[1]})."
        )
    if any(o < 1 for o in out) or out[0] * out[1] != blocks:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), stride=({stride[0]}, "
            f"{stride[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding blocks {out[0]} * "
            f"{out[1]} = "
            f"{out[0] * out[1]}, but got input.size(2)={blocks}."
        )
    batched = input.dim() == 3
    img = _core._col2im(input if batched else input.unsqueeze(0), size, kernel, stride, padding, dilation, out)
    return img if batched else img.squeeze(0)


__all__ = [
    "softmax",
    "log_softmax",
    "nll_loss",
    "cross_entropy",
    "mse_loss",
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    "silu",
    "gelu",
    "softplus",
    "elu",
    "leaky_relu",
    "hardtanh",
    "l1_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "dropout",
    "layer_norm",
    "normalize",
    "embedding",
    "one_hot",
    "pad",
    "conv1d",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "unfold",
    "fold",
]


# ===========================================================================================================
# nn-modules section: the activations, losses, distances and dropouts behind the nn layer classes, composed
# of differentiable tensor ops. Each follows PyTorch's definition, including which side of a tie or bound
# (0, ±lambda, ±3, the hinge) takes the gradient.
# ===========================================================================================================

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """`input` where it is above `threshold`, else `value` (no gradient there, nor at the threshold)."""
    if inplace:
        return _inplace(input, lambda x: _core.where(x > threshold, x, value))
    return _core.where(input > threshold, input, value)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6), as `hardtanh(x, 0, 6)` (HardtanhBackward0, as in PyTorch)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """0 below -3, 1 above 3, x / 6 + 1/2 between; the gradient is 0 at ±3."""
    if inplace:
        return _inplace(input, hardsigmoid)
    return hardtanh(input, -3.0, 3.0) / 6.0 + 0.5


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x · relu6(x + 3) / 6; as in PyTorch the gradient is 0 at -3 and 1 at 3 (the outer pieces')."""
    if inplace:
        return _inplace(input, hardswish)
    middle = input * (input + 3.0) / 6.0
    return _core.where(input <= -3.0, 0.0, _core.where(input < 3.0, middle, input))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x · tanh(softplus(x))."""
    if inplace:
        return _inplace(input, mish)
    return input * softplus(input).tanh()


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale · elu(x, alpha) with SELU's fixed constants."""
    if inplace:
        return _inplace(input, selu)
    return elu(input, _SELU_ALPHA) * _SELU_SCALE


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha · (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _inplace(input, lambda x: celu(x, alpha))
    return elu(input / alpha, 1.0) * alpha


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """Leaky ReLU with a slope drawn from U(lower, upper) per element when training, (lower + upper) / 2 else."""
    if inplace:
        return _inplace(input, lambda x: rrelu(x, lower, upper, training))
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    slope = _core.zeros(input.shape, dtype=input.dtype).uniform_(lower, upper)
    return _core.where(input >= 0, input, input * slope)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a · sigmoid(b) for the two halves a, b of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) without overflow: x - log1p(exp(x)) for x <= 0, -log1p(exp(-x)) above (each branch fed
    only its own side, so the other's exp never overflows into the gradient)."""
    neg = input <= 0
    x_neg = _core.where(neg, input, 0.0)
    x_pos = _core.where(neg, 0.0, input)
    return _core.where(neg, x_neg - x_neg.exp().log1p(), -(-x_pos).exp().log1p())


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return (-input).softmax(dim, dtype=dtype)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


_DTYPE_LIMITS = {"float32": ("Float", "3.40282e+38"), "float64": ("Double", "1.79769e+308")}


def _check_lambd(lambd, input):
    if lambd < 0:
        kind, top = _DTYPE_LIMITS.get(str(input.dtype).rpartition(".")[2], _DTYPE_LIMITS["float32"])
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {kind}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between (and no gradient at ±lambd)."""
    _check_lambd(lambd, input)
    return _core.where(input > lambd, input - lambd, _core.where(input < -lambd, input + lambd, 0.0))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    return _core.where(input.abs() > lambd, input, 0.0)


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
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    uniform = _core.zeros(logits.shape, dtype=logits.dtype).uniform_()
    gumbels = -(-uniform.log1p().neg()).log()  # -log(Exp(1)), Exp(1) = -log(1 - U)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _core.zeros(logits.shape, dtype=logits.dtype).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias=None) -> Tensor:
    """y[..., o] = input1 · weight[o] · input2 + bias[o], as one matrix product and a sum."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} and "
                f"{input2.shape[d]}"
            )
    out_features, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {in1}"
        )
    if input2.shape[-1] != in2:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {in2}"
        )
    if bias is not None and bias.shape[-1] != out_features:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected {out_features}"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (N, in1) @ (in1, out·in2) -> (N, out, in2), then contracted with x2
    left = (x1 @ weight.permute(1, 0, 2).reshape(in1, out_features * in2)).reshape(-1, out_features, in2)
    out = (left * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(*lead, out_features)


# ---- dropouts ----


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace, alpha):
    """Dropout of whole channels: one Bernoulli draw per (sample, channel), broadcast over the rest; with
    `alpha`, SELU's alpha dropout (dropped values go to the negative saturation, mean and variance kept)."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    noise_shape = list(input.shape[:2]) + [1] * (input.dim() - 2) if input.dim() >= 2 else list(input.shape)
    keep = _core.zeros(noise_shape, dtype=input.dtype).bernoulli(1.0 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA_DROPOUT * _ALPHA_DROPOUT * p + 1) * (1 - p))
        shift = (keep - 1.0) * (_ALPHA_DROPOUT * a) + _ALPHA_DROPOUT * a * p
        return input.mul_(keep * a).add_(shift) if inplace else input * (keep * a) + shift
    scale = keep / (1.0 - p)
    return input.mul_(scale) if inplace else input * scale


_ALPHA_DROPOUT = 1.7580993408473766  # SELU's scale · alpha: where dropped activations go (negated)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    if input.dim() == 2:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace, False)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.dim() == 4:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace, False)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: keeps the mean and variance of standardised inputs."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    keep = _core.zeros(input.shape, dtype=input.dtype).bernoulli(1.0 - p)
    a = 1.0 / math.sqrt((_ALPHA_DROPOUT * _ALPHA_DROPOUT * p + 1) * (1 - p))
    shift = (keep - 1.0) * (_ALPHA_DROPOUT * a) + _ALPHA_DROPOUT * a * p
    return input.mul_(keep * a).add_(shift) if inplace else input * (keep * a) + shift


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    _check_p(p)
    return _feature_dropout(input, p, training, inplace, True)


# ---- embedding helpers ----


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scales the rows of `weight` that `input` picks and whose norm exceeds `max_norm` down to it, in place."""
    with no_grad():
        rows = weight.shape[0]
        picked = _core.zeros(rows).index_add_(0, input.reshape(-1), _core.ones(input.numel())) > 0
        norms = weight.norm(norm_type, 1)
        scale = _core.where(picked.logical_and(norms > max_norm), max_norm / (norms + 1e-7), 1.0)
        weight.mul_(scale.to(weight.dtype).unsqueeze(1))


def _scale_grad_by_freq(out, input, rows):
    """The same values, with the gradient of each looked-up row divided by how often `input` picks it."""
    ones = _core.ones(input.numel(), dtype=out.dtype)
    counts = _core.zeros(rows, dtype=out.dtype).index_add_(0, input.reshape(-1), ones)
    s = (1.0 / counts.index_select(0, input.reshape(-1))).reshape(*input.shape, 1)
    return out * s + (out * (1.0 - s)).detach()


# ---- distances ----


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """‖x1 - x2 + eps‖_p over the last dim (broadcasting)."""
    last = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, last if last >= 0 else None, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ (x1 / max(‖x1‖, eps)) · (x2 / max(‖x2‖, eps)) over `dim` (broadcasting). As in PyTorch, the eps floor
    is applied without autograd, so the gradient still flows through the norms."""
    if x1.dim() == 0 or x2.dim() == 0:
        x1, x2 = x1.reshape(1) if x1.dim() == 0 else x1, x2.reshape(1) if x2.dim() == 0 else x2
    shape = (_core.zeros(x1.shape, dtype=_core.bool) + _core.zeros(x2.shape, dtype=_core.bool)).shape
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(2, dim, True).clone()
    n2 = x2.norm(2, dim, True).clone()
    with no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


# ---- losses ----


def _loss_reduction(size_average, reduce, reduction):
    return _check_reduction(_reduction(size_average, reduce, reduction))


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
    """log(1 + exp(-target · input)), as a softplus (no overflow)."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    return _reduce(softplus(-target * input), reduction)


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


__all__ += [
    "threshold",
    "relu6",
    "hardsigmoid",
    "hardswish",
    "mish",
    "selu",
    "celu",
    "rrelu",
    "glu",
    "logsigmoid",
    "softsign",
    "softmin",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "prelu",
    "gumbel_softmax",
    "bilinear",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "pairwise_distance",
    "cosine_similarity",
    "huber_loss",
    "soft_margin_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "multilabel_soft_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
]
