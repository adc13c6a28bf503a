"""`ferrograd.nn.functional`: activations and losses with PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops.
"""

import math
import numbers
import warnings

from .. import _core
from .._core import Tensor
from .._utils import typed_entry_points as _typed_entry_points
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
    return input._silu()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return input._gelu(approximate)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return input._softplus(float(beta), float(threshold))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, lambda x: elu(x, alpha))
    return input._elu(float(alpha))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, lambda x: leaky_relu(x, negative_slope))
    return input._leaky_relu(float(negative_slope))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace(input, lambda x: hardtanh(x, min_val, max_val))
    return input._hardtanh(float(min_val), float(max_val))


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
    mask = _core._dropout_mask(input, float(p))
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
    elif p == 0:
        # the 0-"norm" counts the nonzero entries (no gradient flows through a count)
        norm = (input != 0).sum(dim, keepdim=True).to(input.dtype)
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
        return _pad_circular(input, [int(v) for v in pad])
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
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None:
        return _avg_pool2d_divisor(input, kernel, stride, padding, ceil_mode, int(divisor_override))
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
    if not isinstance(eps, numbers.Real):
        raise TypeError(f"pairwise_distance(): argument 'eps' must be float, not {type(eps).__name__}")
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


# ===========================================================================
# Heavier layers (branch `layers`): transposed convolution, 1-d and adaptive pooling, batch / instance / group
# norm and attention. Composed of differentiable core ops for now; the norms and attention get fused Rust ops
# with their own backward later, so each stays one function with torch's signature.
# ===========================================================================


