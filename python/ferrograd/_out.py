"""Function forms that take what torch's take beyond their method (the unary registry ops' `out=` is in the
generated `_functions.py`, through `write_out` here): `out=` (the result written into a given
tensor, resized as torch resizes it, with torch's dtype rules and errors) and a number as `pow`'s base."""

import builtins

from . import _core, _functions
from ._core import Tensor
from ._utils import wraps

_NAMES = {
    "bool": ("Bool", "bool"),
    "uint8": ("Byte", "unsigned char"),
    "int8": ("Char", "signed char"),
    "int16": ("Short", "short int"),
    "int32": ("Int", "int"),
    "int64": ("Long", "long int"),
    "float16": ("Half", "c10::Half"),
    "bfloat16": ("BFloat16", "c10::BFloat16"),
    "float32": ("Float", "float"),
    "float64": ("Double", "double"),
}
_RESIZED = (
    "An output with one or more elements was resized since it had shape {}, which does not match the required "
    "output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
    "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
    "elements with t.resize_(0)."
)


def _name(dtype, c_name=False):
    return _NAMES[str(dtype).rpartition(".")[2]][1 if c_name else 0]


def _can_cast(src, dst):
    """torch.can_cast: never float to integer or bool, nor integer to bool."""
    if src.is_floating_point:
        return dst.is_floating_point
    return src == _core.bool or dst != _core.bool


def _cast_rule(op, result, out):
    if not _can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_name(result.dtype)} can't be cast to the desired output type {_name(out.dtype)}"
        )


def _exact_rule(op, result, out):
    """Ops that keep their input's dtype (abs, floor, ...) take an out of exactly that dtype."""
    if result.dtype != out.dtype:
        raise RuntimeError(f"Found dtype {_name(out.dtype)} but expected {_name(result.dtype)}")


def _cat_rule(op, result, out):
    if not _can_cast(result.dtype, out.dtype):
        raise TypeError(f"torch.{op}(): input types can't be cast to the desired output type {_name(out.dtype)}")


def _matmul_rule(op, result, out):
    if result.dtype != out.dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {_name(result.dtype, True)}, but got {_name(out.dtype, True)} instead"
        )


def _where_rule(op, result, out):
    if result.dtype != out.dtype:
        raise RuntimeError(f"Expected out type to be {_name(result.dtype)} but got {_name(out.dtype)}")


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _check_out(op, out, args, kwargs):
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _core.is_grad_enabled() and any(t.requires_grad for t in _tensors([out, *args, *kwargs.values()])):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, but one of the "
            "arguments requires grad."
        )


def write_out(op, out, result, rule=_cast_rule):
    """Puts `result` into `out` (torch's `out=`): cast to out's dtype, out resized (with torch's warning when it
    held elements) if the shapes differ; returns `out`."""
    rule(op, result, out)
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            import warnings

            warnings.warn(_RESIZED.format(list(out.shape), list(result.shape)), UserWarning, stacklevel=3)
        out.data = result.to(out.dtype)
    else:
        from .grad_mode import no_grad

        with no_grad():
            out.copy_(result)
    return out


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
