"""torch.distributions.Wishart."""

import math
import warnings
from numbers import Number

import ferrograd as fg

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _FromScaleTril, _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)
# how many times rsample redraws the samples that came out singular (torch's default outside tracing)
_MAX_TRY_CORRECTION = 10


def _mvdigamma(x, p):
    """The multivariate digamma function: sum over i < p of digamma(x - i / 2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    shifts = fg.arange(p, dtype=x.dtype).div(2).expand(tuple(x.shape) + (-1,))
    return fg.digamma(x.unsqueeze(-1) - shifts).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=fg.finfo(x.dtype).eps)


class Wishart(_FromScaleTril, ExponentialFamily):
    """The Wishart distribution over positive definite matrices, of `df` degrees of freedom and scale given by
    one of `covariance_matrix`, `precision_matrix` or `scale_tril`."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        matrices = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                    "scale_tril": scale_tril}  # fmt: skip
        given = [(name, matrix) for name, matrix in matrices.items() if matrix is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, param),) = given
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = fg.Size(param.shape[:-2])
            self.df = fg.tensor(df, dtype=param.dtype)
        else:
            batch_shape = fg.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = fg.linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        self._dist_chi2 = self._bartlett_chi2(batch_shape)

    def _bartlett_chi2(self, batch_shape):
        """The Chi2 of the Bartlett factor's squared diagonal: df - i degrees of freedom for row i."""
        rows = fg.arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=self.df.unsqueeze(-1) - rows.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        shape = tuple(self.event_shape)
        new = self._expanded(
            Wishart, batch_shape, _instance, ("covariance_matrix", "scale_tril", "precision_matrix"), shape
        )
        cov_shape = tuple(batch_shape) + shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        new._dist_chi2 = new._bartlett_chi2(batch_shape)
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def precision_matrix(self):
        identity = fg.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return fg.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    def _df_as_matrix(self, df):
        return df.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_as_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, fg.nan)  # no mode for df <= p + 1
        return self._df_as_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_as_matrix(self.df) * (V.pow(2) + fg.einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape=()):
        """L A A^T L^T for A lower triangular: chi draws on its diagonal, normal ones below."""
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(dim1=-2, dim2=-1)
        i, j = fg.tril_indices(p, p, offset=-1)
        below = tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,)
        noise[..., i, j] = fg.randn(below, dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = _MAX_TRY_CORRECTION
        sample_shape = fg.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # as torch's: the flag named singular starts as the support check (True where positive definite), so
        # torch warns and redraws those once (the redraws are then checked the right way round)
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not is_singular.any():
                    break
        return sample

    def _half_log_det_scale(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        return (
            -nu * (p * _LOG_2 / 2 + self._half_log_det_scale())
            - fg.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * fg.linalg.slogdet(value).logabsdet
            - fg.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        return (
            (p + 1) * (p * _LOG_2 / 2 + self._half_log_det_scale())
            + fg.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return (-self.precision_matrix / 2, (self.df - p - 1) / 2)

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-fg.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + fg.mvlgamma(
            y + (p + 1) / 2, p=p
        )
