"""A tensor's memory as the backends read and write it: the tensor's own storage when it is contiguous (numpy
shares it), else one staging copy that `written()` copies back. `written()` also bumps the tensor's version
counter, which an in-place write must do and a write by MPI or a socket does not."""

from .._lazy_numpy import np
from ..grad_mode import no_grad


class TensorMemory:
    def __init__(self, tensor):
        self.tensor = tensor
        self.staged = None if tensor.is_contiguous() else tensor.detach().contiguous()
        # one dimension, so that a backend can address elements (a chunk, a rank's part) by slicing
        self.flat = (tensor.detach() if self.staged is None else self.staged).reshape(-1)
        self.array = self.flat.numpy()
        self.nbytes = self.array.nbytes

    def bytes(self, start=0, stop=None):
        """The bytes of elements [start, stop) as a writable memoryview (no copy)."""
        return memoryview(self.array[start:stop].view(np.uint8))

    def overlaps(self, other):
        return bool(np.shares_memory(self.array, other.array))

    def written(self):
        with no_grad():
            if self.staged is not None:
                self.tensor.copy_(self.staged)
            elif self.tensor.numel() > 0:
                # an in-place write on an empty view of the storage bumps the version counter every view
                # of it shares, without touching an element
                self.tensor.detach().reshape(-1)[:0].zero_()
