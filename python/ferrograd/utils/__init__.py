"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: datasets,
samplers and the DataLoader)."""

import importlib

from . import hooks

__all__ = ["data", "hooks"]


def __getattr__(name):
    # `utils.data` (with its worker machinery) loads on first use, as `ferrograd.utils.data.DataLoader` or
    # `from ferrograd.utils.data import ...`: it is most of `import ferrograd`'s time otherwise.
    if name == "data":
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
