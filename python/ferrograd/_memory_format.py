"""`torch.memory_format`: the dense layouts a copy can be asked for (`contiguous_format`, `preserve_format`,
`channels_last` and `channels_last_3d`), printed and pickled as their module attributes. ferrograd's tensors
take any strides, so a channels-last copy is a tensor whose channel dim is innermost in memory (its values,
shape and gradients as any other's); ops give row-major or input-ordered results (torch keeps channels-last
results channels-last), which changes strides, never values.

`dim_order` is what the bindings' `memory_format=` (on `contiguous`, `clone`, `to` and the casts) asks."""

import builtins

from ._arg_errors import type_name
from ._layout import NamedConstant


class memory_format(NamedConstant):  # torch's name
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
legacy_contiguous_format = contiguous_format  # torch's is the same format

# the rank each channels-last format needs, and the dims' order in memory, outermost first
_CHANNELS_LAST = {"channels_last": (4, [0, 2, 3, 1]), "channels_last_3d": (5, [0, 2, 3, 4, 1])}


def dim_order(format, ndim, func, strict=True):
    """None to keep the op's usual layout (`preserve_format`), else the order of the dims, outermost first,
    that the result is to be laid out in; a channels-last format of another rank raises, or unless `strict`
    (`is_contiguous`, for which no tensor of that rank is laid out so) gives an empty order."""
    if not isinstance(format, memory_format):
        raise TypeError(f"{func}(): argument 'memory_format' must be torch.memory_format, not {type_name(format)}")
    if format._name == "preserve_format":
        return None
    if format._name == "contiguous_format":
        return list(builtins.range(ndim))
    rank, order = _CHANNELS_LAST[format._name]
    if ndim != rank and not strict:
        return []
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {format._name} format")
    return order
