"""`torch.gradient`: central differences inside, one-sided differences of first or second order at the edges,
over unit, scalar or per-dim spacing or along given coordinates (numpy's `gradient`, which torch's matches);
composed of slices and elementwise ops, so it is differentiable as they are."""

import builtins

from . import _core
from ._core import Tensor

__all__ = ["gradient"]

_PREFIX = "torch.gradient"


def _dims(dim, ndim):
    if dim is None:
        return list(builtins.range(ndim)), False
    dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    top = builtins.max(ndim, 1)
    wrapped = []
    for d in dims:
        if not -top <= d < top:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got {d})")
        d %= top
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return wrapped, True


def _spacings(spacing, dims, ndim, dim_given):
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if len(spacing) == 1 and not isinstance(spacing[0], Tensor) and len(dims) != 1:
        return [spacing[0]] * len(dims)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(
                f"{_PREFIX} expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have the "
                f"same length, but got a spacing argument of length {len(spacing)} and a dim argument of length "
                f"{len(dims)}."
            )
        raise RuntimeError(
            f"{_PREFIX} expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() = "
            f"{ndim}', since dim argument was not given, but got a list of length {len(spacing)}"
        )
    return list(spacing)


def _along(t, d, ndim):
    """A 1-d `t` shaped to broadcast along dim `d` of an `ndim`-d tensor."""
    shape = [1] * ndim
    shape[d] = t.shape[0]
    return t.reshape(shape)


def _uniform(f, d, h, edge_order):
    n = f.shape[d]

    def part(start, length=None):
        return f.narrow(d, start, n - 2 if length is None else length)

    inner = (part(2) - part(0)) / (2 * h)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / h
        last = (part(n - 1, 1) - part(n - 2, 1)) / h
    else:
        first = (-1.5 * part(0, 1) + 2 * part(1, 1) - 0.5 * part(2, 1)) / h
        last = (0.5 * part(n - 3, 1) - 2 * part(n - 2, 1) + 1.5 * part(n - 1, 1)) / h
    return _core.cat([first, inner, last], d)


def _coordinates(f, d, x, edge_order):
    """Along coordinates `x` (a 1-d tensor of f's size along `d`): the second-order accurate nonuniform
    central difference inside."""
    n, ndim = f.shape[d], f.dim()
    x = x.to(f.dtype)
    dx = x[1:] - x[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = _along(-dx2 / (dx1 * (dx1 + dx2)), d, ndim)
    b = _along((dx2 - dx1) / (dx1 * dx2), d, ndim)
    c = _along(dx1 / (dx2 * (dx1 + dx2)), d, ndim)

    def part(start, length=None):
        return f.narrow(d, start, n - 2 if length is None else length)

    inner = a * part(0) + b * part(1) + c * part(2)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (
            -(2 * h1 + h2) / (h1 * (h1 + h2)) * part(0, 1)
            + (h1 + h2) / (h1 * h2) * part(1, 1)
            - h1 / (h2 * (h1 + h2)) * part(2, 1)
        )
        h1, h2 = dx[-2], dx[-1]
        last = (
            h2 / (h1 * (h1 + h2)) * part(n - 3, 1)
            - (h2 + h1) / (h1 * h2) * part(n - 2, 1)
            + (2 * h2 + h1) / (h2 * (h1 + h2)) * part(n - 1, 1)
        )
    return _core.cat([first, inner, last], d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: builtins.int = 1) -> "tuple[Tensor, ...]":
    """The derivative estimate of `input` along each of `dim` (every dim by default), one tensor per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"{_PREFIX} only supports edge_order=1 and edge_order=2.")
    dims, dim_given = _dims(dim, input.dim())
    spacings = _spacings(spacing, dims, input.dim(), dim_given)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(f"{_PREFIX} expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() else input.to(_core.get_default_dtype())
    results = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor) and h.dim() == 1:
            results.append(_coordinates(f, d, h, edge_order))
        else:
            results.append(_uniform(f, d, h.item() if isinstance(h, Tensor) else h, edge_order))
    return tuple(results)
