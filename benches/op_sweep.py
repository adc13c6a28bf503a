#!/usr/bin/env python3
"""Single ops one by one, ferrograd against PyTorch, each framework in its own process at the same threads: where a
script that leaves the trained path (a loss over 1000 classes, a flip, a top-k) meets a slow kernel.

Each op runs on the same data (numpy arrays seeded alike, 1000 x 1000 float32 unless its row says otherwise),
forward alone or forward and backward ("bwd" rows, the gradient of a sum). Each child first reports a checksum of
every result (the float64 sum of the magnitudes of its output, or of the gradients), and the table marks where the
two disagree beyond float32 rounding; draws (dropout, rand, randn) are not compared. Time: the median of seven
runs of as many calls as fill 20 ms. torch/ferrograd > 1 means ferrograd is faster; the table is sorted by it.

    make build
    .venv/bin/python benches/op_sweep.py --torch-python /work/torchvenv/bin/python --out benches/OPS.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RANDOM = {"dropout", "randn", "rand", "dropout bwd"}


def cases(T, F, np):
    """name -> a function of no arguments running the op (and its backward for "bwd" names), returning what to
    check."""
    rng = np.random.default_rng(0)

    def data(a, grad=False):
        return T.tensor(a, requires_grad=grad)

    f32 = np.float32
    a, b = rng.standard_normal((1000, 1000)).astype(f32), rng.standard_normal((1000, 1000)).astype(f32)
    A, B, P = data(a), data(b), data(np.abs(a) + f32(0.1))
    M, I1 = data(rng.standard_normal((1000, 1000)) > 0), data(rng.integers(0, 1000, (1000,)))
    IX = data(rng.integers(0, 1000, (1000, 1000)))
    x4 = rng.standard_normal((32, 64, 32, 32)).astype(f32)
    w4 = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(f32)
    logits, labels = rng.standard_normal((4096, 1000)).astype(f32), data(rng.integers(0, 1000, (4096,)))
    table, tokens = rng.standard_normal((50000, 256)).astype(f32), data(rng.integers(0, 50000, (64, 128)))
    X4, W4, L, E = data(x4), data(w4), data(logits), data(table)
    # views of attention's shapes: a permutation, and one of `unbind`'s q/k/v (rows 384 apart)
    PERM = data(rng.standard_normal((128, 16, 64)).astype(f32)).permute(2, 1, 0)
    QKV = data(rng.standard_normal((64, 16, 384)).astype(f32)).unflatten(-1, (3, 128)).unbind(-2)[0]
    FEW = data(rng.integers(0, 128, (64, 16, 4)))
    out = {
        "add": lambda: A + B,
        "mul by a number": lambda: A * 1.5,
        "exp": lambda: A.exp(),
        "log": lambda: P.log(),
        "tanh": lambda: A.tanh(),
        "sigmoid": lambda: A.sigmoid(),
        "gelu": lambda: F.gelu(A),
        "where": lambda: T.where(M, A, B),
        "masked_fill": lambda: A.masked_fill(M, 0.0),
        "lerp by a number": lambda: T.lerp(A, B, 0.3),
        "addcmul": lambda: T.addcmul(A, A, B, value=0.5),
        "atan2": lambda: T.atan2(A, B),
        "isnan": lambda: A.isnan(),
        "to float16": lambda: A.half(),
        "to bfloat16": lambda: A.bfloat16(),
        "to int32": lambda: A.int(),
        "sum": lambda: A.sum(),
        "sum(0)": lambda: A.sum(0),
        "sum(1)": lambda: A.sum(1),
        "amax(1)": lambda: A.amax(1),
        "max(1)": lambda: A.max(1)[0],
        "argmax(1)": lambda: A.argmax(1),
        "max(0)": lambda: A.max(0)[0],
        "norm": lambda: A.norm(),
        "norm(dim=1)": lambda: A.norm(dim=1),
        "var(1)": lambda: A.var(1),
        "prod(1)": lambda: P.prod(1),
        "logsumexp(1)": lambda: A.logsumexp(1),
        "cumsum(1)": lambda: A.cumsum(1),
        "cumsum(0)": lambda: A.cumsum(0),
        "sort(1)": lambda: A.sort(1)[0],
        "topk(5, 1)": lambda: A.topk(5, 1)[0],
        "median(1)": lambda: A.median(1)[0],
        "softmax(1)": lambda: A.softmax(1),
        "layer_norm": lambda: F.layer_norm(A, (1000,)),
        "t().contiguous()": lambda: A.t().contiguous(),
        "flip(1)": lambda: A.flip(1),
        "roll(3, 1)": lambda: A.roll(3, 1),
        "tril": lambda: A.tril(),
        "cat(dim=1)": lambda: T.cat([A, B], 1),
        "stack of 3 transposed, dim 1": lambda: T.stack([A.t(), B.t(), A.t()], 1),
        "sum(1) of a[:, ::2]": lambda: A[:, ::2].sum(1),
        "amax(1) of a[:, ::2]": lambda: A[:, ::2].amax(1),
        "sum(0) of x.permute(2, 1, 0)": lambda: PERM.sum(0),
        "norm() of x.permute(2, 1, 0)": lambda: PERM.norm(),
        "flip(-1) of x.permute(2, 1, 0)": lambda: PERM.flip(-1),
        "gather(-1) of x.permute(2, 1, 0)": lambda: PERM.gather(-1, FEW),
        "sum(-1) of an unbind view": lambda: QKV.sum(-1),
        "amax(-1) of an unbind view": lambda: QKV.amax(-1),
        "flip(-1) of an unbind view": lambda: QKV.flip(-1),
        "gather(1)": lambda: A.gather(1, IX),
        "index_select(0)": lambda: A.index_select(0, I1),
        "a[index]": lambda: A[I1],
        "a[mask]": lambda: A[M],
        "nonzero": lambda: M.nonzero(),
        "embedding 64x128 of 50000x256": lambda: F.embedding(tokens, E),
        "matmul": lambda: A @ B,
        "conv2d 32x64x32x32, 64 3x3": lambda: F.conv2d(X4, W4, padding=1),
        "max_pool2d 2": lambda: F.max_pool2d(X4, 2),
        "cross_entropy 4096x1000": lambda: F.cross_entropy(L, labels),
        "nll_loss 4096x1000": lambda: F.nll_loss(L, labels),
        "mse_loss": lambda: F.mse_loss(A, B),
        "zeros": lambda: T.zeros(1000, 1000),
        "arange(1e6)": lambda: T.arange(1000000),
        "dropout": lambda: F.dropout(A, 0.1),
        "randn": lambda: T.randn(1000, 1000),
        "rand": lambda: T.rand(1000, 1000),
    }
    leaves = {"A": data(a, True), "B": data(b, True), "X4": data(x4, True), "W4": data(w4, True)}
    leaves |= {"L": data(logits, True), "E": data(table, True)}
    Ag, Bg, X4g, W4g, Lg, Eg = (leaves[k] for k in ("A", "B", "X4", "W4", "L", "E"))

    def backward(loss):
        def run():
            for t in leaves.values():
                t.grad = None
            loss().backward()
            return [t.grad for t in leaves.values() if t.grad is not None]

        return run

    for name, loss in {
        "cross_entropy 4096x1000": lambda: F.cross_entropy(Lg, labels),
        "layer_norm": lambda: F.layer_norm(Ag, (1000,)).mul(Bg).sum(),
        "softmax(1)": lambda: Ag.softmax(1).mul(Bg).sum(),
        "gelu": lambda: F.gelu(Ag).sum(),
        "tanh": lambda: Ag.tanh().sum(),
        "mul, add": lambda: (Ag * Bg + Ag).sum(),
        "matmul": lambda: (Ag @ Bg).sum(),
        "conv2d 32x64x32x32, 64 3x3": lambda: F.conv2d(X4g, W4g, padding=1).sum(),
        "max_pool2d 2": lambda: F.max_pool2d(X4g, 2).sum(),
        "gather(1)": lambda: Ag.gather(1, IX).sum(),
        "a[index]": lambda: Ag[I1].sum(),
        "embedding 64x128 of 50000x256": lambda: F.embedding(tokens, Eg).sum(),
        "flip(1)": lambda: Ag.flip(1).mul(Bg).sum(),
        "cumsum(1)": lambda: Ag.cumsum(1).mul(Bg).sum(),
        "norm": lambda: Ag.norm(),
        "max(1)": lambda: Ag.max(1)[0].sum(),
        "unbind(1) of 1000x3x333": lambda: sum((v * v).sum() for v in Ag[:, :999].unflatten(1, (3, 333)).unbind(1)),
        "topk(5, 1)": lambda: Ag.topk(5, 1)[0].sum(),
        "where": lambda: T.where(M, Ag, Bg).mul(Bg).sum(),
        "mse_loss": lambda: F.mse_loss(Ag, Bg),
        "dropout": lambda: F.dropout(Ag, 0.1).sum(),
    }.items():
        out[name + " bwd"] = backward(loss)
    return out


def checksum(result):
    """Σ|x| over the results (a sum alone is ~0 for a normalized output, so it would hide differences)."""
    items = result if isinstance(result, list) else [result]
    return sum(float(t.double().abs().sum()) for t in items)


def child(framework: str, threads: int, only: str | None) -> None:
    import numpy as np

    if framework == "torch":
        import torch as T
        import torch.nn.functional as F
    else:
        import ferrograd as T
        import ferrograd.nn.functional as F
    T.set_num_threads(threads)
    results = {}
    for name, fn in cases(T, F, np).items():
        if only and only not in name:
            continue
        check = checksum(fn())
        n = 1
        while True:
            start = time.perf_counter()
            for _ in range(n):
                fn()
            if time.perf_counter() - start > 0.02:
                break
            n *= 2
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            runs.append((time.perf_counter() - start) / n)
        results[name] = (sorted(runs)[3], check)
    print(json.dumps(results))


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch-python", required=True, help="a Python with torch installed")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", help="write the table to this file too")
    parser.add_argument("--only", help="the ops whose name contains this")
    parser.add_argument("--child", choices=["ferrograd", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.threads, args.only)
    sys.path.insert(0, HERE)
    from _common import provenance, write_report

    load_start = os.getloadavg()
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(HERE), "python"))
    runs = {}
    for framework, python in (("ferrograd", sys.executable), ("torch", args.torch_python)):
        cmd = [python, os.path.abspath(__file__), "--torch-python", "-", "--threads", str(args.threads)]
        cmd += ["--only", args.only] if args.only else []
        done = subprocess.run([*cmd, "--child", framework], env=env, capture_output=True, text=True, check=True)
        runs[framework] = json.loads(done.stdout.splitlines()[-1])
    rows = []
    for name, (fg_time, fg_check) in runs["ferrograd"].items():
        th_time, th_check = runs["torch"][name]
        close = abs(fg_check - th_check) <= 1e-4 * max(1.0, abs(th_check))
        agree = "draws" if name in RANDOM else ("yes" if close else "**no**")
        rows.append((th_time / fg_time, name, fg_time, th_time, agree))
    rows.sort()
    lines = ["| op | ferrograd | torch | torch/ferrograd | results agree |", "|---|---|---|---|---|"]
    lines += [f"| {n} | {fmt(f)} | {fmt(t)} | {r:.2f}× | {a} |" for r, n, f, t, a in rows]
    lines += [""] + provenance(f"{args.threads} threads each", load_start, os.getloadavg())
    print("\n".join(lines))
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
