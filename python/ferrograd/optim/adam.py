"""`Adam` (with amsgrad and optional decoupled weight decay)."""

from .. import zeros_like
from .._core import Tensor
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_common,
    _check_fused_flags,
    _steps_as_tensors,
    _zero_step,
)

__all__ = ["Adam"]


def _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable):
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    _check_common(lr, eps)
    _check_betas(betas)
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if not (
        (isinstance(betas[0], float) and isinstance(betas[1], float))
        or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
    ):
        raise ValueError("betas must be either both floats or both Tensors")


class Adam(Optimizer):
    """Like `torch.optim.Adam`; `decoupled_weight_decay=True` makes it AdamW."""

    _algorithm = "adam"

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
        _steps_as_tensors(self)

    def _buffer_names(self, group):
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")

    def _init_state(self, p, group, state):
        if len(state) != 0:
            return False
        state["step"] = _zero_step(group)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)
        return True

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns `closure()`'s loss if given."""
        return self._step(closure)
