"""Collectives and point-to-point operations on tensors, over MPI.

MPI reads and writes the tensors' own memory (see `_mpi.Buffer`): no copy for contiguous tensors, one staging
copy for others. Arguments are checked on the calling thread, before anything is sent, so a bad call fails
alike on every rank; the MPI call itself runs on the group's communication thread (`_work.py`).
"""

from .. import _core
from ..grad_mode import no_grad
from ._mpi import Buffer, ReduceOp, check_tensor, operation
from ._work import RequestWork
from .distributed_c10d import _group


def _reduction(pg, op, tensor):
    mpi_op = operation(pg._MPI, op, tensor.dtype)
    if op is ReduceOp.AVG and not tensor.is_floating_point():
        _core.zeros(1, dtype=tensor.dtype).div_(2)  # raises the error of an in-place integer division
    return mpi_op


def _finish_reduction(buf, op, size):
    """After MPI's sum of an AVG: the division, in the tensor's memory; then the version bump. numpy divides
    (with the GIL released, as it does in its loops), so the caller's thread is not held up meanwhile."""
    if op is ReduceOp.AVG:
        import numpy as np

        np.true_divide(buf.array, size, out=buf.array)
    buf.written()


def _same_memory(a, b):
    import numpy as np

    return np.shares_memory(a.array, b.array)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` over every rank in place: each rank ends with the SUM (AVG, PRODUCT, MIN, MAX, ...)."""
    check_tensor(tensor)
    pg = _group(group)
    mpi_op = _reduction(pg, op, tensor)
    buf = Buffer(pg._MPI, tensor)

    def run():
        pg._comm.Allreduce(pg._MPI.IN_PLACE, buf.spec, op=mpi_op)
        _finish_reduction(buf, op, pg._size)

    return pg._run("all_reduce", run, [tensor], async_op)


def _check_rank(pg, rank, what):
    if not isinstance(rank, int) or not 0 <= rank < pg._size:
        raise RuntimeError(f"{what}: invalid root rank: {rank} (world size {pg._size})")


def broadcast(tensor, src, group=None, async_op=False, group_src=None):
    """Copies rank `src`'s `tensor` into `tensor` on every other rank."""
    check_tensor(tensor)
    pg = _group(group)
    src = group_src if group_src is not None else src
    _check_rank(pg, src, "broadcast")
    buf = Buffer(pg._MPI, tensor)

    def run():
        pg._comm.Bcast(buf.spec, root=src)
        if pg._rank != src:
            buf.written()

    return pg._run("broadcast", run, [tensor], async_op)


def _check_like(t, like, what, index=0):
    if t.dtype != like.dtype:
        raise RuntimeError(f"{what}: invalid tensor type at index {index} (expected {like.dtype}, got {t.dtype})")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills `tensor_list[r]` with rank r's `tensor`, on every rank. MPI gathers into one staging buffer,
    which is then copied into the list (`all_gather_into_tensor` gathers into the output's own memory)."""
    check_tensor(tensor)
    pg = _group(group)
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != pg._size:
        got = len(tensor_list) if isinstance(tensor_list, (list, tuple)) else type(tensor_list).__name__
        raise RuntimeError(f"all_gather: invalid output tensor list at index 0 (expected length {pg._size}, got {got})")
    for i, t in enumerate(tensor_list):
        check_tensor(t, "tensor_list")
        _check_like(t, tensor, "all_gather", i)
        if tuple(t.shape) != tuple(tensor.shape):
            raise RuntimeError(
                f"all_gather: invalid tensor size at index {i} (expected {tuple(tensor.shape)}, got {tuple(t.shape)})"
            )
    staging = _core.zeros(pg._size, *tensor.shape, dtype=tensor.dtype)
    send, recv = Buffer(pg._MPI, tensor), Buffer(pg._MPI, staging)

    def run():
        pg._comm.Allgather(send.spec, recv.spec)
        with no_grad():
            for t, part in zip(tensor_list, staging.unbind(0)):
                t.copy_(part)

    return pg._run("all_gather", run, list(tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's `input_tensor` into `output_tensor` (world_size × its elements, rank by rank:
    concatenated along dim 0 or stacked), written by MPI in place."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = _group(group)
    _check_like(output_tensor, input_tensor, "all_gather_into_tensor")
    if output_tensor.numel() != pg._size * input_tensor.numel():
        raise RuntimeError(
            f"all_gather_into_tensor: output tensor must have world_size ({pg._size}) times the elements of "
            f"the input ({input_tensor.numel()}), got {output_tensor.numel()}"
        )
    recv = Buffer(pg._MPI, output_tensor)
    send = Buffer(pg._MPI, input_tensor)
    if _same_memory(send, recv):  # MPI forbids overlapping buffers: the input goes through a copy
        send = Buffer(pg._MPI, input_tensor.detach().clone())

    def run():
        pg._comm.Allgather(send.spec, recv.spec)
        recv.written()

    return pg._run("all_gather_into_tensor", run, [output_tensor], async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `input` (world_size × the elements of `output`) over every rank and leaves rank r the r-th
    part of the result in `output`."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = _group(group)
    _check_like(output, input, "reduce_scatter_tensor")
    if input.numel() != pg._size * output.numel():
        raise RuntimeError(
            f"reduce_scatter_tensor: input tensor must have world_size ({pg._size}) times the elements of the "
            f"output ({output.numel()}), got {input.numel()}"
        )
    mpi_op = _reduction(pg, op, output)
    recv = Buffer(pg._MPI, output)
    send = Buffer(pg._MPI, input)
    if _same_memory(send, recv):
        send = Buffer(pg._MPI, input.detach().clone())

    def run():
        pg._comm.Reduce_scatter_block(send.spec, recv.spec, op=mpi_op)
        _finish_reduction(recv, op, pg._size)

    return pg._run("reduce_scatter_tensor", run, [output], async_op)


def _peer(pg, peer, what):
    if not isinstance(peer, int) or not 0 <= peer < pg._size:
        raise ValueError(f"Invalid {what} rank: {peer} (world size {pg._size})")
    if peer == pg._rank:
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of the current process.")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending `tensor` to rank `dst`; returns a Work."""
    check_tensor(tensor)
    pg = _group(group)
    dst = group_dst if group_dst is not None else dst
    _peer(pg, dst, "destination")
    buf = Buffer(pg._MPI, tensor)
    request = pg._comm.Isend(buf.spec, dest=dst, tag=tag)
    return RequestWork("send", pg._rank, pg._timeout, [tensor], request, pg._MPI.Status(), lambda: None)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into `tensor` from rank `src` (any rank when None); returns a Work."""
    check_tensor(tensor)
    pg = _group(group)
    src = group_src if group_src is not None else src
    if src is not None:
        _peer(pg, src, "source")
    buf = Buffer(pg._MPI, tensor)
    source = pg._MPI.ANY_SOURCE if src is None else src
    request = pg._comm.Irecv(buf.spec, source=source, tag=tag)
    return RequestWork("recv", pg._rank, pg._timeout, [tensor], request, pg._MPI.Status(), buf.written)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst`, returning once its memory may be reused."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._source_rank()
