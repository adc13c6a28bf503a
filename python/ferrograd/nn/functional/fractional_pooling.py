"""Fractional max pooling in two and three dimensions (torch's Python layer: the output size from a ratio, the
samples drawn from the global generator as ``rand(N, C, dims)`` in the input's dtype; the pooling is one core op)."""

from ... import _core
from ..._core import Tensor
from .._tuples import _pair, _triple


def _is_int(value) -> bool:
    if isinstance(value, (bool, float)):
        return False
    try:
        value.__index__()
    except (AttributeError, TypeError, RuntimeError, ValueError):
        return False
    return True


def _sizes(func, arg, position, value, n):
    """An int (repeated `n` times) or a sequence of ints, refused with torch's argument-parser messages; the
    length is the kernel's to check, as torch's is."""
    if _is_int(value):
        return [int(value.__index__())] * n
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{func}(): argument '{arg}' (position {position}) must be tuple of ints, not {type(value).__name__}"
        )
    sizes = []
    for i, v in enumerate(value):
        if not _is_int(v):
            kind = type(v).__name__
            if i == 0:
                raise TypeError(
                    f"{func}(): argument '{arg}' (position {position}) must be tuple of ints, but found element of "
                    f"type {kind} at pos 0"
                )
            raise TypeError(
                f"{func}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {kind}"'
            )
        sizes.append(int(v.__index__()))
    return sizes


def _pool(dims, input, kernel_size, output_size, _random_samples):
    func = f"fractional_max_pool{dims}d"
    kernel = _sizes(func, "kernel_size", 2, kernel_size, dims)
    output = _sizes(func, "output_size", 3, output_size, dims)
    if _random_samples is None:
        n_batch = 1 if input.dim() == dims + 1 else input.size(0)
        _random_samples = _core.rand(n_batch, input.size(-dims - 1), dims, dtype=input.dtype, device=input.device)
    return _core._fractional_max_pool(input, dims, kernel, output, _random_samples)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
) -> tuple[Tensor, Tensor]:
    """Max over ``kernel_size`` windows at pseudo-random steps chosen so the last two dims become ``output_size``
    (or ``output_ratio`` of the input's); (values, indices into each H·W plane) (FractionalMaxPool2DBackward0)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _pair(output_ratio)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    return _pool(2, input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """Fractional max pooling over the last two dims; with ``return_indices`` (values, indices), as torch's."""
    values, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
) -> tuple[Tensor, Tensor]:
    """Max over ``kernel_size`` windows at pseudo-random steps chosen so the last three dims become
    ``output_size`` (or ``output_ratio`` of the input's); (values, indices into each T·H·W volume)
    (FractionalMaxPool3DBackward0)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _triple(output_ratio)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]), int(input.size(-1) * ratio[2])]
    return _pool(3, input, kernel_size, output_size, _random_samples)


def fractional_max_pool3d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """Fractional max pooling over the last three dims; with ``return_indices`` (values, indices), as torch's."""
    values, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (values, indices) if return_indices else values
