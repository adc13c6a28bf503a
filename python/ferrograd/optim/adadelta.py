"""`Adadelta`: each element's step from the ratio of two running averages, of squared updates and of squared
gradients (Zeiler, 2012)."""

from .. import _core
from ._fused import FusedOptimizer, _check_fused_flags, _check_options

__all__ = ["Adadelta"]


class Adadelta(FusedOptimizer):
    """Like `torch.optim.Adadelta`."""

    _rule = _core.OptimRule.Adadelta
    _group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _check_options(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_options(eps=eps, weight_decay=weight_decay)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
