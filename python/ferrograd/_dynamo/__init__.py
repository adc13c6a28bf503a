"""`torch._dynamo`, the parts programs touch: `config` (its flags kept, e.g. `suppress_errors`), `reset()`,
`is_compiling()`, `list_backends()`, `OptimizedModule`. ferrograd has no graph compiler yet (issue 27):
`ferrograd.compile` checks torch's arguments and runs the model eagerly."""

from . import config
from .eval_frame import OptimizedModule, list_backends

__all__ = ["OptimizedModule", "config", "is_compiling", "list_backends", "reset"]


def reset():
    """Forgets compiled code: there is none to forget."""


def is_compiling():
    """False: nothing is ever being traced."""
    return False
