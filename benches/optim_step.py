#!/usr/bin/env python3
"""One optimizer step over the parameters of an MLP 784-512-512-10 (669,706 floats), ferrograd vs PyTorch.

Gradients are set once (from numpy) and `optimizer.step()` alone is timed. PyTorch runs in the same
process when importable: its default step (the for-loop implementation on CPU) and `fused=True` where the
optimizer has it. Before timing, a few steps of every framework are checked against ferrograd's
(allclose), so a wrong update is never timed. Frameworks are timed in turns (forward and backward order
alternating, 50 ms of untimed steps first); reported: the median per step and torch/ferrograd ratios
(> 1: ferrograd is faster).

    python benches/optim_step.py [--only adam,sgd] [--threads N] [--min-time 0.5]

With PyTorch (see benches/README.md): `PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/optim_step.py`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _pin_threads_from_argv() -> None:
    """`--threads N` must act before torch and ferrograd start their thread pools."""
    argv = sys.argv[1:]
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FERROGRAD_NUM_THREADS"):
                os.environ[var] = argv[i + 1]


if __name__ == "__main__":
    _pin_threads_from_argv()

import ferrograd as fg  # noqa: E402
import numpy as np  # noqa: E402

try:
    import torch
except Exception:  # torch is optional and never a dependency
    torch = None

# nn.Linear weights are (out, in): 512x784, 512, 512x512, 512, 10x512, 10
SHAPES = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]

# name: (class name, options, whether torch has fused=True for it)
OPTIMIZERS = {
    "adam": ("Adam", {"lr": 1e-3}, True),
    "adamw": ("AdamW", {"lr": 1e-3}, True),
    "sgd": ("SGD", {"lr": 0.01, "momentum": 0.9}, True),
    "rmsprop": ("RMSprop", {"lr": 1e-3}, False),
    "adagrad": ("Adagrad", {"lr": 1e-2}, True),
    "adamax": ("Adamax", {"lr": 2e-3}, False),
    "nadam": ("NAdam", {"lr": 2e-3}, False),
}


def make(lib, name, fused, rng_seed=0):
    """Parameters with gradients set, and the optimizer over them."""
    rng = np.random.default_rng(rng_seed)
    params = []
    for shape in SHAPES:
        p = lib.tensor(rng.uniform(-0.05, 0.05, shape).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 0.01)
        params.append(p)
    cls_name, options, _ = OPTIMIZERS[name]
    options = dict(options, fused=True) if fused else options
    return params, getattr(lib.optim, cls_name)(params, **options)


def numpy_of(params):
    return [p.detach().numpy().copy() for p in params]


def check(name, runs):
    """Three steps of every run must agree with ferrograd's."""
    results = {}
    for label, lib, fused in runs:
        params, opt = make(lib, name, fused)
        for _ in range(3):
            opt.step()
        results[label] = numpy_of(params)
    want = results["ferrograd"]
    for label, got in results.items():
        for a, b in zip(got, want):
            if not np.allclose(a, b, rtol=1e-5, atol=1e-7):
                raise SystemExit(f"{name}: {label} differs from ferrograd by {np.max(np.abs(a - b))}")


def time_runs(name, runs, min_time):
    """Median seconds per step for each run, timed in alternating turns."""
    made = {label: make(lib, name, fused)[1] for label, lib, fused in runs}
    samples = {label: [] for label in made}
    spent = dict.fromkeys(made, 0.0)
    order = list(made)
    turn = 0
    while min(spent.values()) < min_time and turn < 200:
        for label in order if turn % 2 == 0 else order[::-1]:
            opt = made[label]
            warm_until = time.perf_counter() + 0.05
            while time.perf_counter() < warm_until:
                opt.step()
            for _ in range(5):
                t0 = time.perf_counter()
                opt.step()
                dt = time.perf_counter() - t0
                samples[label].append(dt)
                spent[label] += dt
        turn += 1
    return {label: statistics.median(s) for label, s in samples.items()}


def fmt(seconds):
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(OPTIMIZERS), help="comma-separated optimizers")
    parser.add_argument("--threads", type=int, default=None, help="threads for torch and ferrograd")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds of timed steps per framework")
    args = parser.parse_args()
    if torch is not None and args.threads:
        torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    print(f"optimizer step over {sum(int(np.prod(s)) for s in SHAPES):,} float32 parameters (MLP 784-512-512-10)")
    print(f"torch: {torch.__version__ if torch else 'not importable'}; load average {load:.2f}\n")
    print("| optimizer | ferrograd | torch (default) | torch (fused) | default/ferrograd | fused/ferrograd |")
    print("|---|---|---|---|---|---|")
    for name in args.only.split(","):
        runs = [("ferrograd", fg, False)]
        if torch is not None:
            runs.append(("torch", torch, False))
            if OPTIMIZERS[name][2]:
                runs.append(("torch fused", torch, True))
        check(name, runs)
        t = time_runs(name, runs, args.min_time)
        ours = t["ferrograd"]
        default = t.get("torch")
        fused = t.get("torch fused")
        cells = [
            fmt(ours),
            fmt(default) if default else "–",
            fmt(fused) if fused else "–",
            f"{default / ours:.2f}×" if default else "–",
            f"{fused / ours:.2f}×" if fused else "–",
        ]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
