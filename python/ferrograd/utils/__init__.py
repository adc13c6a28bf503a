"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: datasets,
samplers and the DataLoader)."""

from . import data, hooks

__all__ = ["data", "hooks"]
