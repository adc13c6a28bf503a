"""`tensor_split` and `hsplit`/`vsplit`/`dsplit`: views by `narrow` (SliceBackward0, as in PyTorch), one per
section."""

from itertools import accumulate

from ._arg_errors import require_tensor, type_name
from ._core import Tensor, _check_piece_count, int64

__all__ = ["dsplit", "hsplit", "tensor_split", "vsplit"]


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_OVERFLOW = "Overflow when unpacking long long"


def _bounds(size, indices_or_sections):
    """(start, length) of each section: `n` sections as even as can be (the first ones one longer), or the
    pieces between the given indices (negative ones from the end, all clamped to the dim)."""
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        _check_piece_count(n)  # before any section is built: the core's bound, as chunk's
        base, extra = divmod(size, n)
        lengths = [base + 1 if i < extra else base for i in range(n)]
        starts = [0, *accumulate(lengths[:-1])]
        return list(zip(starts, lengths))

    def clamp(i):
        return min(max(i + size if i < 0 else i, 0), size)

    edges = [0] + [clamp(int(i)) for i in indices_or_sections] + [size]
    return [(a, max(b - a, 0)) for a, b in zip(edges[:-1], edges[1:])]


def _check_args(input, indices_or_sections, dim, name):
    require_tensor(input, name, "input", 1)
    ok = isinstance(indices_or_sections, (int, Tensor)) or (
        isinstance(indices_or_sections, (list, tuple)) and all(isinstance(i, int) for i in indices_or_sections)
    )
    if not ok:
        raise TypeError(
            f"{name}(): argument 'indices_or_sections' must be int, tuple of ints or Tensor, not "
            f"{type_name(indices_or_sections)}"
        )
    if not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type_name(dim)}")
    if isinstance(indices_or_sections, int) and not _INT64_MIN <= indices_or_sections <= _INT64_MAX:
        raise ValueError(_OVERFLOW)
    if isinstance(indices_or_sections, (list, tuple)):
        for pos, i in enumerate(indices_or_sections, 1):
            if not _INT64_MIN <= i <= _INT64_MAX:
                raise TypeError(
                    f"{name}(): argument 'indices' failed to unpack the object at pos {pos} with error \"{_OVERFLOW}\""
                )


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of `input` split along `dim` into `n` near-equal sections or at the given indices."""
    _check_args(input, indices_or_sections, dim, "tensor_split")
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dtype != int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{indices_or_sections.dtype._scalar_type_name}"
            )
        t = indices_or_sections
        if t.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                f"tensor, but got a tensor with {t.dim()} dims"
            )
        indices_or_sections = int(t.item()) if t.dim() == 0 else [int(i) for i in t.tolist()]
    d = dim + input.dim() if dim < 0 else dim
    size = input.shape[d]
    return tuple(input.narrow(d, start, length) for start, length in _bounds(size, indices_or_sections))


def _split_along(input, indices_or_sections, name, dim, min_dims):
    _check_args(input, indices_or_sections, 0, name)
    if input.dim() < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
            f"{input.dim()} dimensions!"
        )
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections != 0:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {size} is "
                f"not divisible by the split_size {indices_or_sections}!"
            )
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 1 (dim 0 for a 1-d tensor); a number of sections must divide the dim."""
    dim = 1 if isinstance(input, Tensor) and input.dim() > 1 else 0
    return _split_along(input, indices_or_sections, "hsplit", dim, 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 0 of a tensor of 2 or more dims."""
    return _split_along(input, indices_or_sections, "vsplit", 0, 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 2 of a tensor of 3 or more dims."""
    return _split_along(input, indices_or_sections, "dsplit", 2, 3)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "tensor_split": lambda self, indices_or_sections, dim=0: tensor_split(self, indices_or_sections, dim),
    "hsplit": lambda self, indices_or_sections: hsplit(self, indices_or_sections),
    "vsplit": lambda self, indices_or_sections: vsplit(self, indices_or_sections),
    "dsplit": lambda self, indices_or_sections: dsplit(self, indices_or_sections),
}
