#!/usr/bin/env python3
"""Training steps of the heavier nn layers, ferrograd against PyTorch in the same process, and where
ferrograd's time goes.

Workloads (forward + backward of one training step; no optimizer):
  lenet        LeNet-5 on a 64 x 1 x 32 x 32 batch, cross entropy
  transformer  2-layer TransformerEncoder (d_model 128, 4 heads, feed-forward 512, batch_first, dropout 0.1)
               on a 16 x 64 x 128 batch
  lstm         LSTM 64 -> 128 over 35 steps, batch 32
  cnn3d        a small 3-D CNN (two 3x3x3 convolutions, 8 filters, max pool) on a 4 x 3 x 16 x 32 x 32 batch,
               cross entropy

Both frameworks get the same weights and inputs; the first step's loss is compared before anything is timed.
Timing alternates the frameworks in turns (50 ms of untimed warm-up calls per turn) and reports medians;
torch/ferrograd > 1 means ferrograd is faster. `--profile` then breaks one ferrograd step down: forward
time per op (cProfile over the Python-visible calls) and backward time per autograd node (node pre/post
hooks; the hooks' own cost is small next to these nodes; AccumulateGrad nodes share one key, so only one of
them is timed). With other load on the machine, compare `--threads 1 --clock cpu` runs.

    make build
    PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/layers.py [--only lstm] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections import defaultdict

if "--threads" in sys.argv:  # before the thread pools start
    _n = sys.argv[sys.argv.index("--threads") + 1]
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FERROGRAD_NUM_THREADS"):
        os.environ[_var] = _n

import ferrograd as fg
import models
import numpy as np
import torch


def encoder(nn):
    layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.1, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


WORKLOADS = {
    "lenet": (models.lenet, (64, 1, 32, 32), "cross_entropy"),
    "transformer": (encoder, (16, 64, 128), "square"),
    "lstm": (lambda nn: nn.LSTM(64, 128), (35, 32, 64), "square"),
    "cnn3d": (models.cnn3d, (4, 3, 16, 32, 32), "cross_entropy"),
}


def setup(name):
    """(step function, params) per framework, with torch's initial weights copied into ferrograd."""
    build, shape, loss = WORKLOADS[name]
    torch.manual_seed(0)
    t_model = build(torch.nn)
    f_model = build(fg.nn)
    with fg.no_grad():
        for (tn, tp), (fname, fp) in zip(t_model.named_parameters(), f_model.named_parameters()):
            assert tn == fname, (tn, fname)
            fp.copy_(fg.tensor(tp.detach().numpy()))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    target = rng.integers(0, 10, shape[0])
    inputs = {
        "torch": (torch.tensor(x), torch.tensor(target)),
        "ferrograd": (fg.tensor(x), fg.tensor(target)),
    }
    steps = {}
    for fw, model, lib in (("torch", t_model, torch), ("ferrograd", f_model, fg)):
        F = lib.nn.functional
        xin, tin = inputs[fw]

        def step(model=model, xin=xin, tin=tin, F=F):
            out = model(xin)
            if isinstance(out, tuple):
                out = out[0]
            value = F.cross_entropy(out, tin) if loss == "cross_entropy" else (out * out).mean()
            value.backward()
            value = value.detach()
            for p in model.parameters():
                p.grad = None
            return value

        steps[fw] = step
    return steps, f_model


def check(name, steps):
    # dropout draws differ between the frameworks: compare the deterministic workloads only
    t, f = float(steps["torch"]()), float(steps["ferrograd"]())
    if name != "transformer":
        assert abs(t - f) <= 1e-4 * max(1.0, abs(t)), f"{name}: loss torch {t} vs ferrograd {f}"
    return t, f


