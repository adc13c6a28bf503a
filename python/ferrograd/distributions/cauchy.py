"""torch.distributions.Cauchy."""

import math

import ferrograd as fg

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy (Lorentz) distribution of median `loc` and half width `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape_of((loc, scale), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return fg.full(self._extended_shape(), fg.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return fg.full(self._extended_shape(), fg.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        eps = fg.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return fg.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return fg.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
