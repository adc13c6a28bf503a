"""`torch._dynamo`, the parts programs touch: `config` (its flags kept, e.g. `suppress_errors`), `reset()`,
`is_compiling()`, `list_backends()`, `OptimizedModule`. ferrograd has no graph compiler yet (issue 27):
`ferrograd.compile` checks torch's arguments and runs the model eagerly."""

from . import config, exc
from .eval_frame import OptimizedModule, list_backends

__all__ = ["OptimizedModule", "config", "exc", "is_compiling", "list_backends", "reset"]


def reset():
    """Forgets compiled code: there is none to forget."""


def is_compiling():
    """Whether a `compile` capture is running on this thread."""
    from .. import _core

    return _core._is_capturing()
