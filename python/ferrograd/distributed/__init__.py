"""`ferrograd.distributed`: PyTorch's `torch.distributed` over gloo (TCP, from the standard library) or MPI
(through mpi4py).

    import ferrograd.distributed as dist
    dist.init_process_group("gloo")             # under `python -m ferrograd.distributed.run --nproc_per_node=4`
    dist.init_process_group("gloo", rank=r, world_size=n)   # under mp.spawn, with MASTER_ADDR/MASTER_PORT set
    dist.init_process_group(backend="mpi")      # under `mpiexec -n 4 python train.py`
    dist.all_reduce(t, op=dist.ReduceOp.SUM)    # t's own memory goes to the socket or to MPI, no copy

mpi4py is optional (`pip install ferrograd[distributed]`): importing this module never needs it, only
`init_process_group("mpi")` does. See `ferrograd.nn.parallel.DistributedDataParallel` for data-parallel training.
"""

from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter_tensor,
    scatter,
    send,
)
from ._mpi import ReduceOp
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._store import FileStore, PrefixStore, Store, TCPStore
from ._work import DistBackendError, DistError, DistNetworkError, DistStoreError, Work
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
    monitored_barrier,
    new_group,
    reduce_op,
)

__all__ = [
    "Backend",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "FileStore",
    "GroupMember",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
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
    "monitored_barrier",
    "new_group",
    "recv",
    "reduce",
    "reduce_op",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
