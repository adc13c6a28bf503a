"""Process groups: `init_process_group` (backend "gloo" or "mpi"), rank and size, `barrier`, `new_group`,
`destroy_process_group`. The collectives on tensors are in `_collectives.py`, on Python objects in `_objects.py`.

A `ProcessGroup` holds a backend object that does the communication: `_gloo.GlooBackend` (TCP between the
processes; ranks and world size given by the program or the launcher's environment, rendezvous through a store,
`_store.py`) or `_mpi.MPIBackend` (ranks and world size from the MPI launcher, `mpiexec -n 4 python train.py`;
a script started without one is a world of one process). mpi4py is imported only by `init_process_group("mpi")`,
so `import ferrograd.distributed` never needs it.
"""

import os
import sys
from datetime import timedelta

from . import _mpi
from ._work import CommThread, Work

# PyTorch's default (torch.distributed.constants.default_pg_timeout).
default_pg_timeout = timedelta(minutes=30)

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """A backend name, lower-cased (PyTorch's `Backend`); ferrograd has gloo and MPI."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return str.__new__(cls, name.lower())


class ProcessGroup:
    """A group of ranks and the backend that connects them (the default group spans every rank)."""

    def __init__(self, backend, timeout):
        self._backend = backend
        self._rank = backend.rank
        self._size = backend.size
        self._timeout = timeout
        self._thread = CommThread(f"ferrograd-{backend.name}")

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return self._backend.name

    def _run(self, name, run, outputs, async_op, timeout=None):
        """Runs `run()` on the communication thread after every collective called before it; returns its Work
        with `async_op`, else waits for it (within `timeout`, by default the group's) and returns None."""
        seconds = (self._timeout if timeout is None else timeout) + self._backend.wait_grace
        work = Work(name, self._rank, seconds, outputs)
        self._thread.submit(run, work)
        if async_op:
            return work
        work.wait()
        return None


class _World:
    default_pg = None
    excepthook = None
    # groups `new_group` made over every rank (each its own communicator), usable as `group=`
    groups: list = []


_world = _World()


class _Group:
    """`group.WORLD`: the default process group once initialised, else None."""

    @property
    def WORLD(self):
        return _world.default_pg


group = _Group()
GroupMember = group


def is_available():
    return True


def is_mpi_available():
    """Whether mpi4py (with an MPI library) can be imported: `pip install ferrograd[distributed]`."""
    return _mpi.available()


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_initialized():
    return _world.default_pg is not None


def is_torchelastic_launched():
    """Whether this process was started by a torchelastic launcher (`python -m ferrograd.distributed.run`)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _group(group=None):
    pg = _world.default_pg
    if pg is None:
        raise ValueError(_NOT_INITIALIZED)
    if group is None or group is pg:
        return pg
    if any(group is g for g in _world.groups):
        return group
    raise ValueError(f"Process group {group!r} is not initialized in the world group map")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):  # fmt: skip
    """A process group of `ranks` (every rank when None), with a communicator of its own, so its collectives
    never mix with the default group's. Every rank must call it, as in torch. ferrograd's groups span every rank:
    a proper subset (whose ranks' numbers differ from the world's) is refused with NotImplementedError."""
    pg = _group()
    if ranks is not None:
        wanted = sorted(ranks)
        if len(set(wanted)) != len(wanted) or any(not 0 <= r < pg.size() for r in wanted):
            raise ValueError(f"new_group: ranks {list(ranks)} are not distinct ranks of the world of {pg.size()}")
        if wanted != list(range(pg.size())):
            raise NotImplementedError(
                f"new_group({list(ranks)}): ferrograd's process groups span every rank (world of {pg.size()}); "
                "a subset is not supported yet"
            )
    seconds = timeout.total_seconds() if timeout is not None else pg._timeout
    made = ProcessGroup(pg._backend.dup(seconds), seconds)
    _world.groups.append(made)
    return made


class _DeprecatedReduceOp:
    """`torch.distributed.reduce_op`: the old name of `ReduceOp`'s members, with torch's FutureWarning on use."""

    def __getattr__(self, key):
        import warnings

        from ._mpi import RedOpType

        warnings.warn(
            "`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` instead",
            FutureWarning,
            stacklevel=2,
        )
        if key == "__members__":
            return RedOpType.__members__
        try:
            return RedOpType.__members__[key]
        except KeyError:
            raise AttributeError(f"'_reduce_op' object has no attribute '{key}'") from None


reduce_op = _DeprecatedReduceOp()


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Joins this process to the default process group (PyTorch's signature).

    `backend="gloo"`: the ranks connect over TCP. `rank` and `world_size` are given, or read from the environment
    (RANK, WORLD_SIZE) with the default `init_method="env://"`, which meets at MASTER_ADDR:MASTER_PORT (rank 0
    serves a `TCPStore` there); `init_method="tcp://host:port"` meets at that address, `"file:///path"` through a
    file every rank can open; `store=` gives the store itself. `python -m ferrograd.distributed.run` and
    `mp.spawn` are the usual ways to start the ranks.

    `backend="mpi"`: the ranks are the MPI launcher's; `rank` and `world_size`, when given, are ignored with
    torch's warning, `init_method` and `store` are unused. An uncaught exception on any rank then aborts every
    rank (MPI_Abort) instead of leaving them waiting.

    With no `backend`: gloo when an `init_method`, a `store` or MASTER_ADDR says where to meet, else MPI (under
    an MPI launcher, or a world of one process). `timeout` bounds every wait on a collective (PyTorch's default,
    30 minutes).
    """
    if _world.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _backend_name(backend, init_method, store)
    seconds = (timeout if timeout is not None else default_pg_timeout).total_seconds()
    if name == Backend.GLOO:
        _world.default_pg = ProcessGroup(_gloo_backend(init_method, timeout, world_size, rank, store), seconds)
        return
    if world_size not in (-1, None) or rank not in (-1, None):
        import warnings

        # torch's words: the MPI launcher numbers the ranks (pytorch/tutorials' dist_tuto passes rank=0,
        # world_size=0 with backend='mpi')
        warnings.warn(
            f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored since they are assigned by "
            "the MPI runtime.",
            stacklevel=2,
        )
    MPI = _mpi.load()
    backend_obj = _mpi.MPIBackend(MPI, MPI.COMM_WORLD.Dup())
    _world.default_pg = ProcessGroup(backend_obj, seconds)
    if backend_obj.size > 1:
        _world.excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught(sys.excepthook, backend_obj.rank, backend_obj.size, MPI.COMM_WORLD.Abort)


def _backend_name(backend, init_method, store):
    if backend is None:
        told = init_method is not None or store is not None or "MASTER_ADDR" in os.environ
        return Backend.GLOO if told else Backend.MPI
    name = Backend(backend)
    if ":" in name:  # "cpu:gloo,cuda:nccl": the CPU's
        devices = dict(part.split(":", 1) for part in name.split(",") if ":" in part)
        name = Backend(devices.get("cpu", name))
    if name not in (Backend.GLOO, Backend.MPI):
        raise RuntimeError(
            f"ferrograd.distributed has the gloo and MPI backends (backend='gloo' or 'mpi'), not '{name}': "
            "on the CPU, use backend='gloo'"
        )
    return name


def _gloo_backend(init_method, timeout, world_size, rank, store):
    from . import _gloo, _store

    timeout = timeout if timeout is not None else default_pg_timeout
    made = store is None
    if made:
        store, rank, world_size = _store.rendezvous(init_method or "env://", rank, world_size, timeout)
    else:
        # torch's checks, AssertionErrors as torch's
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {world_size - 1}]")
    backend = _gloo.GlooBackend(_store.PrefixStore("default_pg", store), rank, world_size, timeout.total_seconds())
    if made and isinstance(store, _store.TCPStore):
        backend.owned_store = store
    return backend


