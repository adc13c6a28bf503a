"""`Tensor.type()`: the legacy type name of a tensor, or the tensor cast to a dtype or legacy type name.

The names are torch's own ('torch.FloatTensor'): programs compare them as strings
(`x.type() == 'torch.FloatTensor'`), so they are values here rather than reprs.
"""

from . import _core
from ._device import NO_CUDA

_LEGACY_NAMES = {
    _core.float32: "FloatTensor",
    _core.float64: "DoubleTensor",
    _core.float16: "HalfTensor",
    _core.bfloat16: "BFloat16Tensor",
    _core.int64: "LongTensor",
    _core.int32: "IntTensor",
    _core.int16: "ShortTensor",
    _core.int8: "CharTensor",
    _core.uint8: "ByteTensor",
    _core.bool: "BoolTensor",
}
_DTYPE_CLASS = _core.float32.__class__
_DTYPE_OF_NAME = {f"torch.{name}": dtype for dtype, name in _LEGACY_NAMES.items()}


def _dtype_of(dtype):
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise AssertionError(NO_CUDA)
        if dtype not in _DTYPE_OF_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        return _DTYPE_OF_NAME[dtype]
    if isinstance(dtype, _DTYPE_CLASS):
        return dtype
    raise TypeError("dtype must be a type, str, or dtype object")


def type(self, dtype=None, non_blocking=False, **kwargs):  # torch's method name
    """With no dtype, the name ('torch.FloatTensor'); else the tensor cast to it (itself when it already is)."""
    if dtype is None:
        return "torch." + _LEGACY_NAMES[self.dtype]
    target = _dtype_of(dtype)
    return self if target == self.dtype else self.to(target)


def install(tensor_class):
    tensor_class.type = type
