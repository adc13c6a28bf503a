"""Pooling: max, average, power-average and adaptive, in one, two and three dimensions."""

import numbers

from ... import _core
from ..._core import Tensor
from .._tuples import _pair as _plain_pair
from .._tuples import _triple as _plain_triple
from .conv import _pair


def _pool_args(func, kernel_size, stride, padding, dilation=1):
    kernel = _pair(kernel_size, "kernel_size", 2, func)
    stride = (
        kernel
        if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
        else _pair(stride, "stride", 2, func)
    )
    padding = _pair(padding, "padding", 2, func)
    dilation = _pair(dilation, "dilation", 2, func)
    if any(v < 0 for v in kernel + stride + padding + dilation):
        raise RuntimeError(f"{func}: kernel_size, stride, padding and dilation must be non-negative")
    return kernel, stride, padding, dilation


def max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Window maxima over the last two dims (MaxPool2DWithIndicesBackward0); NaN wins, as in PyTorch."""
    kernel, stride, padding, dilation = _pool_args("max_pool2d", kernel_size, stride, padding, dilation)
    values, indices = _core._max_pool2d(input, kernel, stride, padding, dilation, bool(ceil_mode))
    return (values, indices) if return_indices else values


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """max_pool2d's (values, indices) whatever `return_indices` says, as torch's; indices are flat positions in
    each (H, W) plane, which max_unpool2d takes back."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """Window means over the last two dims (AvgPool2DBackward0)."""
    if input.dim() < 3:
        # torch's kernel reads the channel dim (-3) first
        low, high = -max(input.dim(), 1), max(input.dim(), 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got -3)")
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding)
    divisor = None if divisor_override is None else int(divisor_override)
    return _core._avg_pool2d(input, kernel, stride, padding, bool(ceil_mode), bool(count_include_pad), divisor)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Means over the (nearly) equal rectangles that tile the last two dims into `output_size`."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size, output_size)
    output_size = list(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    # None keeps the input's size
    size = [input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size)]
    if any(s < 0 for s in size):
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]}}}"
        )
    if size == [1, 1] and input.is_floating_point() and all(s > 0 for s in input.shape[-2:]):
        return input.mean((-2, -1), keepdim=True)  # as PyTorch: MeanBackward1
    return _core._adaptive_avg_pool2d(input, size)


def _pool1d_args(func, kernel_size, stride, padding, dilation=1):
    kernel = _pair(kernel_size, "kernel_size", 1, func)[0]
    no_stride = stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
    stride = kernel if no_stride else _pair(stride, "stride", 1, func)[0]
    return kernel, stride, _pair(padding, "padding", 1, func)[0], _pair(dilation, "dilation", 1, func)[0]


def _pool1d_out(length, kernel, stride, padding, dilation, ceil_mode):
    span = length + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= length + padding:
        out -= 1  # the last window must start inside the input or the left padding
    return out


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Window maxima over the last dim of (N, C, L) or (C, L) input; indices count along L."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(input.shape)}"
        )
    kernel, stride, padding, dilation = _pool1d_args("max_pool1d", kernel_size, stride, padding, dilation)
    for name, value in (("kernel_size", kernel), ("stride", stride), ("dilation", dilation)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} and "
            f"kernel_size={kernel}"
        )
    out = _pool1d_out(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    values, _ = _core._max_pool2d(
        input.unsqueeze(-2), [1, kernel], [1, stride], [0, padding], [1, dilation], bool(ceil_mode)
    )
    return values.squeeze(-2)


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """max_pool1d's (values, indices) whatever `return_indices` says; indices count along L. As torch's (which
    max_pool1d with return_indices=True is too): max_pool2d over (..., 1, L), with that op's checks."""
    _check_pool1d_dims("max_pool1d", input)
    kernel, stride, padding, dilation = _pool1d_args("max_pool1d", kernel_size, stride, padding, dilation)
    if padding < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding}")
    if min(kernel, stride, dilation) < 0:
        raise RuntimeError("max_pool2d: kernel_size, stride, padding and dilation must be non-negative")
    values, indices = _core._max_pool2d(
        input.unsqueeze(-2), [1, kernel], [1, stride], [0, padding], [1, dilation], bool(ceil_mode)
    )
    return values.squeeze(-2), indices.squeeze(-2)


def avg_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Window means over the last dim of (N, C, L) or (C, L) input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            "checking arguments for avg_pool1d)"
        )
    kernel, stride, padding, _ = _pool1d_args("avg_pool1d", kernel_size, stride, padding)
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if padding > kernel // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={padding}, kernel_size={kernel} and "
            "dilation=1"
        )
    out = _pool1d_out(input.shape[-1], kernel, stride, padding, 1, ceil_mode)
    if out < 1:
        channels = input.shape[-2]
        raise RuntimeError(
            f"Given input size: ({channels}x1x{input.shape[-1]}). Calculated output size: ({channels}x1x{out}). "
            "Output size is too small"
        )
    pooled = _core._avg_pool2d(
        input.unsqueeze(-2), [1, kernel], [1, stride], [0, padding], bool(ceil_mode), bool(count_include_pad)
    )
    return pooled.squeeze(-2)


