"""The `torch.*` forms of `nn.functional` (`ferrograd.conv2d`, `ferrograd.layer_norm`, `ferrograd.kl_div`, ...)
with torch's own conventions, which are not `F`'s: the losses take the reduction as an int (1 'mean', 2 'sum',
anything else 'none', and 'none' when omitted), `dropout(input, p, train)` has no defaults and raises
RuntimeError for a bad p, `embedding(weight, indices)` takes the weight first (a negative padding_idx is none),
the pools' `stride=()` is the kernel size, `adaptive_max_pool1d` returns (values, indices), and the in-place
Tensor methods have function forms (`ferrograd.clamp_(x, 0)`). Each calls `nn.functional` (loaded on first
use: `import ferrograd` leaves `nn` out) or the Tensor method."""

from . import _utils
from ._arg_errors import type_name

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "alpha_dropout",
    "alpha_dropout_",
    "as_strided_",
    "avg_pool1d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "constant_pad_nd",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "dropout",
    "dropout_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "fill_",
    "group_norm",
    "hardshrink",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "logit_",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
    "nan_to_num_",
    "neg_",
    "negative_",
    "pairwise_distance",
    "poisson_nll_loss",
    "prelu",
    "rms_norm",
    "round_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "square_",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "xlogy_",
    "zero_",
]


def _F():
    from .nn import functional

    return functional


def _feature_dropout():
    from .nn.functional.dropout import _feature_dropout

    return _feature_dropout


