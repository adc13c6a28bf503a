"""The trapezoid rule (`trapezoid`, its alias `trapz`, `cumulative_trapezoid`): function-only compositions of
existing ops, as ATen composes them (Integration.cpp, its products with numbers as `mul.Scalar`/`div.Scalar`
nodes), so gradients flow through the same nodes torch records;
and `tensordot`'s reading of `dims` (the product itself is the core's)."""

import builtins

from ._arg_errors import require_tensor
from ._core import Tensor, _div_number, _mul_number, _tensordot, zeros
from ._core import bool as _bool

_DX_HALF = 0.5  # the trapezoid's weight of each end sample


def _check_not_bool(name: str, y: Tensor, x: Tensor | None = None) -> None:
    if y.dtype == _bool or (x is not None and x.dtype == _bool):
        what = "`y`" if x is None else "`x` or `y`"
        raise NotImplementedError(f"{name}: received a bool input for {what}, but bool is not supported")


def _check_arguments(name: str, y, x, dx, dim) -> None:
    """torch's two overloads take a tensor `y`, then sample points `x` (a tensor) or a number spacing `dx`,
    not both, and an int `dim`: anything else is its TypeError."""
    require_tensor(y, name, "y", 1)
    number = (builtins.int, builtins.float, builtins.bool)
    fits = (
        (x is None or isinstance(x, Tensor))
        and (dx is None or isinstance(dx, number))
        and (x is None or dx is None)
        and isinstance(dim, builtins.int)
    )
    if not fits:
        given = ["Tensor"] + ([type(x).__name__] if x is not None else [])
        given += [f"dx={type(dx).__name__}"] if dx is not None else []
        given += [] if isinstance(dim, builtins.int) else [f"dim={type(dim).__name__}"]
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({', '.join(given)}), "
            "but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, "
            "int dim = -1)\n"
        )


def _wrapped_dim(dim: int, ndim: int) -> int:
    if not -builtins.max(ndim, 1) <= dim < builtins.max(ndim, 1):
        low, high = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim % builtins.max(ndim, 1)


def _spacing(name: str, y: Tensor, x: Tensor, dim: int) -> Tensor:
    """The differences of the sample points `x` (1-d: along `dim`; else broadcast from the right)."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x.shape[0]
        x = x.view(sizes)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    n = x.shape[dim]
    return x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)


def _sides(y: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    n = y.shape[dim]
    return y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)


def _without_dim(y: Tensor, dim: int) -> Tensor:
    return zeros([s for i, s in enumerate(y.shape) if i != dim], dtype=y.dtype)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: builtins.float | None = None, dim: int = -1) -> Tensor:
    """The integral of `y` along `dim` by the trapezoid rule, over sample points `x` or a spacing `dx`
    (default 1); zeros where `dim` has no samples."""
    _check_arguments("trapezoid", y, x, dx, dim)
    dim = _wrapped_dim(dim, y.dim())
    if y.shape[dim] == 0:
        return _without_dim(y, dim)
    _check_not_bool("trapezoid", y, x)
    if x is None:
        step = 1.0 if dx is None else float(dx)
        ends = _mul_number(y.select(dim, 0) + y.select(dim, -1), _DX_HALF)
        return _mul_number(y.sum(dim) - ends, step)
    left, right = _sides(y, dim)
    return _div_number(((left + right) * _spacing("trapezoid", y, x, dim)).sum(dim), 2.0)


def trapz(y: Tensor, x: Tensor | None = None, *, dx: builtins.float | None = None, dim: int = -1) -> Tensor:
    """Alias for `trapezoid`."""
    _check_arguments("trapz", y, x, dx, dim)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(
    y: Tensor, x: Tensor | None = None, *, dx: builtins.float | None = None, dim: int = -1
) -> Tensor:
    """The running integral of `y` along `dim` by the trapezoid rule (one element fewer along `dim`)."""
    _check_arguments("cumulative_trapezoid", y, x, dx, dim)
    dim = _wrapped_dim(dim, y.dim())
    _check_not_bool("cumulative_trapezoid", y, x)
    if y.shape[dim] == 0:
        return y.clone()
    left, right = _sides(y, dim)
    if x is None:
        step = 1.0 if dx is None else float(dx)
        return _mul_number(left + right, step / 2.0).cumsum(dim)
    return _div_number(((left + right) * _spacing("cumulative_trapezoid", y, x, dim)).cumsum(dim), 2.0)


def tensordot(a: Tensor, b: Tensor, dims: builtins.int | tuple | list | Tensor = 2) -> Tensor:
    """Sums the products of `a`'s and `b`'s elements over the dims `dims` names: an int n (`a`'s last n with
    `b`'s first n), or two lists of dims (or a 2-row tensor of them)."""
    require_tensor(a, "tensordot", "a", 1)
    require_tensor(b, "tensordot", "b", 2)
    given = (dims.tolist() if dims.dim() > 0 else builtins.int(dims.item())) if isinstance(dims, Tensor) else dims
    if isinstance(given, builtins.int):
        if given < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={given}")
        if given > builtins.min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={given}")
        return _tensordot(a, b, list(range(-given, 0)), list(range(given)))
    dims_a, dims_b = ([d] if isinstance(d, builtins.int) else list(d) for d in given)
    return _tensordot(a, b, dims_a, dims_b)
