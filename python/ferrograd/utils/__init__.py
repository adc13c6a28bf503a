"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: datasets,
samplers and the DataLoader; `dlpack`: DLPack capsules)."""

from .. import _lazy_submodules
from . import hooks

__all__ = ["data", "dlpack", "hooks"]

# `data` (with its worker machinery: most of `import ferrograd` otherwise) loads on first use
_lazy_submodules.install(globals(), {"data", "dlpack"})
TYPE_CHECKING = False  # True for type checkers only, which see the plain import
if TYPE_CHECKING:
    from . import data, dlpack
