"""torch.distributions.HalfNormal."""

import math

from ._half import _Half
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_Half):
    """|X| for X ~ Normal(0, scale)."""

    _BASE = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
