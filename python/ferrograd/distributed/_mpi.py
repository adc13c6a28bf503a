"""The MPI backend of `ferrograd.distributed`: loading mpi4py (an optional dependency), MPI datatypes for
ferrograd's dtypes, MPI operations for `ReduceOp`s, the zero-copy buffers MPI reads and writes, and
`MPIBackend`, the collectives as MPI calls on one communicator.

MPI reads and writes the tensors' own memory: no copy for contiguous tensors, one staging copy for others.
"""

import enum

from .. import _core
from ._memory import TensorMemory

INSTALL_HINT = (
    "ferrograd.distributed needs mpi4py and an MPI library: pip install ferrograd[distributed] "
    "(installs mpi4py and the mpich wheel, which ships mpiexec)"
)


def load():
    """mpi4py's `MPI` module, initialising MPI on first use (with threads allowed: collectives run on a
    communication thread while the main thread computes)."""
    try:
        import mpi4py
    except ImportError as e:
        raise RuntimeError(INSTALL_HINT) from e
    mpi4py.rc.thread_level = "multiple"
    try:
        from mpi4py import MPI
    except ImportError as e:  # mpi4py present but no MPI library it can load
        raise RuntimeError(f"{INSTALL_HINT}; importing mpi4py.MPI failed: {e}") from e
    return MPI


def available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


class RedOpType(enum.Enum):
    """`ReduceOp.RedOpType`, with PyTorch's members and values."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """The reductions of `all_reduce` and `reduce_scatter_tensor`: `ReduceOp.SUM`, `AVG`, `PRODUCT`, `MIN`,
    `MAX`, `BAND`, `BOR`, `BXOR` (members of `ReduceOp.RedOpType`, as in PyTorch)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED


_DATATYPE_NAMES = {
    _core.float32: "FLOAT",
    _core.float64: "DOUBLE",
    _core.float16: "FLOAT16_T",
    _core.int64: "INT64_T",
    _core.int32: "INT32_T",
    _core.int16: "INT16_T",
    _core.int8: "INT8_T",
    _core.uint8: "UINT8_T",
    _core.bool: "C_BOOL",
}
# On bools MPI has only the logical operations: a sum or maximum is an "or", a product or minimum an "and".
_BOOL_OPS = {RedOpType.SUM: "LOR", RedOpType.MAX: "LOR", RedOpType.PRODUCT: "LAND", RedOpType.MIN: "LAND"}
# AVG is a SUM followed by a division by the world size.
_OPS = {
    RedOpType.SUM: "SUM",
    RedOpType.AVG: "SUM",
    RedOpType.PRODUCT: "PROD",
    RedOpType.MIN: "MIN",
    RedOpType.MAX: "MAX",
    RedOpType.BAND: "BAND",
    RedOpType.BOR: "BOR",
    RedOpType.BXOR: "BXOR",
}


def datatype(MPI, dtype):
    name = _DATATYPE_NAMES.get(dtype)
    if name is None:
        raise TypeError(f"ferrograd.distributed: tensors of dtype {dtype} are not supported by the MPI backend")
    return getattr(MPI, name)


def operation(MPI, op, dtype):
    if not isinstance(op, RedOpType):
        raise TypeError(f"op must be a ReduceOp (e.g. ReduceOp.SUM), not {type(op).__name__}")
    name = (_BOOL_OPS if dtype == _core.bool else _OPS).get(op)
    if name is None:
        raise ValueError(f"ReduceOp.{op.name} is not supported by the MPI backend for {dtype} tensors")
    return getattr(MPI, name)


