"""`atleast_1d/2d/3d` and `hstack`/`vstack`/`dstack`/`column_stack`: compositions of views and `cat`, as
PyTorch defines them (CompositeImplicit), so their gradients are those of the views and of `cat`."""

from ._arg_errors import require_tensor, type_name
from ._combine import _tensors
from ._core import Tensor, cat

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "dstack", "hstack", "row_stack", "vstack"]


def _atleast(tensors, lift, name):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(lift(t) for t in _tensors(tensors[0]))
    if len(tensors) == 1:
        require_tensor(tensors[0], name, "input")
        return lift(tensors[0])
    return tuple(lift(t) for t in _tensors(tensors))


def _lift_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t.dim() == 0 else t


def _lift_2d(t: Tensor) -> Tensor:
    return {0: lambda: t.reshape(1, 1), 1: lambda: t.unsqueeze(0)}.get(t.dim(), lambda: t)()


def _lift_3d(t: Tensor) -> Tensor:
    lifts = {0: lambda: t.reshape(1, 1, 1), 1: lambda: t.unsqueeze(0).unsqueeze(-1), 2: lambda: t.unsqueeze(-1)}
    return lifts.get(t.dim(), lambda: t)()


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one as shape (1,)); one tensor in, one out, else a tuple."""
    return _atleast(tensors, _lift_1d, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor with at least two dims: () -> (1, 1), (n,) -> (1, n)."""
    return _atleast(tensors, _lift_2d, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor with at least three dims: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(tensors, _lift_3d, "atleast_3d")


def _nonempty(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' must be tuple of Tensors, not {type_name(tensors)}")
    tensors = _tensors(list(tensors))
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """Concatenation along the columns: dim 0 for 1-d tensors, else dim 1 (0-d ones count as 1-d)."""
    ts = [_lift_1d(t) for t in _nonempty(tensors, "hstack")]
    return cat(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenation along the rows, after `atleast_2d`."""
    return cat([_lift_2d(t) for t in _nonempty(tensors, "vstack")], 0)


def row_stack(tensors):
    """Alias of `vstack` (whose name its errors give, as torch's do)."""
    return vstack(tensors)


def dstack(tensors):
    """Concatenation along the third dim, after `atleast_3d`."""
    return cat([_lift_3d(t) for t in _nonempty(tensors, "dstack")], 2)


def column_stack(tensors):
    """Concatenation along dim 1 with 0-d and 1-d tensors as columns ((n,) -> (n, 1))."""
    ts = _nonempty(tensors, "column_stack")
    return cat([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in ts], 1)
