"""torch.distributions.NegativeBinomial."""

import ferrograd as fg
from ferrograd.nn.functional import logsigmoid

from . import constraints
from ._probs_logits import _given_count_and_probs_or_logits, _ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, Distribution):
    """The number of successes before `total_count` failures in trials of success probability `probs`
    (or sigmoid(`logits`))."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _given_count_and_probs_or_logits(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @property
    def mean(self):
        return self.total_count * fg.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / fg.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # the Gamma-Poisson mixture that draws it
        return Gamma(concentration=self.total_count, rate=fg.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        with fg.no_grad():
            return fg.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -fg.lgamma(self.total_count + value) + fg.lgamma(1.0 + value) + fg.lgamma(self.total_count)
        # total_count + value = 0 only at total_count = 0, value = 0: probability 1
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
