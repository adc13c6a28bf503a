"""`ferrograd.nn`: modules (`nn.Module`, layers, containers, losses), `nn.Parameter`, `nn.functional`,
`nn.init` and `nn.utils`, with PyTorch's names."""

# `.modules.activation` and `.modules.loss` give their names again, from where they are defined: mypy does not
# follow `modules.__all__`'s spread of those two lists through the nn <-> modules import cycle (`nn.ReLU`
# was invisible to it).
from .. import _lazy_submodules
from . import functional, grad, init, modules
from .modules import *  # noqa: F403
from .modules.activation import *  # noqa: F403
from .modules.loss import *  # noqa: F403
from .parameter import Buffer, Parameter

__all__ = ["functional", "grad", "init", "parallel", "utils", "Parameter", "Buffer"]
__all__ += modules.__all__

# on first use: `parallel` (DistributedDataParallel, which imports ferrograd.distributed) and `utils`
_lazy_submodules.install(globals(), {"parallel", "utils"})
TYPE_CHECKING = False  # True for type checkers only, which see the plain import
if TYPE_CHECKING:
    from . import parallel, utils
