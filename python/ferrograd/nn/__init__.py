"""`ferrograd.nn`: modules (`nn.Module`, layers, containers, losses), `nn.Parameter`, `nn.functional`,
`nn.init` and `nn.utils`, with PyTorch's names."""

from .._lazy_submodules import lazy_submodules as _lazy_getattr
from . import functional, init, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

# `parallel` is loaded on first use (__getattr__ below)
__all__ = ["functional", "init", "parallel", "utils", "Parameter", "Buffer", *_modules_all]  # noqa: F405

# `parallel` (DistributedDataParallel, which imports ferrograd.distributed) loads on first use
__getattr__ = _lazy_getattr(__name__, frozenset({"parallel"}))
