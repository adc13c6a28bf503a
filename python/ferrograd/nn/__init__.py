"""`ferrograd.nn`: so far only the functional building blocks (`ferrograd.nn.functional`)."""

from . import functional

__all__ = ["functional"]
