"""`ferrograd.distributed`: PyTorch's `torch.distributed` over MPI (through mpi4py).

    import ferrograd.distributed as dist
    dist.init_process_group(backend="mpi")      # under `mpiexec -n 4 python train.py`
    dist.all_reduce(t, op=dist.ReduceOp.SUM)    # t's own memory goes to MPI, no copy

mpi4py is optional (`pip install ferrograd[distributed]`): importing this module never needs it, only
`init_process_group` does. See `ferrograd.nn.parallel.DistributedDataParallel` for data-parallel training.
"""

from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    broadcast,
    irecv,
    isend,
    recv,
    reduce_scatter_tensor,
    send,
)
from ._mpi import ReduceOp
from ._work import DistBackendError, DistError, Work
from .distributed_c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    barrier,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
    reduce_op,
)

__all__ = [
    "Backend",
    "DistBackendError",
    "DistError",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "barrier",
    "broadcast",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "isend",
    "new_group",
    "recv",
    "reduce_op",
    "reduce_scatter_tensor",
    "send",
]
