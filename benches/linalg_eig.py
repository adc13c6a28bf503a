#!/usr/bin/env python3
"""`linalg.eig` (eigenvalues and eigenvectors) and `linalg.eigvals` of general float64 matrices: ferrograd, numpy
and PyTorch in one process, timed in turns (order reversed every round), median per call, with the ratios
torch/ferrograd and numpy/ferrograd (> 1: ferrograd faster). Each framework's sorted eigenvalues are checked
against numpy's first (the order and the eigenvectors' phases are each library's choice).

    PYTHONPATH=python /work/torchvenv/bin/python benches/linalg_eig.py [--rounds 5]
"""

import argparse
import statistics

import ferrograd as fg
import numpy as np
from _common import optional_torch, per_call

torch = optional_torch()
SHAPES = [(64, 64), (256, 256), (8, 32, 32)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    frameworks = {"ferrograd": (fg, fg.tensor), "numpy": (np, np.asarray)}
    if torch is not None:
        frameworks["torch"] = (torch, torch.tensor)
    print(f"float64, median of {args.rounds} rounds (ratios > 1: ferrograd faster)")
    for shape in SHAPES:
        a = rng.standard_normal(shape)
        want = np.sort_complex(np.linalg.eigvals(a).reshape(-1, shape[-1]))
        for name in ("eig", "eigvals"):
            fns = {}
            for fw, (lib, make) in frameworks.items():
                f, x = getattr(lib.linalg, name), make(a)
                fns[fw] = lambda f=f, x=x: f(x)
                out = fns[fw]()
                values = out[0] if name == "eig" else out
                got = np.sort_complex(np.asarray(values).reshape(-1, shape[-1]))
                assert np.allclose(got, want, atol=1e-8), f"{fw} computed different eigenvalues"
            times = {fw: [] for fw in frameworks}
            order = list(frameworks)
            for r in range(args.rounds):
                for fw in order if r % 2 == 0 else order[::-1]:
                    times[fw].append(per_call(fns[fw]))
            med = {fw: statistics.median(t) for fw, t in times.items()}
            cols = "  ".join(f"{fw} {med[fw] * 1e3:8.2f} ms" for fw in frameworks)
            ratios = "  ".join(f"{fw}/fg {med[fw] / med['ferrograd']:5.2f}" for fw in frameworks if fw != "ferrograd")
            print(f"{str(shape):14s} {name:8s} {cols}  {ratios}")


if __name__ == "__main__":
    main()
