"""Shared by the scripts that tests/test_distributed.py runs under `mpiexec -n 2` and tests/test_distributed_gloo.py
under the torchrun-style launcher: joining the process group, a small model made from leaf tensors, and per-rank
reporting.

Started by the launcher (RANK in the environment), the scripts use gloo through `env://`. Under mpiexec they use
MPI, except against torch (FG_TEST_AGAINST_TORCH=1; torch's wheels have no MPI backend): gloo, with rank and
world size from the MPI launcher's environment and the rendezvous on a loopback port.
"""

import os
import sys

import ferrograd as fg
import ferrograd.distributed as dist
import numpy as np
from ferrograd import nn

AGAINST_TORCH = os.environ.get("FG_TEST_AGAINST_TORCH") == "1"


def init(**kwargs):
    if "RANK" in os.environ:  # a torchrun-style launcher set RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
        dist.init_process_group("gloo", **kwargs)
    elif AGAINST_TORCH:
        port = os.environ["FG_DIST_PORT"]
        rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=size, **kwargs)
    else:
        dist.init_process_group("mpi", **kwargs)
    return dist.get_rank(), dist.get_world_size()


def report(message):
    # one write of the whole line (print writes the newline apart, and under PYTHONUNBUFFERED the ranks' pieces
    # interleave in the launcher's shared stdout)
    sys.stdout.flush()
    os.write(1, f"rank {dist.get_rank()}: {message}\n".encode())


def close_to(actual, expected, tol, what):
    actual = np.asarray(actual.detach().numpy() if isinstance(actual, fg.Tensor) else actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    err = float(np.max(np.abs(actual - expected), initial=0.0))
    assert err <= tol, f"{what}: max |difference| {err:.3g} > {tol:g}\nactual {actual}\nexpected {expected}"
    return err


class MLP(nn.Module):
    """Linear layers with tanh between them, weights drawn from numpy with `seed`; `buffers` adds a running
    mean of the inputs (a buffer that differs between ranks unless broadcast)."""

    def __init__(self, sizes, seed, dtype, buffers=False):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.layers = len(sizes) - 1
        for k, (a, b) in enumerate(zip(sizes, sizes[1:])):
            w = rng.standard_normal((b, a)) / np.sqrt(a)
            setattr(self, f"weight{k}", nn.Parameter(fg.tensor(w, dtype=dtype)))
            setattr(self, f"bias{k}", nn.Parameter(fg.tensor(rng.standard_normal(b) * 0.1, dtype=dtype)))
        if buffers:
            self.register_buffer("running_mean", fg.tensor(rng.standard_normal(sizes[0]), dtype=dtype))

    def forward(self, x):
        if hasattr(self, "running_mean"):
            x = x - self.running_mean
        for k in range(self.layers):
            x = fg.nn.functional.linear(x, getattr(self, f"weight{k}"), getattr(self, f"bias{k}"))
            if k < self.layers - 1:
                x = x.tanh()
        return x


def main(run):
    """Runs `run()`; an assertion failure on one rank ends every rank with its traceback (the excepthook
    that init_process_group installs aborts them; under torch, exit 1)."""
    try:
        run()
    except BaseException:
        if AGAINST_TORCH:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        raise
