"""torch.distributions.Dirichlet."""

import ferrograd as fg
from ferrograd.nn.functional import one_hot

from . import constraints
from ._standard_gamma import _sample_dirichlet
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex, of positive `concentration` (last dimension the event)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",), self.event_shape)

    def rsample(self, sample_shape=()):
        # torch's draws; the gradient flows through each Gamma draw's reparameterization and the normalization
        # (torch differentiates the normalized draw directly: `_dirichlet_grad`, another unbiased estimate)
        return _sample_dirichlet(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            fg.xlogy(self.concentration - 1.0, value).sum(-1)
            + fg.lgamma(self.concentration.sum(-1))
            - fg.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # every concentration below 1: the density peaks at a vertex, the largest coordinate's
        vertex = one_hot(mode.argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return fg.where((self.concentration < 1).all(dim=-1, keepdim=True), vertex, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            fg.lgamma(self.concentration).sum(-1)
            - fg.lgamma(a0)
            - (k - a0) * fg.digamma(a0)
            - ((self.concentration - 1.0) * fg.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - fg.lgamma(x.sum(-1))
