"""Gradient clipping: `clip_grad_norm_` (by the total norm of all gradients) and `clip_grad_value_`.

One norm per gradient, then one norm of their stack: the same total as the norm of all gradients
concatenated, without the copy.
"""

import functools
import types

from ... import _core
from ..._core import Tensor
from ..._utils import typed_entry_points as _typed_entry_points
from ..._utils import warn_at_caller, warn_at_function_caller
from ...grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _no_grad(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with no_grad():
            return fn(*args, **kwargs)

    return wrapper


def _check_foreach(foreach):
    # ferrograd's per-tensor ops already run in Rust; `foreach` only changes how PyTorch batches its kernels
    if foreach is not None and not isinstance(foreach, bool):
        raise TypeError(f"foreach must be a bool or None, got {type(foreach).__name__}")


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The `norm_type`-norm of all `tensors` taken together, as a 0-dim tensor (0. for none)."""
    _check_foreach(foreach)
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _core.tensor(0.0)
    total = _core.stack([t.norm(norm_type) for t in tensors]).norm(norm_type)
    if error_if_nonfinite and bool(total.isnan().logical_or(total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales every `.grad` by min(1, max_norm / (total_norm + 1e-6)) in place."""
    _check_foreach(foreach)
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Rescales the gradients of `parameters` so that their total `norm_type`-norm is at most `max_norm`;
    returns the total norm before clipping (a tensor). `norm_type` may be `inf`."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warn_at_caller("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of `clip_grad_norm_`."""
    warn_at_function_caller(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every `.grad` into [-clip_value, clip_value] in place."""
    _check_foreach(foreach)
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_typed_entry_points(globals(), [n for n in list(globals()) if not n.startswith("_")])
