"""Collectives and point-to-point operations on tensors, for every backend.

Arguments are checked here, on the calling thread, before anything is sent, so a bad call fails alike on every
rank and alike on every backend; the group's backend (`_mpi.MPIBackend`, `_gloo.GlooBackend`) then makes what
its communication thread runs (`_work.py`).
"""

from .. import _core
from ._mpi import RedOpType, ReduceOp, check_tensor
from .distributed_c10d import _group


def _check_op(op, tensor):
    if not isinstance(op, RedOpType):
        raise TypeError(f"op must be a ReduceOp (e.g. ReduceOp.SUM), not {type(op).__name__}")
    if op is ReduceOp.AVG and not tensor.is_floating_point():
        _core.zeros(1, dtype=tensor.dtype).div_(2)  # raises the error of an in-place integer division


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` over every rank in place: each rank ends with the SUM (AVG, PRODUCT, MIN, MAX, ...)."""
    check_tensor(tensor)
    pg = _group(group)
    _check_op(op, tensor)
    return pg._run("all_reduce", pg._backend.all_reduce(tensor, op), [tensor], async_op)


def _check_rank(pg, rank, what):
    if not isinstance(rank, int) or not 0 <= rank < pg.size():
        raise RuntimeError(f"{what}: invalid root rank: {rank} (world size {pg.size()})")


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies rank `src`'s `tensor` into `tensor` on every other rank."""
    check_tensor(tensor)
    pg = _group(group)
    src = group_src if group_src is not None else src
    _check_rank(pg, src, "broadcast")
    return pg._run("broadcast", pg._backend.broadcast(tensor, src), [tensor], async_op)


def _check_like(t, like, what, index=0):
    if t.dtype != like.dtype:
        raise RuntimeError(f"{what}: invalid tensor type at index {index} (expected {like.dtype}, got {t.dtype})")


def _check_list(pg, tensors, tensor, what, name):
    """A list of world-size tensors of `tensor`'s dtype and shape."""
    if not isinstance(tensors, (list, tuple)) or len(tensors) != pg.size():
        got = len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise RuntimeError(f"{what}: invalid output tensor list at index 0 (expected length {pg.size()}, got {got})")
    for i, t in enumerate(tensors):
        check_tensor(t, name)
        _check_like(t, tensor, what, i)
        if tuple(t.shape) != tuple(tensor.shape):
            raise RuntimeError(
                f"{what}: invalid tensor size at index {i} (expected {tuple(tensor.shape)}, got {tuple(t.shape)})"
            )


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills `tensor_list[r]` with rank r's `tensor`, on every rank."""
    check_tensor(tensor)
    pg = _group(group)
    _check_list(pg, tensor_list, tensor, "all_gather", "tensor_list")
    return pg._run("all_gather", pg._backend.all_gather(list(tensor_list), tensor), list(tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's `input_tensor` into `output_tensor` (world_size × its elements, rank by rank:
    concatenated along dim 0 or stacked), written in place."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = _group(group)
    _check_like(output_tensor, input_tensor, "all_gather_into_tensor")
    if output_tensor.numel() != pg.size() * input_tensor.numel():
        raise RuntimeError(
            f"all_gather_into_tensor: output tensor must have world_size ({pg.size()}) times the elements of "
            f"the input ({input_tensor.numel()}), got {output_tensor.numel()}"
        )
    run = pg._backend.all_gather_into_tensor(output_tensor, input_tensor)
    return pg._run("all_gather_into_tensor", run, [output_tensor], async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `input` (world_size × the elements of `output`) over every rank and leaves rank r the r-th
    part of the result in `output`."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = _group(group)
    _check_like(output, input, "reduce_scatter_tensor")
    if input.numel() != pg.size() * output.numel():
        raise RuntimeError(
            f"reduce_scatter_tensor: input tensor must have world_size ({pg.size()}) times the elements of the "
            f"output ({output.numel()}), got {input.numel()}"
        )
    _check_op(op, output)
    return pg._run("reduce_scatter_tensor", pg._backend.reduce_scatter_tensor(output, input, op), [output], async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` over every rank into rank `dst`'s `tensor` (the others' are left as they are)."""
    check_tensor(tensor)
    pg = _group(group)
    dst = group_dst if group_dst is not None else dst
    _check_rank(pg, dst, "reduce")
    _check_op(op, tensor)
    return pg._run("reduce", pg._backend.reduce(tensor, dst, op), [tensor], async_op)


def _root(rank, group_rank):
    """The root of gather/scatter: `group_dst`/`group_src` if given, else `dst`/`src`, else rank 0."""
    if group_rank is not None:
        return group_rank
    return 0 if rank is None else rank


def _check_root_list(pg, root, tensors, like, func, arg, role):
    """A rooted collective's list: given on the root (one tensor like `like` per rank), absent elsewhere."""
    if pg.rank() == root:
        if not tensors:
            raise ValueError(f"Argument ``{arg}`` must be specified on {role} rank.")
        _check_list(pg, tensors, like, func, arg)
    elif tensors:
        raise ValueError(f"Argument ``{arg}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Rank `dst` receives every rank's `tensor` into `gather_list` (given on `dst` only)."""
    check_tensor(tensor)
    pg = _group(group)
    dst = _root(dst, group_dst)
    _check_rank(pg, dst, "gather")
    _check_root_list(pg, dst, gather_list, tensor, "gather", "gather_list", "destination")
    outputs = list(gather_list or [])
    return pg._run("gather", pg._backend.gather(tensor, outputs, dst), outputs, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank `src` sends `scatter_list[r]` to each rank r, into its `tensor`."""
    check_tensor(tensor)
    pg = _group(group)
    src = _root(src, group_src)
    _check_rank(pg, src, "scatter")
    _check_root_list(pg, src, scatter_list, tensor, "scatter", "scatter_list", "source")
    return pg._run("scatter", pg._backend.scatter(tensor, list(scatter_list or []), src), [tensor], async_op)


def _peer(pg, peer, what):
    if not isinstance(peer, int) or not 0 <= peer < pg.size():
        raise ValueError(f"Invalid {what} rank: {peer} (world size {pg.size()})")
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of the current process.")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending `tensor` to rank `dst`; returns a Work."""
    check_tensor(tensor)
    pg = _group(group)
    dst = group_dst if group_dst is not None else dst
    _peer(pg, dst, "destination")
    return pg._backend.isend(tensor, dst, tag, pg._timeout)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into `tensor` from rank `src` (any rank when None); returns a Work."""
    check_tensor(tensor)
    pg = _group(group)
    src = group_src if group_src is not None else src
    if src is not None:
        _peer(pg, src, "source")
    return pg._backend.irecv(tensor, src, tag, pg._timeout)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst`, returning once its memory may be reused."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._source_rank()
