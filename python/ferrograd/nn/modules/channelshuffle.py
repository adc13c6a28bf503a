"""`ChannelShuffle`: `F.channel_shuffle` as a module."""

from ..functional.shuffle import channel_shuffle
from .module import Module


class ChannelShuffle(Module):
    """(N, C, *) with its channels interleaved across `groups` groups."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
