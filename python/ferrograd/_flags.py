"""The process-wide settings programs write for PyTorch's backends (`torch.backends.*` flags, float32 matmul
precision, deterministic algorithms, denormal flushing), with torch's defaults on a CPU-only build.

ferrograd keeps and reports them; none changes its kernels: they compute in full float32 (never TF32, which is
a GPU format) and deterministically on the CPU. Plain state here, no imports: `import ferrograd` loads this.
"""

import builtins

from ._arg_errors import type_name

STATE: dict = {
    "cudnn.enabled": True,
    "cudnn.benchmark": False,
    "cudnn.deterministic": False,
    "cudnn.allow_tf32": True,
    "mkldnn.enabled": True,
    "mkldnn.deterministic": False,
    "matmul.allow_fp16_reduced_precision_reduction": True,
    "matmul.allow_bf16_reduced_precision_reduction": True,
    "float32_matmul_precision": "highest",
    "deterministic_algorithms": False,
    "deterministic_algorithms_warn_only": False,
    # scaled_dot_product_attention's kernels (`torch.backends.cuda.enable_*_sdp`, `nn.attention.sdpa_kernel`): on
    # the CPU, flash picks the fused kernel and math the composition; the other two have no CPU kernel
    "sdp.flash": True,
    "sdp.mem_efficient": True,
    "sdp.math": True,
    "sdp.cudnn": True,
}

_PRECISIONS = ("highest", "high", "medium")


def expect_bool(value, setter_name):
    """torch's check in its C++ setters: a bool, not a number standing for one."""
    if not isinstance(value, builtins.bool):
        raise RuntimeError(f"{setter_name} expects a bool, but got {type_name(value)}")
    return value


def set_float32_matmul_precision(precision) -> None:
    """Sets the precision float32 matrix products may use: "highest" (full float32, the default), "high" or
    "medium" (which allow TF32 or bfloat16 on GPUs). ferrograd computes in float32 whichever is set."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type_name(precision)}")
    if precision not in _PRECISIONS:
        import warnings

        # torch's text, its missing space included
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    STATE["float32_matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision set by `set_float32_matmul_precision` ("highest" unless changed)."""
    return STATE["float32_matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Records whether deterministic algorithms are required. ferrograd's kernels are deterministic already
    (the same inputs and thread count give the same bits), so nothing else changes."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(
            f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type_name(mode)}"
        )
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(
            f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not {type_name(warn_only)}"
        )
    STATE["deterministic_algorithms"] = mode
    STATE["deterministic_algorithms_warn_only"] = warn_only


def are_deterministic_algorithms_enabled() -> builtins.bool:
    return STATE["deterministic_algorithms"]


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    return STATE["deterministic_algorithms_warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / "default", 1 / "warn" or 2 / "error": the same setting as `use_deterministic_algorithms`."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, builtins.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> builtins.int:
    if not STATE["deterministic_algorithms"]:
        return 0
    return 1 if STATE["deterministic_algorithms_warn_only"] else 2


def set_flush_denormal(mode) -> builtins.bool:
    """Whether denormal floats are flushed to zero: False, as torch answers where it cannot set the mode
    (ferrograd's kernels keep denormals)."""
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type_name(mode)}")
    return False
