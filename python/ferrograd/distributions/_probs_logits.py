"""The probs/logits pair of the distributions given by either one (Bernoulli, Binomial, Geometric,
Categorical): the other computed lazily on first access, as torch's are."""

from .utils import lazy_property, logits_to_probs, probs_to_logits


class _ProbsOrLogits:
    """`probs` and `logits`, each computed from the other when it was not given; `_param` is the one given.
    `_is_binary`: the logits of a binary event (log p - log(1 - p)) rather than log-probabilities."""

    _is_binary = True

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._is_binary)

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)
