"""`Rprop`: resilient backpropagation, a step size per element grown while its gradient keeps its sign and
shrunk when the sign flips; only the gradient's sign is used."""

from .. import _core, full_like, zeros_like
from ._fused import FusedOptimizer, _check_fused_flags, _check_options

__all__ = ["Rprop"]


class Rprop(FusedOptimizer):
    """Like `torch.optim.Rprop`."""

    _rule = _core.OptimRule.Rprop
    _group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_options(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_fused_flags(None, foreach, differentiable)
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _initial_buffer(self, p, name, group):
        # every element's first step size is the group's learning rate
        return full_like(p, float(group["lr"])) if name == "step_size" else zeros_like(p)
