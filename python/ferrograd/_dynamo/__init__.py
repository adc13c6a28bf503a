"""`torch._dynamo`, the parts programs touch: `config` (its flags kept, e.g. `suppress_errors`), `reset()`,
`is_compiling()`, `explain()`, `list_backends()`, `OptimizedModule`. The capture itself is `capture.py`'s, the
graph the core's (`ferrograd.compile`, docs/ARCHITECTURE.md "Capture and fusion")."""

from . import config, exc
from .eval_frame import OptimizedModule, list_backends
from .explain import ExplainOutput, GraphCompileReason, explain

__all__ = [
    "ExplainOutput",
    "GraphCompileReason",
    "OptimizedModule",
    "config",
    "exc",
    "explain",
    "is_compiling",
    "list_backends",
    "reset",
]


def reset():
    """Forgets every captured graph and eager marker: the next call of each compiled function captures again."""
    from .capture import LIVE

    for compiled in list(LIVE):
        compiled.cache.clear()
        compiled.warned = False
        compiled.break_reason = None


def is_compiling():
    """Whether a `compile` capture is running on this thread."""
    from .. import _core

    return _core._is_capturing()
