"""`zero_grad()` inside a compiled step, shared by `Module.zero_grad` and `Optimizer.zero_grad`: a write of `.grad`
that a replay must repeat, so it is a node of its own (`_core._capture_effect`) that calls the owner's
`_zero_grad_to_none` or `_zero_grad_to_zeros` again."""

from . import _core


def captured(owner, params, set_to_none):
    """While a capture runs, records `owner`'s zero_grad over `params` (and runs it now); False when none runs."""
    if not _core._is_capturing():
        return False
    method = "_zero_grad_to_none" if set_to_none else "_zero_grad_to_zeros"
    _core._capture_effect("zero_grad", list(params), owner, method)
    return True
