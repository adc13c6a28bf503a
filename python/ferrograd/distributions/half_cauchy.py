"""torch.distributions.HalfCauchy."""

import math

import ferrograd as fg

from ._half import _Half
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_Half):
    """|X| for X ~ Cauchy(0, scale)."""

    _BASE = Cauchy

    @property
    def mean(self):
        return fg.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
