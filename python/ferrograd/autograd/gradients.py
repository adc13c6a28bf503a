"""`backward()` and `grad()`: the Python entry points into the engine (`_core._backward`, `_core._grad`)."""

import warnings

from .. import _core
from .._arg_errors import type_name
from .._core import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: `Variable(t)` returns the tensor itself, and every tensor is a `Variable`, as in
    PyTorch."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with ferrograd.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(data)}")
        if requires_grad:
            data.requires_grad_(True)
        return data


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _grads_for(tensors, grads):
    grads = _as_tuple(grads)
    if grads is None:
        return (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(
            f"grad can be implicitly created only for scalar outputs: got {len(tensors)} tensors and {len(grads)} "
            "gradients"
        )
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the `.grad` of the leaves (or only of `inputs`)."""
    tensors = _as_tuple(tensors)
    grads = _grads_for(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    _core._backward(tensors, grads, bool(retain_graph), bool(create_graph), _as_tuple(inputs))


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of `outputs` with respect to `inputs`, as a tuple; `.grad` is left alone."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _grads_for(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    result = _core._grad(outputs, inputs, grads, bool(retain_graph), bool(create_graph), bool(allow_unused))
    if materialize_grads:
        result = tuple(g if g is not None else _core.zeros(*t.shape, dtype=t.dtype) for g, t in zip(result, inputs))
    return result
