#!/usr/bin/env python3
"""`nn.functional.interpolate`, ferrograd against PyTorch in the same process: forward + backward of a 2x
upsample (bilinear by default) of an (8, 64, 64, 64) float32 batch, the gradient of sum(out * w).

Both get the same input and weights; the outputs and gradients are compared before anything is timed.
Timing alternates the frameworks in turns and reports medians; torch/ferrograd > 1 means ferrograd is faster.

    make build
    PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/interpolate.py [--mode bicubic] [--shape 8 64 64 64]
"""

from __future__ import annotations

import argparse
import statistics
import time

import ferrograd as fg
import numpy as np
import torch


def step(lib, x, w, kwargs):
    out = lib.nn.functional.interpolate(x, **kwargs)
    (out * w).sum().backward()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="bilinear")
    parser.add_argument("--shape", type=int, nargs="+", default=[8, 64, 64, 64])
    parser.add_argument("--scale", type=float, default=2.0)
    parser.add_argument("--turns", type=int, default=7)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    kwargs = {"scale_factor": args.scale, "mode": args.mode}
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(args.shape).astype(np.float32)
    out_shape = tuple(torch.nn.functional.interpolate(torch.from_numpy(x_np), **kwargs).shape)
    w_np = rng.standard_normal(out_shape).astype(np.float32)
    inputs = {}
    for name, lib in (("torch", torch), ("ferrograd", fg)):
        x = lib.tensor(x_np, requires_grad=True)
        inputs[name] = (lib, x, lib.tensor(w_np))
    outs = {name: step(lib, x, w, kwargs) for name, (lib, x, w) in inputs.items()}
    np.testing.assert_allclose(outs["ferrograd"].detach().numpy(), outs["torch"].detach().numpy(), rtol=1e-5, atol=1e-5)
    grads = {name: x.grad.numpy() for name, (_, x, _) in inputs.items()}
    np.testing.assert_allclose(grads["ferrograd"], grads["torch"], rtol=1e-4, atol=1e-4)
    times = {name: [] for name in inputs}
    for _ in range(args.turns):
        for name, (lib, x, w) in inputs.items():
            step(lib, x, w, kwargs)  # warm-up of this turn
            start = time.perf_counter()
            for _ in range(args.calls):
                x.grad = None
                step(lib, x, w, kwargs)
            times[name].append((time.perf_counter() - start) / args.calls)
    med = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"interpolate {args.mode} x{args.scale:g} {tuple(args.shape)} float32 forward+backward: "
        f"torch {med['torch'] * 1e3:.2f} ms, ferrograd {med['ferrograd'] * 1e3:.2f} ms, "
        f"torch/ferrograd {med['torch'] / med['ferrograd']:.2f}x (threads: torch {torch.get_num_threads()}, "
        f"ferrograd {fg.get_num_threads()})"
    )


if __name__ == "__main__":
    main()
