"""Argument normalisers shared by the layer modules and `nn.functional` (torch.nn.modules.utils' names)."""

import collections.abc
from itertools import repeat


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: a per-dim value as F.pad's (last dim first) pairs."""
    return tuple(x for x in reversed(t) for _ in range(n))