def time_turns(steps, turns, min_time, clock=time.perf_counter):
    samples = defaultdict(list)
    order = ["ferrograd", "torch"]
    for turn in range(turns):
        for fw in order if turn % 2 == 0 else order[::-1]:
            step = steps[fw]
            end = time.perf_counter() + 0.05
            while time.perf_counter() < end:
                step()
            spent = 0.0
            while spent < min_time / turns:
                t0 = clock()
                step()
                dt = clock() - t0
                samples[fw].append(dt)
                spent += dt
    return {fw: statistics.median(v) for fw, v in samples.items()}


def _hook_nodes(root, spent, count):
    """Pre/post hooks on every node of the graph below `root` adding each node's run time to spent[name]
    (a node's Python wrapper is not unique: nodes are keyed by name and sequence number)."""
    starts, seen, stack = {}, set(), [root]
    while stack:
        node = stack.pop()
        key = None if node is None else (node.name(), node._sequence_nr)
        if node is None or key in seen:
            continue
        seen.add(key)

        def pre(grad_outputs, key=key):
            starts[key] = time.perf_counter()

        def post(grad_inputs, grad_outputs, key=key):
            spent[key[0]] += time.perf_counter() - starts[key]
            count[key[0]] += 1

        node.register_prehook(pre)
        node.register_hook(post)
        stack.extend(n for n, _ in node.next_functions)


def profile(name, steps, model, repeats=5):
    """Per-step averages over `repeats` ferrograd steps: forward time per Python-visible call (cProfile),
    backward time per node type (node hooks)."""
    steps["ferrograd"]()
    _, shape, loss = WORKLOADS[name]
    prof = cProfile.Profile()
    xin = fg.tensor(np.random.default_rng(1).standard_normal(shape).astype(np.float32))
    spent, count = defaultdict(float), defaultdict(int)
    forward = backward = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        prof.enable()
        out = model(xin)
        prof.disable()
        forward += time.perf_counter() - t0
        out = out[0] if isinstance(out, tuple) else out
        target = fg.zeros(shape[0], dtype=fg.int64)
        value = (out * out).mean() if loss == "square" else fg.nn.functional.cross_entropy(out, target)
        _hook_nodes(value.grad_fn, spent, count)
        t0 = time.perf_counter()
        value.backward()
        backward += time.perf_counter() - t0
        for p in model.parameters():
            p.grad = None
    print(f"\n## {name}: ferrograd step profiled, averages over {repeats} steps (hooks and cProfile add overhead)")
    print(f"forward {forward / repeats * 1e3:.2f} ms, backward {backward / repeats * 1e3:.2f} ms")
    rows = sorted(pstats.Stats(prof).stats.items(), key=lambda kv: -kv[1][2])[:12]
    print("forward, top calls by own time (ms per step, calls per step):")
    for (file, line, fn), (_, nc, tt, _, _) in rows:
        where = fn if file == "~" else f"{fn} ({file.split('/')[-1]}:{line})"
        print(f"  {tt / repeats * 1e3:8.2f} {nc // repeats:6d}  {where}")
    print("backward, time per node type (ms per step, nodes per step):")
    for op, t in sorted(spent.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {t / repeats * 1e3:8.2f} {count[op] // repeats:6d}  {op}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--min-time", type=float, default=3.0, help="seconds per framework and workload")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--threads", type=int, help="threads for both frameworks (default: their own)")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="cpu: process CPU time (with --threads 1, much less disturbed by other load than wall time)",
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads), ferrograd {fg.__version__}, load {load:.1f}")
    print("| workload | ferrograd | torch | torch/ferrograd |\n|---|---|---|---|")
    for name in args.only.split(","):
        steps, model = setup(name)
        check(name, steps)
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        med = time_turns(steps, args.turns, args.min_time, clock)
        ratio = med["torch"] / med["ferrograd"]
        print(f"| {name} | {med['ferrograd'] * 1e3:.2f} ms | {med['torch'] * 1e3:.2f} ms | {ratio:.2f} |", flush=True)
        if args.profile:
            profile(name, steps, model)


if __name__ == "__main__":
    main()
