"""`ferrograd.nn.functional`: activations, losses, convolutions, pooling, normalizations and attention with
PyTorch's names, signatures and gradients.

Elementwise activations run as single Rust ops (their grad_fn names match PyTorch's); the rest are
compositions of differentiable tensor ops. One file per concern; this module re-exports them.
"""

from ..._core import pixel_shuffle, pixel_unshuffle
from ..._utils import typed_entry_points as _typed_entry_points
from .. import grad  # torch's functional module names `torch.nn.grad` so (not in __all__, as in torch)
from . import _param_ops
from ._common import _reduction
from ._param_ops import *  # noqa: F403 (the registry's functions, listed in its __all__)
from .activation import (
    glu,
    gumbel_softmax,
    log_softmax,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    sigmoid,
    softmax,
    softmin,
    softsign,
    tanh,
    tanhshrink,
)
from .attention import _canonical_mask, _none_or_dtype, multi_head_attention_forward, scaled_dot_product_attention
from .conv import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold
from .ctc import ctc_loss
from .distance import cosine_similarity, pairwise_distance, pdist
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from .fractional_pooling import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .interpolation import interpolate, upsample, upsample_bilinear, upsample_nearest
from .linear import bilinear, linear
from .loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .normalization import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    normalize,
    rms_norm,
)
from .padding import pad
from .pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from .sampling import affine_grid, grid_sample
from .shuffle import channel_shuffle, native_channel_shuffle
from .sparse import embedding, embedding_bag, one_hot
from .unpooling import max_unpool1d, max_unpool2d, max_unpool3d

__all__ = [
    "channel_shuffle",
    "native_channel_shuffle",
    "rrelu_",
    "softmax",
    "log_softmax",
    "nll_loss",
    "cross_entropy",
    "ctc_loss",
    "mse_loss",
    "linear",
    "relu",
    "relu_",
    "sigmoid",
    "tanh",
    "l1_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "dropout",
    "layer_norm",
    "rms_norm",
    "pixel_shuffle",
    "pixel_unshuffle",
    "normalize",
    "embedding",
    "embedding_bag",
    "one_hot",
    "pad",
    "conv1d",
    "conv2d",
    "conv3d",
    "max_pool2d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_avg_pool2d",
    "unfold",
    "fold",
    "relu6",
    "rrelu",
    "glu",
    "softsign",
    "softmin",
    "tanhshrink",
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
    "pdist",
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
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "max_pool1d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
    "interpolate",
    "grid_sample",
    "affine_grid",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "max_pool3d_with_indices",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "local_response_norm",
]

__all__ += _param_ops.__all__

# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), __all__)