def check_tensor(t, name="tensor"):
    if not isinstance(t, _core.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor")


class Buffer(TensorMemory):
    """A tensor's memory (see `_memory.py`) with the MPI datatype mpi4py needs beside it."""

    def __init__(self, MPI, tensor):
        mpi_type = datatype(MPI, tensor.dtype)  # refuses an unsupported dtype before touching the memory
        super().__init__(tensor)
        # [memory, datatype]: mpi4py counts the elements (per rank where a call splits the buffer by rank)
        self.spec = [self.array, mpi_type]


def _finish_reduction(buf, op, size):
    """After MPI's sum of an AVG: the division, in the tensor's memory; then the version bump. numpy divides
    (with the GIL released, as it does in its loops), so the caller's thread is not held up meanwhile."""
    if op is ReduceOp.AVG:
        import numpy as np

        np.true_divide(buf.array, size, out=buf.array)
    buf.written()


class MPIBackend:
    """The collectives of a process group over one MPI communicator. Each method gets arguments already checked
    by `_collectives.py` and returns what the group's communication thread runs (point-to-point operations
    return their Work: MPI starts them at once)."""

    name = "mpi"
    wait_grace = 0.0  # MPI's calls have no deadline of their own: the Work's wait is the timeout

    def __init__(self, MPI, comm):
        self.MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def dup(self, timeout):
        return MPIBackend(self.MPI, self.comm.Dup())

    def close(self, timeout):
        self.comm.Free()

    def all_reduce(self, tensor, op):
        mpi_op = operation(self.MPI, op, tensor.dtype)
        buf = Buffer(self.MPI, tensor)

        def run():
            self.comm.Allreduce(self.MPI.IN_PLACE, buf.spec, op=mpi_op)
            _finish_reduction(buf, op, self.size)

        return run

    def broadcast(self, tensor, src):
        buf = Buffer(self.MPI, tensor)

        def run():
            self.comm.Bcast(buf.spec, root=src)
            if self.rank != src:
                buf.written()

        return run

    def all_gather(self, tensor_list, tensor):
        """MPI gathers into one staging buffer, which is then copied into the list."""
        staging = _core.zeros(self.size, *tensor.shape, dtype=tensor.dtype)
        send, recv = Buffer(self.MPI, tensor), Buffer(self.MPI, staging)

        def run():
            self.comm.Allgather(send.spec, recv.spec)
            for t, part in zip(tensor_list, staging.unbind(0)):
                t.copy_(part)

        return run

    def all_gather_into_tensor(self, output, input):
        recv, send = Buffer(self.MPI, output), Buffer(self.MPI, input)
        if send.overlaps(recv):  # MPI forbids overlapping buffers: the input goes through a copy
            send = Buffer(self.MPI, input.detach().clone())

        def run():
            self.comm.Allgather(send.spec, recv.spec)
            recv.written()

        return run

    def reduce_scatter_tensor(self, output, input, op):
        mpi_op = operation(self.MPI, op, output.dtype)
        recv, send = Buffer(self.MPI, output), Buffer(self.MPI, input)
        if send.overlaps(recv):
            send = Buffer(self.MPI, input.detach().clone())

        def run():
            self.comm.Reduce_scatter_block(send.spec, recv.spec, op=mpi_op)
            _finish_reduction(recv, op, self.size)

        return run

    def reduce(self, tensor, dst, op):
        mpi_op = operation(self.MPI, op, tensor.dtype)
        buf = Buffer(self.MPI, tensor)

        def run():
            if self.rank == dst:
                self.comm.Reduce(self.MPI.IN_PLACE, buf.spec, op=mpi_op, root=dst)
                _finish_reduction(buf, op, self.size)
            else:
                self.comm.Reduce(buf.spec, None, op=mpi_op, root=dst)

        return run

    def gather(self, tensor, gather_list, dst):
        send = Buffer(self.MPI, tensor)
        staging = _core.zeros(self.size, *tensor.shape, dtype=tensor.dtype) if self.rank == dst else None
        recv = Buffer(self.MPI, staging) if staging is not None else None

        def run():
            self.comm.Gather(send.spec, None if recv is None else recv.spec, root=dst)
            if staging is not None:
                for t, part in zip(gather_list, staging.unbind(0)):
                    t.copy_(part)

        return run

    def scatter(self, tensor, scatter_list, src):
        recv = Buffer(self.MPI, tensor)
        send = None
        if self.rank == src:
            send = Buffer(self.MPI, _core.stack([t.detach() for t in scatter_list]))

        def run():
            self.comm.Scatter(None if send is None else send.spec, recv.spec, root=src)
            recv.written()

        return run

    def barrier(self):
        return self.comm.Barrier

    def monitored_barrier(self, seconds, wait_all_ranks):
        return self.comm.Barrier

    def isend(self, tensor, dst, tag, timeout):
        from ._work import RequestWork

        buf = Buffer(self.MPI, tensor)
        request = self.comm.Isend(buf.spec, dest=dst, tag=tag)
        return RequestWork("send", self.rank, timeout, [tensor], request, self.MPI.Status(), lambda: None)

    def irecv(self, tensor, src, tag, timeout):
        from ._work import RequestWork

        buf = Buffer(self.MPI, tensor)
        source = self.MPI.ANY_SOURCE if src is None else src
        request = self.comm.Irecv(buf.spec, source=source, tag=tag)
        return RequestWork("recv", self.rank, timeout, [tensor], request, self.MPI.Status(), buf.written)
