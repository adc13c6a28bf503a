"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: datasets,
samplers and the DataLoader)."""

from .._lazy_submodules import lazy_submodules as _lazy_getattr
from . import hooks

__all__ = ["data", "hooks"]

# `data` (with its worker machinery: most of `import ferrograd` otherwise) loads on first use
__getattr__ = _lazy_getattr(__name__, frozenset({"data"}))
