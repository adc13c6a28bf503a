"""`torch.autocast` (`torch.amp.autocast`): a context manager and decorator that switches autocast on or off
for a device type within its block, with torch's arguments, defaults, checks and warnings.

A CPU region runs torch's lower-precision ops (matmul, linear, conv, attention, ...) in bfloat16 (or float16
when asked for) and its float32 ops (the losses) in float32: the state is the core's, per thread, and the ops read
it at their entry (`rust/core/src/autocast.rs`). CUDA autocast is disabled with torch's warning (there is no CUDA).
"""

import functools
import warnings

from .. import _autocast_state as state
from .. import _core
from .._core import Tensor, bfloat16, float16, float64

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

_SUPPORTED_DTYPES = (bfloat16, float16)


def is_autocast_available(device_type) -> bool:
    """Whether autocast can be asked for on `device_type` (torch's list; an unknown name raises)."""
    try:
        state.device_type_of(device_type, "is_autocast_available")
    except RuntimeError as e:
        if str(e) == "unsupported scalarType":
            return False
        raise
    return True


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


class autocast:  # torch's name
    """`with autocast(device_type, dtype=None, enabled=True, cache_enabled=None):` or `@autocast(...)`."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.fast_dtype = state.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        self._cache_enabled = state.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            enabled = self._check_enabled()
        self._enabled = enabled

    def _check_enabled(self):
        """Whether the region can be on, warning (as torch does) where it cannot."""
        if self.device == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3)
            return False
        if self.fast_dtype not in _SUPPORTED_DTYPES:
            name = self.device.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{name} Autocast only supports dtypes of " + ", ".join(map(str, _SUPPORTED_DTYPES)) + " currently.",
                stacklevel=3,
            )
            return False
        return True

    def __enter__(self):
        kind = state.device_type_of(self.device, "autocast")
        self._saved = (
            state.is_autocast_cache_enabled(),
            state.is_autocast_enabled(kind),
            state.get_autocast_dtype(kind),
        )
        state.set_autocast_enabled(kind, self._enabled)
        state.set_autocast_dtype(kind, self.fast_dtype)
        state.set_autocast_cache_enabled(self._cache_enabled)
        _core._autocast_increment_nesting()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        kind = state.device_type_of(self.device, "autocast")
        # as torch: the weights' lower-precision copies live until the outermost region exits
        if _core._autocast_decrement_nesting() == 0:
            state.clear_autocast_cache()
        cache_enabled, enabled, dtype = self._saved
        state.set_autocast_enabled(kind, enabled)
        state.set_autocast_dtype(kind, dtype)
        state.set_autocast_cache_enabled(cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)"
            )

        @functools.wraps(func)
        def in_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return in_autocast


def _cast(value, device_type, dtype):
    """`value` with its floating tensors (not float64) on `device_type` cast to `dtype`, through containers."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates an `autograd.Function`'s forward: records the autocast state for `custom_bwd`, and with
    `cast_inputs` runs the forward on inputs cast to that dtype with autocast off (when autocast is on)."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = state.get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = state.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not state.is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates an `autograd.Function`'s backward: runs it with the autocast state its forward had."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
