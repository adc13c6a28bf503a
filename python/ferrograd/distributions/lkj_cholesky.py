"""torch.distributions.LKJCholesky: the LKJ distribution over Cholesky factors of correlation matrices."""

import math

import ferrograd as fg

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of dim x dim correlation matrices with density proportional to
    det(L L^T)^(concentration - 1), drawn by the onion method (Lewandowski, Kurowicka and Joe, 2009)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the Beta of each row's squared norm (the first row's is unused)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = fg.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = fg.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), fg.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LKJCholesky, batch_shape, _instance, ("concentration",))
        new.dim = self.dim
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=()):
        # each row: a uniform direction in the lower triangle scaled to the Beta-drawn squared norm y, its
        # diagonal completing the unit norm
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = fg.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)
        w = fg.sqrt(y) * u_hypersphere
        diag_elems = fg.clamp(1 - fg.sum(w**2, dim=-1), min=fg.finfo(w.dtype).tiny).sqrt()
        return w + fg.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = fg.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = fg.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = 0.5 * dm1 * math.log(math.pi) + fg.mvlgamma(alpha - 0.5, dm1) - fg.lgamma(alpha) * dm1
        return unnormalized_log_pdf - normalize_term
