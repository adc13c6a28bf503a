"""torch.distributions.Geometric."""

import ferrograd as fg
from ferrograd.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_logits import _given_probs_or_logits, _ProbsOrLogits
from .distribution import Distribution
from .utils import _batch_shape_of, broadcast_all

__all__ = ["Geometric"]


class Geometric(_ProbsOrLogits, Distribution):
    """The number of failures before the first success in trials of success probability `probs`
    (or sigmoid(`logits`)): P(k) = (1 - p)^k p."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = _given_probs_or_logits(self, probs, logits)
        super().__init__(_batch_shape_of((given,), self._param), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # p = 0 is in unit_interval but has no distribution: torch checks it apart
            valid = self.probs > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape {tuple(self.probs.shape)}) "
                    f"of distribution {self!r} to be positive but found invalid values:\n{self.probs[~valid]}"
                )

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return fg.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = fg.finfo(self.probs.dtype).tiny
        with fg.no_grad():
            u = fg.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.masked_fill((probs == 1) & (value == 0), 0)  # 0 * log(0) is 0 there
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
