"""torch.distributions.Uniform."""

import ferrograd as fg

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution over the half-open interval [low, high)."""

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch_shape_of((low, high), self.low), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return fg.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=()):
        rand = fg.rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low).mul(self.high.gt(value).type_as(self.low))
        return fg.log(inside) - fg.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return fg.log(self.high - self.low)
