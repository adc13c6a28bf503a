"""`RMSprop`: a running average of squared gradients, optionally centered, with optional momentum."""

from .. import zeros_like
from .optimizer import Optimizer, _check_fused_flags, _check_lr_tensor, _steps_as_tensors, _zero_step

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Like `torch.optim.RMSprop`."""

    _algorithm = "rmsprop"

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
        _check_lr_tensor(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _steps_as_tensors(self)

    def _buffer_names(self, group):
        names = ["square_avg"]
        if group["momentum"] > 0:
            names.append("momentum_buffer")
        if group["centered"]:
            names.append("grad_avg")
        return names

    def _init_state(self, p, group, state):
        if len(state) != 0:
            return False
        state["step"] = _zero_step()
        state["square_avg"] = zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)
        return True

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()`'s loss if given."""
        return self._step(closure)
