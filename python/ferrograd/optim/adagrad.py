"""`Adagrad`: per-element learning rates from the sum of squared gradients."""

from .. import _core, full_like
from ._fused import FusedOptimizer, _check_fused_flags, _check_options

__all__ = ["Adagrad"]


class Adagrad(FusedOptimizer):
    """Like `torch.optim.Adagrad`: the state of the constructor's parameters is made at once."""

    _rule = _core.OptimRule.Adagrad
    _group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        _check_options(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        _check_fused_flags(fused, foreach, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, self.state[p])

    def _initial_buffer(self, p, name, group):
        # also for parameters added after the constructor: the constructor's accumulator value
        return full_like(p, self.defaults["initial_accumulator_value"])
