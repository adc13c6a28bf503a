"""Every collective and point-to-point operation, checked against numpy on every rank (2 or more ranks).

Each rank's input is drawn from a generator seeded with its rank, so every rank can compute what every other
rank sent and check the result itself.
"""

import ferrograd as fg
import numpy as np
from common import AGAINST_TORCH, close_to, dist, init, main, report

OPS = {
    "SUM": lambda xs: np.sum(xs, axis=0),
    "AVG": lambda xs: np.mean(xs, axis=0),
    "PRODUCT": lambda xs: np.prod(xs, axis=0),
    "MIN": lambda xs: np.min(xs, axis=0),
    "MAX": lambda xs: np.max(xs, axis=0),
}


def inputs(size, shape, dtype, seed=0):
    """Rank r's values for every r: small integers (ties between ranks included, exact in every dtype)."""
    return [np.random.default_rng(seed * 100 + r).integers(-3, 4, shape).astype(dtype) for r in range(size)]


def check_version_bumped(t, before, what):
    # ferrograd counts MPI's writes as in-place writes (torch's collectives leave the counter alone)
    if not AGAINST_TORCH:
        assert t._version > before, f"{what}: version counter {t._version} not bumped from {before}"


def all_reduce(rank, size):
    gloo_ops = ["SUM", "PRODUCT", "MIN", "MAX"]  # torch's gloo backend has no AVG
    for dtype, np_dtype in [(fg.float32, np.float32), (fg.float64, np.float64), (fg.int64, np.int64)]:
        for name in OPS if not AGAINST_TORCH else gloo_ops:
            if name == "AVG" and dtype == fg.int64:
                continue
            xs = inputs(size, (3, 4), np_dtype, seed=len(name))
            t = fg.tensor(xs[rank], dtype=dtype)
            before = t._version
            assert dist.all_reduce(t, op=getattr(dist.ReduceOp, name)) is None
            tol = 1e-6 if name == "AVG" else 0  # a mean over 3 ranks rounds in float32
            close_to(t, OPS[name](np.stack(xs).astype(np.float64)), tol, f"all_reduce {name} {dtype}")
            check_version_bumped(t, before, "all_reduce")
    # a transposed (not contiguous) tensor and a 0-dim one
    xs = inputs(size, (4, 3), np.float64, seed=7)
    t = fg.tensor(xs[rank]).t()
    dist.all_reduce(t)
    close_to(t, np.sum(xs, axis=0).T, 0, "all_reduce of a transposed tensor")
    s = fg.tensor(float(rank + 1))
    dist.all_reduce(s, op=dist.ReduceOp.MAX)
    assert s.item() == size and s.shape == (), "all_reduce of a 0-dim tensor"
    if not AGAINST_TORCH:
        xs = inputs(size, (5,), np.float16, seed=3)
        h = fg.tensor(xs[rank], dtype=fg.float16)
        dist.all_reduce(h)
        close_to(h, np.sum(xs, axis=0), 0, "all_reduce float16")
        b = fg.tensor([rank == 0, True, False])
        dist.all_reduce(b, op=dist.ReduceOp.MIN)
        assert b.tolist() == [size == 1, True, False], "all_reduce MIN (and) of bools"
        try:
            dist.all_reduce(fg.tensor([1, 2]), op=dist.ReduceOp.AVG)
        except RuntimeError as e:
            assert "can't be cast to the desired output type Long" in str(e), e
        else:
            raise AssertionError("AVG of an int64 tensor did not raise")


def broadcast(rank, size):
    for src in range(size):
        xs = inputs(size, (2, 3), np.float32, seed=src)
        t = fg.tensor(xs[rank])
        before = t._version
        dist.broadcast(t, src)
        close_to(t, xs[src], 0, f"broadcast from {src}")
        if rank != src:
            check_version_bumped(t, before, "broadcast")
    try:
        dist.broadcast(fg.zeros(2), size)
    except (RuntimeError, ValueError):
        pass
    else:
        raise AssertionError("broadcast from a rank outside the group did not raise")


