"""Small PyTorch names composed of ops the core has: `is_signed`, `is_nonzero`, `is_same_size`,
`is_floating_point`, `ravel`, `reshape_as`, `select`, `msort`, `rot90` and `split_with_sizes`, as functions
(`ferrograd.select(x, 0, 1)`) and, through `TENSOR_ATTRIBUTES`, as Tensor methods; `fill`, `get_device`,
`is_distributed` and `nonzero_static` as functions; and the method forms of functions defined elsewhere
(`narrow_copy`, the `unsafe_` splits, `prelu`, `pinverse`, `histogram`, `orgqr`)."""

import builtins

from . import _core
from ._arg_errors import require_tensor, type_name
from ._core import Tensor
from .grad_mode import no_grad

__all__ = [
    "fill",
    "get_device",
    "is_distributed",
    "is_floating_point",
    "is_nonzero",
    "is_same_size",
    "is_signed",
    "msort",
    "nonzero_static",
    "ravel",
    "rot90",
    "rsub",
    "select",
    "split_with_sizes",
]


def _tensor(value, name, argument, position):
    require_tensor(value, name, argument, position)


def _wrap_dim(dim, ndim):
    low, high = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def fill(input: Tensor, value) -> Tensor:
    """A tensor of `input`'s shape and dtype with every element `value` (a number or a 0-d tensor): the
    out-of-place `fill_`."""
    _tensor(input, "fill", "input", 1)
    return input._fill(value)


def _write_out(name, out, result):
    from ._write_out import _check_out, write_out

    _check_out(name, out, (result,), {})
    return write_out(name, out, result)


def get_device(input: Tensor) -> builtins.int:
    """The index of the device `input` is on: -1 for the CPU."""
    _tensor(input, "get_device", "input", 1)
    return input.get_device()


def nonzero_static(input: Tensor, *, size: builtins.int, fill_value: builtins.int = -1, out=None) -> Tensor:
    """`nonzero(input)` with exactly `size` rows: the first `size` indices, padded with `fill_value`."""
    _tensor(input, "nonzero_static", "input", 1)
    if isinstance(size, builtins.bool) or not isinstance(size, builtins.int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.argwhere()[:size]  # nonzero(input), typed as one tensor
    missing = size - found.shape[0]
    if missing:
        padding = _core.full((missing, found.shape[1]), fill_value, dtype=found.dtype)
        found = _core.cat([found, padding], 0)
    return found if out is None else _write_out("nonzero_static", out, found)


def is_distributed(input: Tensor) -> builtins.bool:
    """Whether `input` is spread over several processes: never, in ferrograd (nor in torch's dense tensors)."""
    _tensor(input, "is_distributed", "input", 1)
    return False


def is_signed(input: Tensor) -> builtins.bool:
    """True unless the dtype is unsigned (uint8) or bool."""
    _tensor(input, "is_signed", "input", 1)
    return input.dtype.is_signed


def is_floating_point(input: Tensor) -> builtins.bool:
    _tensor(input, "is_floating_point", "input", 1)
    return input.is_floating_point()


def is_nonzero(input: Tensor) -> builtins.bool:
    """Whether the one element of `input` is nonzero (NaN is)."""
    _tensor(input, "is_nonzero", "input", 1)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())


def _is_same_size(input, other, position):
    _tensor(input, "is_same_size", "input", 1)
    _tensor(other, "is_same_size", "other", position)
    return tuple(input.shape) == tuple(other.shape)


def is_same_size(input: Tensor, other: Tensor) -> builtins.bool:
    return _is_same_size(input, other, 2)


def ravel(input: Tensor) -> Tensor:
    """The elements in a 1-d tensor: a view of a contiguous `input`, else a contiguous copy viewed."""
    _tensor(input, "ravel", "input", 1)
    return input.contiguous().view(-1)


def _reshape_as(self, other):
    _tensor(other, "reshape_as", "other", 1)
    return self.reshape(other.shape)


def _select(input, dim, index, position):
    if isinstance(index, Tensor) and index.numel() == 1 and not index.is_floating_point():
        index = index.item()
    for value, argument, at in ((dim, "dim", position), (index, "index", position + 1)):
        if isinstance(value, builtins.bool) or not isinstance(value, builtins.int):
            raise TypeError(f"select(): argument '{argument}' (position {at}) must be int, not {type_name(value)}")
    if input.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.dim())
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    return input[(slice(None),) * d + (index,)]


def select(input: Tensor, dim: builtins.int, index: builtins.int) -> Tensor:
    """The slice of `input` at `index` along `dim`, that dim removed (a view, SelectBackward0)."""
    _tensor(input, "select", "input", 1)
    return _select(input, dim, index, 2)


def msort(input: Tensor) -> Tensor:
    """`input` sorted along dim 0 (its values, SortBackward0)."""
    _tensor(input, "msort", "input", 1)
    return input.sort(dim=0).values


def _rotated(input, k, d0, d1):
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def rot90(input: Tensor, k: builtins.int = 1, dims: "tuple[builtins.int, ...] | list[builtins.int]" = (0, 1)) -> Tensor:
    """`input` rotated by 90° `k` times in the plane of `dims`, from the first towards the second; one
    Rot90Backward0 node (its gradient is the opposite rotation)."""
    _tensor(input, "rot90", "input", 1)
    dims = list(dims)
    n = input.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = _wrap_dim(dims[0], n), _wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if not (input.requires_grad and _core.is_grad_enabled()):
        return _rotated(input, k, d0, d1)
    with no_grad():
        out = _rotated(input.detach(), k, d0, d1)

    def backward(grads, saved):
        return [rot90(grads[0], -k, [d0, d1])]

    return _core._attach_custom([out], [input], backward, "Rot90Backward0", [])[0]


