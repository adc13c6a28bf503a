"""`ferrograd.nn.functional`: activations and losses with PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops.
"""

import math
import numbers
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
    """Rows of `weight` picked by `input` (EmbeddingBackward0); the padding_idx row gets no gradient."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise ValueError("embedding(max_norm=, scale_grad_by_freq=, sparse=) are not supported yet")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    return _core._embedding(input, weight, padding_idx)


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
