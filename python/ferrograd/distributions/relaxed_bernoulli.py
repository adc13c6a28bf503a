"""torch.distributions.RelaxedBernoulli (and LogitRelaxedBernoulli): the binary Concrete distribution."""

import ferrograd as fg

from . import constraints
from ._probs_logits import _given_probs_or_logits, _ProbsOrLogits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import _batch_shape_of, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_ProbsOrLogits, Distribution):
    """The logit of a RelaxedBernoulli sample: (logit(U) + logits) / temperature (Maddison et al., 2017)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        given = _given_probs_or_logits(self, probs, logits)
        super().__init__(_batch_shape_of((given,), self._param), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(fg.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _Relaxed(TransformedDistribution):
    """A relaxed distribution: a transform of its base distribution of `temperature`, whose probs and logits
    it exposes."""

    has_rsample = True

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    """A relaxed (continuous on [0, 1]) Bernoulli of `temperature`: sigmoid of a LogitRelaxedBernoulli."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)