def _sum_to(grad, shape, dtype):
    """`grad` summed over the dims broadcasting added to a tensor of `shape`, in its dtype."""
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad if grad.dtype == dtype else grad.to(dtype)


def rsub(
    input: Tensor, other: "Tensor | builtins.int | builtins.float", alpha: "builtins.int | builtins.float" = 1
) -> Tensor:
    """`other - alpha * input`, as one node: RsubBackward0 for a tensor `other`, RsubBackward1 for a number."""
    _tensor(input, "rsub", "input", 1)
    other_tensor = other if isinstance(other, Tensor) else None
    is_tensor = other_tensor is not None
    floating = input.is_floating_point() or (
        other_tensor.is_floating_point() if other_tensor is not None else isinstance(other, builtins.float)
    )
    if isinstance(alpha, builtins.float) and not floating:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    with no_grad():
        if other_tensor is not None:
            out = other_tensor.sub(input, alpha=alpha)
        else:
            out = (input if alpha == 1 else input.mul(alpha)).__rsub__(other)
    operands = [input] if other_tensor is None else [input, other_tensor]
    tracked = [t for t in operands if t.requires_grad]
    if not (tracked and _core.is_grad_enabled()):
        return out
    shapes = [(tuple(t.shape), t.dtype, t.requires_grad) for t in operands]

    def backward(grads, saved):
        g = grads[0]
        parts = [g.mul(-alpha), g]
        return [_sum_to(p, shape, dtype) for p, (shape, dtype, tracks) in zip(parts, shapes) if tracks]

    name = "RsubBackward0" if is_tensor else "RsubBackward1"
    return _core._attach_custom([out], tracked, backward, name, [])[0]


def _split_with_sizes(input, split_sizes, dim, position):
    if isinstance(split_sizes, Tensor) or not isinstance(split_sizes, (list, tuple)):
        raise TypeError(
            f"split_with_sizes(): argument 'split_sizes' (position {position}) must be tuple of ints, not "
            f"{type_name(split_sizes)}"
        )
    sizes = [builtins.int(s) for s in split_sizes]
    d = _wrap_dim(dim, input.dim())
    if builtins.any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}"
        )
    if builtins.sum(sizes) != input.shape[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input tensor's size at "
            f"dimension {dim}), but got split_sizes={sizes}"
        )
    return input.split(sizes, d)


def split_with_sizes(input: Tensor, split_sizes: "list[builtins.int]", dim: builtins.int = 0) -> "tuple[Tensor, ...]":
    """Views of `input` along `dim` of the given sizes, which must sum to the dim (SplitWithSizesBackward0)."""
    _tensor(input, "split_with_sizes", "input", 1)
    return _split_with_sizes(input, split_sizes, dim, 2)


def _ferrograd():
    import ferrograd  # the package's function forms, looked up when called (after import has finished)

    return ferrograd


def _narrow_copy(self, dim, start, length):
    return _ferrograd().narrow_copy(self, dim, start, length)


def _unsafe_chunk(self, chunks, dim=0):
    return _ferrograd().unsafe_chunk(self, chunks, dim)


def _unsafe_split(self, split_size, dim=0):
    return _ferrograd().unsafe_split(self, split_size, dim)


def _unsafe_split_with_sizes(self, split_sizes, dim=0):
    return _ferrograd().unsafe_split_with_sizes(self, split_sizes, dim)


def _prelu(self, weight):
    return _ferrograd().prelu(self, weight)


def _pinverse(self, rcond=1e-15):
    return _ferrograd().pinverse(self, rcond)


def _histogram(self, bins, *, range=None, weight=None, density=False):
    return _ferrograd().histogram(self, bins, range=range, weight=weight, density=density)


def _orgqr(self, input2):
    return _ferrograd().orgqr(self, input2)


def _nonzero_static(self, *, size, fill_value=-1):
    return nonzero_static(self, size=size, fill_value=fill_value)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "narrow_copy": _narrow_copy,
    "unsafe_chunk": _unsafe_chunk,
    "unsafe_split": _unsafe_split,
    "unsafe_split_with_sizes": _unsafe_split_with_sizes,
    "prelu": _prelu,
    "pinverse": _pinverse,
    "histogram": _histogram,
    "orgqr": _orgqr,
    "nonzero_static": _nonzero_static,
    "is_signed": lambda self: self.dtype.is_signed,
    "is_nonzero": lambda self: is_nonzero(self),
    "is_same_size": lambda self, other: _is_same_size(self, other, 1),
    "ravel": lambda self: ravel(self),
    "reshape_as": _reshape_as,
    "select": lambda self, dim, index: _select(self, dim, index, 1),
    "msort": lambda self: msort(self),
    "rot90": lambda self, k=1, dims=(0, 1): rot90(self, k, dims),
    "split_with_sizes": lambda self, split_sizes, dim=0: _split_with_sizes(self, split_sizes, dim, 1),
}
