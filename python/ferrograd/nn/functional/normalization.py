"""Normalizations: layer, RMS, batch, instance and group norm, and `normalize`."""

import math
import numbers

from ... import _core
from ..._arg_errors import type_name
from ..._core import Tensor
from ..._info import finfo
from ...grad_mode import no_grad
from .padding import pad
from .pooling import avg_pool2d


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type_name(normalized_shape)}"
        )
    return _core._layer_norm(input, [int(s) for s in normalized_shape], weight, bias, float(eps))


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:
    """`input * rsqrt(mean(input², last dims) + eps)`, times `weight`: composed as torch composes it (so the
    graph has its MulBackward0/RsqrtBackward0/... nodes), half and bfloat16 computed in float32 and rounded
    once; `eps` None is the computing dtype's machine epsilon."""
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError(
            "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type_name(normalized_shape)}"
        )
    shape = [int(s) for s in normalized_shape]
    _check_normalized_shape(input, shape, weight)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype._scalar_type_name}'")
    narrow = input.dtype in (_core.float16, _core.bfloat16)
    x = input.float() if narrow else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = list(range(-len(shape), 0))
    out = x * ((x.pow(2).mean(dims, keepdim=True) + eps).rsqrt() if shape else x)
    if weight is not None:
        out = out * weight
    return out.to(input.dtype) if narrow else out


def _check_normalized_shape(input, shape, weight):
    """torch's checks of a norm over the last `len(shape)` dims: a non-empty shape that ends input's, and a
    weight of that shape."""
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            f"got normalized_shape = {shape}"
        )
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {shape}"
        )
    if input.dim() < len(shape) or list(input.shape[input.dim() - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={shape}, expected input with shape [*{', '.join(map(str, shape))}], but got "
            f"input of size{list(input.shape)}"
        )


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
        nonzero = total != 0  # a NaN total gives a NaN norm, which clamp_min keeps (as torch's does)
        norm = _core.where(nonzero, _core.where(nonzero, total, 1.0).pow(1.0 / p), 0.0)
    return input / norm.clamp_min(eps).expand_as(input)


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

    One node (NativeBatchNormBackward0), as torch's CPU build records it. In training the running statistics,
    when given, are updated in place without grad: running = (1 - momentum) * running + momentum * batch, with
    the unbiased batch variance (the normalisation itself uses the biased one), as torch does.
    """
    return _core._batch_norm(input, running_mean, running_var, weight, bias, bool(training), momentum, float(eps))


def _update_running_stats(running_mean, running_var, mean, var, count, momentum):
    """`running = running * (1 - momentum) + batch * momentum` for each given statistic (the variance's batch
    value unbiased). Both new values are computed before either is written, so a statistic of the wrong shape
    raises with neither changed."""
    with no_grad():
        updates = []
        if running_mean is not None:
            batch = mean.reshape(-1).to(running_mean.dtype) * momentum
            updates.append((running_mean, running_mean * (1.0 - momentum) + batch))
        if running_var is not None:
            unbiased = var.reshape(-1).to(running_var.dtype) * (count / max(count - 1, 1))
            updates.append((running_var, running_var * (1.0 - momentum) + unbiased * momentum))
        for running, new in updates:
            if new.shape != running.shape:
                running.add_(new)  # torch's in-place broadcast error, raised before any write
        for running, new in updates:
            running.copy_(new)


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


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha · mean of input² over `size` neighbouring channels)^beta, composed as torch's."""
    dim = input.dim()
    if dim < 3:
        # torch's message, with the run of spaces its source line continuation leaves in it
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # torch pools (N, 1, C, H, rest) with a (size, 1, 1) avg_pool3d; the same windows over (N, 1, C, H·rest)
        # with a (size, 1) avg_pool2d sum the same elements in the same order and divide by the same size
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
