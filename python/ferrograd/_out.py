"""Function forms that take what torch's take beyond their method: `out=` (`_write_out.py`; the unary registry
ops' own is in the generated `_functions.py`), a number as `pow`'s and `float_power`'s base, and the in-place
functions torch has of binary methods (`ferrograd.gcd_`)."""

import builtins

from . import _core, _functions
from ._core import Tensor
from ._utils import wraps
from ._write_out import _can_cast, _cast_rule, _cat_rule, _check_out, _matmul_rule, _name, _where_rule, write_out


def _with_out(fn, op, rule=_cast_rule):
    @wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        _check_out(op, out, args, kwargs)
        return write_out(op, out, fn(*args, **kwargs), rule)

    return with_out


def _pow(input, exponent):
    """`input ** exponent`; `input` may be a number (then `exponent` is a tensor), as in torch."""
    if isinstance(input, Tensor):
        return input.pow(exponent)
    if isinstance(exponent, Tensor) and isinstance(input, (builtins.int, builtins.float, builtins.bool)):
        return exponent.__rpow__(input)
    raise TypeError(
        f"pow() received an invalid combination of arguments - got ({type(input).__name__}, "
        f"{type(exponent).__name__}), but expected (Tensor input, Tensor exponent) or (Number self, Tensor "
        "exponent) or (Tensor input, Number exponent)"
    )


def _float_power(input, exponent):
    """`input ** exponent` in float64; `input` may be a number (then `exponent` is a tensor), as in torch."""
    if isinstance(input, Tensor):
        return input.float_power(exponent)
    if isinstance(exponent, Tensor) and isinstance(input, (builtins.int, builtins.float, builtins.bool)):
        return exponent.to(_core.float64).__rpow__(input)
    raise TypeError(
        f"float_power() received an invalid combination of arguments - got ({type(input).__name__}, "
        f"{type(exponent).__name__}), but expected one of:\n"
        " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
        " * (Number self, Tensor exponent, *, Tensor out = None)\n"
        " * (Tensor input, Number exponent, *, Tensor out = None)\n"
    )


def _float_power_rule(op, result, out):
    if out.dtype != _core.float64:
        raise RuntimeError(
            f"the output given to float_power has dtype {_name(out.dtype)} but the operation's result requires "
            "dtype Double"
        )


def _ldexp_rule(op, result, out):
    if not _can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_name(out.dtype)}")


def _heaviside_rule(op, result, out):
    if out.dtype != result.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def _bool_rule(op, result, out):
    if out.dtype != _core.bool:
        raise RuntimeError(f"{op} does not support non-boolean outputs.")


def _inplace_function(name):
    """`ferrograd.<name>(input, other)`: `input.<name>(other)`, torch's TypeError for a non-tensor input."""

    def inplace(input, other):
        try:
            method = getattr(input, name)
        except AttributeError as e:
            raise _functions._not_a_tensor(e, name, input) from None
        return method(other)

    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"In-place ``{name[:-1]}``."
    return inplace


gcd_ = _inplace_function("gcd_")
lcm_ = _inplace_function("lcm_")
ldexp_ = _inplace_function("ldexp_")


def _method_of(input, name):
    """`input.<name>`, or torch's TypeError for a non-tensor input."""
    try:
        return getattr(input, name)
    except AttributeError as e:
        raise _functions._not_a_tensor(e, name, input) from None


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """In-place ``addmv``."""
    return _method_of(input, "addmv_")(mat, vec, beta=beta, alpha=alpha)


def index_put_(input, indices, values, accumulate=False):
    """In-place ``index_put``."""
    return _method_of(input, "index_put_")(indices, values, accumulate)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """`input.sum(...)`; with `out=` the sum is taken in out's dtype (unless `dtype` is given), as in torch."""
    if out is None:
        return _functions.sum(input, dim, keepdim, dtype=dtype)  # torch's TypeError for a non-tensor input
    _check_out("sum", out, (input,), {})
    return write_out("sum", out, _functions.sum(input, dim, keepdim, dtype=dtype or out.dtype))


