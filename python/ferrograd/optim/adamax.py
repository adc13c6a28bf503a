"""`Adamax`: Adam with the infinity norm in place of the second moment."""

from .. import zeros_like
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_common,
    _check_fused_flags,
    _check_lr_tensor,
    _steps_as_tensors,
    _zero_step,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Like `torch.optim.Adamax`."""

    _algorithm = "adamax"

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
        _check_lr_tensor(lr)
        _check_common(lr, eps)
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _steps_as_tensors(self)

    def _buffer_names(self, group):
        return ("exp_avg", "exp_inf")

    def _init_state(self, p, group, state):
        if len(state) != 0:
            return False
        state["step"] = _zero_step()
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)
        return True

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()`'s loss if given."""
        return self._step(closure)
