"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: data
loading)."""

from . import data, hooks

__all__ = ["data", "hooks"]
