"""torch.distributions.VonMises: the circular normal distribution."""

import math

import ferrograd as fg

from . import constraints
from .distribution import Distribution, _SymmetricAboutLoc
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz and Stegun's polynomial approximations of I0 and I1 (9.8.1-9.8.4), in (x / 3.75)^2 below 3.75
# and in 3.75 / x above, as torch's
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813]
_I0_COEF_LARGE = [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537,
                  -0.01647633, 0.00392377]  # fmt: skip
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411]
_I1_COEF_LARGE = [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312,
                  0.01787654, -0.00420059]  # fmt: skip
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]
_SMALL_BELOW = 3.75
# below this concentration the proposal's parameter by its Taylor expansion (torch's)
_TAYLOR_BELOW = 1e-5


def _eval_poly(y, coef):
    """sum coef[i] y^i by Horner's rule."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for order 0 or 1, x > 0."""
    if order != 0 and order != 1:
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = (x / _SMALL_BELOW) ** 2
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(_SMALL_BELOW / x, _COEF_LARGE[order]).log()
    return fg.where(x < _SMALL_BELOW, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's (1979) rejection sampler, every pending element drawing three uniforms per round
    (torch's loop, so a seeded stream gives torch's draws)."""
    done = fg.zeros(x.shape, dtype=fg.bool)
    while not done.all():
        u1, u2, u3 = fg.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = fg.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = fg.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(_SymmetricAboutLoc, Distribution):
    """The von Mises distribution on the circle, of mean direction `loc` and `concentration`."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, fg.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * fg.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    # the sampler runs in float64, as torch's
    @lazy_property
    def _loc(self):
        return self.loc.to(fg.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(fg.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        return fg.where(kappa < _TAYLOR_BELOW, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=()):
        with fg.no_grad():
            x = fg.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            # torch builds a new instance (validated again)
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @lazy_property
    def variance(self):
        # circular variance: 1 - I1(k) / I0(k)
        log_ratio = _log_modified_bessel_fn(self.concentration, order=1) - _log_modified_bessel_fn(
            self.concentration, order=0
        )
        return 1 - log_ratio.exp()
