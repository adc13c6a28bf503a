"""Max unpooling: a max pool's partial inverse, its values put back at their indices (torch's compositions:
1-D through the 2-D kernel, the output size worked out in Python)."""

from ... import _core
from ..._core import Tensor
from .._tuples import _pair, _single, _triple


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The spatial output size: the pool's inverse arithmetic, or `output_size` (with or without its batch and
    channel dims) if it lies within one stride of that."""
    n = len(kernel_size)
    default_size = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        size = default_size
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(
                f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of "
                f"'{len(output_size)}'"
            )
        for d in range(n):
            low, high = default_size[d] - stride[d], default_size[d] + stride[d]
            if not (low < output_size[d] < high):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        size = output_size
    for d in range(n):
        if size[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                f"output_size[{d}]={size[d]}"
            )
    return list(size)


def _sizes(func, output_size):
    """The output size as ints, with torch's argument error for another element type."""
    for pos, v in enumerate(output_size):
        if not isinstance(v, int):
            raise TypeError(
                f"{func}(): argument 'output_size' (position 3) must be tuple of ints, but found element of type "
                f"{type(v).__name__} at pos {pos}"
            )
    return [int(v) for v in output_size]


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool1d: zeros of the unpooled length with each value at its index."""
    kernel_size = _single(kernel_size)
    stride = kernel_size if stride is None else _single(stride)
    padding = _single(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size) + [1]
    unpooled = _core._max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), _sizes("max_unpool2d", size))
    return unpooled.squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool2d (MaxUnpool2DBackward0): indices are flat positions in each plane."""
    kernel_size = _pair(kernel_size)
    stride = kernel_size if stride is None else _pair(stride)
    padding = _pair(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _core._max_unpool(input, indices, _sizes("max_unpool2d", size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool3d (MaxUnpool3DBackward0): indices are flat positions in each volume."""
    kernel_size = _triple(kernel_size)
    stride = kernel_size if stride is None else _triple(stride)
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _core._max_unpool(input, indices, _sizes("max_unpool3d", size), list(stride))
