"""`Tensor.type()`: the legacy type name of a tensor, or the tensor cast to a dtype or legacy type name.

The names are torch's own ('torch.FloatTensor'): programs compare them as strings
(`x.type() == 'torch.FloatTensor'`), so they are values here rather than reprs.
"""

import builtins

from . import _core
from ._device import NO_CUDA

_DTYPE_CLASS = _core.float32.__class__
_DTYPES = (
    _core.float32, _core.float64, _core.float16, _core.bfloat16, _core.int64, _core.int32, _core.int16, _core.int8,
    _core.uint8, _core.bool,
)  # fmt: skip
_DTYPE_OF_NAME = {f"torch.{dtype._legacy_name}": dtype for dtype in _DTYPES}


def _dtype_of(dtype):
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise AssertionError(NO_CUDA)
        if dtype not in _DTYPE_OF_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        return _DTYPE_OF_NAME[dtype]
    if isinstance(dtype, _DTYPE_CLASS):
        return dtype
    if isinstance(dtype, builtins.type) and isinstance(getattr(dtype, "dtype", None), _DTYPE_CLASS):
        return dtype.dtype  # a legacy tensor type (`x.type(ferrograd.IntTensor)`)
    raise TypeError("dtype must be a type, str, or dtype object")


def type(self, dtype=None, non_blocking=False, **kwargs):  # torch's method name
    """With no dtype, the name ('torch.FloatTensor'); else the tensor cast to it (itself when it already is)."""
    if dtype is None:
        return "torch." + self.dtype._legacy_name
    target = _dtype_of(dtype)
    return self if target == self.dtype else self.to(target)


def typename(obj):
    """`torch.typename`: a tensor's legacy type name ('ferrograd.FloatTensor'), else the object's module-qualified
    name (a class's own, or its type's for an instance)."""
    if isinstance(obj, _core.Tensor):
        return "ferrograd." + obj.dtype._legacy_name
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = builtins.type(obj).__module__ or "", builtins.type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# installed on `Tensor` by `_tensor_python`
TENSOR_ATTRIBUTES = {"type": type}
