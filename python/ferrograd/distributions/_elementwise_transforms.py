"""The elementwise transforms: exp, abs, power, sigmoid, softplus, tanh, affine, a distribution's CDF."""

import math
from numbers import Number

import ferrograd as fg
from ferrograd.nn.functional import softplus

from . import constraints
from ._transform import Transform, _ParameterlessTransform
from .utils import broadcast_all, lazy_property


class _ElementwiseTransform(_ParameterlessTransform):
    """A parameterless increasing elementwise bijection."""

    bijective = True
    sign = +1


class ExpTransform(_ElementwiseTransform):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class AbsTransform(Transform):
    """y = |x| (not injective: its inverse is the identity on the nonnegative half)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent.eq(other.exponent).all().item()

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return fg.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


def _clipped_sigmoid(x):
    """sigmoid(x) kept inside (0, 1) in x's dtype, so its inverse stays finite."""
    finfo = fg.finfo(x.dtype)
    return fg.clamp(fg.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(_ElementwiseTransform):
    """y = sigmoid(x)."""

    domain = constraints.real
    codomain = constraints.unit_interval

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = fg.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_ElementwiseTransform):
    """y = log(1 + exp(x))."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(_ElementwiseTransform):
    """y = tanh(x)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return fg.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written without tanh for stability at large |x|
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


def _parameters_equal(a, b):
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    """y = loc + scale * x, over events of `event_dim` dimensions."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        return (
            isinstance(other, AffineTransform)
            and _parameters_equal(self.loc, other.loc)
            and _parameters_equal(self.scale, other.scale)
        )

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = fg.full_like(x, math.log(abs(self.scale)))
        else:
            result = fg.abs(self.scale).log()
        if self.event_dim:
            result = result.view(tuple(result.size()[: -self.event_dim]) + (-1,)).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return fg.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x): the probability integral transform onto [0, 1]."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
