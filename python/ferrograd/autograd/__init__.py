"""`ferrograd.autograd`: the graph is built and walked in Rust; this module is its Python face."""

from .. import _lazy_submodules
from ..grad_mode import enable_grad, no_grad, set_grad_enabled
from . import forward_ad, functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import Variable, backward, grad

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "Variable",
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "forward_ad",
    "functional",
    "graph",
]

# `ferrograd.autograd.profiler` loads when first used
_lazy_submodules.install(globals(), {"profiler"})
