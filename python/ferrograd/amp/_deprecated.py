"""The old per-device spellings `torch.cuda.amp.*` and `torch.cpu.amp.*`: subclasses of the `torch.amp` classes
that warn (FutureWarning, torch's text) and fix the device."""

import warnings

from .autocast_mode import autocast as _autocast
from .autocast_mode import custom_bwd as _custom_bwd
from .autocast_mode import custom_fwd as _custom_fwd
from .grad_scaler import GradScaler as _GradScaler


def _warn(old, new):
    warnings.warn(f"`{old}` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


def autocast_class(device_type, default_dtype):
    class autocast(_autocast):  # torch's name
        __doc__ = f"`torch.{device_type}.amp.autocast(args...)`: `torch.amp.autocast({device_type!r}, args...)`."

        def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
            _warn(f"torch.{device_type}.amp.autocast(args...)", f"torch.amp.autocast('{device_type}', args...)")
            super().__init__(device_type, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    autocast.__module__ = f"ferrograd.{device_type}.amp"
    return autocast


def grad_scaler_class(device_type):
    class GradScaler(_GradScaler):
        __doc__ = f"`torch.{device_type}.amp.GradScaler(args...)`: `torch.amp.GradScaler({device_type!r}, args...)`."

        def __init__(
            self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True
        ):
            _warn(f"torch.{device_type}.amp.GradScaler(args...)", f"torch.amp.GradScaler('{device_type}', args...)")
            super().__init__(device_type, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    GradScaler.__module__ = f"ferrograd.{device_type}.amp"
    return GradScaler


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """`torch.cuda.amp.custom_fwd`: `torch.amp.custom_fwd(..., device_type='cuda')`."""
    _warn("torch.cuda.amp.custom_fwd(args...)", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """`torch.cuda.amp.custom_bwd`: `torch.amp.custom_bwd(..., device_type='cuda')`."""
    _warn("torch.cuda.amp.custom_bwd(args...)", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _custom_bwd(bwd, device_type="cuda")
