"""`DistributedDataParallel`: one model replica per rank, gradients averaged over the ranks during backward."""

from contextlib import contextmanager

from ... import _core, distributed
from ..._core import is_grad_enabled
from ..modules.module import Module
from ._reducer import FIRST_BUCKET_BYTES, MB, Reducer


class DistributedDataParallel(Module):
    """Wraps `module` for data-parallel training over the default process group (PyTorch's signature).

    At construction, rank 0's parameters and buffers are broadcast to every rank. In each backward, the
    parameters' gradients are averaged over the ranks in buckets of `bucket_cap_mb` MiB (25 by default),
    each bucket all-reduced as soon as its gradients are ready, overlapping with the rest of backward;
    `.grad` holds the average when backward returns. With `broadcast_buffers` (the default) rank 0's
    buffers are broadcast before every forward. `no_sync()` skips the reduction (gradients accumulate
    locally until the next backward outside it). `find_unused_parameters=True` lets a forward leave some
    parameters out of the loss. `gradient_as_bucket_view=True` makes each `.grad` a view into its bucket,
    saving the copies into and out of the buckets.
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params=False,
    ):
        super().__init__()
        pg = distributed.distributed_c10d._group(process_group)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                "gradient."
            )
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * MB)
        self.modules_buffers = list(module.buffers())
        _verify_same_model(pg, params)
        if init_sync:
            _broadcast_from_rank0(pg, list(module.parameters()) + self.modules_buffers)
        first = FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        limits = [first, self.bucket_bytes_cap]
        self._reducer = Reducer(params, pg, limits, gradient_as_bucket_view, find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.modules_buffers and self.process_group.size() > 1:
            _broadcast_from_rank0(self.process_group, self.modules_buffers)
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self._reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        return output

    @contextmanager
    def no_sync(self):
        """Gradients of the backward passes of forwards run inside this block are not reduced: they
        accumulate in `.grad`, and the first backward after the block reduces the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _verify_same_model(pg, params):
    """Every rank must wrap the same parameters (count and sizes), else the buckets would not match."""
    mine = _core.tensor([len(params), sum(p.numel() for p in params)], dtype=_core.int64)
    every = _core.zeros(pg.size(), 2, dtype=_core.int64)
    distributed.all_gather_into_tensor(every, mine, group=pg)
    for rank, (count, numel) in enumerate(every.tolist()):
        if (count, numel) != (len(params), mine[1].item()):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {pg.rank()} has {len(params)} params "
                f"({mine[1].item()} elements), while rank {rank} has inconsistent {count} params ({numel} elements)."
            )


def _broadcast_from_rank0(pg, tensors):
    """Rank 0's values into every rank's tensors, in their own memory (one broadcast per tensor)."""
    works = [distributed.broadcast(t, 0, group=pg, async_op=True) for t in tensors]
    for work in works:
        work.wait()


def _find_tensors(obj):
    """The tensors in a forward's result (nested lists, tuples, dicts)."""
    if isinstance(obj, _core.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for x in obj for t in _find_tensors(x)]
    if isinstance(obj, dict):
        return [t for x in obj.values() for t in _find_tensors(x)]
    return []
