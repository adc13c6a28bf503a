#!/usr/bin/env python3
"""Per-sample gradients of a small CNN (the computation of pytorch/tutorials' per_sample_grads.py: two 3x3
convolutions, max-pool, two linear layers, log_softmax and nll_loss, a batch of 64 28x28 images) with
`func.vmap(func.grad(loss))` over `functional_call`, ferrograd and PyTorch side by side in one process.

ferrograd's vmap is a loop over the 64 samples (no batching rules); torch's batches each op. Both get the
same weights and data, and their gradients are compared before any timing. Calls are timed in turns and the
medians printed, with the ratio torch/ferrograd (> 1: ferrograd faster).

    PYTHONPATH=$PWD/python /work/torchvenv/bin/python benches/per_sample_grads.py [--repeats 5]
"""

import argparse
import statistics
import sys
import time
import warnings

import ferrograd
import numpy as np

BATCH = 64


def build(fw, seed=0):
    rng = np.random.default_rng(seed)
    nn = fw.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            F = fw.nn.functional
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            return F.log_softmax(self.fc2(F.relu(self.fc1(fw.flatten(x, 1)))), dim=1)

    model = Net()
    with fw.no_grad():
        for p in model.parameters():
            p.copy_(fw.from_numpy(rng.uniform(-0.05, 0.05, tuple(p.shape)).astype(np.float32)))
    data = fw.from_numpy(rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32))
    targets = fw.from_numpy(rng.integers(0, 10, BATCH))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, sample, target):
        out = fw.func.functional_call(model, params, (sample.unsqueeze(0),))
        return fw.nn.functional.nll_loss(out, target.unsqueeze(0))

    per_sample = fw.func.vmap(fw.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, data, targets)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import torch

    warnings.simplefilter("ignore")
    fg_call, torch_call = build(ferrograd), build(torch)
    fg_grads, torch_grads = fg_call(), torch_call()
    worst = max(float(np.abs(fg_grads[k].numpy() - torch_grads[k].numpy()).max()) for k in fg_grads)
    print(f"per-sample grads agree: max |ferrograd - torch| = {worst:.2e}")
    times = {"ferrograd": [], "torch": []}
    for i in range(args.repeats):
        order = [("ferrograd", fg_call), ("torch", torch_call)]
        for name, fn in order if i % 2 == 0 else order[::-1]:
            times[name].append(timed(fn))
    fg_ms, torch_ms = (statistics.median(times[k]) * 1e3 for k in ("ferrograd", "torch"))
    print(f"vmap(grad) over {BATCH} samples: ferrograd {fg_ms:.1f} ms, torch {torch_ms:.1f} ms, ", end="")
    print(f"torch/ferrograd {torch_ms / fg_ms:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
