"""Distances between batches of vectors (`pdist` is the core's `ferrograd.pdist`)."""

import numbers

from ... import _core
from ..._arg_errors import type_name
from ..._core import Tensor
from ..._core import pdist as pdist  # torch.nn.functional.pdist is torch.pdist
from ...grad_mode import no_grad


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """‖x1 - x2 + eps‖_p over the last dim (broadcasting)."""
    if not isinstance(eps, numbers.Real):
        raise TypeError(f"pairwise_distance(): argument 'eps' must be float, not {type_name(eps)}")
    last = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, last if last >= 0 else None, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ (x1 / max(‖x1‖, eps)) · (x2 / max(‖x2‖, eps)) over `dim` (broadcasting). As in PyTorch, the eps floor
    is applied without autograd, so the gradient still flows through the norms."""
    if x1.dim() == 0 or x2.dim() == 0:
        x1, x2 = x1.reshape(1) if x1.dim() == 0 else x1, x2.reshape(1) if x2.dim() == 0 else x2
    shape = (_core.zeros(x1.shape, dtype=_core.bool) + _core.zeros(x2.shape, dtype=_core.bool)).shape
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(2, dim, True).clone()
    n2 = x2.norm(2, dim, True).clone()
    with no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
