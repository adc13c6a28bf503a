"""torch.distributions.LowRankMultivariateNormal: covariance W W^T + diag(D)."""

import math

import ferrograd as fg

from . import constraints
from .distribution import Distribution, _SymmetricAboutLoc
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(K):
    return K + fg.eye(K.shape[-1], dtype=K.dtype)


def _batch_capacitance_tril(W, D):
    """The Cholesky factor of the capacitance I + W^T D^{-1} W (m x m for W of n x m)."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return fg.linalg.cholesky(_plus_identity(fg.matmul(Wt_Dinv, W)))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log det(W W^T + D) = log det(capacitance) + log det(D) (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^{-1} x by the Woodbury identity."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(_SymmetricAboutLoc, Distribution):
    """The normal distribution over vectors of mean `loc` and covariance cov_factor cov_factor^T +
    diag(cov_diag)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = fg.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        n = self.event_shape[0]
        new = self._expanded(LowRankMultivariateNormal, batch_shape, _instance, ("loc", "cov_diag"), (n,))
        new.cov_factor = self.cov_factor.expand(tuple(batch_shape) + (n,) + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def variance(self):
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        # D^{1/2} chol(I + D^{-1/2} W W^T D^{-1/2}): the Cholesky factor without forming W W^T + D
        cov_diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt
        K = _plus_identity(fg.matmul(Dinvsqrt_W, Dinvsqrt_W.mT))
        return (cov_diag_sqrt * fg.linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        covariance = fg.matmul(W, W.mT) + fg.diag_embed(self._unbroadcasted_cov_diag)
        return covariance.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^{-1} - D^{-1} W C^{-1} W^T D^{-1} with C = L L^T the capacitance
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = fg.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision = fg.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W) + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def _log_det(self):
        return _batch_lowrank_logdet(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc, self._capacitance_tril
        )
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
