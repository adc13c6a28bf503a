"""`nn.init`: in-place initialisers with PyTorch's names, defaults, fan rules and errors.

Each runs under `no_grad`, draws from the default generator (or `generator=`) and returns its tensor.
"""

import math
import numbers

from .. import _core
from .._utils import typed_entry_points as _typed_entry_points
from .._utils import warn_at_function_caller
from ..grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 (linear, conv, sigmoid), 5/3 (tanh), √2 (relu),
    √(2 / (1 + slope²)) (leaky_relu, slope `param` or 0.01), 3/4 (selu)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills `tensor` with draws from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills `tensor` with draws from N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills `tensor` with draws from N(mean, std²) restricted to [a, b] (by rejection, so exactly that law)."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warn_at_function_caller(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
            "incorrect.",
        )
    if tensor.numel() == 0 or tensor.is_meta:  # a meta tensor has no values to fill
        return tensor
    with no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            result = _rejected_normal(tensor, mean, std, a, b, generator)
        else:
            result = _rejected_uniform(tensor, mean, std, a, b, generator)
        return tensor.copy_(result)


def _rejected_normal(tensor, mean, std, a, b, generator):
    """Normal draws, the ones outside [a, b] drawn again (a few rounds when [a, b] holds most of the mass)."""
    result = _core.zeros(tensor.shape, dtype=tensor.dtype).normal_(mean, std, generator=generator)
    while True:
        outside = (result < a).logical_or(result > b)
        if not bool(outside.any()):
            return result
        fresh = _core.zeros(tensor.shape, dtype=tensor.dtype).normal_(mean, std, generator=generator)
        result = _core.where(outside, fresh, result)


def _rejected_uniform(tensor, mean, std, a, b, generator):
    """Uniform proposals on [a, b], each accepted with probability density / peak density: the normal
    restricted to a narrow or far-off [a, b], where plain normal draws would rarely land."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def draw():
        x = _core.zeros(tensor.shape, dtype=tensor.dtype).uniform_(a, b, generator=generator)
        log_ratio = ((x - mean) / std).square() * -0.5 - log_peak
        u = _core.zeros(tensor.shape, dtype=tensor.dtype).uniform_(generator=generator)
        return x, u.log() > log_ratio

    result, pending = draw()
    while bool(pending.any()):
        x, rejected = draw()
        result = _core.where(pending, x, result)
        pending = pending.logical_and(rejected)
    return result


def constant_(tensor, val):
    """Fills `tensor` with `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Writes the identity into a 2-D tensor (ones on the main diagonal of a rectangle)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    with no_grad():
        tensor.zero_()
        k = min(tensor.shape)
        if k:
            idx = _core.arange(k)
            tensor[idx, idx] = 1
    return tensor


def dirac_(tensor, groups=1):
    """The identity of a convolution (3-, 4- or 5-D weight): a 1 at the centre of the kernel of each
    (output channel, same input channel) pair, within each group."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    n = min(out_per_group, sizes[1])
    index = None
    if n and out_per_group:
        # built before the tensor is zeroed: an unusable `groups` leaves it as it was
        groups = int(groups)
        d = _core.arange(n)
        out_channels = (_core.arange(groups).unsqueeze(1) * out_per_group + d).reshape(-1)
        in_channels = d.repeat(groups)
        index = (out_channels, in_channels, *(s // 2 for s in sizes[2:]))
    with no_grad():
        tensor.zero_()
        if index is not None:
            tensor[index] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain·√(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std²) with std = gain·√(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain·√(3 / fan) (He et al.); `a` is leaky_relu's negative slope."""
    if 0 in tensor.shape:
        warn_at_function_caller("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std²) with std = gain / √fan."""
    if 0 in tensor.shape:
        warn_at_function_caller("Initializing zero-element tensors is a no-op")
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def _orthonormal_columns(a):
    """Q of the QR decomposition of a tall (rows >= cols) matrix with R's diagonal positive: Gram–Schmidt,
    each column orthogonalised twice against the previous ones ("twice is enough") for float accuracy."""
    rows, cols = a.shape
    q = _core.zeros(rows, cols, dtype=a.dtype)
    for k in range(cols):
        v = a[:, k]
        if k:
            done = q[:, :k]
            v = v - done.mv(done.t().mv(v))
            v = v - done.mv(done.t().mv(v))
        q[:, k] = v / v.norm()
    return q


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, times `gain`, over the tensor viewed as (size(0), rest) (Saxe et al.):
    the Q factor of a standard-normal matrix, which makes it uniform over the orthogonal matrices."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = _core.zeros(rows, cols, dtype=_core.float64).normal_(0, 1, generator=generator)
        q = _orthonormal_columns(flat.t() if rows < cols else flat)
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tensor.shape) * gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std²) draws with ceil(sparsity · rows) random entries of each column set to zero (2-D tensors)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros and cols:
            # a random permutation of the rows per column: the order of independent uniform draws
            order = _core.rand(rows, cols, generator=generator).argsort(0)
            tensor.scatter_(0, order[:num_zeros], 0.0)
    return tensor


def _deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warn_at_function_caller(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
        )
        return fn(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use `nn.init.{new_name}`."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), [n for n in list(globals()) if not n.startswith("_")])
