"""DistributedDataParallel throughput on 1 and 2 ranks (a benchmark, not a test).

    python benches/ddp.py [--seconds 4] [--out benches/DDP.md]

Each configuration runs under `mpiexec -n RANKS` (the mpich wheel's); rank 0 reports one JSON line. Models:
the MLP 784-512-512-10 (batch 128 per rank, Adam) and a small CNN for 8x8 digits (batch 128 per rank, Adam).
Per configuration: training steps per second (medians over windows of steps), samples per second over all
ranks, and from the reducer: milliseconds per step the buckets spent in MPI (on the communication thread),
milliseconds backward waited for them at its end, the hidden fraction (the share of the MPI time that passed
before backward began to wait, i.e. overlapped with its computation), and the bytes copied into and out of
buckets per step (MPI's own copies not counted).

The machine has 2 cores: 1 rank runs with FERROGRAD_NUM_THREADS=2 and =1, 2 ranks with 1 thread each (2 ranks
with 2 threads each would oversubscribe the cores; each rank's communication thread also spins inside MPI while
it waits).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import timedelta

HERE = os.path.abspath(__file__)


def digits_cnn(fg):
    """conv 1->16 (3x3, pad 1), relu, 2x2 max-pool, conv 16->32, relu, max-pool, linear 128->64, relu, linear
    64->10: the small CNN for 8x8 digits, written with nn.functional (parameters initialised as nn.Conv2d's)."""
    nn, F = fg.nn, fg.nn.functional

    def uniform(*shape, fan_in):
        return nn.Parameter((fg.rand(*shape) * 2 - 1) / fan_in**0.5)

    class DigitsCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1, self.b1 = uniform(16, 1, 3, 3, fan_in=9), uniform(16, fan_in=9)
            self.w2, self.b2 = uniform(32, 16, 3, 3, fan_in=144), uniform(32, fan_in=144)
            self.fc1 = nn.Linear(32 * 2 * 2, 64)
            self.fc2 = nn.Linear(64, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(F.conv2d(x, self.w1, self.b1, padding=1)), 2)
            x = F.max_pool2d(F.relu(F.conv2d(x, self.w2, self.b2, padding=1)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    return DigitsCNN()


def build(name, fg):
    nn = fg.nn
    if name == "mlp":
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)), (784,)
    return digits_cnn(fg), (1, 8, 8)


def worker(args):
    import ferrograd as fg
    import ferrograd.distributed as dist
    from ferrograd.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi", timeout=timedelta(seconds=60))
    rank, size = dist.get_rank(), dist.get_world_size()
    fg.manual_seed(rank)
    model, shape = build(args.model, fg)
    if args.ddp:
        model = DDP(model, bucket_cap_mb=args.bucket_cap_mb, gradient_as_bucket_view=args.bucket_view)
    if hasattr(fg, "optim"):
        opt, opt_name = fg.optim.Adam(model.parameters(), lr=1e-3), "Adam"
    else:
        opt, opt_name = None, "SGD (this build has no ferrograd.optim)"
    x = fg.randn(args.batch, *shape)
    y = fg.randint(0, 10, (args.batch,))
    params = list(model.parameters())

    def step():
        if opt is not None:
            opt.zero_grad(set_to_none=not args.keep_grads)
        else:
            for p in params:
                if args.keep_grads and p.grad is not None:
                    p.grad.zero_()
                else:
                    p.grad = None
        fg.nn.functional.cross_entropy(model(x), y).backward()
        if opt is not None:
            opt.step()
        else:
            with fg.no_grad():
                for p in params:
                    p.sub_(p.grad * 1e-3)

    for _ in range(5):
        step()
    dist.barrier()
    reducer = getattr(model, "_reducer", None)
    if reducer is not None:
        reducer.stats.update(bytes_copied=0, comm_seconds=0.0, hidden_seconds=0.0, wait_seconds=0.0, steps=0)
    # rank 0 decides when to stop: every rank must run the same number of steps (of collectives)
    go, windows, start = fg.ones(1), [], time.perf_counter()
    while go.item():
        t0 = time.perf_counter()
        for _ in range(10):
            step()
        windows.append((time.perf_counter() - t0) / 10)
        go.fill_(float(time.perf_counter() - start < args.seconds))
        dist.broadcast(go, 0)
    result = {"steps_per_s": 1 / statistics.median(windows), "ranks": size, "optimizer": opt_name}
    if reducer is not None:
        s = reducer.stats
        n = max(s["steps"], 1)
        result.update(
            comm_ms=1e3 * s["comm_seconds"] / n,
            hidden_ms=1e3 * s["hidden_seconds"] / n,
            wait_ms=1e3 * s["wait_seconds"] / n,
            bytes_copied=s["bytes_copied"] / n,
            buckets=len(reducer.buckets),
        )
    dist.barrier()
    if rank == 0:
        print("RESULT " + json.dumps(result), flush=True)
    dist.destroy_process_group()


CONFIGS = [
    # (label, ranks, threads per rank, worker flags)
    ("1 rank, no DDP", 1, 2, []),
    ("1 rank, no DDP", 1, 1, []),
    ("2 ranks, DDP", 2, 1, ["--ddp"]),
    ("2 ranks, DDP, grads as bucket views, zero_grad(set_to_none=False)", 2, 1, ["--ddp", "--bucket-view", "--keep"]),
    ("2 ranks, DDP, one bucket (reduced after backward: no overlap)", 2, 1, ["--ddp", "--bucket-cap-mb", "1000"]),
]


def run(model, ranks, threads, flags, seconds):
    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or "mpiexec"
    env = dict(os.environ, FERROGRAD_NUM_THREADS=str(threads))
    cmd = [mpiexec, "-n", str(ranks), sys.executable, HERE, "--worker", "--model", model, "--seconds", str(seconds)]
    out = subprocess.run(cmd + flags, env=env, capture_output=True, text=True, timeout=300)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{model} {flags} failed:\n{out.stdout}\n{out.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--model", default="mlp", choices=["mlp", "cnn"])
    ap.add_argument("--ddp", action="store_true")
    ap.add_argument("--bucket-view", dest="bucket_view", action="store_true")
    ap.add_argument("--keep", dest="keep_grads", action="store_true")
    ap.add_argument("--bucket-cap-mb", dest="bucket_cap_mb", type=float, default=None)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    lines = [
        "| model | configuration | threads/rank | steps/s | samples/s | MPI ms/step | exposed ms/step | hidden | "
        "bytes copied/step |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    optimizers = set()
    for model in ["mlp", "cnn"]:
        for label, ranks, threads, flags in CONFIGS:
            r = run(model, ranks, threads, flags, args.seconds)
            optimizers.add(r["optimizer"])
            samples = r["steps_per_s"] * 128 * ranks
            if "comm_ms" in r:
                hidden = r["hidden_ms"] / r["comm_ms"] if r["comm_ms"] > 0 else 0.0
                extra = f"{r['comm_ms']:.2f} | {r['wait_ms']:.2f} | {hidden:.0%} | {r['bytes_copied']:,.0f}"
                label = f"{label} [{r['buckets']} buckets]"
            else:
                extra = "– | – | – | –"
            line = f"| {model} | {label} | {threads} | {r['steps_per_s']:.1f} | {samples:,.0f} | {extra} |"
            print(line, flush=True)
            lines.append(line)
    lines.append("")
    lines.append(f"Optimizer: {', '.join(sorted(optimizers))}; batch 128 per rank.")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
