"""`ferrograd.nn`: modules (`nn.Module`, layers, containers, losses), `nn.Parameter`, `nn.functional`,
`nn.init` and `nn.utils`, with PyTorch's names."""

from . import functional, init, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

# `parallel` is loaded on first use (__getattr__ below)
__all__ = ["functional", "init", "parallel", "utils", "Parameter", "Buffer", *_modules_all]  # noqa: F405


def __getattr__(name):
    # `nn.parallel` (DistributedDataParallel) imports ferrograd.distributed: loaded on first use.
    if name == "parallel":
        import importlib

        return importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
