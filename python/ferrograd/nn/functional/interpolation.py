"""`interpolate` (and the deprecated `upsample*` spellings): nearest, nearest-exact, linear, bilinear,
bicubic, trilinear and area (adaptive average pooling) resampling of the spatial dims, with PyTorch's argument
checks. The kernels and their gradients are one Rust op (`_core._upsample`).
"""

import math
import numbers

from ... import _core
from ..._core import Tensor
from ..._utils import warn_at_function_caller

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# the linear family by the number of spatial dims it needs
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}
_INT64_MAX = 2**63


def _is_integer(x) -> bool:
    if isinstance(x, Tensor):
        return not x.is_floating_point() and x.dim() == 0
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _as_size(x, op: str) -> int:
    if not _is_integer(x):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got an output size of type "
            f"{type(x).__name__}, but expected one of: (Tensor input, tuple of ints output_size, tuple of floats "
            "scale_factors)"
        )
    return int(x)


def _to_int64(value: float) -> int:
    """The output size PyTorch's C++ takes from `input_size * scale` (truncation, range-checked)."""
    if not math.isfinite(value) or not -_INT64_MAX <= value < _INT64_MAX:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(value)


def _kernel_name(dim: int, mode: str) -> str:
    if mode in ("nearest", "nearest-exact"):
        prefix = "upsample_nearest" if mode == "nearest" else "_upsample_nearest_exact"
        return f"{prefix}{dim}d"
    return {"linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d", "trilinear": "upsample_trilinear3d"}.get(
        mode, "upsample_bicubic2d"
    )


def interpolate(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias: bool = False,
) -> Tensor:
    """Resizes the spatial dims of a 3-D, 4-D or 5-D `input` to `size`, or by `scale_factor`, with `mode`."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    # exactly one of output_size and scale_factors is set after this block, as a list
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got "
                    f"size with types {[type(x) for x in size]}"
                )
            output_size = [int(x) for x in size]
        else:
            output_size = [_as_size(size, _kernel_name(dim, mode))] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # area mode always works from an explicit size
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        assert scale_factors is not None  # exactly one of the two is set above
        # the size from the scale factors; the kernel then infers its scales from the sizes
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )

    if output_size is None:
        assert scale_factors is not None
        output_size = [_to_int64(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
    for pos, s in enumerate(output_size):
        if not -_INT64_MAX <= s < _INT64_MAX:
            raise TypeError(
                f"{_kernel_name(dim, mode)}(): argument 'output_size' failed to unpack the object at pos {pos + 1} "
                'with error "Overflow when unpacking long long"'
            )
    scales = list(scale_factors) if scale_factors is not None else [None] * dim

    if mode in ("nearest", "nearest-exact") and 1 <= dim <= 3:
        return _core._upsample(input, mode, output_size, scales, False)
    if mode == "area" and 1 <= dim <= 3:
        # adaptive average pooling; in one dim a pooling of (1, L) planes, as torch's adaptive_avg_pool1d
        if all(s == 1 for s in output_size) and all(input.shape[2:]):
            # to one element per plane: a mean, as torch's adaptive pooling (MeanBackward1)
            if dim == 1:
                return input.unsqueeze(-2).mean((-1, -2), keepdim=True).squeeze(-2)
            return input.mean(tuple(range(2, input.dim())), keepdim=True)
        if dim == 1:
            return _core._upsample(input.unsqueeze(-2), "area", [1, *output_size], [None, None], False).squeeze(-2)
        return _core._upsample(input, "area", output_size, [None] * dim, False)
    if _LINEAR_DIMS.get(mode) == dim or mode == "bicubic" and dim == 2:
        if antialias:
            raise NotImplementedError(f"interpolate: antialias=True ({mode}) is not supported by ferrograd yet")
        if input.dtype == _core.uint8 and dim == 2:  # torch has uint8 kernels for these two modes only
            raise NotImplementedError(
                f"interpolate: {mode} mode on uint8 input is not supported by ferrograd yet; convert the input to a "
                "floating point dtype"
            )
        return _core._upsample(input, "bicubic" if mode == "bicubic" else "linear", output_size, scales, align_corners)
    if mode == "lanczos" and dim == 2:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise NotImplementedError("interpolate: lanczos mode is not supported by ferrograd yet")
    for name, needs in _LINEAR_DIMS.items():
        if mode == name and dim in (1, 2, 3):
            raise NotImplementedError(f"Got {dim + 2}D input, but {name} mode needs {needs + 2}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: {_MODES} "
        f"(got {mode})"
    )


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """Deprecated spelling of `interpolate`."""
    warn_at_function_caller(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated spelling of `interpolate(..., mode="nearest")`."""
    warn_at_function_caller(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated spelling of `interpolate(..., mode="bilinear", align_corners=True)`."""
    warn_at_function_caller(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
