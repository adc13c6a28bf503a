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
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "functional",
    "grad",
    "init",
    "parallel",
    "utils",
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    "factory_kwargs",
]
__all__ += modules.__all__

# on first use: `parallel` (DistributedDataParallel, which imports ferrograd.distributed), `utils` and `attention`
_lazy_submodules.install(globals(), {"attention", "parallel", "utils"})
TYPE_CHECKING = False  # True for type checkers only, which see the plain import
if TYPE_CHECKING:
    from . import attention, parallel, utils


def factory_kwargs(kwargs):
    """torch's helper for modules taking factory keywords: `device`, `dtype` and `memory_format` from `kwargs`
    (or its `factory_kwargs` entry) as one dict, refusing any other key."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    found = dict(kwargs.get("factory_kwargs", {}))
    for key in simple_keys:
        if key in kwargs:
            if key in found:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            found[key] = kwargs[key]
    return found
