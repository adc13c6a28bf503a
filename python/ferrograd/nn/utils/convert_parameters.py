"""`parameters_to_vector` and `vector_to_parameters`: all parameters as one flat vector, and back."""

from ... import _core
from ..._core import Tensor
from ..._utils import typed_entry_points as _typed_entry_points

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _tensors(parameters, func):
    params = list(parameters)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{func}(): expected an iterable of Tensors, but got an element of type {type(p).__name__}")
    return params


def parameters_to_vector(parameters):
    """The parameters' values concatenated into one 1-D tensor (differentiable)."""
    return _core.cat([p.reshape(-1) for p in _tensors(parameters, "parameters_to_vector")])


def vector_to_parameters(vec, parameters):
    """Makes each parameter's data the next numel() entries of `vec` (views of `vec`); every view is made
    before any parameter changes, so a size mismatch leaves them all as they were."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = _tensors(parameters, "vector_to_parameters")
    views, pointer = [], 0
    for param in params:
        n = param.numel()
        views.append(vec[pointer : pointer + n].view_as(param).data)
        pointer += n
    for param, view in zip(params, views):
        param.data = view


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), [n for n in list(globals()) if not n.startswith("_")])
