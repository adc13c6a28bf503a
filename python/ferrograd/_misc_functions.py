"""Small torch functions composed of ops the core has, as torch composes them (or as its C++ forms do, op for
op): `scalar_tensor`, the deprecated inclusive `range`, `unravel_index`, `combinations`, `can_cast`,
`chain_matmul`, `isreal`, `is_inference`, `is_storage`, `detach_`, the legacy `to_dlpack`, and the process
settings torch exposes that ferrograd keeps in Python (`set_warn_always`, the inter-op thread count)."""

import builtins

from . import _core, _utils
from ._arg_errors import type_name
from ._combine import meshgrid
from ._core import Tensor
from ._write_out import _can_cast, write_out

__all__ = [
    "can_cast",
    "chain_matmul",
    "combinations",
    "detach_",
    "empty_permuted",
    "empty_strided",
    "get_num_interop_threads",
    "init_num_threads",
    "is_inference",
    "is_storage",
    "is_warn_always_enabled",
    "isreal",
    "range",
    "scalar_tensor",
    "set_anomaly_enabled",
    "set_num_interop_threads",
    "set_printoptions",
    "set_warn_always",
    "to_dlpack",
    "unravel_index",
]


def _is_number(value):
    return isinstance(value, (builtins.int, builtins.float, builtins.bool)) or (
        isinstance(value, Tensor) and value.dim() == 0
    )


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False) -> Tensor:
    """A 0-d tensor of `s`, of the default dtype unless `dtype` says otherwise (a bool or int too)."""
    if isinstance(s, builtins.complex):
        raise RuntimeError("value cannot be converted to type float without overflow")
    if not _is_number(s):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type_name(s)}")
    value = s.item() if isinstance(s, Tensor) else s
    dtype = _core.get_default_dtype() if dtype is None else dtype
    return _core.tensor(value, dtype=dtype, requires_grad=requires_grad)


_RANGE_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
    "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end)."
)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """`[start, start + step, ..., end]` with `end` included (deprecated by torch, which warns); the default
    dtype unless `dtype` says otherwise."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    _utils.warn_at_caller(_RANGE_DEPRECATED)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = builtins.int((end - start) / step) + 1
    dtype = _core.get_default_dtype() if dtype is None else dtype
    # computed in float64 then cast, as ATen computes `start + i * step` in the accumulate type
    values = _core.arange(size, dtype=_core.float64) * step + start
    result = values.to(dtype)
    if out is not None:
        return write_out("range", out, result)
    return result.requires_grad_() if requires_grad else result


def unravel_index(indices: Tensor, shape) -> "tuple[Tensor, ...]":
    """The coordinates in an array of `shape` of each flat index of `indices` (one int64 tensor per dim)."""
    if indices.is_floating_point() or indices.dtype == _core.bool:  # (ferrograd has no complex dtypes)
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.int):
        shape = (shape,)
    elif isinstance(shape, (list, tuple)):
        for d in shape:
            if not isinstance(d, builtins.int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        shape = tuple(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not all(d > 0 for d in shape) and indices.numel() != 0:
        raise ValueError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got {shape}")
    coefs = [1] * len(shape)
    for i in builtins.range(len(shape) - 2, -1, -1):
        coefs[i] = coefs[i + 1] * shape[i + 1]
    flat = indices.unsqueeze(-1)
    if indices.numel() == 0:  # (a zero in `shape` would divide by zero; there is nothing to divide)
        return _core.zeros(list(indices.shape) + [len(shape)], dtype=_core.int64).unbind(-1)
    coords = flat.floor_divide(_core.tensor(coefs, dtype=_core.int64)) % _core.tensor(shape, dtype=_core.int64)
    return coords.unbind(-1)


# the r-fold grid of positions combinations picks from (as ATen's meshgrid), at most what memory could index
_MAX_COMBINATION_GRID = 1 << 40
# and the length of a combination (one grid per position: a single element taken r times)
_MAX_COMBINATION_LENGTH = 1 << 16


def combinations(input: Tensor, r: builtins.int = 2, with_replacement: builtins.bool = False) -> Tensor:
    """The length-`r` combinations of the elements of the 1-d `input`, one per row (itertools' order), picked
    by one index (IndexBackward0, as ATen picks them through a mask of the meshgrid)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _core.zeros(0, dtype=input.dtype)
    n = input.shape[0]
    if n == 0 or (r > n and not with_replacement):
        # none to pick: an empty (0, r) selection, whatever r (no r-fold grid is built)
        return input[_core.zeros((0, r), dtype=_core.int64)]
    grid = 1
    for _ in builtins.range(builtins.min(r, 64)):  # n >= 2 passes the bound within 41 steps
        grid *= n
    if grid > _MAX_COMBINATION_GRID or r > _MAX_COMBINATION_LENGTH:
        raise RuntimeError(f"combinations: {n} elements taken {r} at a time need a grid of {n}**{r} index positions")
    grids = meshgrid(*([_core.arange(n)] * r), indexing="ij")
    keep = _core.ones(grids[0].shape, dtype=_core.bool)
    for left, right in zip(grids, grids[1:]):
        keep = keep.logical_and(left <= right if with_replacement else left < right)
    # one gather of the picked indices (IndexBackward0, as ATen's `input[mask]` of the meshgrid)
    picked = _core.stack([g[keep] for g in grids], 1)
    return input[picked]


def can_cast(from_, to) -> builtins.bool:
    """Whether torch's type promotion allows `from_` into `to`: never to a lower kind (float to integer,
    integer to bool), any size within a kind."""
    for value, name, position in ((from_, "from_", 1), (to, "to", 2)):
        if not isinstance(value, _core.dtype):
            raise TypeError(
                f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, not {type_name(value)}"
            )
    return _can_cast(from_, to)


_CHAIN_MATMUL_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
    "instead, which accepts a list of two or more tensors rather than multiple parameters."
)