def _check_conv_args(func, stride, padding, dilation, groups):
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        names = ["height", "width"] if len(dilation) == 2 else ["width"]
        listed = ", ".join(f"dilation_{n}: {d}" for n, d in zip(names, dilation))
        if len(dilation) == 1:
            listed = f"dilation_height: 1, {listed}"
        raise RuntimeError(f"dilation should be greater than zero, but got {listed}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _conv_transpose(func, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {func}, but got input of size: "
            f"{list(input.shape)}"
        )
    stride, padding = _pair(stride, "stride", n, func), _pair(padding, "padding", n, func)
    output_padding = _pair(output_padding, "output_padding", n, func)
    dilation = _pair(dilation, "dilation", n, func)
    _check_conv_args(func, stride, padding, dilation, groups)
    unbatched = input.dim() == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    if weight.dim() != n + 2:
        raise RuntimeError(
            f"weight should have at least three dimensions, but got weight of size {list(weight.shape)}"
            if weight.dim() < 3
            else f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {list(input.shape)}, "
            f"but got {weight.dim()}-dimensional weight of size {list(weight.shape)} instead"
        )
    w_shape = list(weight.shape)
    if w_shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of "
            f"size [{w_shape}] instead"
        )
    if input.shape[1] != w_shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {w_shape}, expected input{list(input.shape)} to have {w_shape[0]} "
            f"channels, but got {input.shape[1]} channels instead"
        )
    out_channels = w_shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {w_shape}, expected bias to be 1-dimensional with {out_channels} "
            f"elements, but got bias of size {list(bias.shape)} instead"
        )
    if n == 1:  # as a 2-d transposed convolution over a height of 1
        input, weight = input.unsqueeze(2), weight.unsqueeze(2)
        stride, padding, output_padding, dilation = [1] + stride, [0] + padding, [0] + output_padding, [1] + dilation
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {output_padding[0]} output_padding_width: {output_padding[1]} "
            f"stride_height: {stride[0]} stride_width: {stride[1]} "
            f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
        )
    batch, in_channels, height, width = input.shape
    kernel = list(weight.shape[2:])
    size = [height, width]
    # the full (uncropped) extent of the scattered windows, then the output torch defines inside it
    full = [(size[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(2)]
    out = [full[i] - 2 * padding[i] + output_padding[i] for i in range(2)]
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size per channel: ({height} x {width}). Calculated output size per channel: "
            f"({out[0]} x {out[1]}). Output size is too small"
        )
    # every input pixel's contribution to its window: one GEMM per group, columns scattered back by col2im
    in_per_group = in_channels // groups
    window = w_shape[1] * kernel[0] * kernel[1]
    w = weight.reshape(groups, in_per_group, window).transpose(1, 2)
    cols = (w @ input.reshape(batch, groups, in_per_group, height * width)).reshape(
        batch, groups * window, height * width
    )
    if all(op < s for op, s in zip(output_padding, stride)):
        # col2im's own padding crops exactly torch's output
        img = _core._col2im(cols, out, kernel, stride, padding, dilation, size)
    else:
        # output_padding >= stride (allowed when smaller than the dilation): crop the full image by hand
        img = _core._col2im(cols, full, kernel, stride, [0, 0], dilation, size)
        extra = [max(0, padding[i] + out[i] - full[i]) for i in range(2)]
        if any(extra):
            img = pad(img, [0, extra[1], 0, extra[0]])
        img = img[:, :, padding[0] : padding[0] + out[0], padding[1] : padding[1] + out[1]]
    if bias is not None:
        img = img + bias.reshape(1, out_channels, 1, 1)
    if n == 1:
        img = img.squeeze(2)
    return img.squeeze(0) if unbatched else img


def conv_transpose1d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> Tensor:
    """1-D transposed convolution of (N, C_in, L) or (C_in, L) input with (C_in, C_out/groups, k) weight."""
    return _conv_transpose(
        "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> Tensor:
    """2-D transposed convolution (the adjoint of conv2d): per group one GEMM of the weight with the input,
    whose columns col2im sums into the output image."""
    return _conv_transpose(
        "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def _pool1d_args(func, kernel_size, stride, padding, dilation=1):
    kernel = _pair(kernel_size, "kernel_size", 1, func)[0]
    no_stride = stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
    stride = kernel if no_stride else _pair(stride, "stride", 1, func)[0]
    return kernel, stride, _pair(padding, "padding", 1, func)[0], _pair(dilation, "dilation", 1, func)[0]


def _pool1d_out(length, kernel, stride, padding, dilation, ceil_mode):
    span = length + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= length + padding:
        out -= 1  # the last window must start inside the input or the left padding
    return out


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Window maxima over the last dim of (N, C, L) or (C, L) input; indices count along L."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(input.shape)}"
        )
    kernel, stride, padding, dilation = _pool1d_args("max_pool1d", kernel_size, stride, padding, dilation)
    for name, value in (("kernel_size", kernel), ("stride", stride), ("dilation", dilation)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} and "
            f"kernel_size={kernel}"
        )
    out = _pool1d_out(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    values, indices = _core._max_pool2d(
        input.unsqueeze(-2), [1, kernel], [1, stride], [0, padding], [1, dilation], bool(ceil_mode)
    )
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


def avg_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Window means over the last dim of (N, C, L) or (C, L) input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            "checking arguments for avg_pool1d)"
        )
    kernel, stride, padding, _ = _pool1d_args("avg_pool1d", kernel_size, stride, padding)
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if padding > kernel // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={padding}, kernel_size={kernel} and "
            "dilation=1"
        )
    out = _pool1d_out(input.shape[-1], kernel, stride, padding, 1, ceil_mode)
    if out < 1:
        channels = input.shape[-2]
        raise RuntimeError(
            f"Given input size: ({channels}x1x{input.shape[-1]}). Calculated output size: ({channels}x1x{out}). "
            "Output size is too small"
        )
    pooled = _core._avg_pool2d(
        input.unsqueeze(-2), [1, kernel], [1, stride], [0, padding], bool(ceil_mode), bool(count_include_pad)
    )
    return pooled.squeeze(-2)


def _window_counts(size, kernel, stride, padding, out):
    """How many input (not padding) elements each of the `out` windows along one dim covers."""
    return [min(i * stride - padding + kernel, size) - max(i * stride - padding, 0) for i in range(out)]


