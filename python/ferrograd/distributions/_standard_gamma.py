"""Standard Gamma draws with their reparameterized gradient, composed of tensor ops.

ferrograd has no `torch._standard_gamma` kernel: the draws here use Marsaglia and Tsang's rejection
method (2000), as torch's CPU kernel does, over the same uniform/normal fills, but vectorized (all
pending elements per round), so a seeded stream is not torch's. The gradient is torch's
`_standard_gamma_grad`: d sample / d concentration by implicit differentiation of the CDF at the draw,
through torch's three approximations (a Taylor series for small x, Rice's saddle point expansion for
large concentration, a bivariate rational fit elsewhere), here as tensor ops."""

import ferrograd as fg
from ferrograd.autograd import Function, once_differentiable

# Marsaglia and Tsang's squeeze: accept at once when u < 1 - SQUEEZE x^4
_SQUEEZE = 0.0331
# torch's regions for the gradient: the Taylor series below this x, the saddle point above this alpha
_SERIES_BELOW_X = 0.8
_SADDLE_ABOVE_ALPHA = 8.0
_SERIES_TERMS = 5
# torch's bivariate rational approximation of the gradient in u = log(x / alpha), v = log(alpha):
# row k holds the coefficients of u^k; columns 0-3 the numerator's powers of v, 4-7 the denominator's
_RATIONAL_COEFFICIENTS = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)  # fmt: skip


def _marsaglia_tsang(alpha):
    """One Gamma(alpha, 1) draw per element of a flat float64 tensor with alpha >= 1."""
    d = alpha - 1.0 / 3.0
    c = 1.0 / fg.sqrt(9.0 * d)
    result = fg.empty_like(alpha)
    pending = fg.arange(alpha.numel())
    while pending.numel() > 0:
        dp, cp = d[pending], c[pending]
        x = fg.randn(pending.numel(), dtype=alpha.dtype)
        y = 1.0 + cp * x
        v = y * y * y
        u = 1.0 - fg.rand(pending.numel(), dtype=alpha.dtype)
        xx = x * x
        positive = y > 0
        log_v = fg.where(positive, v, fg.ones_like(v)).log()
        accept = positive & ((u < 1.0 - _SQUEEZE * xx * xx) | (u.log() < 0.5 * xx + dp * (1.0 - v + log_v)))
        result[pending[accept]] = (dp * v)[accept]
        pending = pending[~accept]
    return result


def _sample_standard_gamma(concentration):
    """Gamma(concentration, 1) draws of concentration's shape and dtype (computed in float64, as torch's
    kernel computes them; at least the dtype's smallest normal, as torch's)."""
    alpha = concentration.detach().reshape(-1).double()
    small = alpha < 1
    # alpha < 1 is boosted to alpha + 1, its draw scaled by U^(1 / alpha)
    draws = _marsaglia_tsang(fg.where(small, alpha + 1.0, alpha))
    boost = fg.rand(alpha.numel(), dtype=fg.float64).pow(1.0 / alpha)
    draws = fg.where(small, draws * boost, draws)
    draws = fg.where(alpha == 0, fg.zeros_like(draws), draws)
    draws = draws.to(concentration.dtype).clamp(min=fg.finfo(concentration.dtype).tiny)
    return draws.reshape(concentration.shape)


def _taylor_series_grad(alpha, x):
    numer = fg.ones_like(x)
    denom = alpha.clone()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, _SERIES_TERMS + 1):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = x.pow(alpha)
    gamma_pdf = x.pow(alpha - 1) * fg.exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (fg.log(x) - fg.digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
    result = -gamma_cdf_alpha / gamma_pdf
    return fg.where(fg.isnan(result), fg.zeros_like(result), result)


def _saddle_point_grad(alpha, x):
    near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = 1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
    near_value = numer_1 * numer_2 / (1244160 * alpha * alpha * alpha * alpha)
    denom = fg.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * fg.log(x / alpha)).pow(-1.5)
    term23 = fg.where(x < alpha, term2 - term3, term2 + term3)
    term1 = fg.log(x / alpha) * term23 - fg.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far_value = -stirling * x * term1 / denom
    return fg.where(near, near_value, far_value)


def _rational_grad(alpha, x):
    u = fg.log(x / alpha)
    v = fg.log(alpha)
    a, b, c = _RATIONAL_COEFFICIENTS
    coef = [a[i] + u * (b[i] + u * c[i]) for i in range(8)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return fg.exp(p / q)


def _standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1) (torch's `_standard_gamma_grad`), in float64."""
    dtype = x.dtype
    alpha, x = alpha.double(), x.double()
    with fg.no_grad():
        result = fg.where(
            x < _SERIES_BELOW_X,
            _taylor_series_grad(alpha, x),
            fg.where(alpha > _SADDLE_ABOVE_ALPHA, _saddle_point_grad(alpha, x), _rational_grad(alpha, x)),
        )
    return result.to(dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration):
        x = _sample_standard_gamma(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return grad_output * _standard_gamma_grad(concentration, x)


def _standard_gamma(concentration):
    """Gamma(concentration, 1) draws, differentiable with respect to concentration."""
    return _StandardGamma.apply(concentration)
