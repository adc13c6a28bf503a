#!/usr/bin/env python3
"""`a & b` over 1e6 contiguous elements (int32 and bool): ferrograd, numpy and PyTorch in one process.

Each framework's result is checked against numpy's first; then the three are timed in turns (the order
reversed every round, so slow drift falls on all) and the median per call is reported with the ratios
torch/ferrograd and numpy/ferrograd (> 1: ferrograd is faster).

    PYTHONPATH=python /work/torchenv/bin/python benches/bitwise.py [--n 1000000] [--rounds 15]
"""

import argparse
import statistics

import ferrograd as fg
import numpy as np
from _common import optional_torch, per_call

torch = optional_torch()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    inputs = {
        "int32": tuple(rng.integers(-(2**31), 2**31 - 1, args.n, dtype=np.int32) for _ in range(2)),
        "bool": (rng.uniform(size=args.n) > 0.5, rng.uniform(size=args.n) > 0.5),
    }
    print(f"a & b, n = {args.n:.0e}, median of {args.rounds} rounds (ratios > 1: ferrograd faster)")
    for name, (a, b) in inputs.items():
        frameworks = {"ferrograd": (fg.tensor(a), fg.tensor(b)), "numpy": (a, b)}
        if torch is not None:
            frameworks["torch"] = (torch.tensor(a), torch.tensor(b))
        want = a & b
        for fw, (x, y) in frameworks.items():
            got = x & y
            got = got if isinstance(got, np.ndarray) else got.numpy()
            assert np.array_equal(got, want), f"{fw} computed a different {name} result"
        times = {fw: [] for fw in frameworks}
        order = list(frameworks)
        for r in range(args.rounds):
            for fw in order if r % 2 == 0 else order[::-1]:
                x, y = frameworks[fw]
                times[fw].append(per_call(lambda x=x, y=y: x & y))
        med = {fw: statistics.median(t) for fw, t in times.items()}
        cols = "  ".join(f"{fw} {med[fw] * 1e6:8.1f} µs" for fw in frameworks)
        ratios = "  ".join(f"{fw}/ferrograd {med[fw] / med['ferrograd']:.2f}" for fw in frameworks if fw != "ferrograd")
        print(f"{name:6} {cols}   {ratios}")


if __name__ == "__main__":
    main()
