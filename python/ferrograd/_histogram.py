"""`torch.histogram`: counts (or summed weights) of the elements of a float tensor in bins, from a number of
equal bins over a range (the input's own by default) or from given edges; each element found among the edges
by `searchsorted`, counted by `index_add` (torch's checks and messages, which name `histogramdd`, whose 1-d
case it is); `torch.histogramdd` over the innermost dim's D coordinates, each element's D bins made one
index into the flattened D-dimensional histogram."""

import builtins

from . import _core
from ._core import Tensor
from ._linspace import linspace_values
from ._write_out import _name

__all__ = ["histogram", "histogramdd"]

_PREFIX = "torch.histogramdd"
# a range of one value is widened by this much on each side (so its elements fall into the middle bins)
_WIDEN_EQUAL_RANGE = 0.5


def _c_name(dtype):
    return _name(dtype, c_name=True)


def _range_edges(input, bins, range, dim=0, caller="torch.histogram()"):
    if bins <= 0:
        raise RuntimeError(f"{caller}: bins must be > 0, but got {bins} for dimension {dim}")
    if range is not None:
        low, high = builtins.float(range[0]), builtins.float(range[1])
    elif input.numel():
        low, high = input.min().item(), input.max().item()
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(
            f"{_PREFIX}: min should not exceed max, but got min {low:g} max {high:g} for dimension {dim}"
        )
    if not (abs(low) < builtins.float("inf") and abs(high) < builtins.float("inf")):
        raise RuntimeError(f"{_PREFIX}: dimension {dim}'s range [{low:g}, {high:g}] is not finite")
    if low == high:
        low, high = low - _WIDEN_EQUAL_RANGE, high + _WIDEN_EQUAL_RANGE
    return linspace_values(low, high, bins + 1).to(input.dtype)


def _given_edges(input, edges, dim=0):
    if edges.dim() != 1:
        raise RuntimeError(
            f"{_PREFIX}: bins tensor should have one dimension, but got {edges.dim()} dimensions in the bins tensor "
            f"for dimension {dim}"
        )
    if edges.dtype != input.dtype:
        raise RuntimeError(
            f"{_PREFIX}: input tensor and bins tensors should have the same dtype, but got input with dtype "
            f"{_c_name(input.dtype)} and bins for dimension {dim} with dtype {_c_name(edges.dtype)}"
        )
    return edges


def histogram(input: Tensor, bins, *, range=None, weight=None, density: builtins.bool = False, out=None):
    """(hist, bin_edges): how many elements (or how much `weight`) fall in each bin; the last bin holds its
    right edge; with `density`, hist divided by its sum and by the bins' widths."""
    from .return_types import histogram as result_type

    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_name(input.dtype)}'")
    values = input.reshape(-1)
    if weight is not None:
        if weight.dtype != input.dtype:
            raise RuntimeError(
                f"{_PREFIX}: if weight tensor is provided, input tensor and weight tensor should have the same dtype, "
                f"but got input({_c_name(input.dtype)}), and weight({_c_name(weight.dtype)})"
            )
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(
                f"{_PREFIX}: if weight tensor is provided it should have the same shape as the input tensor excluding "
                f"its innermost dimension, but got input with shape {[values.numel(), 1]} and weight with shape "
                f"{list(weight.shape)}"
            )
    edges = _given_edges(input, bins) if isinstance(bins, Tensor) else _range_edges(input, bins, range)
    nbins = edges.numel() - 1
    hist = _core.zeros(builtins.max(nbins, 0), dtype=input.dtype)
    if nbins > 0 and values.numel():
        inside = (values >= edges[0]).logical_and(values <= edges[-1])
        position = _core.searchsorted(edges, values, right=True) - 1
        position = position.clamp(0, nbins - 1)  # the last edge belongs to the last bin
        amounts = _core.ones(values.shape, dtype=input.dtype) if weight is None else weight.reshape(-1)
        hist = hist.index_add(0, position[inside], amounts[inside])
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    if out is not None:
        out[0].data, out[1].data = hist, edges
        return result_type(out[0], out[1])
    return result_type(hist, edges)


def histogramdd(input: Tensor, bins, *, range=None, weight=None, density: builtins.bool = False):
    """(hist, bin_edges) of the points `input[..., :]` (D coordinates each) in a D-dimensional grid of bins: per
    dim a number of equal bins over `range[2k:2k+2]` (the points' own by default) or given edges."""
    from .return_types import histogramdd as result_type

    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_name(input.dtype)}'")
    dims = input.shape[-1] if input.dim() else 1
    points = input.reshape(-1, dims)
    per_dim = [bins] * dims if isinstance(bins, builtins.int) else list(bins)
    if len(per_dim) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError("histogramdd: for a 1-dimensional input, range should have 2 elements")
    edges = []
    for k, b in enumerate(per_dim):
        column = points[:, k]
        if isinstance(b, Tensor):
            edges.append(_given_edges(input, b, k))
        else:
            edges.append(_range_edges(column, b, None if range is None else range[2 * k : 2 * k + 2], k, _PREFIX))
    counts = [e.numel() - 1 for e in edges]
    total = 1
    for n in counts:
        total *= builtins.max(n, 0)
    hist = _core.zeros(total, dtype=input.dtype)
    if total and points.shape[0]:
        inside = _core.ones(points.shape[0], dtype=_core.bool)
        flat = _core.zeros(points.shape[0], dtype=_core.int64)
        for k, (e, n) in enumerate(zip(edges, counts)):
            column = points[:, k]
            inside = inside.logical_and(column >= e[0]).logical_and(column <= e[-1])
            position = (_core.searchsorted(e, column, right=True) - 1).clamp(0, n - 1)  # the last edge: last bin
            flat = flat * n + position
        amounts = _core.ones(points.shape[0], dtype=input.dtype) if weight is None else weight.reshape(-1)
        hist = hist.index_add(0, flat[inside], amounts[inside])
    hist = hist.reshape(counts)
    if density:
        volume = _core.ones([], dtype=input.dtype)
        for k, e in enumerate(edges):
            shape = [1] * dims
            shape[k] = counts[k]
            volume = volume * (e[1:] - e[:-1]).reshape(shape)
        hist = hist / (hist.sum() * volume)
    return result_type(hist, tuple(edges))
