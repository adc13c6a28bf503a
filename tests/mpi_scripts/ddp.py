"""DistributedDataParallel on 2 ranks against one process: training on half the batch per rank gives the
parameters of training on the whole batch; no_sync accumulates the plain sum; unused parameters.

Every rank also trains the single-process reference itself (same initial weights, the whole batch), so each
rank checks its replica against it.
"""

import ferrograd as fg
import numpy as np
from common import MLP, close_to, init, main, report
from ferrograd import nn
from ferrograd.nn.parallel import DistributedDataParallel as DDP
from ferrograd.utils.data import DistributedSampler

F = nn.functional
SIZES = [6, 16, 8, 3]
BATCH = 12


def data(dtype, seed=0, batch=BATCH):
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.standard_normal((batch, SIZES[0])), dtype=dtype), fg.tensor(rng.integers(0, 3, batch))


OPTIMIZERS = {
    "Adam": lambda params: fg.optim.Adam(params, lr=0.01),
    "SGD": lambda params: fg.optim.SGD(params, lr=0.2, momentum=0.9),
}


def same_as_one_process(rank, size, dtype, tol, optimizer, **ddp_options):
    x, y = data(dtype)
    mine = fg.tensor(list(DistributedSampler(range(BATCH), shuffle=False)))  # rank r: samples r, r + size, ...
    reference = MLP(SIZES, seed=1, dtype=dtype, buffers=True)
    # every rank starts from other weights and buffers: DDP must broadcast rank 0's
    model = DDP(MLP(SIZES, seed=1 + rank, dtype=dtype, buffers=True), **ddp_options)
    for a, b in zip(model.module.state_dict().values(), reference.state_dict().values()):
        close_to(a, b.numpy(), 0, "parameters and buffers after construction")
    ref_opt = OPTIMIZERS[optimizer](reference.parameters())
    opt = OPTIMIZERS[optimizer](model.parameters())
    for step in range(5):
        ref_opt.zero_grad()
        F.cross_entropy(reference(x), y).backward()
        ref_opt.step()
        opt.zero_grad(set_to_none=step % 2 == 0)  # both ways: gradients dropped, or zeroed in place
        if step == 2 and rank > 0:
            model.module.running_mean.add_(1.0)  # forward broadcasts rank 0's buffers first
        F.cross_entropy(model(x.index_select(0, mine)), y.index_select(0, mine)).backward()
        opt.step()
        for (name, a), b in zip(model.module.named_parameters(), reference.parameters()):
            close_to(a, b.detach().numpy(), tol, f"{dtype} {optimizer} {ddp_options} step {step} {name}")
    close_to(model.module.running_mean, reference.running_mean.numpy(), 0, "buffer after forward")
    assert all(k.startswith("module.") for k in model.state_dict()), list(model.state_dict())


def no_sync_sums(rank, size):
    """Two backward passes inside no_sync and one after it: the gradient is the average over ranks of each
    rank's plain sum of its three gradients."""
    dtype = fg.float64
    micro = [data(dtype, seed=10 + k, batch=size * 4) for k in range(3)]
    model = DDP(MLP(SIZES, seed=3, dtype=dtype), bucket_cap_mb=0.0005)
    local = MLP(SIZES, seed=3, dtype=dtype)

    def local_grads(x, y):
        local.zero_grad()
        F.cross_entropy(local(x), y).backward()
        return [p.grad.numpy().copy() for p in local.parameters()]

    def part(batch, r):
        x, y = batch
        return x[4 * r : 4 * r + 4], y[4 * r : 4 * r + 4]

    with model.no_sync():
        for k in range(2):
            x, y = part(micro[k], rank)
            F.cross_entropy(model(x), y).backward()
            if k == 0:  # inside no_sync: this rank's own gradient, not reduced
                for p, g in zip(model.parameters(), local_grads(*part(micro[0], rank))):
                    close_to(p.grad, g, 1e-12, "gradient inside no_sync")
    x, y = part(micro[2], rank)
    F.cross_entropy(model(x), y).backward()
    expected = [np.zeros(p.shape) for p in local.parameters()]
    for r in range(size):
        for k in range(3):
            for e, g in zip(expected, local_grads(*part(micro[k], r))):
                e += g / size
    for (name, p), e in zip(model.module.named_parameters(), expected):
        close_to(p.grad, e, 1e-12, f"no_sync accumulation {name}")


class Branches(nn.Module):
    """`used` always takes part, `sometimes` only on rank 0, `never` on no rank."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank
        self.used = nn.Parameter(fg.tensor([1.0, 2.0], dtype=fg.float64))
        self.sometimes = nn.Parameter(fg.tensor([3.0], dtype=fg.float64))
        self.never = nn.Parameter(fg.tensor([4.0], dtype=fg.float64))

    def forward(self, x):
        out = (self.used * x).sum()
        return out * self.sometimes.sum() if self.rank == 0 else out


def unused_parameters(rank, size):
    x = fg.tensor([1.0 + rank, 10.0], dtype=fg.float64)
    model = DDP(Branches(rank), find_unused_parameters=True)
    for _ in range(2):
        model.zero_grad()
        model(x).backward()
        # rank 0: d/dused = sometimes * x, d/dsometimes = used . x; rank 1: d/dused = x
        xs = [np.array([1.0 + r, 10.0]) for r in range(size)]
        used = (3.0 * xs[0] + sum(xs[1:])) / size
        close_to(model.module.used.grad, used, 1e-12, "used parameter")
        close_to(model.module.sometimes.grad, [(1.0 * 1.0 + 2.0 * 10.0) / size], 1e-12, "parameter one rank used")
        assert model.module.never.grad is None, "a parameter no rank used keeps no gradient"

    strict = DDP(Branches(0))  # every rank leaves `never` out, and nobody said so
    strict(x).backward()
    try:
        strict(x)
    except RuntimeError as e:
        assert "Expected to have finished reduction in the prior iteration" in str(e), e
    else:
        raise AssertionError("a forward after an unfinished reduction did not raise")


def run():
    rank, size = init()
    same_as_one_process(rank, size, fg.float64, 1e-10, "Adam")
    same_as_one_process(rank, size, fg.float32, 1e-6, "Adam", bucket_cap_mb=0.0005)  # several buckets
    same_as_one_process(rank, size, fg.float64, 1e-10, "SGD", gradient_as_bucket_view=True, bucket_cap_mb=0.001)
    same_as_one_process(rank, size, fg.float32, 1e-6, "SGD", gradient_as_bucket_view=True)
    no_sync_sums(rank, size)
    unused_parameters(rank, size)
    report("ddp ok")


main(run)
