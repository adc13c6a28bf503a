"""torch.distributions.MultivariateNormal."""

import math

import ferrograd as fg

from . import constraints
from .distribution import Distribution, _SymmetricAboutLoc
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batches."""
    return fg.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^{-1} x for lower-triangular L, batched: the squared norm of L^{-1} x. L's batch
    dimensions broadcast against x's rightmost batch dimensions."""
    batch = fg.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    n = bx.size(-1)
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,)).unsqueeze(-1)
    return fg.linalg.solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^{-1}, without inverting P: with J the flip, chol(J P J) = Lf gives
    P^{-1} = (J Lf^{-T} J)(J Lf^{-T} J)^T, J Lf^{-T} J lower triangular."""
    Lf = fg.linalg.cholesky(fg.flip(P, (-2, -1)))
    L_inv = fg.transpose(fg.flip(Lf, (-2, -1)), -2, -1)
    identity = fg.eye(P.shape[-1], dtype=P.dtype)
    return fg.linalg.solve_triangular(L_inv, identity, upper=False)


class _FromScaleTril:
    """A distribution parameterized by a lower Cholesky factor `_unbroadcasted_scale_tril` (given, or of the
    covariance or precision given): its scale_tril and covariance_matrix, broadcast to `_matrix_shape()`."""

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return fg.matmul(L, L.mT).expand(self._matrix_shape())


class MultivariateNormal(_FromScaleTril, _SymmetricAboutLoc, Distribution):
    """The normal distribution over vectors, of mean `loc` and one of `covariance_matrix`,
    `precision_matrix` (its inverse) or `scale_tril` (its lower Cholesky factor)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        matrices = {
            "scale_tril": scale_tril,
            "covariance_matrix": covariance_matrix,
            "precision_matrix": precision_matrix,
        }
        given = [(name, matrix) for name, matrix in matrices.items() if matrix is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = fg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(fg.Size(batch_shape), self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = fg.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        n = self._event_shape[0]
        new = self._expanded(MultivariateNormal, batch_shape, _instance, ("loc",), (n,))
        new = self._expanded(
            MultivariateNormal, batch_shape, new, ("covariance_matrix", "scale_tril", "precision_matrix"), (n, n)
        )
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def precision_matrix(self):
        return fg.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def variance(self):
        variance = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return variance.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        eps = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
