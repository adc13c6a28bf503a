"""torch.distributions.Laplace."""

import ferrograd as fg

from . import constraints
from .distribution import Distribution, _SymmetricAboutLoc
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Laplace"]


class Laplace(_SymmetricAboutLoc, Distribution):
    """The Laplace distribution of location `loc` and scale `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape_of((loc, scale), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2**0.5 * self.scale

    def rsample(self, sample_shape=()):
        # u uniform in (-1, 1) (from eps - 1: log1p(-|u|) stays finite); inverse CDF of the two halves
        eps = fg.finfo(self.loc.dtype).eps
        u = fg.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * fg.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -fg.log(2 * self.scale) - fg.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * fg.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * fg.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + fg.log(2 * self.scale)
