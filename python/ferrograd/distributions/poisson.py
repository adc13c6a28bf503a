"""torch.distributions.Poisson."""

import ferrograd as fg

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution of rate `rate`: P(k) = rate^k exp(-rate) / k!."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape_of((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with fg.no_grad():
            return fg.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (fg.log(self.rate),)

    def _log_normalizer(self, x):
        return fg.exp(x)