def _reduction(reduction, name, position):
    """at::Reduction's int: 1 'mean', 2 'sum', any other 'none' (as torch's kernels read it)."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, not {type_name(reduction)}")
    return {1: "mean", 2: "sum"}.get(reduction, "none")


# torch documents `reduction=Mean` for these, but its binding gives the omitted argument 0: unreduced
_DEFAULT_REDUCTION = 0


def _stride(stride):
    """torch's `stride=()` (or None): the kernel size, as `F`'s None."""
    return None if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else stride


# ---- convolutions ----


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---- dropout: (input, p, train), no defaults ----


def _p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout(input, p, train):
    return _F().dropout(input, _p(p), train)


def dropout_(input, p, train):
    return _F().dropout(input, _p(p), train, inplace=True)


def alpha_dropout(input, p, train):
    return _F().alpha_dropout(input, _p(p), train)


def alpha_dropout_(input, p, train):
    return _F().alpha_dropout(input, _p(p), train, inplace=True)


def feature_dropout(input, p, train):
    return _feature_dropout()(input, _p(p), train, False, False)


def feature_dropout_(input, p, train):
    return _feature_dropout()(input, _p(p), train, True, False)


def feature_alpha_dropout(input, p, train):
    return _F().feature_alpha_dropout(input, _p(p), train)


def feature_alpha_dropout_(input, p, train):
    return _F().feature_alpha_dropout(input, _p(p), train, inplace=True)


# ---- embedding and normalization ----


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """`F.embedding(indices, weight)`; a negative `padding_idx` is none (aten's convention)."""
    return _F().embedding(
        indices,
        weight,
        None if padding_idx < 0 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """torch's (bags, offset2bag, bag_size, max_indices) of 1-D `indices` cut at `offsets`; `mode` 0 sum, 1 mean,
    2 max; a negative `padding_idx` counts from the end."""
    from ._core import _embedding_bag_with_aux
    from .nn.functional.sparse import _check_index_dtype

    if isinstance(mode, bool) or not isinstance(mode, int):
        raise TypeError(f"embedding_bag(): argument 'mode' (position 5) must be int, not {type_name(mode)}")
    if sparse:
        raise ValueError("embedding_bag(sparse=True) is not supported: ferrograd has no sparse gradients")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    _check_index_dtype(indices, "indices")
    _check_index_dtype(offsets, "indices")
    if indices.dim() != 1:
        raise RuntimeError(f"embedding_bag: indices has to be a 1D Tensor, but got Tensor of dimension {indices.dim()}")
    if offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    from .nn.functional.sparse import _bag_padding_idx

    padding_idx = _bag_padding_idx(weight, padding_idx)
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and per_sample_weights.numel() != indices.numel():
        raise RuntimeError(
            "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    words = ("sum", "mean", "max")[mode]
    return _embedding_bag_with_aux(
        weight, indices, offsets, words, per_sample_weights, include_last_offset, padding_idx, scale_grad_by_freq
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """aten's order: the affine parameters before the running statistics, every argument given."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def bilinear(input1, input2, weight, bias=None):
    return _F().bilinear(input1, input2, weight, bias)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


# ---- activations ----


def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


def celu_(input, alpha=1.0):
    return _F().celu_(input, alpha)


def selu(input):
    return _F().selu(input)


def selu_(input):
    return _F().selu(input, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return input._rrelu(lower, upper, training, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return input._rrelu_(lower, upper, training, generator)


def prelu(input, weight):
    return _F().prelu(input, weight)


def hardshrink(input, lambd=0.5):
    return _F().hardshrink(input, lambd)


def channel_shuffle(input, groups):
    return _F().channel_shuffle(input, groups)


def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _F().threshold_(input, threshold, value)


# ---- distances and losses (reduction: 0 'none', 1 'mean', 2 'sum') ----


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    return _F().cosine_similarity(x1, x2, dim, eps)


def kl_div(input, target, reduction=_DEFAULT_REDUCTION, *, log_target=False):
    """Without `F.kl_div`'s warning for 'mean' (torch's function form gives none)."""
    import warnings

    reduction = _reduction(reduction, "kl_div", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _F().kl_div(input, target, reduction=reduction, log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=_DEFAULT_REDUCTION):
    return _F().binary_cross_entropy_with_logits(
        input,
        target,
        weight,
        reduction=_reduction(reduction, "binary_cross_entropy_with_logits", 5),
        pos_weight=pos_weight,
    )


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=_DEFAULT_REDUCTION):
    return _F().margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction(reduction, "margin_ranking_loss", 5)
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=_DEFAULT_REDUCTION):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss", 4))


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=_DEFAULT_REDUCTION
):
    return _F().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction, "triplet_margin_loss", 8)
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=_DEFAULT_REDUCTION):
    return _F().cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction, "cosine_embedding_loss", 5)
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction, "poisson_nll_loss", 6)
    )


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=_DEFAULT_REDUCTION, zero_infinity=False
):
    from .nn.functional.ctc import _ctc_loss

    words = _reduction(reduction, "ctc_loss", 6)
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, words, zero_infinity)


# ---- pooling and padding ----


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(values, indices), as torch's function form returns them."""
    return tuple(_F().max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode))


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as torch's function form returns them."""
    return tuple(_F().adaptive_max_pool1d(input, output_size, return_indices=True))


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, pad, "constant", value)


# ---- the function forms of in-place Tensor methods ----


def clamp_(input, min=None, max=None):
    return input.clamp_(min, max)


def clip_(input, min=None, max=None):
    return input.clip_(min, max)


def clamp_min_(input, min):
    return input.clamp_min_(min)


def clamp_max_(input, max):
    return input.clamp_max_(max)


def neg_(input):
    return input.neg_()


def negative_(input):
    return input.negative_()


def round_(input, *, decimals=0):
    return input.round_(decimals=decimals)


def square_(input):
    return input.square_()


def as_strided_(input, size, stride, storage_offset=None):
    return input.as_strided_(size, stride, storage_offset)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return input.nan_to_num_(nan, posinf, neginf)


def xlogy_(input, other):
    return input.xlogy_(other)


def zero_(input):
    return input.zero_()


def fill_(input, value):
    """`input` filled with `value`, a number or a 0-dim tensor."""
    return input.fill_(value)


def logit_(input, eps=None):
    return input.logit_(eps)


_utils.typed_entry_points(globals(), __all__)
