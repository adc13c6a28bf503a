"""torch.distributions.ContinuousBernoulli (Loaiza-Ganem and Cunningham, 2019)."""

import math

import ferrograd as fg
from ferrograd.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_logits import _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import _batch_shape_of, broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_ProbsOrLogits, ExponentialFamily):
    """The density on [0, 1] proportional to p^x (1 - p)^(1 - x). Near p = 1/2 (between `lims`) its
    normalizer, mean and variance are computed by Taylor expansions, as torch's."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            # torch checks probs here only when validate_args is given, before clamping them
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        given = probs if probs is not None else logits
        self._lims = lims
        super().__init__(_batch_shape_of((given,), self._param), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return fg.le(self.probs, self._lims[0]) | fg.gt(self.probs, self._lims[1])

    def _cut_probs(self):
        return fg.where(self._outside_unstable_region(), self.probs, self._lims[0] * fg.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalizer: log(|log(1 - p) - log p| / |1 - 2p|), by its Taylor series near p = 1/2."""
        cut_probs = self._cut_probs()
        below_half = fg.where(fg.le(cut_probs, 0.5), cut_probs, fg.zeros_like(cut_probs))
        above_half = fg.where(fg.ge(cut_probs, 0.5), cut_probs, fg.ones_like(cut_probs))
        log_norm = fg.log(fg.abs(fg.log1p(-cut_probs) - fg.log(cut_probs))) - fg.where(
            fg.le(cut_probs, 0.5), fg.log1p(-2.0 * below_half), fg.log(2.0 * above_half - 1.0)
        )
        x = fg.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return fg.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (fg.log1p(-cut_probs) - fg.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * fg.pow(x, 2)) * x
        return fg.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return fg.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / fg.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / fg.pow(
            fg.log1p(-cut_probs) - fg.log(cut_probs), 2
        )
        x = fg.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return fg.where(self._outside_unstable_region(), variances, taylor)

    def sample(self, sample_shape=()):
        u = fg.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with fg.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        return self.icdf(fg.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (fg.pow(cut_probs, value) * fg.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0) / (
            2.0 * cut_probs - 1.0
        )
        unbounded_cdfs = fg.where(self._outside_unstable_region(), cdfs, value)
        return fg.where(
            fg.le(value, 0.0),
            fg.zeros_like(value),
            fg.where(fg.ge(value, 1.0), fg.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        inverse = (fg.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - fg.log1p(-cut_probs)) / (
            fg.log(cut_probs) - fg.log1p(-cut_probs)
        )
        return fg.where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        log_probs0 = fg.log1p(-self.probs)
        log_probs1 = fg.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = fg.le(x, self._lims[0] - 0.5) | fg.gt(x, self._lims[1] - 0.5)
        cut_nat_params = fg.where(outside, x, (self._lims[0] - 0.5) * fg.ones_like(x))
        log_norm = fg.log(fg.abs(fg.special.expm1(cut_nat_params))) - fg.log(fg.abs(cut_nat_params))
        taylor = 0.5 * x + fg.pow(x, 2) / 24.0 - fg.pow(x, 4) / 2880.0
        return fg.where(outside, log_norm, taylor)