def _avg_pool2d_divisor(input, kernel, stride, padding, ceil_mode, divisor):
    """Window sums over the input's elements divided by `divisor` (avg_pool2d's divisor_override)."""
    if divisor == 0:
        raise RuntimeError("divisor must be not zero")
    means = _core._avg_pool2d(input, kernel, stride, padding, bool(ceil_mode), False)
    h, w = input.shape[-2:]
    rows = _window_counts(h, kernel[0], stride[0], padding[0], means.shape[-2])
    cols = _window_counts(w, kernel[1], stride[1], padding[1], means.shape[-1])
    counts = _core.tensor(rows, dtype=input.dtype).unsqueeze(1) * _core.tensor(cols, dtype=input.dtype)
    return means * (counts / divisor)


def _output_size(func, output_size, n, input):
    """An adaptive pool's output size as n ints (None keeps the input's size)."""
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size,) * n
    output_size = list(output_size)
    if len(output_size) != n:
        if n == 1:
            raise RuntimeError(f"{func}() argument 'output_size' should contain one int (got {len(output_size)})")
        raise RuntimeError(f"{func}: output_size must be {n}")
    sizes = [input.shape[-n + i] if s is None else int(s) for i, s in enumerate(output_size)]
    if any(s < 0 for s in sizes):
        listed = ", ".join(map(str, sizes))
        raise RuntimeError(
            f"{func}: elements of output_size must be greater than or equal to 0 but received {{{listed}}}"
        )
    # before the windows are listed in Python: one per output element
    _core._check_new_shape(list(input.shape[:-n]) + sizes, input.dtype)
    return sizes


