"""`ASGD`: averaged stochastic gradient descent, a decaying step size and, from step `t0`, a running average of
the parameters kept in the state (`ax`)."""

from .. import _core
from ._fused import FusedOptimizer, _check_fused_flags, _check_options, _default_scalar_dtype

__all__ = ["ASGD"]


class ASGD(FusedOptimizer):
    """Like `torch.optim.ASGD`."""

    _rule = _core.OptimRule.Asgd
    _group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_options(lr=lr, lambd=lambd, alpha=alpha, weight_decay=weight_decay)
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p, group, state):
        fresh = super()._init_state(p, group, state)
        if fresh:  # the step size starts at the group's learning rate
            state["eta"] = _core.tensor(float(group["lr"]), dtype=_default_scalar_dtype())
        return fresh
