"""How a tensor crosses a process boundary (`multiprocessing`'s `ForkingPickler`): by its storage's shared file.

The sender moves the storage to shared memory (`share_memory_`, as torch does for a tensor it sends) and sends
the file's descriptor (`multiprocessing.reduction.DupFd`: handed to a spawned child directly, or over the
sender's resource-sharer socket for a Queue) with the storage's size in bytes, the dtype and the tensor's size,
strides and offset. The receiver maps the same file (`_core._from_shared_fd`, which checks every size against the
file before mapping); a file this process maps already gives back the same storage.
"""

import os
from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _core
from .._core import Tensor


def rebuild_tensor(cls, df, nbytes, dtype, size, stride, storage_offset, requires_grad):
    """The receiving side of `reduce_tensor`: a tensor over the sender's shared memory."""
    fd = df.detach()
    try:
        t = _core._from_shared_fd(fd, nbytes, dtype, size, stride, storage_offset)
    finally:
        os.close(fd)  # the storage holds its own descriptor
    from ..nn.parameter import Parameter

    if issubclass(cls, Parameter):
        return cls(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(tensor):
    """Pickles `tensor` as its shared storage's descriptor and its geometry (see the module's docstring)."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, "
            "since autograd does not support crossing process boundaries.  "
            "If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue)."
        )
    fd, nbytes = _core._shared_fd(tensor)
    geometry = (tuple(tensor.shape), tensor.stride(), tensor.storage_offset())
    return rebuild_tensor, (type(tensor), DupFd(fd), nbytes, tensor.dtype, *geometry, tensor.requires_grad)


def init_reductions():
    """Registers the tensor reducers with `multiprocessing`'s pickler (done when the package is imported)."""
    from ..nn.parameter import Parameter

    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)
