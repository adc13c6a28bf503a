"""Function forms that take what torch's take beyond their method: `out=` (`_write_out.py`; the unary registry
ops' own is in the generated `_functions.py`) and a number as `pow`'s base."""

import builtins

from . import _core, _functions
from ._core import Tensor
from ._utils import wraps
from ._write_out import _cast_rule, _cat_rule, _check_out, _matmul_rule, _where_rule, write_out


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


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """`input.sum(...)`; with `out=` the sum is taken in out's dtype (unless `dtype` is given), as in torch."""
    if out is None:
        return _functions.sum(input, dim, keepdim, dtype=dtype)  # torch's TypeError for a non-tensor input
    _check_out("sum", out, (input,), {})
    return write_out("sum", out, _functions.sum(input, dim, keepdim, dtype=dtype or out.dtype))


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
where = _with_out(_core.where, "where", _where_rule)

__all__ = ["add", "sub", "mul", "div", "clamp", "pow", "matmul", "mm", "sum", "cat", "stack", "where"]
