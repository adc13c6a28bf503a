#!/usr/bin/env python3
"""pygcn's training step (two graph convolutions over a row-normalized sparse adjacency, log_softmax, nll_loss,
Adam) on a synthetic graph of Cora's size (2,708 nodes, 10,000 undirected edges, 1,433 binary features,
7 classes), ferrograd and PyTorch side by side in one process.

Both frameworks get the same graph and the same initial weights; their first losses are compared before any
timing. Then steps are timed in turns (ferrograd, torch, torch, ferrograd, ...), and the median step time of
each and the ratio torch/ferrograd (> 1: ferrograd faster) are printed; then the same for the sparse product
alone (forward and backward).

    make build
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/gcn_step.py
"""

import argparse
import statistics
import sys
import time
import warnings

import ferrograd
import numpy as np

NODES, EDGES, FEATURES, HIDDEN, CLASSES = 2708, 10_000, 1433, 16, 7


def graph(seed=0):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, NODES, EDGES), rng.integers(0, NODES, EDGES)
    rows = np.concatenate([src, dst, np.arange(NODES)])
    cols = np.concatenate([dst, src, np.arange(NODES)])
    flat = np.unique(rows * NODES + cols)
    r, c = flat // NODES, flat % NODES
    degree = np.bincount(r, minlength=NODES).astype(np.float32)
    values = (1.0 / degree[r]).astype(np.float32)
    x = (rng.random((NODES, FEATURES)) < 0.0127).astype(np.float32)
    x[np.arange(NODES), rng.integers(0, FEATURES, NODES)] = 1.0
    x /= x.sum(1, keepdims=True)
    labels = rng.integers(0, CLASSES, NODES)
    weights = [rng.uniform(-0.25, 0.25, shape).astype(np.float32) for shape in
               [(FEATURES, HIDDEN), (HIDDEN,), (HIDDEN, CLASSES), (CLASSES,)]]  # fmt: skip
    return np.vstack((r, c)).astype(np.int64), values, x, labels, weights


def setup(fw, data):
    """The model's parameters, optimizer and inputs in framework `fw` (torch or ferrograd)."""
    indices, values, x, labels, weights = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation of the legacy constructor pygcn uses
        adj = fw.sparse.FloatTensor(fw.from_numpy(indices), fw.from_numpy(values), fw.Size([NODES, NODES]))
    params = [fw.nn.Parameter(fw.from_numpy(w.copy())) for w in weights]
    optimizer = fw.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    idx_train = fw.LongTensor(list(range(140)))
    return params, optimizer, fw.from_numpy(x), adj, fw.from_numpy(labels), idx_train


def step(fw, state):
    params, optimizer, x, adj, labels, idx_train = state
    F = fw.nn.functional
    w1, b1, w2, b2 = params
    optimizer.zero_grad()
    h = F.relu(fw.spmm(adj, fw.mm(x, w1)) + b1)
    h = F.dropout(h, 0.5, training=True)
    out = F.log_softmax(fw.spmm(adj, fw.mm(h, w2)) + b2, dim=1)
    loss = F.nll_loss(out[idx_train], labels[idx_train])
    loss.backward()
    optimizer.step()
    return loss.item()


def first_loss(fw, data):
    """The loss without dropout (so both frameworks compute the same function of the same weights)."""
    params, _, x, adj, labels, idx_train = setup(fw, data)
    F = fw.nn.functional
    w1, b1, w2, b2 = params
    h = F.relu(fw.spmm(adj, fw.mm(x, w1)) + b1)
    out = F.log_softmax(fw.spmm(adj, fw.mm(h, w2)) + b2, dim=1)
    return F.nll_loss(out[idx_train], labels[idx_train]).item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--steps", type=int, default=20, help="timed steps per turn")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("run with a Python that has torch (see the docstring)")
    data = graph()
    frameworks = {"ferrograd": ferrograd, "torch": torch}
    losses = {name: first_loss(fw, data) for name, fw in frameworks.items()}
    if not np.isclose(losses["ferrograd"], losses["torch"], rtol=1e-5):
        sys.exit(f"losses differ: {losses}")
    states = {name: setup(fw, data) for name, fw in frameworks.items()}
    steps = {name: (lambda fw=fw, st=st: step(fw, st)) for (name, fw), st in zip(frameworks.items(), states.values())}
    products = {name: spmm_pass(fw, states[name]) for name, fw in frameworks.items()}
    nnz = data[0].shape[1]
    print(
        f"GCN step, {NODES} nodes, {nnz} adjacency entries, {FEATURES} features, "
        f"threads: torch {torch.get_num_threads()}"
    )
    print(f"first loss: ferrograd {losses['ferrograd']:.6f}, torch {losses['torch']:.6f}")
    for what, calls in (("training step", steps), ("spmm(adj, support) forward + backward", products)):
        median = timed(calls, args.turns, args.steps)
        print(what)
        for name in frameworks:
            print(f"{name:>12}: {median[name] * 1e3:.3f} ms (median)")
        print(f"  torch/ferrograd: {median['torch'] / median['ferrograd']:.2f}")


def spmm_pass(fw, state):
    """The sparse product alone: `spmm(adj, support)` and its backward to `support` (a 2,708 x 16 leaf)."""
    params, _, x, adj, _, _ = state
    support = fw.mm(x, params[0]).detach().requires_grad_()

    def run():
        fw.spmm(adj, support).sum().backward()

    return run


def timed(calls, turns, per_turn):
    """Median seconds per call of each framework's `calls[name]()`, in alternating turns (each after 3
    untimed calls, so the other framework's threads settle)."""
    times = {name: [] for name in calls}
    order = list(calls)
    for turn in range(turns):
        for name in order if turn % 2 == 0 else order[::-1]:
            for _ in range(3):
                calls[name]()
            for _ in range(per_turn):
                t0 = time.perf_counter()
                calls[name]()
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) for name, t in times.items()}


if __name__ == "__main__":
    main()
