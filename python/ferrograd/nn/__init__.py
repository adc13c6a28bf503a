"""`ferrograd.nn`: modules (`nn.Module`, layers, containers, losses), `nn.Parameter`, `nn.functional`,
`nn.init` and `nn.utils`, with PyTorch's names."""

from . import functional, init, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", *_modules_all]
