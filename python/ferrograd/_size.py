"""`ferrograd.Size`: the tuple returned by `Tensor.shape` and `Tensor.size()`."""


class Size(tuple):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"ferrograd.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):  # slices of a Size are Sizes, as in PyTorch
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))