def _output_size(func, output_size, n, input):
    """An adaptive pool's output size as n ints (None keeps the input's size)."""
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size,) * n
    output_size = list(output_size)
    if len(output_size) != n:
        if n == 1:
            raise RuntimeError(f"{func}() argument 'output_size' should contain one int (got {len(output_size)})")
        raise RuntimeError(f"{func}: output_size must be {n}")
    sizes = [input.shape[-n + i] if s is None else int(s) for i, s in enumerate(output_size)]
    if any(s < 0 for s in sizes):
        listed = ", ".join(map(str, sizes))
        raise RuntimeError(
            f"{func}: elements of output_size must be greater than or equal to 0 but received {{{listed}}}"
        )
    # before the windows are listed in Python: one per output element
    _core._check_new_shape(list(input.shape[:-n]) + sizes, input.dtype)
    return sizes


def _check_pool1d_dims(func, input):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            f"checking arguments for {func})"
        )


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Means over the (nearly) equal windows that tile the last dim into `output_size`."""
    _check_pool1d_dims("adaptive_avg_pool1d", input)
    (size,) = _output_size("adaptive_avg_pool1d", output_size, 1, input)
    return adaptive_avg_pool2d(input.unsqueeze(-2), [1, size]).squeeze(-2)  # as PyTorch: a mean for size 1


def _adaptive_windows(size, out):
    """(out, k) input positions of the adaptive windows along one dim, each row padded with its last position
    (a repeat changes neither the maximum nor which position holds it first)."""
    starts = [i * size // out for i in range(out)]
    ends = [-(-(i + 1) * size // out) for i in range(out)]
    k = max([e - s for s, e in zip(starts, ends)], default=1)
    return [[min(s + j, e - 1) for j in range(k)] for s, e in zip(starts, ends)], k


def _adaptive_max(input, sizes):
    """Window maxima and their flat positions in the last len(sizes) dims: the windows are gathered with
    index_select (differentiable) and reduced with max, whose first maximum is torch's choice."""
    n = len(sizes)
    spatial = list(input.shape[-n:])
    if input.numel() == 0 or any(s == 0 for s in sizes):
        lead = list(input.shape[:-n])
        empty = _core.zeros(lead + sizes, dtype=input.dtype)
        return empty + input.sum() * 0 if input.numel() else empty, _core.zeros(lead + sizes, dtype=_core.int64)
    windows = [_adaptive_windows(s, o) for s, o in zip(spatial, sizes)]
    lead = list(input.shape[:-n])
    x = input
    for d, (rows, _) in enumerate(windows):
        flat = _core.tensor([p for row in rows for p in row], dtype=_core.int64)
        x = x.index_select(input.dim() - n + d, flat)
    # (..., o0, k0[, o1, k1]) -> (..., o0[, o1], k0[·k1])
    if n == 1:
        x = x.reshape(lead + [sizes[0], windows[0][1]])
        flat_pos = _core.tensor(windows[0][0], dtype=_core.int64)
    else:
        (rows_h, kh), (rows_w, kw) = windows
        x = (
            x.reshape(lead + [sizes[0], kh, sizes[1], kw])
            .transpose(-3, -2)
            .reshape(lead + [sizes[0], sizes[1], kh * kw])
        )
        pos_h = _core.tensor(rows_h, dtype=_core.int64).reshape(sizes[0], 1, kh, 1) * spatial[1]
        pos_w = _core.tensor(rows_w, dtype=_core.int64).reshape(1, sizes[1], 1, kw)
        flat_pos = (pos_h + pos_w).reshape(sizes[0], sizes[1], kh * kw)
    which = x.detach().argmax(-1)
    nan = x.detach().isnan()
    # under a capture the NaN branch is taken always (its `where` changes nothing without NaNs): a branch on the
    # data would break the graph
    if _core._is_capturing() or bool(nan.any()):
        # torch's kernels let a later NaN replace an earlier one: the window's last NaN wins
        last_nan = (x.shape[-1] - 1) - nan.flip(-1).long().argmax(-1)
        which = _core.where(nan.any(-1), last_nan, which)
    values = x.gather(-1, which.unsqueeze(-1)).squeeze(-1)
    positions = flat_pos.expand(lead + list(flat_pos.shape)).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    return values, positions


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over the (nearly) equal windows that tile the last dim into `output_size`."""
    _check_pool1d_dims("adaptive_max_pool1d", input)
    sizes = _output_size("adaptive_max_pool1d", output_size, 1, input)
    values, indices = _adaptive_max(input, sizes)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over the (nearly) equal rectangles that tile the last two dims into `output_size`;
    indices are flat positions in each (H, W) plane."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    sizes = _output_size("adaptive_max_pool2d", output_size, 2, input)
    values, indices = _adaptive_max(input, sizes)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool1d's (values, indices) whatever `return_indices` says, as torch's."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool2d's (values, indices) whatever `return_indices` says, as torch's."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def _lp_pool(input, norm_type, window_size, max_pool, avg_pool, kernel_size, stride, ceil_mode):
    """torch's composition: the power mean times the window size, rooted; the sign-and-relu step keeps a
    negative mean (an odd power of negative inputs) negative, and ±inf norms are max pools of |input|."""
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(window_size).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last dim: (sum of x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, max_pool1d, avg_pool1d, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last two dims: (sum of x^p)^(1/p)."""
    kw, kh = _plain_pair(kernel_size)
    return _lp_pool(input, norm_type, kw * kh, max_pool2d, avg_pool2d, kernel_size, stride, ceil_mode)


