"""`Adagrad`: per-element learning rates from the sum of squared gradients."""

from .. import full_like
from .optimizer import Optimizer, _check_fused_flags, _check_lr_tensor, _steps_as_tensors, _zero_step

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Like `torch.optim.Adagrad`: the state of the constructor's parameters is made at once."""

    _algorithm = "adagrad"

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
        _check_lr_tensor(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
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
                state = self.state[p]
                state["step"] = _zero_step(group)
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        _steps_as_tensors(self)

    def _buffer_names(self, group):
        return ("sum",)

    def _init_state(self, p, group, state):
        # parameters added after the constructor start here, from the constructor's accumulator value
        if len(state) != 0:
            return False
        state["step"] = _zero_step(group)
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
        return True

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()`'s loss if given."""
        return self._step(closure)
