"""torch.distributions.GeneralizedPareto."""

import math

import ferrograd as fg

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of location `loc`, scale `scale` and shape `concentration` (an
    exponential at concentration 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(_batch_shape_of((loc, scale, concentration), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def rsample(self, sample_shape=()):
        return self.icdf(fg.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype))

    def _zero_and_safe_concentration(self):
        """Where the concentration is 0 (the exponential limit), and the concentration with 1 there, so that
        the general formula, computed everywhere and discarded there, stays finite."""
        eq_zero = fg.isclose(self.concentration, fg.zeros_like(self.concentration))
        return eq_zero, fg.where(eq_zero, fg.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        y = 1 / safe_conc + fg.ones_like(z)
        where_nonzero = fg.where(y == 0, y, y * fg.log1p(safe_conc * z))
        return -self.scale.log() - fg.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        return fg.where(eq_zero, -z, -fg.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return fg.log1p(-fg.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return fg.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        logu = fg.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * fg.expm1(-safe_conc * logu)
        return fg.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = fg.where(valid, self.concentration, 0.5)
        return fg.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = fg.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return fg.where(valid, result, math.nan)

    def entropy(self):
        return fg.broadcast_to(fg.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = fg.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
