#!/usr/bin/env python3
"""Per-call cost of small modules at batch 1: `Linear(64, 128)(x)` and a 3-layer MLP, ferrograd against
PyTorch in the same process (and the bare `F.linear`, to separate Module.__call__ from the op).

    env PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/nn_call.py [--threads 1]

Both frameworks are timed in alternating rounds (median of rounds, each round the mean of `--number`
calls); ratios > 1 mean ferrograd is faster. Not run by the tests.
"""

import argparse
import os
import statistics
import sys
import timeit


def _pin_threads():
    if "--threads" in sys.argv:
        n = sys.argv[sys.argv.index("--threads") + 1]
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FERROGRAD_NUM_THREADS"):
            os.environ[var] = n


_pin_threads()

import ferrograd as fg  # noqa: E402

try:
    import torch
except ImportError:  # torch is never a dependency
    torch = None


def workloads(lib):
    nn = lib.nn
    lib.manual_seed(0)
    lin = nn.Linear(64, 128)
    mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    x = lib.ones(1, 64)
    linear = lib.nn.functional.linear
    w, b = lin.weight, lin.bias

    def no_grad(fn):
        def run():
            with lib.no_grad():
                return fn()

        return run

    return {
        "Linear(64,128) forward": lambda: lin(x),
        "Linear(64,128) forward, no_grad": no_grad(lambda: lin(x)),
        "F.linear(x, W, b)": lambda: linear(x, w, b),
        "MLP 64-128-10 forward": lambda: mlp(x),
        "MLP 64-128-10 forward, no_grad": no_grad(lambda: mlp(x)),
        "MLP 64-128-10 forward+backward": lambda: mlp(x).sum().backward(),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--threads", default=None)
    args = parser.parse_args()
    libs = {"ferrograd": fg}
    if torch is not None:
        libs["torch"] = torch
    works = {name: workloads(lib) for name, lib in libs.items()}
    print(f"{'workload':36} " + " ".join(f"{n:>12}" for n in libs) + ("   torch/ferrograd" if torch else ""))
    for key in works["ferrograd"]:
        samples = {name: [] for name in libs}
        for _ in range(args.rounds):
            for name in libs:
                fn = works[name][key]
                fn()
                samples[name].append(timeit.timeit(fn, number=args.number) / args.number)
        med = {name: statistics.median(s) for name, s in samples.items()}
        cells = " ".join(f"{med[n] * 1e6:10.2f}us" for n in libs)
        ratio = f"   {med['torch'] / med['ferrograd']:8.2f}x" if torch else ""
        print(f"{key:36} {cells}{ratio}")


if __name__ == "__main__":
    main()
