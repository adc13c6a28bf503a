"""`ferrograd.nn.parallel`: `DistributedDataParallel`, data-parallel training over `ferrograd.distributed`, and
`DataParallel` (the module as it is, on the CPU)."""

from ..modules.data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
