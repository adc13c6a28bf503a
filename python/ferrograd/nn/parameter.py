"""`nn.Parameter` and `nn.Buffer`: tensors that a Module registers as its parameters or buffers.

Both are subclasses of `ferrograd.Tensor` sharing the storage of the data they are made from; operations on
them return plain tensors.
"""

import copy

from .. import _core
from .._arg_errors import require_tensor
from .._core import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _shared(cls, data, requires_grad):
    """A `cls` instance over `data`'s storage, a leaf with the given `requires_grad`."""
    t = Tensor.__new__(cls)
    t.data = data
    t.requires_grad_(requires_grad)
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as a Module attribute it is registered and returned by
    `parameters()`. `requires_grad` defaults to True."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core.zeros(0)
        require_tensor(data, "Parameter", "data")
        return _shared(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        # as PyTorch: the values and requires_grad, not .grad
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        if self.__dict__:
            result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return result

    def __reduce_ex__(self, protocol):
        return _rebuild_parameter, (type(self), self.data, self.requires_grad, dict(self.__dict__))


def _rebuild_parameter(cls, data, requires_grad, state):
    p = cls(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """A tensor to be registered as a module buffer when assigned as a Module attribute (`persistent=False`
    keeps it out of `state_dict`)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _core.zeros(0)
        require_tensor(data, "Buffer", "data")
        t = _shared(cls, data, data.requires_grad)
        t.persistent = persistent
        return t


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (a lazy module's, before its first input): it holds no
    data until `materialize(shape)` gives it some and makes it a `cls_to_become`."""

    cls_to_become: type

    def materialize(self, shape, device=None, dtype=None):
        """Gives this tensor `shape` (zeros: the layer initialises it next) and makes it a `cls_to_become`."""
        self.data = _core.zeros(shape, dtype=dtype if dtype is not None else self.data.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`."
        )

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether `param` is an `UninitializedParameter` or `UninitializedBuffer`."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A lazy module's parameter before its first input; `materialize` makes it a `Parameter`."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _shared(cls, _core.zeros(0, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, None, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Buffer):
    """A lazy module's buffer before its first input; `materialize` makes it a `Buffer` (a lazy module puts a
    plain tensor in its place instead, as torch's buffers are)."""

    cls_to_become = Buffer

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _shared(cls, _core.zeros(0, dtype=dtype), requires_grad)
        t.persistent = persistent
        return t

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, None, self.data.dtype, self.persistent)
        return memo[id(self)]
