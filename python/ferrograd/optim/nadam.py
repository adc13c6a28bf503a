"""`NAdam`: Adam with Nesterov momentum and a momentum-decay schedule."""

from .. import _core
from ._fused import (
    FusedOptimizer,
    _check_fused_flags,
    _check_options,
)

__all__ = ["NAdam"]


class NAdam(FusedOptimizer):
    """Like `torch.optim.NAdam`; `decoupled_weight_decay=True` decays as AdamW does."""

    _rule = _core.OptimRule.NAdam
    _group_defaults = {
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
    }

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
