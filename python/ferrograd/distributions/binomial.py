"""torch.distributions.Binomial."""

import ferrograd as fg

from . import constraints
from ._probs_logits import _given_count_and_probs_or_logits, _ProbsOrLogits
from .distribution import Distribution

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """max(x, 0) whose gradient at 0 is 1/2 (as torch's)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_ProbsOrLogits, Distribution):
    """The number of successes in `total_count` independent trials of success probability `probs`
    (or sigmoid(`logits`))."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _given_count_and_probs_or_logits(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with fg.no_grad():
            return fg.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = fg.lgamma(self.total_count + 1)
        log_factorial_k = fg.lgamma(value + 1)
        log_factorial_nmk = fg.lgamma(self.total_count - value + 1)
        # n log(1 + exp(logits)), computed stably
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * fg.log1p(fg.exp(-fg.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_total_count(self, what):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_total_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(fg.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_total_count("enumerate_support")
        values = fg.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
