"""torch.distributions.Kumaraswamy: (1 - U ** (1 / b)) ** (1 / a) for U uniform."""

import ferrograd as fg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b B(1 + n / a, b), computed through log-gamma."""
    arg1 = 1 + n / a
    log_value = fg.lgamma(arg1) + fg.lgamma(b) - fg.lgamma(arg1 + b)
    return b * fg.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on [0, 1] of `concentration1` (a) and `concentration0` (b)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            fg.full_like(self.concentration0, 0), fg.full_like(self.concentration0, 1), validate_args=validate_args
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        no_mode = (self.concentration0 < 1) | (self.concentration1 < 1)  # no interior mode
        return log_mode.masked_fill(no_mode, fg.nan).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - fg.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = fg.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * H0 - fg.log(self.concentration1) - fg.log(self.concentration0)
