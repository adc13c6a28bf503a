"""rand / randn / dropout in float32, ferrograd against PyTorch (a benchmark, not a test).

    python benches/random_bench.py [--torch-python /work/torchenv/bin/python] [--repeats 7]

Each library runs in its own process (this script re-runs itself with `--worker torch|ferrograd`), one after
the other in one invocation; each case is timed as the median of `--repeats` windows of enough calls to last
~0.2 s. Printed: microseconds per call for both, and the ratio torch time / ferrograd time (above 1: ferrograd
is faster). Both draw the same numbers (ferrograd reproduces torch's generator bit for bit).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = (1_000, 1_000_000)


def cases(lib):
    F = lib.nn.functional
    out = {}
    for n in SIZES:
        x = lib.ones(n)
        out[f"rand {n:.0e}"] = lambda n=n: lib.rand(n)
        out[f"randn {n:.0e}"] = lambda n=n: lib.randn(n)
        out[f"dropout {n:.0e}"] = lambda x=x: F.dropout(x, 0.1, training=True)
    return out


def time_case(fn, repeats):
    fn()
    calls, start = 1, time.perf_counter()
    while time.perf_counter() - start < 0.05:
        fn()
        calls += 1
    per_window = max(1, int(calls * 0.2 / (time.perf_counter() - start)))
    windows = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(per_window):
            fn()
        windows.append((time.perf_counter() - t0) / per_window)
    return statistics.median(windows)


def worker(name, repeats):
    if name == "torch":
        import torch as lib
    else:
        import ferrograd as lib
    lib.manual_seed(0)
    print(json.dumps({k: time_case(fn, repeats) for k, fn in cases(lib).items()}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-python", default="/work/torchenv/bin/python")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.repeats)
    here = os.path.abspath(__file__)
    runs = {}
    for name, python in (("torch", args.torch_python), ("ferrograd", sys.executable)):
        out = subprocess.run(
            [python, here, "--worker", name, "--repeats", str(args.repeats)], capture_output=True, text=True, check=True
        )
        runs[name] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{'case':<16}{'torch us':>12}{'ferrograd us':>14}{'ratio':>8}")
    for case, t in runs["torch"].items():
        f = runs["ferrograd"][case]
        print(f"{case:<16}{t * 1e6:>12.1f}{f * 1e6:>14.1f}{t / f:>8.2f}")


if __name__ == "__main__":
    main()
