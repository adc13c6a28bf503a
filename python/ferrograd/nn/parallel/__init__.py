"""`ferrograd.nn.parallel`: `DistributedDataParallel`, data-parallel training over `ferrograd.distributed`."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
