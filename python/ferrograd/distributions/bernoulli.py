"""torch.distributions.Bernoulli."""

import ferrograd as fg
from ferrograd.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_logits import _given_probs_or_logits, _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """A draw of 1 with probability `probs` (or sigmoid(`logits`)), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = _given_probs_or_logits(self, probs, logits)
        super().__init__(_batch_shape_of((given,), self._param), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return (self.probs >= 0.5).to(self.probs).masked_fill(self.probs == 0.5, fg.nan)  # both values are modes

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with fg.no_grad():
            return fg.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = fg.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (fg.logit(self.probs),)

    def _log_normalizer(self, x):
        return fg.log1p(fg.exp(x))
