"""torch's `out=`: the result written into a given tensor, resized as torch resizes it, with torch's dtype
rules and errors. Used by the generated function forms (`_functions.py`) and by `_out.py`; needs neither."""

from . import _core
from ._arg_errors import require_tensor
from ._core import Tensor

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
    require_tensor(out, op, "out")
    if _core.is_grad_enabled() and any(t.requires_grad for t in _tensors([out, *args, *kwargs.values()])):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, but one of the "
            "arguments requires grad."
        )


def write_out(op, out, result, rule=_cast_rule):
    """Puts `result` into `out` (torch's `out=`): cast to out's dtype, out resized (with torch's warning when it
    held elements) if the shapes differ; returns `out`."""
    require_tensor(out, op, "out")
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


def factory_dtype(op, out, dtype):
    """A factory's dtype under `out=` (torch's rule): `out`'s, unless `dtype=` names another (torch's error);
    without `out`, `dtype` as given."""
    if out is None:
        return dtype
    require_tensor(out, op, "out")
    if dtype is not None and dtype != out.dtype:
        raise RuntimeError(f"dtype {_name(dtype)} does not match dtype of out parameter ({_name(out.dtype)})")
    return out.dtype


_ARANGE_RESIZED = (
    "The number of elements in the out tensor of shape {} is {} which does not match the computed number of "
    "elements {}. Note that this may occur as a result of rounding error. The out tensor will be resized to a "
    "tensor of shape ({},)."
)


def factory_out(op, out, made, keep_shape=False, requires_grad=False):
    """`made` written into `out`, or `made` itself without `out`. A factory resizes `out` to its shape without a
    word (but arange, which warns when the counts differ); `keep_shape`: an `out` with as many elements keeps its
    own shape (torch's arange, linspace and logspace). `requires_grad` then applies to `out`."""
    if out is None:
        return made
    require_tensor(out, op, "out")
    if keep_shape and out.numel() == made.numel():
        made = made.reshape(out.shape)
    elif op == "arange":
        import warnings

        warnings.warn(
            _ARANGE_RESIZED.format(list(out.shape), out.numel(), made.numel(), made.numel()), UserWarning, stacklevel=3
        )
    from .grad_mode import no_grad

    with no_grad():
        if tuple(out.shape) == tuple(made.shape):
            out.copy_(made)
        else:
            out.data = made.to(out.dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out