def igamma(input, other, *, out=None):
    """P(input, other), the regularized lower incomplete gamma function (``special.gammainc``)."""
    if out is None:
        return _core._igamma(input, other)
    _check_out("igamma", out, (input, other), {})
    return write_out("igamma", out, _core._igamma(input, other))


def igammac(input, other, *, out=None):
    """Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function
    (``special.gammaincc``)."""
    if out is None:
        return _core._igammac(input, other)
    _check_out("igammac", out, (input, other), {})
    return write_out("igammac", out, _core._igammac(input, other))


add = _with_out(_functions.add, "add")
sub = _with_out(_functions.sub, "sub")
mul = _with_out(_functions.mul, "mul")
div = _with_out(_functions.div, "div")
clamp = _with_out(_functions.clamp, "clamp")
pow = _with_out(_pow, "pow")
matmul = _with_out(_functions.matmul, "matmul", _matmul_rule)
mm = _with_out(_functions.mm, "mm", _matmul_rule)
cat = _with_out(_core.cat, "cat", _cat_rule)
stack = _with_out(_core.stack, "stack", _cat_rule)
_where_with_out = _with_out(_core.where, "where", _where_rule)


def where(condition, input=None, other=None, *, out=None):
    """`where(condition, input, other)`, into `out=` if given; `where(condition)` alone is
    `nonzero(condition, as_tuple=True)`."""
    if input is None and other is None and out is None:
        return _core.where(condition)
    return _where_with_out(condition, input, other, out=out)


hypot = _with_out(_functions.hypot, "hypot")
copysign = _with_out(_functions.copysign, "copysign")
fmax = _with_out(_functions.fmax, "fmax")
fmin = _with_out(_functions.fmin, "fmin")
logaddexp = _with_out(_functions.logaddexp, "logaddexp")
logaddexp2 = _with_out(_functions.logaddexp2, "logaddexp2")
nextafter = _with_out(_functions.nextafter, "nextafter")
ldexp = _with_out(_functions.ldexp, "ldexp", _ldexp_rule)
heaviside = _with_out(_functions.heaviside, "heaviside", _heaviside_rule)
gcd = _with_out(_functions.gcd, "gcd")
lcm = _with_out(_functions.lcm, "lcm")
float_power = _with_out(_float_power, "float_power", _float_power_rule)
signbit = _with_out(_functions.signbit, "signbit", _bool_rule)
isposinf = _with_out(_functions.isposinf, "isposinf", _bool_rule)
isneginf = _with_out(_functions.isneginf, "isneginf", _bool_rule)
addcmul = _with_out(_functions.addcmul, "addcmul")
addcdiv = _with_out(_functions.addcdiv, "addcdiv")
index_copy = _with_out(_functions.index_copy, "index_copy", _matmul_rule)
scatter_reduce = _with_out(_functions.scatter_reduce, "scatter_reduce", _matmul_rule)
addbmm = _with_out(_functions.addbmm, "addbmm", _matmul_rule)
addmv = _with_out(_functions.addmv, "addmv", _matmul_rule)
addr = _with_out(_functions.addr, "addr")
slice_scatter = _with_out(_functions.slice_scatter, "slice_scatter", _matmul_rule)

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "clamp",
    "pow",
    "matmul",
    "mm",
    "sum",
    "cat",
    "stack",
    "where",
    "hypot",
    "copysign",
    "fmax",
    "fmin",
    "logaddexp",
    "logaddexp2",
    "nextafter",
    "ldexp",
    "heaviside",
    "gcd",
    "lcm",
    "float_power",
    "signbit",
    "isposinf",
    "isneginf",
    "addcmul",
    "addcdiv",
    "gcd_",
    "lcm_",
    "ldexp_",
    "index_copy",
    "scatter_reduce",
    "addbmm",
    "addmv",
    "addr",
    "slice_scatter",
    "addmv_",
    "index_put_",
    "igamma",
    "igammac",
]