# ---- three dimensions ----

# torch's wording of a window argument of the wrong length, per function
_TUPLE_ERRORS_3D = {
    "max_pool3d": {
        "kernel_size": "kernel_size must either be a single int, or a tuple of three ints",
        "stride": "stride must either be omitted, a single int, or a tuple of three ints",
        "padding": "padding must either be a single int, or a tuple of three ints",
        "dilation": "dilation must be either a single int, or a tuple of three ints",
    },
    "avg_pool3d": {
        "kernel_size": "kernel_size must be a single int, or a tuple of three ints",
        "stride": "stride must be omitted, a single int, or a tuple of three ints",
        "padding": "padding must be a single int, or a tuple of three ints",
    },
}


def _triple(func, name, value):
    """An int or a sequence of 1 or 3 ints as a list of 3 ints, with torch's message for other lengths."""
    if isinstance(value, numbers.Integral):
        return [int(value)] * 3
    values = [int(v) for v in value]
    if len(values) not in (1, 3):
        raise RuntimeError(f"{func}: {_TUPLE_ERRORS_3D[func][name]}")
    return values * 3 if len(values) == 1 else values


def _pool3d_args(func, kernel_size, stride, padding, dilation=1):
    """The window arguments as lists of 3 ints (an omitted or empty stride is the kernel), with torch's errors
    for negative values (the core takes sizes)."""
    kernel = _triple(func, "kernel_size", kernel_size)
    no_stride = stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
    stride = kernel if no_stride else _triple(func, "stride", stride)
    padding = _triple(func, "padding", padding)
    dilation = _triple(func, "dilation", dilation)
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {next(p for p in padding if p < 0)}")
    if any(k < 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got kT: {} kH: {} kW: {}".format(*kernel))
    if any(s < 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got dT: {} dH: {} dW: {}".format(*stride))
    if any(d < 0 for d in dilation):
        raise RuntimeError(
            "dilation should be greater than zero, but got dilationT: {} dilationH: {} dilationW: {}".format(*dilation)
        )
    return kernel, stride, padding, dilation


def max_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Window maxima over the last three dims (MaxPool3DWithIndicesBackward0); NaN wins, as in PyTorch."""
    kernel, stride, padding, dilation = _pool3d_args("max_pool3d", kernel_size, stride, padding, dilation)
    values, indices = _core._max_pool3d(input, kernel, stride, padding, dilation, bool(ceil_mode))
    return (values, indices) if return_indices else values


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """max_pool3d's (values, indices) whatever `return_indices` says, as torch's; indices are flat positions in
    each (D, H, W) volume, which max_unpool3d takes back."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """Window means over the last three dims (AvgPool3DBackward0), summed in the input's type as torch's."""
    kernel, stride, padding, _ = _pool3d_args("avg_pool3d", kernel_size, stride, padding)
    divisor = None if divisor_override is None else int(divisor_override)
    return _core._avg_pool3d(input, kernel, stride, padding, bool(ceil_mode), bool(count_include_pad), divisor)


def _sizes3d(input, output_size):
    """An adaptive 3-D pool's output size as a list of 3 (None keeps the input's size), or None for another
    length."""
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size,) * 3
    output_size = list(output_size)
    if len(output_size) != 3:
        return None
    return [input.shape[-3 + i] if s is None else int(s) for i, s in enumerate(output_size)]


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Means over the (nearly) equal boxes that tile the last three dims into `output_size`
    (AdaptiveAvgPool3DBackward0; a mean for size 1, as torch's)."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    size = _sizes3d(input, output_size)
    if size is None:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(s < 0 for s in size):
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]},{size[2]}}}"
        )
    if size == [1, 1, 1] and input.is_floating_point() and all(s > 0 for s in input.shape[-3:]):
        return input.mean((-3, -2, -1), keepdim=True)  # as PyTorch: MeanBackward1
    return _core._adaptive_avg_pool3d(input, size)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Maxima over the (nearly) equal boxes that tile the last three dims into `output_size`; indices are flat
    positions in each (D, H, W) volume (AdaptiveMaxPool3DBackward0)."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    sizes = _sizes3d(input, output_size)
    if sizes is None:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    if any(s < 0 for s in sizes):
        negative = next(s for s in sizes if s < 0)
        shape = list(input.shape[:-3]) + sizes
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape}")
    values, indices = _core._adaptive_max_pool3d(input, sizes)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool3d's (values, indices) whatever `return_indices` says, as torch's."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last three dims: (sum of x^p)^(1/p)."""
    kd, kw, kh = _plain_triple(kernel_size)
    return _lp_pool(input, norm_type, kd * kw * kh, max_pool3d, avg_pool3d, kernel_size, stride, ceil_mode)
