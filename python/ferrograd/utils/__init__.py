"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks)."""

from . import hooks

__all__ = ["hooks"]
