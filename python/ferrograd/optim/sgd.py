"""`SGD`: stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay."""

from .. import _core, zeros_like
from ._fused import FusedOptimizer, _check_fused_flags, _check_lr_tensor

__all__ = ["SGD"]


class SGD(FusedOptimizer):
    """Like `torch.optim.SGD`. With momentum, the buffer starts as the first step's gradient."""

    _rule = _core.OptimRule.Sgd
    _group_defaults = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False, "fused": False}

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        _check_lr_tensor(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_fused_flags(fused, foreach, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, group, state):
        if group["momentum"] == 0 or state.get("momentum_buffer") is not None:
            return False
        state["momentum_buffer"] = zeros_like(p)
        return True
