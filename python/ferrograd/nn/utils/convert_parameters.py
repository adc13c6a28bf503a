"""`parameters_to_vector` and `vector_to_parameters`: all parameters as one flat vector, and back."""

from ... import _core
from ..._core import Tensor
from ..._utils import typed_entry_points as _typed_entry_points

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters' values concatenated into one 1-D tensor (differentiable)."""
    return _core.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Makes each parameter's data the next numel() entries of `vec` (views of `vec`)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), [n for n in list(globals()) if not n.startswith("_")])
