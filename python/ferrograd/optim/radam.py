"""`RAdam`: Adam with its adaptive step rectified by the variance of the adaptive learning rate, and momentum
SGD for the first steps, while that variance is intractable (Liu et al., 2019)."""

from .. import _core
from ._fused import FusedOptimizer, _check_fused_flags, _check_options

__all__ = ["RAdam"]


class RAdam(FusedOptimizer):
    """Like `torch.optim.RAdam`; `decoupled_weight_decay=True` decays as AdamW does."""

    _rule = _core.OptimRule.RAdam
    _group_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "capturable": False,
    }

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
