"""torch.distributions.Multinomial."""

import ferrograd as fg

from . import constraints
from ._probs_logits import _WrapsCategorical
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(_WrapsCategorical, Distribution):
    """The counts of each of K classes over `total_count` draws from a Categorical (`probs` or `logits`)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = fg.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(tuple(batch_shape) + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = fg.Size(sample_shape)
        # total_count class draws first, moved last, then counted per class
        draws = self._categorical.sample(fg.Size((self.total_count,) + tuple(sample_shape)))
        order = list(range(1, draws.dim())) + [0]
        draws = draws.permute(*order)
        counts = fg.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, fg.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = fg.tensor(self.total_count, dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - fg.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = fg.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * fg.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = fg.lgamma(value.sum(-1) + 1)
        log_factorial_xs = fg.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -fg.inf)] = 0  # a class never drawn adds 0, not 0 * -inf
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
