"""`Flatten` and `Unflatten`."""

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims start_dim..end_dim (by default all but the batch dim)."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim `dim` into the shape `unflattened_size` (a tuple or list of ints)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}"
            )
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, "
                    f"but found element of type {type(elem).__name__} at pos {idx}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
