"""`torch.backends` as PyTorch's CPU-only build answers it: no CUDA, cuDNN, MPS, oneDNN or OpenMP backend.

The flags programs set (`cudnn.benchmark`, `cuda.matmul.allow_tf32`, `mkldnn.enabled`, ...) keep torch's
defaults, take only bools (torch's RuntimeError otherwise) and are reported back; none changes what ferrograd
computes (full float32, deterministic; see `_flags`). `import ferrograd.backends.cudnn as cudnn` works as with
torch: each backend is registered in `sys.modules` under its full name.

Two answers follow what ferrograd is rather than a CPU torch: `mkldnn.is_available()` and
`openmp.is_available()` are False (ferrograd has its own kernels and thread pool; a program that sees True
would reach for `Tensor.to_mkldnn()`).
"""

import sys
import types
from contextlib import contextmanager

from .. import _flags


class _Flag:
    """A backend attribute kept in `_flags.STATE` under `key`; a set value must be a bool (the message names
    torch's C++ setter)."""

    def __init__(self, key, setter_name):
        self.key, self.setter_name = key, setter_name

    def __get__(self, obj, objtype=None):
        return self if obj is None else _flags.STATE[self.key]

    def __set__(self, obj, value):
        _flags.STATE[self.key] = _flags.expect_bool(value, self.setter_name)


class _Backend(types.ModuleType):
    """A `torch.backends.<name>` module (a module subclass, so that its flags can check what is set)."""

    def __init__(self, name, doc, **functions):
        super().__init__(f"{__name__}.{name}", doc)
        self.__dict__.update(functions)
        sys.modules[self.__name__] = self


def _false():
    return False


def _none():
    return None


def _restore_after(module_class, **new):
    """A context manager setting the flags of `module_class` named in `new` (None: left alone) for its block,
    each checked as its setter checks it, and restoring them all after."""
    flags = {name: vars(module_class)[name] for name in new}

    @contextmanager
    def block():
        saved = {flag.key: _flags.STATE[flag.key] for flag in flags.values()}
        try:
            for name, value in new.items():
                if value is not None:
                    _flags.STATE[flags[name].key] = _flags.expect_bool(value, flags[name].setter_name)
            yield
        finally:
            _flags.STATE.update(saved)

    return block()


class _CudnnModule(_Backend):
    enabled = _Flag("cudnn.enabled", "set_enabled_cudnn")
    benchmark = _Flag("cudnn.benchmark", "set_benchmark_cudnn")
    deterministic = _Flag("cudnn.deterministic", "set_deterministic_cudnn")
    # torch's message names the cuBLAS setter here too
    allow_tf32 = _Flag("cudnn.allow_tf32", "set_allow_tf32_cublas")
    benchmark_limit = None  # an int only where cuDNN is available


def _cudnn_flags(
    enabled=False,
    benchmark=False,
    benchmark_limit=10,
    deterministic=False,
    allow_tf32=True,
    fp32_precision="none",
    depthwise_kernel="auto",
):
    """`with torch.backends.cudnn.flags(...)`: the flags set for the block, restored after it
    (`benchmark_limit`, `fp32_precision` and `depthwise_kernel` are accepted; a CPU build has no use for them)."""
    return _restore_after(
        _CudnnModule, enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32
    )


class _MkldnnModule(_Backend):
    enabled = _Flag("mkldnn.enabled", "set_enabled_mkldnn")
    deterministic = _Flag("mkldnn.deterministic", "set_deterministic_mkldnn")


def _mkldnn_flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """`with torch.backends.mkldnn.flags(...)`: the flags set for the block, restored after it."""
    return _restore_after(_MkldnnModule, enabled=enabled, deterministic=deterministic)


class cuBLASModule:
    """`torch.backends.cuda.matmul`: `allow_tf32` is float32 matmul precision "high" (True) or "highest"."""

    _REDUCTIONS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _flags.STATE["float32_matmul_precision"] != "highest"
        if name in self._REDUCTIONS:
            return _flags.STATE[f"matmul.{name}"]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _flags.expect_bool(value, "set_allow_tf32_cublas")
            _flags.STATE["float32_matmul_precision"] = "high" if value else "highest"
        elif name in self._REDUCTIONS:
            if not isinstance(value, (bool, tuple, list)):
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
            _flags.STATE[f"matmul.{name}"] = value if isinstance(value, bool) else value[0]
        else:
            raise AttributeError("Unknown attribute " + name)


def _sdp_switch(kind, setter_name):
    """`enable_<kind>_sdp(enabled)` and `<kind>_sdp_enabled()`, over `_flags.STATE["sdp.<kind>"]`."""

    def enable(enabled):
        _flags.STATE[f"sdp.{kind}"] = _flags.expect_bool(enabled, setter_name)

    def enabled():
        return _flags.STATE[f"sdp.{kind}"]

    enable.__name__, enabled.__name__ = f"enable_{kind}_sdp", f"{kind}_sdp_enabled"
    return {enable.__name__: enable, enabled.__name__: enabled}


cuda = _Backend(
    "cuda",
    "torch.backends.cuda: not built (no CUDA); the attention-kernel switches choose the CPU's kernel as torch's.",
    is_built=_false,
    matmul=cuBLASModule(),
    **_sdp_switch("flash", "set_sdp_use_flash"),
    **_sdp_switch("mem_efficient", "set_sdp_use_mem_efficient"),
    **_sdp_switch("math", "set_sdp_use_math"),
    **_sdp_switch("cudnn", "set_sdp_use_cudnn"),
)

cudnn = _CudnnModule(
    "cudnn",
    "torch.backends.cudnn: not available; its flags are kept.",
    is_available=_false,
    version=_none,
    flags=_cudnn_flags,
)
mkldnn = _MkldnnModule(
    "mkldnn", "torch.backends.mkldnn: not available (no oneDNN).", is_available=_false, flags=_mkldnn_flags
)
mps = _Backend("mps", "torch.backends.mps: not built (no Metal).", is_available=_false, is_built=_false)
openmp = _Backend("openmp", "torch.backends.openmp: ferrograd's own thread pool, no OpenMP.", is_available=_false)
mkl = _Backend("mkl", "torch.backends.mkl: not available (no MKL).", is_available=_false)

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
