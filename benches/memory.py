#!/usr/bin/env python3
"""Peak memory of the MLP training step (issue 5: "peak memory <= PyTorch's"), ferrograd vs PyTorch.

Each framework runs in a fresh child process (peak RSS is per process and never goes down): build the
784-512-512-10 MLP and a batch of 128, note the resident set size, run the training step of
benches/mlp_step.py (the one run.py times) `--steps` times, then report

- peak: the process's high-water RSS minus the RSS before the first step (what the steps added at most),
- growth: RSS after the last step minus RSS after the first quarter of the steps (flat over a long loop
  means no leak; the first steps fill allocator caches and thread-local GEMM buffers).

    python benches/memory.py [--steps 200] [--frameworks ferrograd,torch]

With PyTorch importable from the same Python (see benches/README.md), both rows are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys

from mlp_step import train_step

SIZES = (784, 512, 512, 10)
BATCH = 128


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def child(framework: str, steps: int) -> None:
    import numpy as np

    if framework == "torch":
        import torch as lib

        F, from_np = lib.nn.functional, lib.from_numpy
        target = lib.from_numpy(np.random.default_rng(5).integers(0, SIZES[-1], BATCH))
    else:
        import ferrograd as lib

        F, from_np = lib.nn.functional, lib.from_numpy
        target = lib.tensor(np.random.default_rng(5).integers(0, SIZES[-1], BATCH).tolist(), dtype=lib.int64)
    r = np.random.default_rng(5)
    x = from_np(r.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    ps = []
    for i in range(len(SIZES) - 1):
        bound = 1 / np.sqrt(SIZES[i])
        for shape in ((SIZES[i], SIZES[i + 1]), (SIZES[i + 1],)):
            ps.append(from_np(r.uniform(-bound, bound, shape).astype(np.float32)).requires_grad_())

    before = rss_bytes()
    warm = None
    for k in range(steps):
        train_step(ps, x, target, F, lib.no_grad)
        if k == steps // 4:
            warm = rss_bytes()
    print(f"{peak_bytes() - before} {rss_bytes() - warm}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--frameworks", default="ferrograd,torch")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.steps)
        return 0
    mib = lambda b: f"{b / 2**20:.1f} MiB"
    rows = {}
    print(
        f"| MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, {args.steps} steps | peak above start | growth over the "
        "last 3/4 |"
    )
    print("|---|---|---|")
    for fw in args.frameworks.split(","):
        run = subprocess.run(
            [sys.executable, __file__, "--child", fw, "--steps", str(args.steps)], capture_output=True, text=True
        )
        if run.returncode != 0:
            print(
                f"| {fw} | not run: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode} | |"
            )
            continue
        peak, growth = map(int, run.stdout.split())
        rows[fw] = peak
        print(f"| {fw} | {mib(peak)} | {mib(growth)} |")
    if "ferrograd" in rows and "torch" in rows and rows["ferrograd"] > 0:
        print(f"\ntorch/ferrograd peak: {rows['torch'] / rows['ferrograd']:.2f}× (> 1: ferrograd needs less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
