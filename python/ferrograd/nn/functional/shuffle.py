"""`channel_shuffle`: the channels of (N, C, *) taken as a (groups, C / groups) grid and read down its columns,
as ATen's CPU kernel composes it (a view, a transpose and a contiguous copy)."""

from ... import _core
from ..._core import Tensor
from ...grad_mode import no_grad


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups."
        )
    batch, rest = input.shape[0], list(input.shape[2:])
    grid = input.reshape([batch, groups, channels // groups] + rest)
    return grid.transpose(1, 2).reshape(list(input.shape))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """`channel_shuffle`'s values from torch's native kernel, which has no derivative: an input that requires
    grad gives a result whose node (`NotImplemented`) fails in backward, as torch's does."""
    with no_grad():
        out = channel_shuffle(input, groups)
    return _core._without_derivative(out, input, "native_channel_shuffle")
