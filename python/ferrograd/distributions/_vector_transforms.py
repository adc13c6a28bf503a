"""Transforms onto structured sets: the simplex (softmax, stick breaking), lower Cholesky factors, positive
definite matrices and Cholesky factors of correlation matrices."""

import math

import ferrograd as fg
from ferrograd.nn.functional import logsigmoid, pad, softplus

from . import constraints
from ._elementwise_transforms import _clipped_sigmoid
from ._transform import Transform, _ParameterlessTransform
from .utils import tril_matrix_to_vec, vec_to_tril_matrix


def _at_least_one_dimension(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_ParameterlessTransform):
    """y = softmax(x) over the last dimension (not bijective: its inverse is log y)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _at_least_one_dimension(shape)
        return shape

    def inverse_shape(self, shape):
        _at_least_one_dimension(shape)
        return shape


def _stick_offsets(x):
    """log(K - k) for k = 0..K-1 over x's last dimension: the shift that makes x = 0 map to the centre."""
    return (x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)).log()


class StickBreakingTransform(_ParameterlessTransform):
    """A bijection from R^K onto the (K+1)-simplex by stick breaking: each coordinate takes a sigmoid fraction
    of what is left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offsets(x))
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        remaining = fg.clamp(1 - y_crop.cumsum(-1), min=fg.finfo(y.dtype).tiny)
        return y_crop.log() - remaining.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offsets(x)
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _at_least_one_dimension(shape)
        return fg.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        _at_least_one_dimension(shape)
        return fg.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(_ParameterlessTransform):
    """A square matrix to a lower Cholesky factor: its strict lower triangle, its diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_ParameterlessTransform):
    """A square matrix to a positive definite one: L L^T of its LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(fg.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals to the Cholesky factor of a D x D correlation matrix: tanh to (-1, 1), then
    stick breaking on each row's squared norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = fg.tanh(x)
        eps = fg.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # each row: the partial correlations scaled by what the previous entries left of the unit norm
        z1m_cumprod_sqrt = (1 - r**2).sqrt().cumprod(-1)
        r = r + fg.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - fg.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        _at_least_one_dimension(shape)
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return fg.Size(tuple(shape[:-1]) + (D, D))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return fg.Size(tuple(shape[:-2]) + (D * (D - 1) // 2,))
