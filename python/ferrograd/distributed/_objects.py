"""Collectives on picklable Python objects (`all_gather_object`, `broadcast_object_list`, `gather_object`,
`scatter_object_list`), as PyTorch's: each object is pickled into a uint8 tensor, the sizes go first, then the
bytes through the tensor collectives, on every backend alike.

As in PyTorch, the objects are unpickled: only call these with ranks you trust.
"""

from .. import _core
from .._asarray import frombuffer
from ._collectives import all_gather, broadcast, gather, scatter
from .distributed_c10d import _group


def _to_tensor(obj):
    import io
    import pickle

    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    data = buf.getbuffer()
    return frombuffer(bytearray(data), dtype=_core.uint8)  # a pickle is never empty


def _from_tensor(t, size):
    import pickle

    return pickle.loads(t[:size].numpy().tobytes())


def _padded(tensor, pg, group):
    """Every rank's length of its `tensor`, and `tensor` padded to the longest."""
    sizes = [_core.zeros(1, dtype=_core.int64) for _ in range(pg.size())]
    all_gather(sizes, _core.tensor([tensor.numel()], dtype=_core.int64), group=group)
    sizes = [int(s.item()) for s in sizes]
    padded = _core.zeros(max(sizes), dtype=_core.uint8)
    padded[: tensor.numel()] = tensor
    return padded, sizes


def all_gather_object(object_list, obj, group=None):
    """Fills `object_list` (world size long) with every rank's `obj`."""
    pg = _group(group)
    padded, sizes = _padded(_to_tensor(obj), pg, group)
    parts = [_core.zeros(padded.numel(), dtype=_core.uint8) for _ in sizes]
    all_gather(parts, padded, group=group)
    for i, (part, size) in enumerate(zip(parts, sizes)):
        object_list[i] = _from_tensor(part, size)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank `dst` (0 by default) receives every rank's `obj` into `object_gather_list`."""
    pg = _group(group)
    dst = 0 if dst is None and group_dst is None else (group_dst if group_dst is not None else dst)
    padded, sizes = _padded(_to_tensor(obj), pg, group)
    parts = [_core.zeros(padded.numel(), dtype=_core.uint8) for _ in sizes] if pg.rank() == dst else None
    gather(padded, parts, dst=dst, group=group)
    if parts is not None:
        for i, (part, size) in enumerate(zip(parts, sizes)):
            object_gather_list[i] = _from_tensor(part, size)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank `src`'s (0 by default) `object_list` into every rank's (of the same length), in place."""
    pg = _group(group)
    src = 0 if src is None and group_src is None else (group_src if group_src is not None else src)
    mine = [_to_tensor(obj) for obj in object_list] if pg.rank() == src else []
    sizes = _core.tensor([t.numel() for t in mine], dtype=_core.int64) if mine else None
    if sizes is None:
        sizes = _core.zeros(len(object_list), dtype=_core.int64)
    broadcast(sizes, src, group=group)
    flat = _core.cat(mine) if mine else _core.zeros(int(sizes.sum().item()), dtype=_core.uint8)
    broadcast(flat, src, group=group)
    offset = 0
    for i, size in enumerate(sizes.tolist()):
        object_list[i] = _from_tensor(flat[offset : offset + size], size)
        offset += size


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):  # fmt: skip
    """Rank r receives `scatter_object_input_list[r]` of rank `src` (0 by default) into
    `scatter_object_output_list[0]`."""
    pg = _group(group)
    src = 0 if src is None and group_src is None else (group_src if group_src is not None else src)
    if pg.rank() == src:
        tensors = [_to_tensor(obj) for obj in scatter_object_input_list]
        longest = _core.tensor([max(t.numel() for t in tensors)], dtype=_core.int64)
    else:
        longest = _core.zeros(1, dtype=_core.int64)
    broadcast(longest, src, group=group)
    n = int(longest.item())
    padded, sizes = None, None
    if pg.rank() == src:
        padded = [_core.zeros(n, dtype=_core.uint8) for _ in tensors]
        for p, t in zip(padded, tensors):
            p[: t.numel()] = t
        sizes = [_core.tensor([t.numel()], dtype=_core.int64) for t in tensors]
    mine, my_size = _core.zeros(n, dtype=_core.uint8), _core.zeros(1, dtype=_core.int64)
    scatter(mine, padded, src=src, group=group)
    scatter(my_size, sizes, src=src, group=group)
    scatter_object_output_list[0] = _from_tensor(mine, int(my_size.item()))
