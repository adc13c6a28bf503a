"""`Adamax`: Adam with the infinity norm in place of the second moment."""

from .. import _core
from ._fused import (
    FusedOptimizer,
    _check_fused_flags,
    _check_options,
)

__all__ = ["Adamax"]


class Adamax(FusedOptimizer):
    """Like `torch.optim.Adamax`."""

    _rule = _core.OptimRule.Adamax
    _group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)
