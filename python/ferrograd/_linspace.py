"""The values of `linspace` (and of `histogram`'s equal bins), apart from the package so that both can use them."""

from ._core import arange, float64, full, where


def linspace_values(start, end, steps):
    """float64 values by PyTorch's symmetric formula: the first half counts up from start, the second down
    from end (a size the machine cannot hold is refused by `arange` before any loop)."""
    i = arange(steps, dtype=float64)
    if steps == 1:
        return full((1,), start, dtype=float64)
    step = (end - start) / (steps - 1)
    return where(i < steps // 2, i * step + start, end - ((steps - 1) - i) * step)
