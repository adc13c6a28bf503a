"""torch.distributions.StudentT."""

import math

import ferrograd as fg

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution of `df` degrees of freedom, location `loc` and scale `scale`."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, fg.nan)  # no mean for df <= 1

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.df > 2
        df = fg.where(finite, self.df, 3.0)  # the formula's df kept away from 2 where it is not used
        m = fg.where(finite, self.scale.pow(2) * df / (df - 2), self.df)
        return m.masked_fill((self.df <= 2) & (self.df > 1), fg.inf).masked_fill(self.df <= 1, fg.nan)

    def rsample(self, sample_shape=()):
        # X / sqrt(Z / df) for X ~ N(0, 1), Z ~ Chi2(df)
        X = _standard_normal(self._extended_shape(sample_shape), dtype=self.df.dtype)
        Z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * X * fg.rsqrt(Z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + fg.lgamma(0.5 * self.df)
            - fg.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * fg.log1p(y**2.0 / self.df) - Z

    def entropy(self):
        lbeta = fg.lgamma(0.5 * self.df) + math.lgamma(0.5) - fg.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (fg.digamma(0.5 * (self.df + 1)) - fg.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
