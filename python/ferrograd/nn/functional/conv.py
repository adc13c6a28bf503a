"""Convolutions (plain and transposed, in one, two and three dimensions) and the `unfold`/`fold` sliding-block maps."""

import numbers

from ... import _core
from ..._core import Tensor
from .padding import pad


def _pair(value, name, n, func):
    """An int or a sequence of `n` ints as a list of n ints, with PyTorch's message for other lengths."""
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    values = [int(v) for v in value]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        if func.startswith("conv"):
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {n} values to match the convolution "
                f"dimensions, but got {name}={values}"
            )
        raise RuntimeError(f"{func}: {name} must either be a single int, or a tuple of two ints")
    return values


def _conv(func, n, input, weight, bias, stride, padding, dilation, groups):
    if not isinstance(input, Tensor):
        raise TypeError(f"{func}() received an invalid combination of arguments - got ({type(input).__name__}, ...)")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {func}, but got input of size: "
            f"{list(input.shape)}"
        )
    unbatched = input.dim() == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _pair(stride, "stride", n, func)
    dilation = _pair(dilation, "dilation", n, func)
    if n == 3 and weight.dim() >= 3 and weight.dim() != 5:
        # torch reads the convolution's dimensions from the weight
        raise RuntimeError(
            f"expected stride to be a single integer value or a list of {weight.dim() - 2} values to match the "
            f"convolution dimensions, but got stride={stride}"
        )
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # total padding d·(k - 1) per dim; an odd total puts the extra element on the right
            totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            padding = [t // 2 for t in totals]
            extra = [t - 2 * (t // 2) for t in totals]
            if any(extra):
                pads = []
                for e in reversed(extra):
                    pads += [0, e]
                input = pad(input, pads)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _pair(padding, "padding", n, func)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {dilation}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if n == 1:
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
    convolution = _core._convolution3d if n == 3 else _core._convolution
    out = convolution(input, weight, bias, stride, padding, dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of (N, C, L) or (C, L) input with (O, C/groups, k) weight (ConvolutionBackward0)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of (N, C, H, W) or (C, H, W) input with (O, C/groups, kh, kw) weight,
    as im2col + one batched GEMM in the core (ConvolutionBackward0)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """3-D cross-correlation of (N, C, D, H, W) or (C, D, H, W) input with (O, C/groups, kd, kh, kw) weight,
    as vol2col + one batched GEMM in the core (ConvolutionBackward0)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _blocks(func, size, kernel, dilation, padding, stride):
    if any(s <= 0 for s in stride):
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: {stride[1]}"
        )
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dilation[0]} dilation_width: "
            f"{dilation[1]}"
        )
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} kernel_width: {kernel[1]}"
        )
    return [(size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1 for d in range(2)]


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a (N, C, H, W) or (C, H, W) input as columns (N, C·kh·kw, L) (Im2ColBackward0)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    kernel, dilation = _pair(kernel_size, "kernel_size", 2, "unfold"), _pair(dilation, "dilation", 2, "unfold")
    padding, stride = _pair(padding, "padding", 2, "unfold"), _pair(stride, "stride", 2, "unfold")
    size = list(input.shape[-2:])
    out = _blocks("unfold", size, kernel, dilation, padding, stride)
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated shape of the "
            f"array of sliding blocks as ({max(out[0], 0)}, {max(out[1], 0)}), but its components must be at least one."
        )
    batched = input.dim() == 4
    cols = _core._im2col(input if batched else input.unsqueeze(0), kernel, stride, padding, dilation, out)
    return cols if batched else cols.squeeze(0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sums columns (N, C·kh·kw, L) back into a (N, C, H, W) image: the adjoint of `unfold` (Col2ImBackward0)."""
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    size = _pair(output_size, "output_size", 2, "fold")
    kernel, dilation = _pair(kernel_size, "kernel_size", 2, "fold"), _pair(dilation, "dilation", 2, "fold")
    padding, stride = _pair(padding, "padding", 2, "fold"), _pair(stride, "stride", 2, "fold")
    out = _blocks("fold", size, kernel, dilation, padding, stride)
    rows, blocks = input.shape[-2], input.shape[-1]
    if rows % (kernel[0] * kernel[1]) != 0:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={rows} and kernel_size=({kernel[0]}, {kernel[1]})."
        )
    if any(o < 1 for o in out) or out[0] * out[1] != blocks:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), stride=({stride[0]}, "
            f"{stride[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding blocks {out[0]} * "
            f"{out[1]} = "
            f"{out[0] * out[1]}, but got input.size(2)={blocks}."
        )
    batched = input.dim() == 3
    img = _core._col2im(input if batched else input.unsqueeze(0), size, kernel, stride, padding, dilation, out)
    return img if batched else img.squeeze(0)


def _check_conv_args(func, stride, padding, dilation, groups):
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        names = ["depth", "height", "width"][-len(dilation) :]
        listed = ", ".join(f"dilation_{n}: {d}" for n, d in zip(names, dilation))
        if len(dilation) == 1:
            listed = f"dilation_height: 1, {listed}"
        raise RuntimeError(f"dilation should be greater than zero, but got {listed}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _conv_transpose(func, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {func}, but got input of size: "
            f"{list(input.shape)}"
        )
    stride, padding = _pair(stride, "stride", n, func), _pair(padding, "padding", n, func)
    output_padding = _pair(output_padding, "output_padding", n, func)
    dilation = _pair(dilation, "dilation", n, func)
    _check_conv_args(func, stride, padding, dilation, groups)
    unbatched = input.dim() == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    if weight.dim() != n + 2:
        raise RuntimeError(
            f"weight should have at least three dimensions, but got weight of size {list(weight.shape)}"
            if weight.dim() < 3
            else f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {list(input.shape)}, "
            f"but got {weight.dim()}-dimensional weight of size {list(weight.shape)} instead"
        )
    w_shape = list(weight.shape)
    if w_shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of "
            f"size [{w_shape}] instead"
        )
    if input.shape[1] != w_shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {w_shape}, expected input{list(input.shape)} to have {w_shape[0]} "
            f"channels, but got {input.shape[1]} channels instead"
        )
    out_channels = w_shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {w_shape}, expected bias to be 1-dimensional with {out_channels} "
            f"elements, but got bias of size {list(bias.shape)} instead"
        )
    if n == 3:  # one core op (ConvolutionBackward0), which checks the output size
        out = _core._convolution3d(input, weight, bias, stride, padding, dilation, int(groups), output_padding)
        return out.squeeze(0) if unbatched else out
    if n == 1:  # as a 2-d transposed convolution over a height of 1
        input, weight = input.unsqueeze(2), weight.unsqueeze(2)
        stride, padding, output_padding, dilation = [1] + stride, [0] + padding, [0] + output_padding, [1] + dilation
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {output_padding[0]} output_padding_width: {output_padding[1]} "
            f"stride_height: {stride[0]} stride_width: {stride[1]} "
            f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
        )
    batch, in_channels, height, width = input.shape
    kernel = list(weight.shape[2:])
    size = [height, width]
    # the full (uncropped) extent of the scattered windows, then the output torch defines inside it
    full = [(size[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(2)]
    out = [full[i] - 2 * padding[i] + output_padding[i] for i in range(2)]
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size per channel: ({height} x {width}). Calculated output size per channel: "
            f"({out[0]} x {out[1]}). Output size is too small"
        )
    # every input pixel's contribution to its window: one GEMM per group, columns scattered back by col2im
    in_per_group = in_channels // groups
    window = w_shape[1] * kernel[0] * kernel[1]
    w = weight.reshape(groups, in_per_group, window).transpose(1, 2)
    cols = (w @ input.reshape(batch, groups, in_per_group, height * width)).reshape(
        batch, groups * window, height * width
    )
    if all(op < s for op, s in zip(output_padding, stride)):
        # col2im's own padding crops exactly torch's output
        img = _core._col2im(cols, out, kernel, stride, padding, dilation, size)
    else:
        # output_padding >= stride (allowed when smaller than the dilation): crop the full image by hand
        img = _core._col2im(cols, full, kernel, stride, [0, 0], dilation, size)
        extra = [max(0, padding[i] + out[i] - full[i]) for i in range(2)]
        if any(extra):
            img = pad(img, [0, extra[1], 0, extra[0]])
        img = img[:, :, padding[0] : padding[0] + out[0], padding[1] : padding[1] + out[1]]
    if bias is not None:
        img = img + bias.reshape(1, out_channels, 1, 1)
    if n == 1:
        img = img.squeeze(2)
    return img.squeeze(0) if unbatched else img


def conv_transpose1d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> Tensor:
    """1-D transposed convolution of (N, C_in, L) or (C_in, L) input with (C_in, C_out/groups, k) weight."""
    return _conv_transpose(
        "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> Tensor:
    """2-D transposed convolution (the adjoint of conv2d): per group one GEMM of the weight with the input,
    whose columns col2im sums into the output image."""
    return _conv_transpose(
        "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose3d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> Tensor:
    """3-D transposed convolution (the adjoint of conv3d) of (N, C_in, D, H, W) or (C_in, D, H, W) input with
    (C_in, C_out/groups, kd, kh, kw) weight: per group one GEMM, whose columns col2vol sums into the output."""
    return _conv_transpose(
        "conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups, dilation
    )