def _check_pool1d_dims(func, input):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {func})"
        )


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Means over the (nearly) equal windows that tile the last dim into `output_size`."""
    _check_pool1d_dims("adaptive_avg_pool1d", input)
    (size,) = _output_size("adaptive_avg_pool1d", output_size, 1, input)
    return _core._adaptive_avg_pool2d(input.unsqueeze(-2), [1, size]).squeeze(-2)


def _adaptive_windows(size, out):
    """(out, k) input positions of the adaptive windows along one dim, each row padded with its last position
    (a repeat changes neither the maximum nor which position holds it first)."""
    starts = [i * size // out for i in range(out)]
    ends = [-(-(i + 1) * size // out) for i in range(out)]
    k = max([e - s for s, e in zip(starts, ends)], default=1)
    return [[min(s + j, e - 1) for j in range(k)] for s, e in zip(starts, ends)], k


def _adaptive_max(input, sizes):
    """Window maxima and their flat positions in the last len(sizes) dims: the windows are gathered with
    index_select (differentiable) and reduced with max, whose first maximum is torch's choice."""
    n = len(sizes)
    spatial = list(input.shape[-n:])
    if input.numel() == 0 or any(s == 0 for s in sizes):
        lead = list(input.shape[:-n])
        empty = _core.zeros(lead + sizes, dtype=input.dtype)
        return empty + input.sum() * 0 if input.numel() else empty, _core.zeros(lead + sizes, dtype=_core.int64)
    windows = [_adaptive_windows(s, o) for s, o in zip(spatial, sizes)]
    lead = list(input.shape[:-n])
    x = input
    for d, (rows, _) in enumerate(windows):
        flat = _core.tensor([p for row in rows for p in row], dtype=_core.int64)
        x = x.index_select(input.dim() - n + d, flat)
    # (..., o0, k0[, o1, k1]) -> (..., o0[, o1], k0[·k1])
    if n == 1:
        x = x.reshape(lead + [sizes[0], windows[0][1]])
        flat_pos = _core.tensor(windows[0][0], dtype=_core.int64)
    else:
        (rows_h, kh), (rows_w, kw) = windows
        x = (
            x.reshape(lead + [sizes[0], kh, sizes[1], kw])
            .transpose(-3, -2)
            .reshape(lead + [sizes[0], sizes[1], kh * kw])
        )
        pos_h = _core.tensor(rows_h, dtype=_core.int64).reshape(sizes[0], 1, kh, 1) * spatial[1]
        pos_w = _core.tensor(rows_w, dtype=_core.int64).reshape(1, sizes[1], 1, kw)
        flat_pos = (pos_h + pos_w).reshape(sizes[0], sizes[1], kh * kw)
    which = x.detach().argmax(-1)
    nan = x.detach().isnan()
    if bool(nan.any()):
        # torch's kernels let a later NaN replace an earlier one: the window's last NaN wins
        last_nan = (x.shape[-1] - 1) - nan.flip(-1).long().argmax(-1)
        which = _core.where(nan.any(-1), last_nan, which)
    values = x.gather(-1, which.unsqueeze(-1)).squeeze(-1)
    positions = flat_pos.expand(lead + list(flat_pos.shape)).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    return values, positions


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over the (nearly) equal windows that tile the last dim into `output_size`."""
    _check_pool1d_dims("adaptive_max_pool1d", input)
    sizes = _output_size("adaptive_max_pool1d", output_size, 1, input)
    values, indices = _adaptive_max(input, sizes)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over the (nearly) equal rectangles that tile the last two dims into `output_size`;
    indices are flat positions in each (H, W) plane."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    sizes = _output_size("adaptive_max_pool2d", output_size, 2, input)
    values, indices = _adaptive_max(input, sizes)
    return (values, indices) if return_indices else values


def _channel_shape(input):
    """[1, C, 1, ...]: a per-channel vector broadcast over (N, C, *)."""
    return [1, input.shape[1]] + [1] * (input.dim() - 2)


def _check_channel_vector(name, t, channels):
    if t is not None and t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")


def batch_norm(
    input: Tensor,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalises each channel of (N, C, *) input by its batch statistics (training) or the running ones.

    In training the running statistics, when given, are updated in place without grad:
    running = (1 - momentum) * running + momentum * batch, with the unbiased batch variance
    (the normalisation itself uses the biased one), as torch does.
    """
    if input.dim() < 2:
        channels = 0
    else:
        channels = input.shape[1]
    if training:
        per_channel = input.numel() // max(channels, 1) if input.dim() >= 2 else 1
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    elif running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    elif running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_channel_vector(name, t, channels)
    shape = _channel_shape(input)
    if training:
        dims = [0] + list(range(2, input.dim()))
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None or running_var is not None:
            _update_running_stats(running_mean, running_var, mean, var, input.numel() // channels, momentum)
        scale = (var + eps).rsqrt()
    else:
        centered = input - running_mean.reshape(shape)
        scale = (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        scale = scale * weight.reshape(shape)
    out = centered * scale
    return out if bias is None else out + bias.reshape(shape)


def _update_running_stats(running_mean, running_var, mean, var, count, momentum):
    from ..grad_mode import no_grad

    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1.0 - momentum).add_(mean.reshape(-1).to(running_mean.dtype) * momentum)
        if running_var is not None:
            unbiased = var.reshape(-1).to(running_var.dtype) * (count / max(count - 1, 1))
            running_var.mul_(1.0 - momentum).add_(unbiased * momentum)


def instance_norm(
    input: Tensor,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalises each (sample, channel) plane of (N, C, *) input over its spatial dims (layer_norm's kernel
    over the flattened plane); with use_input_stats=False it uses the running statistics instead."""
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or higher input (got {input.dim()}D input)")
    spatial = input.numel() // max(input.shape[0] * input.shape[1], 1)
    if use_input_stats and spatial <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_channel_vector(name, t, channels)
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    shape = list(input.shape)
    planes = input.reshape(shape[0] * shape[1], spatial)
    out = _core._layer_norm(planes, [spatial], None, None, float(eps)).reshape(shape)
    if running_mean is not None or running_var is not None:
        from ..grad_mode import no_grad

        with no_grad():
            mean = planes.mean(1).reshape(shape[0], channels).mean(0)
            var = planes.var(1).reshape(shape[0], channels).mean(0)  # unbiased, averaged over the batch
            if running_mean is not None:
                running_mean.mul_(1.0 - momentum).add_(mean * momentum)
            if running_var is not None:
                running_var.mul_(1.0 - momentum).add_(var * momentum)
    return _affine(out, weight, bias)


def _affine(out, weight, bias):
    shape = _channel_shape(out)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalises each group of C/num_groups channels of (N, C, *) input over the group's channels and
    spatial dims (layer_norm's kernel over the flattened group), then a per-channel affine."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    shape = list(input.shape)
    channels = shape[1]
    if num_groups <= 0 or channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{shape} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got {name} "
                f"of shape {list(t.shape)} and input of shape {shape}"
            )
    group = input.numel() // max(shape[0] * num_groups, 1)
    grouped = input.reshape(shape[0] * num_groups, group)
    out = _core._layer_norm(grouped, [group], None, None, float(eps)).reshape(shape)
    return _affine(out, weight, bias)


def _pad_circular(input, pads):
    """Circular padding of the last len(pads) // 2 dims (negative amounts crop first, as torch)."""
    dims = len(pads) // 2
    if input.dim() not in (dims + 1, dims + 2):
        last = {1: "dimension", 2: "2 dimensions", 3: "3 dimensions"}
        combos = "\n".join(
            f"  - {k + 1}D or {k + 2}D input: padding size = {2 * k} (pads last {last[k]})" for k in (1, 2, 3)
        )
        raise NotImplementedError(
            f"Padding size {len(pads)} is not supported for {input.dim()}D input tensor.\n"
            f"Supported combinations for non-constant padding:\n{combos}"
        )
    out = input
    for i in range(dims):
        d = input.dim() - 1 - i
        before, after = pads[2 * i], pads[2 * i + 1]
        size = out.shape[d]
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out = out.narrow(d, max(-before, 0), size - max(-before, 0) - max(-after, 0))
        size = out.shape[d]
        parts = []
        if before > 0:
            parts.append(out.narrow(d, size - before, before))
        parts.append(out)
        if after > 0:
            parts.append(out.narrow(d, 0, after))
        if len(parts) > 1:
            out = _core.cat(parts, d)
    return out


_NEG_INF = float("-inf")


def _dtype_word(dtype):
    """torch's C++ name of a dtype in messages ("float", "double", "long int", ...)."""
    name = str(dtype).split(".")[-1]
    return {
        "float32": "float",
        "float64": "double",
        "int64": "long int",
        "int32": "int",
        "float16": "c10::Half",
        "bfloat16": "c10::BFloat16",
        "int16": "short int",
        "int8": "signed char",
        "uint8": "unsigned char",
        "bool": "bool",
    }.get(name, name)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale=None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query @ keyᵀ · scale + mask) @ value over (..., L, E) / (..., S, E) / (..., S, Ev) inputs.

    A boolean mask keeps the True positions; a float mask is added to the scores; is_causal keeps the lower
    triangle of the (L, S) scores. Rows with every position masked give zeros (torch's safe softmax). With
    enable_gqa, key/value heads (dim -3) are shared by groups of query heads.
    """
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_word(query.dtype)} key.dtype: {_dtype_word(key.dtype)} and value.dtype: "
            f"{_dtype_word(value.dtype)} instead."
        )
    if attn_mask is not None and attn_mask.dtype != _core.bool and not attn_mask.is_floating_point():
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{_dtype_word(attn_mask.dtype)} and  query.dtype: {_dtype_word(query.dtype)} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if dropout_p < 0.0 or dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        heads, kv_heads = query.shape[-3], key.shape[-3]
        if kv_heads == 0 or heads % kv_heads != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        key, value = _repeat_heads(key, heads // kv_heads), _repeat_heads(value, heads // kv_heads)
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    if _flash_applies(query, key, value, attn_mask, dropout_p):
        mask = attn_mask
        if is_causal:
            mask = _core.zeros(length, source, dtype=query.dtype).masked_fill(
                _core.ones(length, source, dtype=_core.bool).tril().logical_not(), _NEG_INF
            )
        elif attn_mask is not None and attn_mask.dtype == _core.bool:
            mask = _core.zeros(attn_mask.shape, dtype=query.dtype).masked_fill(attn_mask.logical_not(), _NEG_INF)
        return _core._scaled_dot_product_attention(query, key, value, mask, scale, is_causal)
    scores = (query * scale) @ key.transpose(-2, -1)
    masked = is_causal or attn_mask is not None
    if is_causal:
        keep = _core.ones(length, source, dtype=_core.bool).tril()
        scores = scores.masked_fill(keep.logical_not(), _NEG_INF)
    elif attn_mask is not None:
        if attn_mask.dtype == _core.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), _NEG_INF)
        else:
            scores = scores + attn_mask
    if masked:
        # rows masked everywhere: softmax over zeros (finite, so no NaN reaches the gradient), then zeroed
        live = (scores != _NEG_INF).any(-1, keepdim=True)
        weights = _core.where(live, _core.where(live, scores, 0.0).softmax(-1), 0.0)
    else:
        weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights @ value


def _flash_applies(query, key, value, attn_mask, dropout_p):
    """Whether torch's CPU build takes its fused path (one ScaledDotProductFlashAttentionForCpuBackward0 node):
    no dropout, 4-D float inputs with equal (batch, heads) and head size, a mask that needs no gradient."""
    return (
        dropout_p == 0.0
        and query.dim() == key.dim() == value.dim() == 4
        and query.dtype in (_core.float32, _core.float64)
        and query.shape[:2] == key.shape[:2] == value.shape[:2]
        and query.shape[-1] == value.shape[-1]
        and (attn_mask is None or not attn_mask.requires_grad)
    )


def _repeat_heads(t, times):
    """(..., H, S, E) -> (..., H·times, S, E), each head repeated `times` times in a row."""
    shape = list(t.shape)
    return (
        t.unsqueeze(-3).expand(shape[:-2] + [times] + shape[-2:]).reshape(shape[:-3] + [shape[-3] * times] + shape[-2:])
    )


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask as the float mask it means (-inf where True); float masks as they are."""
    if mask is None:
        return None
    if mask.dtype != _core.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            UserWarning,
            stacklevel=3,
        )
    if mask.is_floating_point():
        return mask
    return _core.zeros(mask.shape, dtype=target_type).masked_fill(mask, _NEG_INF)


def _none_or_dtype(input):
    return None if input is None else input.dtype


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) inputs, False for unbatched (2-D) ones; torch's AssertionErrors otherwise."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead"
                )
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b):
    """q, k, v projected by the stacked (3E, E) weight: one GEMM for self-attention, two for a shared key/value."""
    embed = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).unflatten(-1, (3, embed)).unbind(-2)
        w_q, w_kv = w.split([embed, 2 * embed])
        b_q, b_kv = (None, None) if b is None else b.split([embed, 2 * embed])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, embed)).unbind(-2)
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    """Multi-head attention over (L, N, E) query and (S, N, E·) key/value (or unbatched (L, E), (S, E·)):
    in-projection, per-head attention, out-projection. Returns (output, weights averaged over heads unless
    average_attn_weights=False, or None when need_weights=False)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal hint alone goes to scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is not causal any more
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _core.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _core.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, [0, 1])
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # (len, N, E) -> (N·heads, len, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static_or_heads(static_k, "static_k", k, bsz * num_heads, head_dim)
    v = _static_or_heads(static_v, "static_v", v, bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = _core.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)
        k, v = _core.cat([k, zeros], 1), _core.cat([v, zeros.to(v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, [0, 1])
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.reshape(bsz, 1, 1, src_len)
            .expand(bsz, num_heads, 1, src_len)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        # explicit weights, with a plain softmax as torch's (a fully masked row gives NaN here)
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


def _static_or_heads(static, name, projected, batch_heads, head_dim):
    if static is None:
        return projected.reshape(projected.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


__all__ += [
    "conv_transpose1d",
    "conv_transpose2d",
    "max_pool1d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
]


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), __all__)
