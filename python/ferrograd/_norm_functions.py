"""torch-level norm functions composed of ferrograd's norms as torch composes them: `norm_except_dim` (weight
norm's), the deprecated `frobenius_norm` and `nuclear_norm` (kept in torch for JIT compatibility, with its
warning), `native_layer_norm` (layer norm with the mean and reciprocal deviation it normalised by) and
`native_batch_norm` (batch norm with its saved mean and reciprocal deviation) and `batch_norm_update_stats` (batch
norm's statistics step alone)."""

import builtins

from . import _core
from ._arg_errors import require_tensor as _require_tensor
from ._core import Tensor
from .grad_mode import no_grad

__all__ = [
    "batch_norm_update_stats",
    "frobenius_norm",
    "native_batch_norm",
    "native_layer_norm",
    "norm_except_dim",
    "nuclear_norm",
]


def norm_except_dim(v: Tensor, pow=2, dim: builtins.int = 0) -> Tensor:
    """The `pow`-norm of `v` over every dim but `dim` (kept, the others of size 1); over all of `v` for dim -1."""
    if dim == -1:
        return v.norm(pow)
    last = v.dim() - 1
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view([v.size(0)] + [1] * last)
    if dim == last:
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view([1] * last + [v.size(-1)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _deprecated(name, instead):
    import warnings  # loaded when first needed (not at `import ferrograd`)

    warnings.warn(
        f"at::{name} is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        f"PyTorch release. Please use `{instead}` instead",
        UserWarning,
        stacklevel=3,
    )


def frobenius_norm(input: Tensor, dim, keepdim: builtins.bool = False, *, out=None) -> Tensor:
    """Deprecated: `linalg.vector_norm(input, 2, dim, keepdim)` over at most two dims."""
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    result = input.norm(2, dims, keepdim)
    return result if out is None else _write(out, result)


def nuclear_norm(input: Tensor, dim=None, keepdim: builtins.bool = False, *, out=None) -> Tensor:
    """Deprecated: `linalg.matrix_norm(input, 'nuc', dim, keepdim)`, over the last two dims unless `dim` says
    (`nuclear_norm(input, keepdim)` is the form without dims)."""
    from .linalg import matrix_norm

    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, builtins.bool):
        dim, keepdim = None, dim
    result = matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return result if out is None else _write(out, result)


def _write(out, result):
    from ._write_out import write_out

    return write_out("norm", out, result)


def native_layer_norm(input: Tensor, normalized_shape, weight, bias, eps: builtins.float):
    """`(layer_norm(input, ...), mean, rstd)`: the mean and `1 / sqrt(var + eps)` over the normalised dims, each
    of input's shape with those dims of size 1 (they carry no gradient, as torch's)."""
    from .nn.functional import layer_norm

    output = layer_norm(input, normalized_shape, weight, bias, eps)
    dims = builtins.list(builtins.range(input.dim() - len(normalized_shape), input.dim()))
    with no_grad():
        x = input.double() if input.dtype == _core.float64 else input.float()
        mean = x.mean(dims, keepdim=True)
        rstd = (x.var(dims, correction=0, keepdim=True) + eps).rsqrt()
    return output, mean.to(input.dtype), rstd.to(input.dtype)


def native_batch_norm(
    input: Tensor, weight, bias, running_mean, running_var, training: builtins.bool, momentum, eps: builtins.float
):
    """`(batch_norm(input, ...), save_mean, save_invstd)`: in training the batch's per-channel mean and
    `1 / sqrt(var + eps)` (no gradient), in evaluation two empty tensors, as torch's CPU kernel returns them. The
    statistics are in the input's dtype, or float32 beside a half-type input with float32 parameters."""
    from .nn.functional import batch_norm

    output = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    params = [t for t in (weight, bias, running_mean, running_var) if t is not None]
    dtype = _core.float32 if any(t.dtype == _core.float32 for t in params) else input.dtype
    if not training:
        return output, _core.zeros(0, dtype=dtype), _core.zeros(0, dtype=dtype)
    dims = [0, *builtins.range(2, input.dim())]
    with no_grad():
        x = input.double() if input.dtype == _core.float64 else input.float()
        mean = x.mean(dims)
        invstd = (x.var(dims, correction=0) + eps).rsqrt()
    return output, mean.to(dtype), invstd.to(dtype)


def batch_norm_update_stats(input: Tensor, running_mean, running_var, momentum: builtins.float):
    """The per-channel (dim 1) batch mean and biased variance of `input`, as batch norm's training step takes
    them, with the running statistics (when given) updated in place as it updates them; no gradient."""
    from .nn.functional.normalization import _update_running_stats

    for position, (name, stat) in enumerate((("running_mean", running_mean), ("running_var", running_var)), 2):
        if stat is not None:
            _require_tensor(stat, "batch_norm_update_stats", name, position)
    dims = [0, *builtins.range(2, input.dim())]
    with no_grad():
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        count = input.numel() // builtins.max(input.shape[1], 1)
        _update_running_stats(running_mean, running_var, mean, var, count, momentum)
    return mean, var