def chain_matmul(*matrices, out=None) -> Tensor:
    """The product of the 2-d `matrices` (deprecated by torch, which warns); one matrix is returned as a copy."""
    _utils.warn_once_at_caller(_CHAIN_MATMUL_DEPRECATED)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        from .linalg import multi_dot

        result = multi_dot(list(matrices))
    if out is not None:
        return write_out("chain_matmul", out, result)
    return result


def isreal(input: Tensor) -> Tensor:
    """Where the imaginary part is 0: everywhere for a real tensor (NaN too)."""
    if input.is_complex():
        return input.imag == 0
    return _core.ones(input.shape, dtype=_core.bool)


def is_inference(input: Tensor) -> builtins.bool:
    return input.is_inference()


def is_storage(obj) -> builtins.bool:
    """False: ferrograd exposes no storage objects (a tensor is not one)."""
    return False


def detach_(input: Tensor) -> Tensor:
    return input.detach_()


def set_warn_always(b: builtins.bool) -> None:
    """Whether the notices torch gives once per process (`chain_matmul`'s deprecation, `index_reduce`'s beta
    status, ...) are given at every call."""
    _utils.WARN_ALWAYS[0] = builtins.bool(b)


def is_warn_always_enabled() -> builtins.bool:
    return _utils.WARN_ALWAYS[0]


# ferrograd has one pool of threads (`get_num_threads`): ops are not run side by side, so the inter-op count is
# kept only to be reported, as torch reports it
_INTEROP_THREADS = [_core.get_num_threads()]


def get_num_interop_threads() -> builtins.int:
    return _INTEROP_THREADS[0]


def set_num_interop_threads(num: builtins.int) -> None:
    if isinstance(num, builtins.bool) or not isinstance(num, builtins.int):
        raise TypeError(f"set_num_interop_threads(): argument 'int' (position 1) must be int, not {type_name(num)}")
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _INTEROP_THREADS[0] = num


def init_num_threads() -> None:
    """torch propagates its thread settings to a new thread with this; ferrograd's one pool and its count are
    process-wide, so a new thread already has them."""


def set_anomaly_enabled(enabled: builtins.bool, check_nan: builtins.bool = True) -> None:
    """Turns anomaly detection on or off (`autograd.set_detect_anomaly` is the context manager over it)."""
    _core._set_anomaly_enabled(enabled, check_nan)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """How tensors print (torch's options: digits after the point, the element count from which a tensor is
    summarized, the edge items kept then, the line width, scientific notation forced on or off)."""
    from ._tensor_str import set_printoptions as set_options  # the printer loads numpy: on first use

    set_options(precision, threshold, edgeitems, linewidth, profile, sci_mode)


def empty_permuted(
    size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """A tensor of `size` whose memory holds its dims in the order `physical_layout` (outermost first): zeros
    of the permuted sizes, permuted back."""
    size, physical_layout = list(size), list(physical_layout)
    if len(size) != len(physical_layout):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = "
            f"{len(size)} is not equal to len(physical_layout) = {len(physical_layout)}"
        )
    if sorted(physical_layout) != list(builtins.range(len(size))):
        raise RuntimeError(f"physical_layout {physical_layout} is not a permutation of the dims of size {size}")
    dense = _core.zeros([size[d] for d in physical_layout], dtype=dtype)
    inverse = [physical_layout.index(d) for d in builtins.range(len(size))]
    out = dense.permute(inverse)
    return out.requires_grad_() if requires_grad else out


def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """A tensor of `size` laid out at `stride` over a buffer just large enough (zeros: ferrograd gives no
    uninitialized memory)."""
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    for d in size:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {size}")
    extent = 1 + builtins.sum((d - 1) * s for d, s in zip(size, stride)) if all(size) else 0
    buffer = _core.zeros(extent, dtype=_core.get_default_dtype() if dtype is None else dtype)
    out = buffer.as_strided(size, stride, 0)
    return out.requires_grad_() if requires_grad else out


def to_dlpack(tensor) -> object:
    """A DLPack capsule over `tensor`'s memory (the legacy interface: `from_dlpack` takes the tensor itself
    too). Unlike `__dlpack__`, it exports a tensor that requires grad, as torch's does: its data, detached."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {type_name(tensor)}")
    return tensor.detach().__dlpack__()
