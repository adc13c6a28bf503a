"""`ferrograd.autograd`: the graph is built and walked in Rust; this module is its Python face."""
import warnings

from .._core import Tensor
from ..grad_mode import enable_grad, no_grad, set_grad_enabled

__all__ = ["Variable", "backward", "no_grad", "enable_grad", "set_grad_enabled"]


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper: today it returns the tensor itself, as PyTorch's does."""
    if volatile:
        warnings.warn("volatile was removed and now has no effect. Use `with ferrograd.no_grad():` instead.", UserWarning, stacklevel=2)
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if requires_grad:
        data.requires_grad_(True)
    return data


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """`ferrograd.autograd.backward`: backward from each tensor with its gradient."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors] * len(tensors) if grad_tensors is None else [grad_tensors]
    for t, g in zip(tensors, grad_tensors):
        t.backward(g, retain_graph=True if len(tensors) > 1 else retain_graph, create_graph=create_graph)
