"""DistributedDataParallel's reducer: gradients all-reduced in buckets while backward is still running.

Parameters go into buckets in reverse registration order (the order their gradients are usually produced),
one dtype per bucket, each closed at `bucket_cap_mb`, the first one at 1 MiB when `bucket_cap_mb` is left at
its default (as PyTorch's): the first gradients of backward start travelling early. Each bucket is one flat
tensor; its parameters' gradients are views of it with `gradient_as_bucket_view`, else copied in before and
out after the reduction.

A post-hook on each parameter's AccumulateGrad node (run once `.grad` holds the new gradient) marks the
parameter ready. When the last gradient of a bucket is ready, the bucket is all-reduced asynchronously
(averaged over the ranks) on the process group's communication thread, while the engine goes on with the
rest of backward; buckets start strictly in order, which keeps the collectives in the same order on every
rank. The hook that starts the last bucket waits for them all, so `.grad` is final when backward returns.
"""

import time
import weakref

from ... import _core, distributed
from ..._lazy_numpy import np
from ...grad_mode import no_grad

MB = 1024 * 1024
FIRST_BUCKET_BYTES = MB  # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES

UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
    "in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` function. Please include "
    "the loss function and the structure of the return value of `forward` of your module when reporting this "
    "issue (e.g. list, dict, iterable).\nParameter indices which did not receive grad for rank {rank}: {missing}"
)


def _address(t):
    return np.asarray(t).__array_interface__["data"][0]


def assign_buckets(params, limits):
    """Lists of parameter indices, one per bucket, over `params` in reverse order; a bucket (one per dtype at
    a time) is closed once it holds `limits[k]` bytes or more, the k-th closed one using `limits[k]` (the last
    limit for all later ones)."""
    open_buckets, closed = {}, []
    for i in reversed(range(len(params))):
        p = params[i]
        indices, size = open_buckets.get(p.dtype, ([], 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        if size >= limits[min(len(closed), len(limits) - 1)]:
            closed.append(indices)
            open_buckets.pop(p.dtype, None)
        else:
            open_buckets[p.dtype] = (indices, size)
    return closed + [indices for indices, _ in open_buckets.values()]


class Bucket:
    def __init__(self, params, indices):
        self.indices = indices
        total = sum(params[i].numel() for i in indices)
        self.flat = _core.zeros(total, dtype=params[indices[0]].dtype)
        self.views, offset = [], 0
        for i in indices:
            n = params[i].numel()
            self.views.append(self.flat[offset : offset + n].view(params[i].shape))
            offset += n
        self.addresses = [_address(v) for v in self.views]
        self.pending = len(indices)
        self.work = None


class Reducer:
    def __init__(self, params, process_group, bucket_limits, gradient_as_bucket_view, find_unused_parameters):
        self.params = params
        self.pg = process_group
        self.world_size = process_group.size()
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.find_unused_parameters = find_unused_parameters
        self.buckets = [Bucket(params, ix) for ix in assign_buckets(params, bucket_limits)]
        self.slot = {}  # parameter index -> (bucket, position in it)
        for b, bucket in enumerate(self.buckets):
            for j, i in enumerate(bucket.indices):
                self.slot[i] = (b, j)
        self.armed = False  # a backward is expected to reduce (set by prepare_for_backward)
        self.ready = [False] * len(params)
        self.next_bucket = 0
        self.locally_used = None
        self.used_work = None
        # per-run totals for the benchmarks: bytes copied into and out of buckets, seconds the buckets spent
        # in MPI (and the part of it before backward began to wait for them), seconds backward waited
        self.stats = {"bytes_copied": 0, "comm_seconds": 0.0, "hidden_seconds": 0.0, "wait_seconds": 0.0, "steps": 0}
        self.accumulators = []  # the AccumulateGrad nodes, kept alive so that every graph uses these
        self.hook_handles = []
        this = weakref.ref(self)  # the hooks live on nodes this reducer owns: no reference cycle
        for i, p in enumerate(params):
            acc = p.expand_as(p).grad_fn.next_functions[0][0]
            self.accumulators.append(acc)
            self.hook_handles.append(acc.register_hook(_ready_hook(this, i)))

    # ---- per iteration ----

    def prepare_for_backward(self, outputs):
        """Called after a forward whose backward must reduce; `outputs` (with find_unused_parameters) are the
        forward's result tensors, whose graph tells which parameters will get no gradient."""
        if self.armed:
            missing = [i for i, r in enumerate(self.ready) if not r]
            raise RuntimeError(UNFINISHED.format(rank=self.pg.rank(), missing=missing))
        self.armed = True
        self.ready = [False] * len(self.params)
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
        if not self.find_unused_parameters:
            return
        reached = _accumulators_reached(outputs)
        self.locally_used = _core.zeros(len(self.params), dtype=_core.int32)
        for i, acc in enumerate(self.accumulators):
            if acc in reached:
                self.locally_used[i] = 1
            else:
                self.mark_ready(i)

    def mark_ready(self, i):
        if not self.armed:
            return  # under no_sync, or a backward without a DDP forward: gradients only accumulate
        if self.ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. This error is caused by parameter {i} receiving "
                "its gradient twice in one iteration (a second backward through the same forward, or a "
                "parameter used in several reentrant backward passes)."
            )
        self.ready[i] = True
        b, j = self.slot[i]
        bucket = self.buckets[b]
        p, view = self.params[i], bucket.views[j]
        grad = p.grad
        with no_grad():
            if grad is None:
                view.zero_()
            elif _address(grad) != bucket.addresses[j]:
                view.copy_(grad)
                self.stats["bytes_copied"] += view.numel() * view.element_size()
                if self.gradient_as_bucket_view:
                    p.grad = view
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self):
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            bucket.work = distributed.all_reduce(bucket.flat, op=distributed.ReduceOp.AVG, group=self.pg, async_op=True)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            if self.locally_used is not None:
                self.used_work = distributed.all_reduce(
                    self.locally_used, op=distributed.ReduceOp.MAX, group=self.pg, async_op=True
                )
            self._finish()

    def _finish(self):
        """Waits for every bucket, then gives each parameter its averaged gradient."""
        start = time.perf_counter()
        for bucket in self.buckets:
            bucket.work.wait()
        globally_used = None
        if self.used_work is not None:
            self.used_work.wait()
            globally_used = self.locally_used.tolist()
        self.stats["wait_seconds"] += time.perf_counter() - start
        self.stats["steps"] += 1
        with no_grad():
            for bucket in self.buckets:
                work = bucket.work
                self.stats["comm_seconds"] += work._ended - work._started
                self.stats["hidden_seconds"] += max(0.0, min(work._ended, start) - work._started)
                bucket.work = None
                for i, view in zip(bucket.indices, bucket.views):
                    p = self.params[i]
                    if p.grad is None:
                        if globally_used is not None and not globally_used[i]:
                            continue  # no rank computed a gradient for it: it keeps none, as in PyTorch
                        p.grad = view if self.gradient_as_bucket_view else view.clone()
                    elif not self.gradient_as_bucket_view:
                        p.grad.copy_(view)
                        self.stats["bytes_copied"] += view.numel() * view.element_size()
        self.armed = False
        self.used_work = None
        self.locally_used = None


def _ready_hook(reducer_ref, i):
    def hook(grad_inputs, grad_outputs):
        reducer = reducer_ref()
        if reducer is not None:
            reducer.mark_ready(i)

    return hook


def _accumulators_reached(outputs):
    """The nodes reachable backwards from the grad_fns of `outputs`."""
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    seen = set(stack)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen
