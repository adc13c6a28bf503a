"""torch.distributions.Exponential."""

import ferrograd as fg

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution of rate `rate` (density rate * exp(-rate * x) on x >= 0)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape_of((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return fg.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        draws = fg.empty(self._extended_shape(sample_shape), dtype=self.rate.dtype).exponential_()
        return draws / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - fg.exp(-self.rate * value)

    def icdf(self, value):
        return -fg.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - fg.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -fg.log(-x)
