"""`RMSprop`: a running average of squared gradients, optionally centered, with optional momentum."""

from .. import _core
from ._fused import FusedOptimizer, _check_fused_flags, _check_options

__all__ = ["RMSprop"]


class RMSprop(FusedOptimizer):
    """Like `torch.optim.RMSprop`."""

    _rule = _core.OptimRule.RmsProp
    _group_defaults = {
        "momentum": 0,
        "centered": False,
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_options(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
