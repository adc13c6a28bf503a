"""`nn.Parameter` and `nn.Buffer`: tensors that a Module registers as its parameters or buffers.

Both are subclasses of `ferrograd.Tensor` sharing the storage of the data they are made from; operations on
them return plain tensors.
"""

import copy

from .. import _core
from .._arg_errors import require_tensor
from .._core import Tensor

__all__ = ["Parameter", "Buffer"]


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
