"""The probs/logits pair of the distributions given by either one (Bernoulli, Binomial, Geometric,
Categorical): the other computed lazily on first access, as torch's are."""

from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


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

    def _expanded(self, cls, batch_shape, _instance, param_names, param_event_shape=()):
        new = super()._expanded(cls, batch_shape, _instance, param_names, param_event_shape)
        new._param = new.__dict__["probs"] if "probs" in self.__dict__ else new.__dict__["logits"]
        return new


def _given_probs_or_logits(dist, probs, logits):
    """Sets `dist.probs` or `dist.logits` (whichever is given, as a tensor) and `dist._param`; returns what
    was given. torch's ValueError when neither or both are."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        (dist.probs,) = broadcast_all(probs)
        dist._param = dist.probs
        return probs
    (dist.logits,) = broadcast_all(logits)
    dist._param = dist.logits
    return logits


def _given_count_and_probs_or_logits(dist, total_count, probs, logits):
    """`_given_probs_or_logits` with a `total_count` broadcast with them (of their dtype)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        dist.total_count, dist.probs = broadcast_all(total_count, probs)
        dist._param = dist.probs
    else:
        dist.total_count, dist.logits = broadcast_all(total_count, logits)
        dist._param = dist.logits
    dist.total_count = dist.total_count.type_as(dist._param)


class _WrapsCategorical:
    """A distribution built on a Categorical `_categorical` (OneHotCategorical, Multinomial, the relaxed
    one): its probs, logits and parameter shape are the Categorical's."""

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)
