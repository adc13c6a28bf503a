"""The common part of HalfNormal and HalfCauchy: |X| of a centred symmetric distribution."""

import math

import ferrograd as fg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

_LOG_2 = math.log(2)


class _Half(TransformedDistribution):
    """|X| for X of a distribution symmetric about 0: twice its density on x >= 0."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _BASE: type  # the symmetric distribution (a class taking loc and scale)

    def __init__(self, scale, validate_args=None):
        super().__init__(self._BASE(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return fg.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = fg.as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + _LOG_2
        return fg.where(value >= 0, log_prob, -fg.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - _LOG_2
