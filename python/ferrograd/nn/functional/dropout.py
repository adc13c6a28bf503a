"""Dropouts: elementwise, per feature map, and SELU's alpha dropout."""

import math

from ... import _core
from ..._core import Tensor
from ..._utils import warn_at_function_caller
from ._common import _scalar_type_name


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
        warn_at_function_caller(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
        )
    if input.dim() == 3:
        warn_at_function_caller(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
        )
    return _feature_dropout(input, p, training, inplace, False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_p(p)
    if input.dim() not in (4, 5):
        warn_at_function_caller(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
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
