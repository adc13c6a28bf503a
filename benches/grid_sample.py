#!/usr/bin/env python3
"""`nn.functional.grid_sample`, ferrograd against PyTorch in the same process: an (8, 3, 128, 128) float32
batch sampled at a rotated-and-scaled `affine_grid` (the spatial transformer tutorial's pair), forward only
for each mode, then forward + backward (gradients to the input and the grid) for bilinear.

Outputs and gradients are compared before anything is timed. Frameworks alternate in turns; medians;
torch/ferrograd > 1 means ferrograd is faster. `--clock cpu` times process CPU time (steadier when the
machine is busy; use it with one thread each).

    make build
    PYTHONPATH=$PWD/python /work/torchvenv/bin/python benches/grid_sample.py [--shape 8 3 128 128]
    OMP_NUM_THREADS=1 FERROGRAD_NUM_THREADS=1 PYTHONPATH=$PWD/python /work/torchvenv/bin/python \\
        benches/grid_sample.py --clock cpu
"""

from __future__ import annotations

import argparse
import statistics
import time

import ferrograd as fg
import numpy as np
import torch

MODES = ("bilinear", "nearest", "bicubic")
THETA = [[0.9, 0.1, 0.05], [-0.1, 0.9, 0.02]]


def forward(lib, x, grid, mode):
    return lib.nn.functional.grid_sample(x, grid, mode=mode, align_corners=False)


def step(lib, x, grid, w):
    x.grad = grid.grad = None
    out = forward(lib, x, grid, "bilinear")
    (out * w).sum().backward()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", type=int, nargs=4, default=[8, 3, 128, 128])
    parser.add_argument("--turns", type=int, default=7)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    rng = np.random.default_rng(0)
    n = args.shape[0]
    x_np = rng.standard_normal(args.shape).astype(np.float32)
    theta = np.tile(np.array(THETA, np.float32), (n, 1, 1))
    w_np = rng.standard_normal(args.shape).astype(np.float32)
    # one grid for both, so nearest's ties round alike
    grid_np = fg.nn.functional.affine_grid(fg.tensor(theta), args.shape, align_corners=False).numpy()
    libs = {"torch": torch, "ferrograd": fg}
    data = {}
    for name, lib in libs.items():
        data[name] = (lib.tensor(x_np, requires_grad=True), lib.tensor(grid_np, requires_grad=True), lib.tensor(w_np))
    for mode in MODES:
        got = [forward(lib, *data[name][:2], mode).detach().numpy() for name, lib in libs.items()]
        np.testing.assert_allclose(got[1], got[0], rtol=1e-4, atol=1e-4, err_msg=mode)
    for name, lib in libs.items():
        step(lib, *data[name])
    for i in range(2):
        got = [data[name][i].grad.numpy() for name in libs]
        np.testing.assert_allclose(got[1], got[0], rtol=1e-3, atol=1e-3)

    cases = {f"{mode} forward": (lambda lib, x, g, w, mode=mode: forward(lib, x, g, mode)) for mode in MODES}
    cases["bilinear forward + backward"] = step
    print(
        f"grid_sample {tuple(args.shape)} float32, {args.clock} clock, threads: torch {torch.get_num_threads()}, "
        f"ferrograd {fg.get_num_threads()}"
    )
    for label, fn in cases.items():
        times = {name: [] for name in libs}
        for _ in range(args.turns):
            for name, lib in libs.items():
                fn(lib, *data[name])  # warm-up of this turn
                start = clock()
                for _ in range(args.calls):
                    fn(lib, *data[name])
                times[name].append((clock() - start) / args.calls)
        med = {name: statistics.median(t) for name, t in times.items()}
        print(
            f"  {label:28} torch {med['torch'] * 1e3:7.2f} ms   ferrograd {med['ferrograd'] * 1e3:7.2f} ms   "
            f"torch/ferrograd {med['torch'] / med['ferrograd']:.2f}x"
        )


if __name__ == "__main__":
    main()
