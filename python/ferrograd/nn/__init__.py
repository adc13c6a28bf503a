"""`ferrograd.nn`: modules (`nn.Module`, layers, containers, losses), `nn.Parameter`, `nn.functional`,
`nn.init` and `nn.utils`, with PyTorch's names."""

from .. import _lazy_submodules
from . import functional, init
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["functional", "init", "parallel", "utils", "Parameter", "Buffer", *_modules_all]  # noqa: F405

# on first use: `parallel` (DistributedDataParallel, which imports ferrograd.distributed) and `utils`
_lazy_submodules.install(globals(), {"parallel", "utils"})
