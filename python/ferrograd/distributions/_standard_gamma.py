"""Standard Gamma draws with their reparameterized gradient.

The draws are the core's `_standard_gamma` (PyTorch's CPU kernel: Marsaglia and Tsang's rejection over the
generator's float64 uniforms and normals, element after element), so seeded draws are torch's. The gradient
is torch's `_standard_gamma_grad`: d sample / d concentration by implicit differentiation of the CDF at the
draw, through torch's three approximations (a Taylor series for small x, Rice's saddle point expansion for
large concentration, a bivariate rational fit elsewhere), here as tensor ops."""

import ferrograd as fg
from ferrograd import _core
from ferrograd.autograd import Function, once_differentiable

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
    def forward(ctx, concentration, generator):
        x = _core._standard_gamma(concentration, generator=generator)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return grad_output * _standard_gamma_grad(concentration, x), None


def _standard_gamma(concentration, generator=None):
    """Gamma(concentration, 1) draws, differentiable with respect to concentration."""
    return _StandardGamma.apply(concentration, generator)


def _sample_dirichlet(concentration):
    """Dirichlet draws as torch's kernel makes them: Gamma draws of the concentration in float64, normalized
    along the last dimension, cast back and kept inside [smallest normal, the float below 1] (differentiable
    through the Gamma draws and the normalization)."""
    gammas = _standard_gamma(concentration.double())
    draws = (gammas / gammas.sum(-1, True)).to(concentration.dtype)
    finfo = fg.finfo(concentration.dtype)
    return draws.clamp(min=finfo.tiny, max=1 - finfo.eps / 2)
