"""torch-level entry points of `nn` ops that torch exposes beside `nn.functional`: `convolution` (the generic
convolution the `F.conv*` functions call in torch, here dispatched to them by rank), `embedding_renorm_` and
`native_channel_shuffle`, and `native_dropout` (dropout returning its mask too). `nn.functional` is imported on
first call."""

import builtins

from . import _core
from ._core import Tensor

__all__ = ["convolution", "embedding_renorm_", "native_channel_shuffle", "native_dropout"]

_CONV_NAMES = {3: "1d", 4: "2d", 5: "3d"}


def convolution(
    input: Tensor, weight: Tensor, bias, stride, padding, dilation, transposed: builtins.bool, output_padding, groups
) -> Tensor:
    """A convolution (or transposed convolution) of batched `input` by `weight`, whose rank picks 1-D, 2-D or
    3-D (`F.conv1d`, `F.conv_transpose2d`, ...)."""
    from .nn import functional as F

    if input.dim() != weight.dim():
        raise RuntimeError(
            f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight {list(weight.shape)}, "
            f"but got {input.dim()}-dimensional input of size {list(input.shape)} instead"
        )
    suffix = _CONV_NAMES.get(weight.dim())
    name = ("conv_transpose" if transposed else "conv") + (suffix or "")
    if suffix is None or not hasattr(F, name):
        raise RuntimeError(f"convolution: no {weight.dim() - 2}-d {'transposed ' if transposed else ''}convolution")
    if transposed:
        return getattr(F, name)(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(F, name)(input, weight, bias, stride, padding, dilation, groups)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: builtins.float, norm_type: builtins.float) -> Tensor:
    """Scales the rows of `input` (an embedding table) that `indices` picks and whose `norm_type`-norm exceeds
    `max_norm` down to `max_norm`, in place (what `F.embedding(max_norm=...)` does first); returns `input`."""
    from .nn.functional.sparse import _embedding_renorm_

    _embedding_renorm_(input, indices, max_norm, norm_type)
    return input


def native_channel_shuffle(input: Tensor, groups: builtins.int) -> Tensor:
    """`F.channel_shuffle`: the channels of (N, C, *) `input` regrouped from `groups` blocks, interleaved."""
    from .nn import functional as F

    return F.native_channel_shuffle(input, groups)


def native_dropout(input: Tensor, p: builtins.float, train: builtins.bool | None):
    """(output, mask): in training each element kept with probability 1 - p (the draws `F.dropout` makes) and
    scaled by 1 / (1 - p), `mask` the kept ones (bool); otherwise the input's values and a mask of all True."""
    training = train is None or builtins.bool(train)
    if training:
        mask = _core._dropout_mask(input, builtins.float(p)) != 0
    else:
        mask = _core.ones(input.shape, dtype=_core.bool)
    return _core._native_dropout_apply(input, mask, builtins.float(p), training), mask
