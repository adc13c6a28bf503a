"""Which devices have autocast on, with which dtype (`torch.is_autocast_enabled`, `torch.get_autocast_dtype`, and
their setters), as torch keeps it: per device type, defaults off, bfloat16 on the CPU and float16 on CUDA.

The CPU's state (on/off, dtype, the cast cache) lives in the core, per thread as torch's, and the ops torch lists
read it at their entry (`rust/core/src/autocast.rs`); the other device types are only recorded here (there are no
CUDA kernels). Here, without imports beyond `_core`, as `import ferrograd` loads it.
"""

import builtins

from . import _core
from ._arg_errors import type_name
from ._core import bfloat16, float16
from ._device import device

_DEFAULT_DTYPES = {
    "cpu": bfloat16,
    "cuda": float16,
    "xpu": float16,
    "mps": float16,
    "ipu": float16,
    "mtia": float16,
    "privateuseone": float16,
    "hpu": bfloat16,
    "maia": bfloat16,
    "xla": bfloat16,
}

_enabled: dict = {}
_dtypes = dict(_DEFAULT_DTYPES)


def device_type_of(device_type, caller):
    """The device type named by `device_type` ("cuda:0" is "cuda"), with torch's errors."""
    if not isinstance(device_type, str):
        raise TypeError(f"{caller}(): argument 'device_type' (position 1) must be str, not {type_name(device_type)}")
    kind = device(device_type).type
    if kind not in _DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return kind


def is_autocast_enabled(device_type=None) -> builtins.bool:
    """Whether autocast is on for `device_type` (CUDA when not given, as torch)."""
    kind = "cuda" if device_type is None else device_type_of(device_type, "is_autocast_enabled")
    if kind == "cpu":
        return _core._autocast_cpu_is_enabled()
    return _enabled.get(kind, False)


def _deprecated(old, new):
    import warnings

    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> builtins.bool:
    """Deprecated: `is_autocast_enabled("cpu")`."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _core._autocast_cpu_is_enabled()


def get_autocast_cpu_dtype():
    """Deprecated: `get_autocast_dtype("cpu")`."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return _core._autocast_cpu_get_dtype()


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # the old one-argument form, for CUDA
        device_type, enabled = "cuda", device_type
    kind = device_type_of(device_type, "set_autocast_enabled")
    if kind == "cpu":
        _core._autocast_cpu_set_enabled(builtins.bool(enabled))
    else:
        _enabled[kind] = builtins.bool(enabled)


def get_autocast_dtype(device_type):
    kind = device_type_of(device_type, "get_autocast_dtype")
    return _core._autocast_cpu_get_dtype() if kind == "cpu" else _dtypes[kind]


def set_autocast_dtype(device_type, dtype) -> None:
    kind = device_type_of(device_type, "set_autocast_dtype")
    if kind == "cpu":
        _core._autocast_cpu_set_dtype(dtype)
    else:
        _dtypes[kind] = dtype


def is_autocast_cache_enabled() -> builtins.bool:
    return _core._autocast_cache_is_enabled()


def set_autocast_cache_enabled(enabled) -> None:
    _core._autocast_set_cache_enabled(builtins.bool(enabled))


def clear_autocast_cache() -> None:
    """Drops the lower-precision copies of weights the autocast regions of this thread made."""
    _core._autocast_clear_cache()


def set_autocast_cpu_enabled(enabled) -> None:
    """Deprecated: `set_autocast_enabled("cpu", enabled)`."""
    _deprecated_setter("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _core._autocast_cpu_set_enabled(builtins.bool(enabled))


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated: `set_autocast_dtype("cpu", dtype)`."""
    _deprecated_setter("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _core._autocast_cpu_set_dtype(dtype)


def get_autocast_gpu_dtype():
    """Deprecated: `get_autocast_dtype("cuda")`."""
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return _dtypes["cuda"]


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated: `set_autocast_dtype("cuda", dtype)`."""
    _deprecated_setter("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _dtypes["cuda"] = dtype


def _deprecated_setter(old, new):
    import warnings

    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def autocast_increment_nesting() -> builtins.int:
    """Enters one autocast region (of this thread): the new depth."""
    return _core._autocast_increment_nesting()


def autocast_decrement_nesting() -> builtins.int:
    """Leaves one autocast region: the new depth (the cast cache is cleared by `autocast` when it reaches 0)."""
    return _core._autocast_decrement_nesting()
