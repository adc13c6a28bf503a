"""torch.distributions.Categorical."""

import ferrograd as fg

from . import constraints
from ._probs_logits import _ProbsOrLogits
from .distribution import Distribution

__all__ = ["Categorical"]


def _event_parameters(probs, logits):
    """torch's checks of a (probs, logits) pair where exactly one is given, at least one-dimensional."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None and probs.dim() < 1:
        raise ValueError("`probs` parameter must be at least one-dimensional.")
    if logits is not None and logits.dim() < 1:
        raise ValueError("`logits` parameter must be at least one-dimensional.")


class Categorical(_ProbsOrLogits, Distribution):
    """A distribution over {0, ..., K-1} given by `probs` (normalized along the last dimension) or `logits`
    (unnormalized log-probabilities)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True
    _is_binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        _event_parameters(probs, logits)
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else fg.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Categorical, batch_shape, _instance, ("probs", "logits"), (self._num_events,))
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return fg.full(self._extended_shape(), fg.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return fg.full(self._extended_shape(), fg.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        if not isinstance(sample_shape, fg.Size):
            sample_shape = fg.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = fg.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = fg.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        # a class of probability 0 has logit -inf: clamped, its term p * logit is 0, not nan
        logits = fg.clamp(self.logits, min=fg.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = fg.arange(self._num_events, dtype=fg.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
