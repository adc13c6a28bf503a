"""`Adam` (with amsgrad and optional decoupled weight decay)."""

from .. import _core
from .._core import Tensor
from ._fused import (
    FusedOptimizer,
    _check_fused_flags,
    _check_options,
)

__all__ = ["Adam"]


def _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable):
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
    if not (
        (isinstance(betas[0], float) and isinstance(betas[1], float))
        or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
    ):
        raise ValueError("betas must be either both floats or both Tensors")


class Adam(FusedOptimizer):
    """Like `torch.optim.Adam`; `decoupled_weight_decay=True` makes it AdamW."""

    _rule = _core.OptimRule.Adam
    _group_defaults = {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "fused": None,
    }

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        _check_fused_flags(fused, foreach, differentiable)
