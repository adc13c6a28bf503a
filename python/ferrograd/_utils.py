"""Pickling and deep copies of tensors, as PyTorch's `Tensor.__reduce_ex__` / `__deepcopy__` behave.

`pickle` keeps a tensor's values, dtype, shape and `requires_grad` (a non-leaf comes back as a leaf, as in
PyTorch, and `.grad` is not saved); `copy.deepcopy` also copies `.grad`, goes through the memo (tensors that
were shared stay shared) and refuses non-leaves with PyTorch's message.
"""

import os
import sys

from . import _core
from ._arg_errors import type_name
from ._core import Tensor

# numpy has no bfloat16: such tensors travel as float32, which holds every bfloat16 value exactly
_VIA_FLOAT32 = (_core.bfloat16,)


def _dtype_named(name):
    return getattr(_core, name)


def _reduce_dtype(dtype):
    # by name: `t.dtype` is a new object each time, so pickle's lookup of the global would not find it
    return _dtype_named, (str(dtype).rpartition(".")[2],)


def _values(t):
    """A contiguous numpy copy of `t`'s values (detached), ready to pickle (numpy loads on first use)."""
    import numpy as np

    t = t.detach()
    if t.dtype in _VIA_FLOAT32:
        t = t.float()
    return np.ascontiguousarray(t.numpy()).copy()


def _rebuild_tensor(values, dtype, requires_grad):
    t = _core.from_numpy(values)
    if t.dtype != dtype:
        t = t.to(dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_tensor(t):
    return _rebuild_tensor, (_values(t), t.dtype, t.requires_grad)


def _rebuild_subclass(cls, values, dtype, requires_grad, state):
    """A tensor of subclass `cls` (other than those with their own `__reduce_ex__`, such as Parameter)."""
    t = Tensor.__new__(cls)
    t.data = _rebuild_tensor(values, dtype, False)
    t.requires_grad_(requires_grad)
    if state:
        t.__dict__.update(state)
    return t


def _reduce_ex(self, protocol):
    if type(self) is Tensor:
        return _reduce_tensor(self)
    return _rebuild_subclass, (type(self), _values(self), self.dtype, self.requires_grad, dict(self.__dict__))


_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
    "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
    "see https://github.com/pytorch/pytorch/pull/103001"
)


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(_DEEPCOPY_NON_LEAF)
    if id(self) in memo:
        return memo[id(self)]
    values = self.detach().clone()
    if type(self) is Tensor:
        new = values
    else:
        new = Tensor.__new__(type(self))
        new.data = values
    if self.requires_grad:
        new.requires_grad_(True)
    memo[id(self)] = new
    import copy

    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    if type(self) is not Tensor and self.__dict__:
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


# Installed by `_tensor_python`: on the classes, not through `copyreg` (whose import would be a tenth of
# `import ferrograd`): pickle and copy find them there alike. Subclasses (nn.Buffer, user classes) inherit
# these; nn.Parameter defines its own.
TENSOR_ATTRIBUTES = {"__reduce_ex__": _reduce_ex, "__deepcopy__": _deepcopy}
DTYPE_ATTRIBUTES = {"__reduce__": _reduce_dtype}


def _yields(container, culprit):
    """Whether iterating `container` (a str's characters, a dict's keys) gives an object equal to `culprit`."""
    if not isinstance(container, (str, dict)) or not isinstance(culprit, str):
        return False
    return culprit in container