def gathers(rank, size):
    xs = inputs(size, (2, 3), np.float64, seed=11)
    out = [fg.zeros(2, 3, dtype=fg.float64) for _ in range(size)]
    dist.all_gather(out, fg.tensor(xs[rank]))
    for r in range(size):
        close_to(out[r], xs[r], 0, f"all_gather part {r}")
    try:
        dist.all_gather([fg.zeros(2, 3, dtype=fg.float64)] * (size + 1), fg.tensor(xs[rank]))
    except RuntimeError:
        pass
    else:
        raise AssertionError("all_gather into a list of the wrong length did not raise")

    flat = fg.zeros(size * 2, 3, dtype=fg.float64)  # concatenated along dim 0
    dist.all_gather_into_tensor(flat, fg.tensor(xs[rank]))
    close_to(flat, np.concatenate(xs), 0, "all_gather_into_tensor (concatenated)")
    if not AGAINST_TORCH:  # torch's gloo takes only the concatenated form
        stacked = fg.zeros(size, 2, 3, dtype=fg.float64)
        before = stacked._version
        dist.all_gather_into_tensor(stacked, fg.tensor(xs[rank]))
        close_to(stacked, np.stack(xs), 0, "all_gather_into_tensor (stacked)")
        check_version_bumped(stacked, before, "all_gather_into_tensor")
    # in place: the input is this rank's part of the output
    both = fg.zeros(size * 2, 3, dtype=fg.float64)
    mine = both[2 * rank : 2 * rank + 2]
    mine.copy_(fg.tensor(xs[rank]))
    dist.all_gather_into_tensor(both, mine)
    close_to(both, np.concatenate(xs), 0, "all_gather_into_tensor in place")


def reduce_scatter(rank, size):
    for name in ["SUM", "MAX"] + ([] if AGAINST_TORCH else ["AVG"]):
        xs = inputs(size, (size * 3,), np.float32, seed=13)
        out = fg.zeros(3)
        dist.reduce_scatter_tensor(out, fg.tensor(xs[rank]), op=getattr(dist.ReduceOp, name))
        expected = OPS[name](np.stack(xs).astype(np.float64))[3 * rank : 3 * rank + 3]
        close_to(out, expected, 1e-6, f"reduce_scatter_tensor {name}")
    try:
        dist.reduce_scatter_tensor(fg.zeros(2), fg.zeros(size * 2 + 1))
    except RuntimeError:
        pass
    else:
        raise AssertionError("reduce_scatter_tensor with mismatched sizes did not raise")


def point_to_point(rank, size):
    if size < 2:
        return
    peer = 1 - rank if rank < 2 else None
    if peer is None:
        return
    xs = inputs(2, (4,), np.float64, seed=17)
    # both ranks receive before they send: the receives must not block the sends
    got = fg.zeros(4, dtype=fg.float64)
    receiving = dist.irecv(got, src=peer)
    sending = dist.isend(fg.tensor(xs[rank]), dst=peer)
    assert sending.wait() and receiving.wait()
    close_to(got, xs[peer], 0, "irecv")
    assert receiving.is_completed()
    if rank == 0:
        dist.send(fg.tensor(xs[0]) * 2, dst=1)
        back = fg.zeros(4, dtype=fg.float64)
        assert dist.recv(back, src=1) == 1
        close_to(back, xs[0] * 3, 0, "recv")
    else:
        x = fg.zeros(4, dtype=fg.float64)
        before = x._version
        assert dist.recv(x) == 0, "recv from any rank returns the sender"
        check_version_bumped(x, before, "recv")
        dist.send(x * 1.5, dst=0)
    try:
        dist.send(fg.zeros(1), dst=rank)
    except ValueError:
        pass
    else:
        raise AssertionError("send to oneself did not raise")


def async_ops(rank, size):
    xs = [inputs(size, (1000,), np.float64, seed=20 + k) for k in range(4)]
    tensors = [fg.tensor(x[rank]) for x in xs]
    works = [dist.all_reduce(t, async_op=True) for t in tensors]
    works.append(dist.barrier(async_op=True))
    for work in reversed(works):
        assert work.wait() is True
        assert work.is_completed()
    for t, x in zip(tensors, xs):
        close_to(t, np.sum(x, axis=0), 0, "async all_reduce")
    assert works[0].result()[0] is tensors[0]


def groups(rank, size):
    """A group of every rank (`new_group`, pytorch/tutorials' dist_tuto) runs its own collectives; the
    deprecated `reduce_op` names still work, with torch's FutureWarning."""
    import warnings

    everyone = dist.new_group(list(range(size)))
    assert dist.get_rank(everyone) == rank and dist.get_world_size(everyone) == size
    t = fg.full((3,), float(rank + 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist.all_reduce(t, op=dist.reduce_op.SUM, group=everyone)
    assert any("`torch.distributed.reduce_op` is deprecated" in str(w.message) for w in caught)
    close_to(t, np.full(3, size * (size + 1) / 2), 0, "all_reduce on a new group")
    dist.destroy_process_group(everyone)
    assert dist.is_initialized()


def run():
    rank, size = init()
    assert dist.is_initialized() and dist.get_backend() in ("mpi", "gloo")
    for check in [all_reduce, broadcast, gathers, reduce_scatter, point_to_point, async_ops, groups]:
        check(rank, size)
    dist.barrier()
    report("collectives ok")
    dist.destroy_process_group()
    assert not dist.is_initialized()


main(run)
