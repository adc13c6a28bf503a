#!/usr/bin/env python3
"""`torch.linalg` forward calls (inv, det, solve, cholesky, eigh, svd) on float64 batches: ferrograd, numpy and
PyTorch in one process, timed in turns (order reversed every round), median per call, with the ratios
torch/ferrograd and numpy/ferrograd (> 1: ferrograd faster). Results are checked against numpy first.

    PYTHONPATH=python /work/torchenv/bin/python benches/linalg.py [--n 8 64] [--batch 64] [--rounds 7]
"""

import argparse
import statistics

import ferrograd as fg
import numpy as np
from _common import optional_torch, per_call

torch = optional_torch()


def cases(lib):
    """name -> f(A, SPD, B) for each framework's namespace."""
    la = lib.linalg
    return {
        "inv": lambda a, s, b: la.inv(a),
        "det": lambda a, s, b: la.det(a),
        "solve": lambda a, s, b: la.solve(a, b),
        "cholesky": lambda a, s, b: la.cholesky(s),
        "eigh": lambda a, s, b: la.eigh(s)[0],
        "svdvals": lambda a, s, b: la.svdvals(a) if lib is not np else la.svd(a, compute_uv=False),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"float64, batch {args.batch}, median of {args.rounds} rounds (ratios > 1: ferrograd faster)")
    for n in args.n:
        a = rng.standard_normal((args.batch, n, n)) + 3 * np.eye(n)
        s = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        b = rng.standard_normal((args.batch, n, 4))
        frameworks = {"ferrograd": (fg, fg.tensor), "numpy": (np, np.asarray)}
        if torch is not None:
            frameworks["torch"] = (torch, torch.tensor)
        for name in cases(np):
            inputs = {fw: tuple(make(x) for x in (a, s, b)) for fw, (_, make) in frameworks.items()}
            fns = {fw: cases(lib)[name] for fw, (lib, _) in frameworks.items()}
            want = fns["numpy"](*inputs["numpy"])
            for fw in frameworks:
                got = np.asarray(fns[fw](*inputs[fw]))
                assert np.allclose(got, want, rtol=1e-8, atol=1e-8), f"{fw} computed a different {name}"
            times = {fw: [] for fw in frameworks}
            order = list(frameworks)
            for r in range(args.rounds):
                for fw in order if r % 2 == 0 else order[::-1]:
                    times[fw].append(per_call(lambda f=fns[fw], x=inputs[fw]: f(*x)))
            med = {fw: statistics.median(t) for fw, t in times.items()}
            cols = "  ".join(f"{fw} {med[fw] * 1e6:9.1f} µs" for fw in frameworks)
            ratios = "  ".join(f"{fw}/fg {med[fw] / med['ferrograd']:5.2f}" for fw in frameworks if fw != "ferrograd")
            print(f"n={n:4d} {name:9s} {cols}  {ratios}")


if __name__ == "__main__":
    main()
