"""torch's legacy typed tensor classes (`FloatTensor`, `IntTensor`, ...): calling one makes a tensor of its
dtype (from data, sizes, a `Size` or a tensor of that dtype), `isinstance` asks for that dtype, `x.type(cls)`
casts to it; and the deprecated `set_default_tensor_type`. The classes are made from `_type`'s dtype list, whose
legacy names (`dtype._legacy_name`) are also `x.type()`'s."""

import builtins

from . import _core
from ._core import Tensor
from ._size import Size
from ._type import _DTYPES
from ._write_out import _name

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "set_default_tensor_type",
]


def _options(dtype):
    return (
        f"TensorOptions(dtype={_name(dtype, True)}, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))"
    )


class tensortype(type):
    """The class of the legacy tensor types (torch's `torch.tensortype`): its instances are tensors of its dtype."""

    dtype: _core.dtype
    is_cuda = False
    is_sparse = False

    def __instancecheck__(cls, obj) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != cls.dtype:
                raise TypeError(f"expected {_options(cls.dtype)} (got {_options(args[0].dtype)})")
            return args[0]
        if not args:
            return _core.zeros(0, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], Size):
            args = tuple(args[0])
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            return _core.tensor(args[0], dtype=cls.dtype)
        return Tensor(*args).to(cls.dtype)


def _legacy_class(dtype):
    name = dtype._legacy_name
    doc = f"Legacy constructor of {dtype} tensors: from data, from sizes (uninitialised), or a tensor of that dtype."
    return tensortype(name, (), {"dtype": dtype, "__module__": "ferrograd", "__doc__": doc})


_CLASSES = {dtype._legacy_name: _legacy_class(dtype) for dtype in _DTYPES}
BFloat16Tensor = _CLASSES["BFloat16Tensor"]
BoolTensor = _CLASSES["BoolTensor"]
ByteTensor = _CLASSES["ByteTensor"]
CharTensor = _CLASSES["CharTensor"]
DoubleTensor = _CLASSES["DoubleTensor"]
FloatTensor = _CLASSES["FloatTensor"]
HalfTensor = _CLASSES["HalfTensor"]
IntTensor = _CLASSES["IntTensor"]
LongTensor = _CLASSES["LongTensor"]
ShortTensor = _CLASSES["ShortTensor"]

_NOT_FLOAT = "only floating-point types are supported as the default type"


def _look_up_dotted(name):
    """What torch's `_import_dotted_name` raises for a name that is no legacy tensor type."""
    import importlib  # loaded when first needed

    first, *rest = name.split(".")
    # `torch.` names this package, as a program written for torch means
    found = importlib.import_module("ferrograd" if first == "torch" else first)
    where = first
    for part in rest:
        if not hasattr(found, part):
            raise AttributeError(f"module '{where}' has no attribute '{part}'")
        found, where = getattr(found, part), f"{where}.{part}"


def set_default_tensor_type(t) -> None:
    """Deprecated (torch 2.1): the default dtype from a legacy type or its name ('torch.DoubleTensor')."""
    import warnings  # loaded when first needed (not at `import ferrograd`)

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and "
        "torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        name = t.removeprefix("torch.")
        if name not in _CLASSES:
            # torch imports a dotted name's first part and looks the rest up in it (ModuleNotFoundError,
            # AttributeError, as torch's); a bare one ('cuda') is no type
            if "." in t:
                _look_up_dotted(t)
            raise TypeError("invalid type object: " + _NOT_FLOAT)
        t = _CLASSES[name]
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: " + _NOT_FLOAT)
    if not t.dtype.is_floating_point:
        raise TypeError(_NOT_FLOAT)
    _core.set_default_dtype(t.dtype)
