"""`asarray` and `frombuffer`: tensors over memory that already exists. `asarray` returns a tensor itself, and
a numpy array's memory through `from_numpy`, when the dtype allows and `copy` does not ask otherwise (torch's
rules: `copy=False` where aliasing is impossible raises); `frombuffer` reads a Python buffer (bytes, bytearray,
array.array, mmap, ...) in place."""

import builtins

from . import _core, _device
from ._core import Tensor
from ._write_out import _name

__all__ = ["asarray", "frombuffer"]


def _numpy_dtype(dtype):
    import numpy as np

    if dtype == _core.bfloat16:
        raise TypeError("frombuffer: bfloat16 has no numpy dtype to read the buffer with")
    return np.dtype("bool" if dtype == _core.bool else str(dtype).rpartition(".")[2])


def _alias_error(source, target):
    return ValueError(f"can't alias tensor with dtype '{_name(source)}' into dtype '{_name(target)}'.")


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    """`obj` as a tensor: a tensor itself (cast or copied only where `dtype` or `copy=True` asks), a numpy array
    sharing its memory, else new data (as `tensor(obj)`)."""
    _device.check_optional(device)
    if dtype is not None and not isinstance(dtype, _core.dtype):
        raise TypeError(f"asarray(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if isinstance(obj, Tensor):
        result = _from_existing(obj, dtype, copy)
    elif type(obj).__module__ == "numpy" and hasattr(obj, "__array_interface__") and getattr(obj, "ndim", 0) > 0:
        result = _from_existing(_core.from_numpy(obj), dtype, copy)
    else:
        if copy is False and not isinstance(obj, (builtins.int, builtins.float, builtins.bool, list, tuple)):
            raise ValueError(f"can't alias {type(obj).__name__} without copying it")
        result = _core.tensor(obj, dtype=dtype)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _from_existing(aliased, dtype, copy):
    """`aliased` (a tensor, or one over a numpy array's memory), cast or copied where `dtype` or `copy` asks."""
    if dtype is not None and dtype != aliased.dtype:
        if copy is False:
            raise _alias_error(aliased.dtype, dtype)
        return aliased.to(dtype)
    return aliased.clone() if copy else aliased


_NOT_WRITABLE = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can write "
    "to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the buffer to protect "
    "its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the "
    "rest of this program."
)
_WARNED_NOT_WRITABLE = [False]


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-D tensor of `dtype` over `buffer`'s bytes from `offset`: `count` elements, or all that remain (-1).
    It shares the buffer's memory."""
    import numpy as np

    view = memoryview(buffer)
    length = view.nbytes
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} bytes) minus 1"
        )
    size = _core.tensor([], dtype=dtype).element_size()
    if count < 0:
        if (length - offset) % size != 0:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple of element "
                f"size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be greater than "
            f"actual buffer length ({length} bytes)"
        )
    if view.readonly and not _WARNED_NOT_WRITABLE[0]:
        _WARNED_NOT_WRITABLE[0] = True
        import warnings  # loaded when first needed (not at `import ferrograd`)

        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    array = np.frombuffer(buffer, dtype=_numpy_dtype(dtype), count=count, offset=offset)
    result = _core.from_numpy(array)
    return result.requires_grad_(True) if requires_grad else result
