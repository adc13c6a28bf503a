"""torch.distributions.Gamma."""

import ferrograd as fg

from . import constraints
from ._standard_gamma import _standard_gamma
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The Gamma distribution of shape `concentration` and inverse scale `rate`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape_of((concentration, rate), self.concentration), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape=(), *, generator=None):
        with fg.no_grad():
            return self.rsample(sample_shape, generator=generator)

    def rsample(self, sample_shape=(), generator=None):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape), generator) / self.rate.expand(shape)
        return value.clamp(min=fg.finfo(value.dtype).tiny)  # a draw of 0 would give log_prob -inf

    def log_prob(self, value):
        value = fg.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            fg.xlogy(self.concentration, self.rate)
            + fg.xlogy(self.concentration - 1, value)
            - self.rate * value
            - fg.lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - fg.log(self.rate)
            + fg.lgamma(self.concentration)
            + (1.0 - self.concentration) * fg.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return fg.lgamma(x + 1) + (x + 1) * fg.log(-y.reciprocal())
