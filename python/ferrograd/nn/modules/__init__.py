"""The layer classes of `ferrograd.nn`, one file per family as in PyTorch."""

from .module import Module

__all__ = ["Module"]
