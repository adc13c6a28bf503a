"""Padding: constant, reflect, replicate and circular (the core checks the mode and owns each one's meaning)."""

from ... import _core
from ..._core import Tensor


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pads the last len(pad) // 2 dims (pad lists (before, after) from the last dim backwards); negative
    amounts crop."""
    return _core._pad(input, [int(v) for v in pad], mode, value)
