"""`torch.multiprocessing`: the standard library's `multiprocessing`, whose names it re-exports, with reducers that
send a tensor to another process over shared memory (`reductions`), and torch's `spawn` / `start_processes`.

A tensor put on a `Queue` or passed to a `spawn`/`forkserver` child is moved to shared memory if it is not there
yet (`Tensor.share_memory_`), and the receiver maps the same memory: writes on either side are seen by the other.
With the `fork` start method (Linux's default) a child inherits shared mappings as they are, so a model whose
`share_memory()` was called before the fork is trained in place by every child (Hogwild).
"""

import multiprocessing
from multiprocessing import *  # noqa: F403 (torch re-exports the standard library's names)

from .reductions import init_reductions
from .spawn import (
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

# torch's two strategies: both are accepted; ferrograd always sends the shared file's descriptor
_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors ("file_descriptor" or "file_system")."""
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies, (
        f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
    )
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The strategies for sharing CPU tensors this system supports."""
    return _all_sharing_strategies


init_reductions()