def _abort_on_uncaught(previous, rank, size, abort):
    """An excepthook that prints the traceback and then aborts every rank: the others would otherwise wait in
    their next collective for this one until the timeout."""

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        sys.stderr.write(
            f"ferrograd.distributed: rank {rank} of {size} stopped on an uncaught {exc_type.__name__}; "
            "aborting every rank (MPI_Abort)\n"
        )
        sys.stdout.flush()
        sys.stderr.flush()
        abort(1)

    return hook


def destroy_process_group(group=None):
    """Waits for the group's collectives in flight, then dissolves it: the default group (and every group
    `new_group` made) unless `group` names one of `new_group`'s (MPI itself stays initialised, so
    `init_process_group` can be called again)."""
    if _world.default_pg is None:
        raise AssertionError("Process group cannot be None")
    pg = _group(group)
    if pg is not _world.default_pg:  # one group of `new_group`'s
        _world.groups = [g for g in _world.groups if g is not pg]
        _close(pg)
        return
    _world.default_pg = None
    if _world.excepthook is not None:
        sys.excepthook = _world.excepthook
        _world.excepthook = None
    for made in _world.groups:
        _close(made)
    _world.groups = []
    _close(pg)


def _close(pg):
    pg._thread.close(pg._timeout)
    pg._backend.close(pg._timeout)


def get_rank(group=None):
    return _group(group).rank()


def get_world_size(group=None):
    return _group(group).size()


def get_backend(group=None):
    return _group(group).name()


def barrier(group=None, async_op=False, device_ids=None):
    """Blocks until every rank has called it (with `async_op`, returns a Work to wait on)."""
    pg = _group(group)
    return pg._run("barrier", pg._backend.barrier(), [], async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier in which rank 0 waits for each other rank up to `timeout` (the group's by default) and names
    the first one missing (every one with `wait_all_ranks`) in its RuntimeError."""
    pg = _group(group)
    seconds = pg._timeout if timeout is None else timeout.total_seconds()
    run = pg._backend.monitored_barrier(seconds, wait_all_ranks)
    # the backend's own wait ends first, with the error naming the ranks
    pg._run("monitored_barrier", run, [], False, timeout=seconds)
