"""The rest of the collectives (`reduce`, `gather`, `scatter`, the object collectives, `monitored_barrier`,
point-to-point into a non-contiguous tensor), run the way torch's DDP tutorials start their ranks: `mp.spawn`
and `init_process_group("gloo", rank=r, world_size=n)` meeting through MASTER_ADDR/MASTER_PORT (`env`), a
`tcp://` or a `file://` init_method.

    python gloo_spawn.py env|tcp|file [world size]
"""

import os
import sys
import tempfile
from datetime import timedelta

import ferrograd as fg
import ferrograd.distributed as dist
import ferrograd.multiprocessing as mp

AGAINST_TORCH = os.environ.get("FG_TEST_AGAINST_TORCH") == "1"

OPS = {"SUM": sum, "PRODUCT": lambda xs: xs[0] * xs[1] * (xs[2] if len(xs) > 2 else 1), "MIN": min, "MAX": max}


def value(r, k=0):
    return [float(r + 1), float(2 - r), float((r * 7 + k) % 5)]


def check(got, expected, what):
    got = got.tolist() if isinstance(got, fg.Tensor) else got
    assert got == expected, f"{what}: {got} != {expected}"


def reduce_gather_scatter(rank, size):
    for name, fold in OPS.items():
        t = fg.tensor(value(rank), dtype=fg.float64)
        dist.reduce(t, dst=1, op=getattr(dist.ReduceOp, name))
        if rank == 1:  # the others' tensors are scratch space to torch's gloo (ferrograd leaves them)
            check(t, [fold([value(r)[i] for r in range(size)]) for i in range(3)], f"reduce {name}")
    t = fg.tensor([rank + 1, 10], dtype=fg.int64)
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    if rank == 0:
        check(t, [size, 10], "reduce MAX int64")

    src = fg.tensor([[float(rank), 1.0], [2.0, float(-rank)]]).t()  # not contiguous
    parts = [fg.zeros(2, 2) for _ in range(size)] if rank == 0 else None
    dist.gather(src, parts, dst=0)
    if rank == 0:
        for r, part in enumerate(parts):
            check(part, [[float(r), 2.0], [1.0, float(-r)]], f"gather part {r}")

    out = fg.zeros(3, dtype=fg.int64)
    pieces = [fg.tensor([r, r * 10, 7], dtype=fg.int64) for r in range(size)] if rank == 1 else None
    dist.scatter(out, pieces, src=1)
    check(out, [rank, rank * 10, 7], "scatter")
    try:
        dist.gather(fg.ones(2), [fg.zeros(2)] * size if rank != 0 else None, dst=0)
    except ValueError as e:
        expected = "must NOT be specified on non-destination" if rank else "must be specified on destination"
        assert expected in str(e), e
    else:
        raise AssertionError("gather with gather_list on the wrong ranks did not raise")


def objects(rank, size):
    gathered = [None] * size
    dist.all_gather_object(gathered, {"rank": rank, "name": "r" * (rank + 1)})
    check(gathered, [{"rank": r, "name": "r" * (r + 1)} for r in range(size)], "all_gather_object")
    items = [rank, "only rank 1's survive", (1, 2)] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(items, src=1)
    check(items, [1, "only rank 1's survive", (1, 2)], "broadcast_object_list")
    into = [None] * size if rank == 0 else None
    dist.gather_object(("from", rank), into, dst=0)
    if rank == 0:
        check(into, [("from", r) for r in range(size)], "gather_object")
    received = [None]
    dist.scatter_object_list(received, [{"for": r} for r in range(size)] if rank == 0 else None, src=0)
    check(received, [{"for": rank}], "scatter_object_list")


def point_to_point(rank, size):
    if rank >= 2:
        return
    peer = 1 - rank
    # ferrograd receives into a transposed view (staged, then copied back); torch's gloo wants it contiguous
    got = fg.zeros(2, 3) if AGAINST_TORCH else fg.zeros(3, 2).t()
    receiving = dist.irecv(got, src=peer, tag=5)
    sending = dist.isend(fg.arange(6.0).reshape(2, 3) * (rank + 1), dst=peer, tag=5)
    assert sending.wait() and receiving.wait()
    check(got, (fg.arange(6.0).reshape(2, 3) * (peer + 1)).tolist(), "irecv into a non-contiguous tensor")


def async_work(rank, size):
    tensors = [fg.full((1000,), float(rank + k)) for k in range(3)]
    works = [dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True) for t in tensors]
    for k, (work, t) in enumerate(zip(works, tensors)):
        assert work.wait() is True and work.is_completed()
        assert work.result()[0] is t
        check(t[:2], [(size - 1) / 2 + k] * 2, "async all_reduce AVG")


def worker(rank, size, how, where):
    timeout = timedelta(seconds=20)
    if how == "env":
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", where
        dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timeout)
    else:
        dist.init_process_group("gloo", init_method=where, rank=rank, world_size=size, timeout=timeout)
    assert dist.is_initialized() and dist.is_gloo_available()
    assert dist.get_backend() == "gloo" and dist.group.WORLD.name() == "gloo"
    assert (dist.get_rank(), dist.get_world_size()) == (rank, size)
    reduce_gather_scatter(rank, size)
    objects(rank, size)
    point_to_point(rank, size)
    async_work(rank, size)
    dist.monitored_barrier(timeout=timeout)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    if how == "env":  # again, at the same address: the first group's store is gone by now
        dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timeout)
        t = fg.ones(2)
        dist.all_reduce(t)
        check(t, [float(size)] * 2, "all_reduce after init_process_group again")
        dist.destroy_process_group()
    os.write(1, f"rank {rank}: extras ok\n".encode())  # one write: the ranks share stdout


if __name__ == "__main__":
    how = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    port = os.environ["FG_DIST_PORT"]
    with tempfile.TemporaryDirectory() as tmp:
        where = {"env": port, "tcp": f"tcp://127.0.0.1:{port}", "file": f"file://{tmp}/store"}[how]
        mp.spawn(worker, args=(size, how, where), nprocs=size)