def as_type_error(error, func, args, kwargs):
    """The TypeError PyTorch raises for a non-tensor argument, for an AttributeError that such an argument
    caused inside `func` (`error.obj` is the object that lacked the attribute); else `error` itself."""
    import inspect

    missing = object()
    # a TypeError made here by an inner entry point is made again in terms of the outermost one's arguments
    culprit = getattr(error, "_culprit" if isinstance(error, TypeError) else "obj", missing)
    if culprit is missing or isinstance(culprit, Tensor):
        return error
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        params = []
    named = list(zip(params, args)) + list(kwargs.items())
    kind = type_name(culprit)
    typed = None
    for pos, (name, value) in enumerate(named, 1):
        # a str is iterated into other str objects (its characters)
        if value is culprit or _yields(value, culprit):
            where = f" (position {pos})" if pos <= len(args) else ""
            typed = TypeError(f"{func.__name__}(): argument '{name}'{where} must be Tensor, not {kind}")
        elif isinstance(value, (list, tuple)) and any(v is culprit for v in value):
            j = next(j for j, v in enumerate(value) if v is culprit)
            typed = TypeError(f"{func.__name__}(): expected Tensor as element {j} in argument '{name}', but got {kind}")
        if typed is not None:
            break
    if typed is None:
        # a value made from an argument (a numpy array's reshape): the one argument of the culprit's type
        alike = [(pos, name) for pos, (name, value) in enumerate(named, 1) if type(value) is type(culprit)]
        if len(alike) == 1:
            pos, name = alike[0]
            where = f" (position {pos})" if pos <= len(args) else ""
            typed = TypeError(f"{func.__name__}(): argument '{name}'{where} must be Tensor, not {kind}")
    # a value derived from a non-tensor first argument (`input` of every functional form)
    first = args[0] if args else None
    fallback = params and first is not None and not isinstance(first, (Tensor, list, tuple, dict, set, range))
    if typed is None and fallback and not isinstance(error, TypeError):
        culprit = first
        typed = TypeError(
            f"{func.__name__}(): argument '{params[0]}' (position 1) must be Tensor, not {type_name(first)}"
        )
    if typed is None:
        return error
    typed.__suppress_context__ = True
    typed._culprit = culprit
    return typed


_WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__")


def wraps(func):
    """`functools.wraps`, for the wrappers made at `import ferrograd`: functools brings `collections` along,
    which was a third of the import. The wrapper takes `func`'s name, doc and annotations, `__wrapped__`
    (which `inspect.signature` follows) and its `__dict__`."""

    def apply(wrapper):
        for attr in _WRAPPER_ASSIGNMENTS:
            try:
                setattr(wrapper, attr, getattr(func, attr))
            except AttributeError:
                pass
        wrapper.__dict__.update(getattr(func, "__dict__", ()))
        wrapper.__wrapped__ = func
        return wrapper

    return apply


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message, category=UserWarning):
    """`warnings.warn` attributed to the first frame outside ferrograd, the user's line as in torch (a fixed
    stacklevel would count `tensor_arguments`' wrapper and Module.__call__, which torch's frames lack)."""
    import warnings

    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


# torch's `set_warn_always`: whether the notices torch's C++ gives once per process are given every time
WARN_ALWAYS = [False]
_WARNED_ONCE: set[str] = set()


def warn_once_at_caller(message, category=UserWarning):
    """`warn_at_caller` the first time `message` is given in this process (torch's TORCH_WARN_ONCE), every
    time under `set_warn_always(True)`."""
    if message in _WARNED_ONCE and not WARN_ALWAYS[0]:
        return
    _WARNED_ONCE.add(message)
    warn_at_caller(message, category)


def tensor_arguments(func):
    """Wraps a Python-level function so that a non-tensor passed where a tensor is used raises PyTorch's
    TypeError instead of an AttributeError from deep inside (free when nothing goes wrong)."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (AttributeError, TypeError) as e:
            typed = as_type_error(e, func, args, kwargs)
            if typed is e:
                raise
            raise typed from None

    return wrapper


# the code of every `tensor_arguments` wrapper (one code object, whatever it wraps)
_WRAPPER_CODE = tensor_arguments(len).__code__


def warn_at_function_caller(message, category=UserWarning):
    """`warnings.warn(message, stacklevel=2)` from a public function, as torch's Python functions warn: at the
    line that called it (a module's `forward` inside ferrograd, or the user's), not at `tensor_arguments`'
    wrapper. So a warning from inside a layer is one line, printed once, as torch's."""
    import warnings

    frame, level = sys._getframe(2), 3
    while frame is not None and frame.f_code is _WRAPPER_CODE:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


_FunctionType = type(tensor_arguments)  # types.FunctionType, without importing `types`


def typed_entry_points(namespace, names):
    """Applies `tensor_arguments` to the functions `names` of a module's `namespace` (its globals()), those
    defined there or in its submodules; the wrapped function reports the module as its home, as torch's do."""
    home = namespace["__name__"]
    for name in names:
        func = namespace.get(name)
        if isinstance(func, _FunctionType) and (func.__module__ == home or func.__module__.startswith(home + ".")):
            wrapped = tensor_arguments(func)
            wrapped.__module__ = home
            namespace[name] = wrapped


def size_given(args, size, name):
    """A factory's shape, given as its positional arguments or as `size=` (torch takes either, not both)."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{name}() received an invalid combination of arguments - got the size twice")
    return (size,)
