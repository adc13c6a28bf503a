"""torch.special: the special functions, their gradients as torch's, and the aliases torch keeps there.
A lazy submodule (`import ferrograd` does not import it). Kernels are in the Rust core
(rust/core/src/kernels/special/); the functions here only name them and handle `out=`."""

from . import _core
from ._arg_errors import require_tensor as _require_tensor
from ._arg_errors import type_name as _type_name
from ._core import Tensor
from ._out import _check_out, write_out

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
    "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e",
    "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln",
    "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]  # fmt: skip


def _tensor_input(input, func, position, argument="input"):
    """PyTorch's TypeError for a non-tensor `input` (a method call on it would be an AttributeError)."""
    _require_tensor(input, func, argument, position)
    return input


def _out(op, out, inputs, result_fn):
    if out is None:
        return result_fn()
    _check_out(op, out, inputs, {})
    return write_out(op, out, result_fn())


def _core_special(name):
    def function(input, *, out=None):
        return _out(f"special_{name}", out, (input,), lambda: _core._special(name, input))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}(input, *, out=None)."
    return function


def _core_special_of_x(name):
    """The functions whose argument torch names `x` (its newer Bessel functions)."""

    def function(x, *, out=None):
        _tensor_input(x, f"special_{name}", 1, argument="x")
        return _out(f"special_{name}", out, (x,), lambda: _core._special(name, x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}(x, *, out=None)."
    return function


def _method(name, alias):
    def function(input, *, out=None):
        _tensor_input(input, f"special_{alias}", 1)
        return _out(alias, out, (input,), lambda: getattr(input, name)())

    function.__name__ = function.__qualname__ = alias
    function.__doc__ = f"torch.special.{alias}(input, *, out=None): ``ferrograd.{name}``."
    return function


entr = _core_special("entr")
erfcx = _core_special("erfcx")
log_ndtr = _core_special("log_ndtr")
ndtri = _core_special("ndtri")
i0e = _core_special("i0e")
i1 = _core_special("i1")
i1e = _core_special("i1e")
bessel_j0 = _core_special("bessel_j0")
bessel_j1 = _core_special("bessel_j1")
bessel_y0 = _core_special("bessel_y0")
bessel_y1 = _core_special("bessel_y1")
modified_bessel_i0 = _core_special("modified_bessel_i0")
modified_bessel_i1 = _core_special("modified_bessel_i1")
modified_bessel_k0 = _core_special("modified_bessel_k0")
modified_bessel_k1 = _core_special("modified_bessel_k1")
scaled_modified_bessel_k0 = _core_special_of_x("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _core_special_of_x("scaled_modified_bessel_k1")
spherical_bessel_j0 = _core_special_of_x("spherical_bessel_j0")
airy_ai = _core_special_of_x("airy_ai")

digamma = _method("digamma", "digamma")
psi = _method("digamma", "psi")
gammaln = _method("lgamma", "gammaln")
erf = _method("erf", "erf")
erfc = _method("erfc", "erfc")
erfinv = _method("erfinv", "erfinv")
exp2 = _method("exp2", "exp2")
expm1 = _method("expm1", "expm1")
log1p = _method("log1p", "log1p")
expit = _method("sigmoid", "expit")
i0 = _method("i0", "i0")
sinc = _method("sinc", "sinc")


def ndtr(input, *, out=None):
    """Φ(x) = (1 + erf(x/√2)) / 2, composed as torch composes it (its grad_fn is a MulBackward1)."""
    _tensor_input(input, "special_ndtr", 1)
    return _out("special_ndtr", out, (input,), lambda: (1 + (input * 0.7071067811865476).erf()) * 0.5)


def round(input, *, decimals=0, out=None):
    _tensor_input(input, "special_round", 1)
    return _out("special_round", out, (input,), lambda: input.round(decimals=decimals))


def logit(input, eps=None, *, out=None):
    _tensor_input(input, "special_logit", 1)
    return _out("special_logit", out, (input,), lambda: input.logit(eps))


def logsumexp(input, dim, keepdim=False, *, out=None):
    _tensor_input(input, "special_logsumexp", 1)
    return _out("special_logsumexp", out, (input,), lambda: input.logsumexp(dim, keepdim))


def softmax(input, dim, *, dtype=None):
    _tensor_input(input, "special_softmax", 1)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    _tensor_input(input, "special_log_softmax", 1)
    return input.log_softmax(dim, dtype=dtype)


def polygamma(n, input, *, out=None):
    """ψ⁽ⁿ⁾(input), the n-th derivative of digamma (torch's argument order: n first)."""
    _tensor_input(input, "polygamma", 2)
    return _out("polygamma", out, (input,), lambda: input.polygamma(n))


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma of dimension p (``torch.mvlgamma``)."""
    _tensor_input(input, "mvlgamma", 1)
    return _out("mvlgamma", out, (input,), lambda: input.mvlgamma(p))


def _tensors(*values):
    return tuple(v for v in values if isinstance(v, Tensor))


def _polynomial_values(name, x, n):
    """torch's promotion (the result type of x and n, integers and bools to the default float), then the core's
    recurrences in that dtype."""
    from . import get_default_dtype, result_type, tensor

    dtype = result_type(x, n)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = get_default_dtype()
    x, n = (v.detach().to(dtype) if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in (x, n))
    return _core._orthogonal_polynomial(name, x, n)


def _orthogonal_polynomial(name, doc):
    op = f"special_{name}"

    def function(x, n, *, out=None):
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise TypeError(
                f"{op}() received an invalid combination of arguments - got ({_type_name(x)}, {_type_name(n)}), "
                "but expected one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
                " * (Number x, Tensor n, *, Tensor out = None)\n * (Tensor x, Number n, *, Tensor out = None)\n"
            )
        return _out(op, out, _tensors(x, n), lambda: _polynomial_values(name, x, n))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}(x, n, *, out=None): {doc}, degree n (truncated to an integer)."
    return function


# each written once in the core (rust/core/src/ops/orthogonal_polynomial.rs); no gradient, as torch's
chebyshev_polynomial_t = _orthogonal_polynomial("chebyshev_polynomial_t", "Chebyshev polynomial of the first kind")
chebyshev_polynomial_u = _orthogonal_polynomial("chebyshev_polynomial_u", "Chebyshev polynomial of the second kind")
chebyshev_polynomial_v = _orthogonal_polynomial("chebyshev_polynomial_v", "Chebyshev polynomial of the third kind")
chebyshev_polynomial_w = _orthogonal_polynomial("chebyshev_polynomial_w", "Chebyshev polynomial of the fourth kind")
shifted_chebyshev_polynomial_t = _orthogonal_polynomial("shifted_chebyshev_polynomial_t", "T*(x) = T(2x - 1)")
shifted_chebyshev_polynomial_u = _orthogonal_polynomial("shifted_chebyshev_polynomial_u", "U*(x) = U(2x - 1)")
shifted_chebyshev_polynomial_v = _orthogonal_polynomial("shifted_chebyshev_polynomial_v", "V*(x) = V(2x - 1)")
shifted_chebyshev_polynomial_w = _orthogonal_polynomial("shifted_chebyshev_polynomial_w", "W*(x) = W(2x - 1)")
hermite_polynomial_h = _orthogonal_polynomial("hermite_polynomial_h", "physicists' Hermite polynomial")
hermite_polynomial_he = _orthogonal_polynomial("hermite_polynomial_he", "probabilists' Hermite polynomial")
laguerre_polynomial_l = _orthogonal_polynomial("laguerre_polynomial_l", "Laguerre polynomial")
legendre_polynomial_p = _orthogonal_polynomial("legendre_polynomial_p", "Legendre polynomial")


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where input is 0 (unless other is NaN); either may be a number."""
    return _out("xlogy", out, _tensors(input, other), lambda: _core._xlogy(input, other, "special_xlogy"))


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, 0 where input is 0 (unless other is NaN); either may be a number."""
    return _out("special_xlog1py", out, _tensors(input, other), lambda: _core._xlog1py(input, other))


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ζ(input, other); its gradient only in `other`, as torch's."""
    return _out("special_zeta", out, _tensors(input, other), lambda: _core._zeta(input, other))


def gammainc(input, other, *, out=None):
    """P(input, other) = γ(input, other)/Γ(input), the regularized lower incomplete gamma function
    (``ferrograd.igamma``); its gradient only in `other`, as torch's."""
    # torch's out= errors name igamma, its TypeErrors special_gammainc
    return _out("igamma", out, _tensors(input, other), lambda: _core._igamma(input, other, "special_gammainc"))


def gammaincc(input, other, *, out=None):
    """Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function
    (``ferrograd.igammac``); its gradient only in `other`, as torch's."""
    return _out("igammac", out, _tensors(input, other), lambda: _core._igammac(input, other, "special_gammaincc"))


mvlgamma = multigammaln
