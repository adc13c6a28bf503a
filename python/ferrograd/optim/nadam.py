"""`NAdam`: Adam with Nesterov momentum and a momentum-decay schedule."""

from .. import _core, zeros_like
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_common,
    _check_fused_flags,
    _check_lr_tensor,
    _default_scalar_dtype,
    _steps_as_tensors,
    _zero_step,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Like `torch.optim.NAdam`; `decoupled_weight_decay=True` decays as AdamW does."""

    _algorithm = "nadam"
    _counter_names = ("step", "mu_product")

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
        _check_lr_tensor(lr)
        _check_common(lr, eps)
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        _steps_as_tensors(self, extra=("mu_product",))

    def _buffer_names(self, group):
        return ("exp_avg", "exp_avg_sq")

    def _init_state(self, p, group, state):
        if len(state) != 0:
            return False
        state["step"] = _zero_step()
        state["mu_product"] = _core.tensor(1.0, dtype=_default_scalar_dtype())
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)
        return True

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()`'s loss if given."""
        return self._step(closure)
