"""The MPI side of `ferrograd.distributed`: loading mpi4py (an optional dependency), MPI datatypes for
ferrograd's dtypes, MPI operations for `ReduceOp`s, and the zero-copy buffers MPI reads and writes."""

import enum

from .. import _core
from ..grad_mode import no_grad

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


class Buffer:
    """The memory of a tensor as MPI sees it: the tensor's own storage when it is contiguous (numpy shares
    it, MPI gets numpy's buffer), else one staging copy that `written()` copies back. `written()` also
    bumps the tensor's version counter, which an in-place write must do and MPI's writes do not."""

    def __init__(self, MPI, tensor):
        self.tensor = tensor
        self.staged = None if tensor.is_contiguous() else tensor.detach().contiguous()
        self.array = (tensor.detach() if self.staged is None else self.staged).numpy()
        # [memory, datatype]: mpi4py counts the elements (per rank where a call splits the buffer by rank)
        self.spec = [self.array, datatype(MPI, tensor.dtype)]
        self.nbytes = self.array.nbytes

    def written(self):
        with no_grad():
            if self.staged is not None:
                self.tensor.copy_(self.staged)
            elif self.tensor.numel() > 0:
                # an in-place write on an empty view of the storage bumps the version counter every view
                # of it shares, without touching an element
                self.tensor.detach().reshape(-1)[:0].zero_()
