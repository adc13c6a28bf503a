"""The default process group: `init_process_group(backend="mpi")`, its rank and size, `barrier`,
`destroy_process_group`. The collectives on tensors are in `_collectives.py`.

Ranks and the world size come from the MPI launcher (`mpiexec -n 4 python train.py`, `srun --mpi=pmix`); a
script started without one is a world of one process. mpi4py is imported only here, on the first
`init_process_group`, so `import ferrograd.distributed` never needs it.
"""

import sys
from datetime import timedelta

from . import _mpi
from ._work import CommThread, Work

# PyTorch's default (torch.distributed.constants.default_pg_timeout).
default_pg_timeout = timedelta(minutes=30)

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """A backend name, lower-cased (PyTorch's `Backend`); ferrograd has the MPI one."""

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
    """A group of ranks talking through one MPI communicator (the default group spans every rank)."""

    def __init__(self, MPI, comm, timeout):
        self._MPI = MPI
        self._comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self._timeout = timeout
        self._thread = CommThread()

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return Backend.MPI

    def __repr__(self):
        return f"<ProcessGroup mpi rank={self._rank} size={self._size}>"

    def _run(self, name, run, outputs, async_op):
        """Runs `run()` on the communication thread after every collective called before it; returns its Work
        with `async_op`, else waits for it (within the group's timeout) and returns None."""
        work = Work(name, self._rank, self._timeout, outputs)
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
    return False


def is_nccl_available():
    return False


def is_initialized():
    return _world.default_pg is not None


def is_torchelastic_launched():
    return False


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
    made = ProcessGroup(pg._MPI, pg._comm.Dup(), seconds)
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
    """Joins this process to the default process group of every rank the MPI launcher started.

    `backend` is "mpi" (the default). `rank` and `world_size`, when given, are ignored with torch's warning:
    the launcher numbers the ranks;
    `init_method` and `store` are accepted for PyTorch programs and unused (MPI's launcher does the
    rendezvous). `timeout` bounds every wait on a collective (PyTorch's default, 30 minutes). An uncaught
    exception on any rank then aborts every rank (MPI_Abort) instead of leaving them waiting.
    """
    if _world.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else Backend.MPI)
    if name != Backend.MPI:
        raise RuntimeError(
            f"ferrograd.distributed has only the MPI backend (backend='mpi'), not '{name}': "
            "start the ranks with an MPI launcher (mpiexec -n 2 python train.py)"
        )
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
    comm = MPI.COMM_WORLD.Dup()
    actual_rank, actual_size = comm.Get_rank(), comm.Get_size()
    seconds = (timeout if timeout is not None else default_pg_timeout).total_seconds()
    _world.default_pg = ProcessGroup(MPI, comm, seconds)
    if actual_size > 1:
        _world.excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught(sys.excepthook, actual_rank, actual_size, MPI.COMM_WORLD.Abort)


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
    pg._comm.Free()


def get_rank(group=None):
    return _group(group).rank()


def get_world_size(group=None):
    return _group(group).size()


def get_backend(group=None):
    return _group(group).name()


def barrier(group=None, async_op=False, device_ids=None):
    """Blocks until every rank has called it (with `async_op`, returns a Work to wait on)."""
    pg = _group(group)
    return pg._run("barrier", pg._comm.Barrier, [], async_op)
