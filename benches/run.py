#!/usr/bin/env python3
"""Side-by-side benchmark of ferrograd against numpy and (when importable) PyTorch.

Runs every workload of issue 5's table in one process. Per workload, each framework's result is first
checked (allclose) against a float64 numpy reference, so a wrong answer is never timed; then the
frameworks are timed in turns (A B C, C B A, ...; each turn starts with 50 ms of untimed calls, so the
threads of the framework before have stopped spinning) until each has run >= --min-time seconds or
--max-reps samples. Reported: the median time per iteration and the ratios torch/ferrograd and
numpy/ferrograd, where >1 means ferrograd is faster. numpy has no autograd: its column times the
forward pass only (marked "fwd"), so numpy/ferrograd there compares unlike things.

    python benches/run.py [--quick] [--only tutorial,chain] [--out benches/RESULTS.md] [--note TEXT]

See benches/README.md for running it with PyTorch in the same process.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field


def _pin_threads_from_argv() -> None:
    """`--threads N` must act before numpy, torch and ferrograd start their thread pools."""
    argv = sys.argv[1:]
    for i, a in enumerate(argv):
        n = (
            a.split("=", 1)[1]
            if a.startswith("--threads=")
            else argv[i + 1]
            if a == "--threads" and i + 1 < len(argv)
            else None
        )
        if n is not None:
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "FERROGRAD_NUM_THREADS"):
                os.environ[var] = n


if __name__ == "__main__":
    _pin_threads_from_argv()

import ferrograd as fg  # noqa: E402
import numpy as np  # noqa: E402
from mlp_step import train_step  # noqa: E402

try:
    import torch
except Exception:  # torch is optional and never a dependency
    torch = None

FRAMEWORKS = ("ferrograd", "numpy", "torch")


# ---------------------------------------------------------------------------------------------------------
# Workload description
# ---------------------------------------------------------------------------------------------------------


@dataclass
class Impl:
    """One framework's version of a workload: `run()` is what is timed; `result()` runs it once more and
    returns the arrays to check (in the order of the reference)."""

    run: Callable[[], object]
    result: Callable[[], list]
    mode: str = "fwd+bwd"


@dataclass
class Workload:
    group: str  # the name used by --only
    label: str  # the table's first column
    reference: Callable[[], list]  # float64 numpy arrays
    impls: dict = field(default_factory=dict)  # framework -> Impl
    # per checked array: (rtol, atol); atol may be an array of the same shape
    tolerances: Callable[[], list] | None = None
    note: str = ""


def to_np(t) -> np.ndarray:
    if t is None:
        raise AssertionError("missing gradient")
    if isinstance(t, np.ndarray) or np.isscalar(t):
        return np.asarray(t, dtype=np.float64)
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def fg_leaf(a: np.ndarray, requires_grad=True):
    return fg.from_numpy(np.ascontiguousarray(a)).clone().requires_grad_(requires_grad)


def th_leaf(a: np.ndarray, requires_grad=True):
    return torch.from_numpy(np.ascontiguousarray(a)).clone().requires_grad_(requires_grad)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------------------
# Workloads
# ---------------------------------------------------------------------------------------------------------


def one_leaf(x, forward, loss=lambda out: out) -> Impl:
    """The Impl of a workload with one leaf `x`: `forward(x)`, then backward from `loss(out)`; its
    result is the output and the leaf's gradient."""

    def run():
        x.grad = None
        out = forward(x)
        loss(out).backward()
        return out

    def result():
        out = run()
        return [to_np(out), to_np(x.grad)]

    return Impl(run, result)


def w_tutorial() -> Workload:
    def fg_run():
        x = fg.ones(2, 2, requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        out.backward()
        return out, x

    def th_run():
        x = torch.ones(2, 2, requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        out.backward()
        return out, x

    def np_run():
        x = np.ones((2, 2), dtype=np.float32)
        y = x + 2
        z = y * y * 3
        return z.mean()

    def ref():
        x = np.ones((2, 2))
        return [np.float64(27.0), 6 * (x + 2) / 4]

    w = Workload("tutorial", "tutorial graph (2×2: add, mul, mul, mean, backward)", ref)
    w.impls["ferrograd"] = Impl(fg_run, lambda: (lambda o, x: [to_np(o), to_np(x.grad)])(*fg_run()))
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = Impl(th_run, lambda: (lambda o, x: [to_np(o), to_np(x.grad)])(*th_run()))
    return w


def w_chain(n_ops: int) -> Workload:
    has_tanh = hasattr(fg.Tensor, "tanh")
    ops = ["add", "mul", "tanh"] if has_tanh else ["add", "mul"]
    seq = [ops[i % len(ops)] for i in range(n_ops)]
    x0 = np.linspace(-1.0, 1.0, 16)

    def chain(x, tanh):
        for op in seq:
            if op == "add":
                x = x + 0.01
            elif op == "mul":
                x = x * 0.999
            else:
                x = tanh(x)
        return x

    def make(leaf, tanh):
        return one_leaf(leaf(x0.astype(np.float32)), lambda x: chain(x, tanh).sum())

    def ref():
        x = x0.copy()
        g = np.ones_like(x)
        for op in seq:
            if op == "add":
                x = x + 0.01
            elif op == "mul":
                x, g = x * 0.999, g * 0.999
            else:
                x = np.tanh(x)
                g = g * (1 - x * x)
        return [x.sum(), g]

    label = f"chain of {n_ops:,} ops ({'/'.join(ops)}) on 16 elems, sum, backward"
    note = "" if has_tanh else "ferrograd has no Tensor.tanh yet: the chain alternates add and mul only"
    w = Workload("chain", label, ref, note=note)
    w.impls["ferrograd"] = make(fg_leaf, lambda t: t.tanh())
    x_np = x0.astype(np.float32)
    w.impls["numpy"] = Impl(lambda: chain(x_np, np.tanh).sum(), lambda: [to_np(chain(x_np, np.tanh).sum())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf, torch.tanh)
    w.tolerances = lambda: [(1e-4, 1e-4), (1e-4, 1e-5)]
    return w


def w_expsum(n: int) -> Workload:
    a = (rng(1).standard_normal(n) * 0.5).astype(np.float32)
    a64 = a.astype(np.float64)

    def make(leaf, exp):
        return one_leaf(leaf(a), lambda x: exp(x * x + x).sum())

    def ref():
        e = np.exp(a64 * a64 + a64)
        return [e.sum(), e * (2 * a64 + 1)]

    def np_run():
        return np.exp(a * a + a).sum()

    w = Workload("expsum", f"(x*x + x).exp().sum(), n = {n:.0e} float32".replace("e+0", "e"), ref)
    w.impls["ferrograd"] = make(fg_leaf, lambda t: t.exp())
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf, torch.exp)
    # the float32 sum of n positive terms: allow a relative 1e-4 (pairwise/blocked sums do far better)
    w.tolerances = lambda: [(1e-4, 0.0), (1e-5, 1e-6)]
    return w


def w_matmul(shape_a: tuple, shape_b: tuple, group: str, label: str) -> Workload:
    r = rng(2)
    a = r.standard_normal(shape_a).astype(np.float32)
    b = r.standard_normal(shape_b).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)

    def make(leaf):
        x, y = leaf(a), leaf(b)

        def run():
            x.grad = None
            y.grad = None
            out = (x @ y).sum()
            out.backward()
            return out

        def result():
            out = run()
            return [to_np(out), to_np(x.grad), to_np(y.grad)]

        return Impl(run, result)

    # (A @ B).sum() = Σ_k colsum(A)[k] · rowsum(B)[k]; dA[i,k] = rowsum(B)[k]; dB[k,j] = colsum(A)[k]
    def ref():
        ca, rb = a64.sum(-2), b64.sum(-1)  # [..., k]
        out = (ca * rb).sum()
        ga = np.broadcast_to(rb[..., None, :], a.shape)
        gb = np.broadcast_to(ca[..., :, None], b.shape)
        return [out, ga, gb]

    def tol():
        # error bound scale of a float32 sum: Σ|terms|; 1e-5 of it is loose for wrong answers to pass
        aa, ab = np.abs(a64), np.abs(b64)
        scale = (aa.sum(-2) * ab.sum(-1)).sum()
        return [
            (0.0, 1e-5 * scale),
            (1e-4, 1e-5 * np.broadcast_to(ab.sum(-1)[..., None, :], a.shape)),
            (1e-4, 1e-5 * np.broadcast_to(aa.sum(-2)[..., :, None], b.shape)),
        ]

    def np_run():
        return (a @ b).sum()

    w = Workload(group, label, ref, tolerances=tol)
    w.impls["ferrograd"] = make(fg_leaf)
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf)
    return w


def w_reduce(n: int, op: str, axis: int) -> Workload:
    a = rng(3).standard_normal((n, n)).astype(np.float32)
    a64 = a.astype(np.float64)
    x_fg = fg_leaf(a, requires_grad=False)
    x_th = th_leaf(a, requires_grad=False) if torch is not None else None

    def ref():
        return [getattr(a64, op)(axis=axis)]

    def tol():
        scale = np.abs(a64).sum(axis=axis) / (n if op == "mean" else 1)
        return [(0.0, 1e-5 * scale)]

    fg_run = lambda: getattr(x_fg, op)(dim=axis)
    np_run = lambda: getattr(a, op)(axis=axis)
    w = Workload("reduce", f"{op} over axis {axis} of {n}×{n} float32", ref, tolerances=tol)
    w.impls["ferrograd"] = Impl(fg_run, lambda: [to_np(fg_run())], mode="fwd")
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        th_run = lambda: getattr(x_th, op)(dim=axis)
        w.impls["torch"] = Impl(th_run, lambda: [to_np(th_run())], mode="fwd")
    return w


def w_unary(n: int, name: str) -> Workload:
    """One elementwise float32 function, forward only: the vectorized kernels against PyTorch's."""
    import math

    a = rng(6).standard_normal(n).astype(np.float32) * 3
    if name == "log":
        a = np.abs(a) + np.float32(1e-3)
    a64 = a.astype(np.float64)
    refs = {
        "exp": np.exp,
        "log": np.log,
        "tanh": np.tanh,
        "sin": np.sin,
        "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "gelu": lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2))),
    }
    x_fg = fg_leaf(a, requires_grad=False)

    def call(lib, x):
        return lib.nn.functional.gelu(x) if name == "gelu" else getattr(x, name)()

    w = Workload(
        "unary",
        f"{name}, {n:.0e} float32 (forward)".replace("e+0", "e"),
        lambda: [refs[name](a64)],
        tolerances=lambda: [(2e-6, 4e-6)],
    )
    fg_run = lambda: call(fg, x_fg)
    w.impls["ferrograd"] = Impl(fg_run, lambda: [to_np(fg_run())], mode="fwd")
    if name != "gelu":  # numpy has no erf
        np_run = lambda: refs[name](a)
        w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        x_th = th_leaf(a, requires_grad=False)
        th_run = lambda: call(torch, x_th)
        w.impls["torch"] = Impl(th_run, lambda: [to_np(th_run())], mode="fwd")
    return w


def w_transposed(n: int) -> Workload:
    """An elementwise op and a reduction on a transposed view: the result keeps the view's memory order
    (PyTorch's rule), so nothing is read across rows."""
    a = (rng(6).standard_normal((n, n)) * 0.5).astype(np.float32)
    a64 = a.astype(np.float64)

    def make(leaf):
        return one_leaf(leaf(a), lambda x: x.T.exp().sum(0), loss=lambda out: out.sum())

    def ref():
        e = np.exp(a64)
        return [e.sum(axis=1), e]

    np_run = lambda: np.exp(a.T).sum(axis=0)
    w = Workload("transposed", f"x.T.exp().sum(0), {n}×{n} float32", ref)
    w.impls["ferrograd"] = make(fg_leaf)
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf)
    w.tolerances = lambda: [(1e-5, 1e-5), (1e-5, 1e-6)]
    return w


def w_broadcast(n: int) -> Workload:
    r = rng(4)
    a = r.standard_normal((n, 1)).astype(np.float32)
    b = r.standard_normal((1, n)).astype(np.float32)

    def make(leaf):
        x, y = leaf(a), leaf(b)

        def run():
            x.grad = None
            y.grad = None
            out = (x + y).sum()
            out.backward()
            return out

        def result():
            out = run()
            return [to_np(out), to_np(x.grad), to_np(y.grad)]

        return Impl(run, result)

    def ref():
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return [n * (a64.sum() + b64.sum()), np.full(a.shape, float(n)), np.full(b.shape, float(n))]

    def tol():
        scale = n * (np.abs(a).sum() + np.abs(b).sum())
        return [(0.0, 1e-5 * scale), (1e-6, 0.0), (1e-6, 0.0)]

    np_run = lambda: (a + b).sum()
    w = Workload("broadcast", f"(a[{n},1] + b[1,{n}]).sum()", ref, tolerances=tol)
    w.impls["ferrograd"] = make(fg_leaf)
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf)
    return w


def mlp_missing() -> str:
    missing = []
    nn = getattr(fg, "nn", None)
    if not hasattr(getattr(nn, "functional", None), "cross_entropy"):
        missing.append("fg.nn.functional.cross_entropy")
    if not hasattr(fg.Tensor, "relu"):
        missing.append("Tensor.relu")
    return ", ".join(missing)


def w_mlp(batch: int, sizes: tuple) -> Workload:
    """One training step: forward, cross-entropy, backward, SGD update (update only where the framework
    has in-place `sub_`; ferrograd and torch are then treated alike)."""
    r = rng(5)
    xs = r.standard_normal((batch, sizes[0])).astype(np.float32)
    ys = r.integers(0, sizes[-1], batch)
    params = []
    for i in range(len(sizes) - 1):
        bound = 1 / np.sqrt(sizes[i])
        params.append(r.uniform(-bound, bound, (sizes[i], sizes[i + 1])).astype(np.float32))
        params.append(r.uniform(-bound, bound, (sizes[i + 1],)).astype(np.float32))
    lr = 0.01
    update = hasattr(fg.Tensor, "sub_")

    def make(leaf, F, target, no_grad):
        ps = [leaf(p) for p in params]
        x = leaf(xs, requires_grad=False)
        snapshot = [leaf(p, requires_grad=False) for p in params]

        def step():
            return train_step(ps, x, target, F, no_grad, lr, update)

        def result():
            with no_grad():  # check from the initial parameters
                for p, s in zip(ps, snapshot):
                    p.copy_(s) if hasattr(p, "copy_") else None
            loss = step()
            return [to_np(loss)] + [to_np(p.grad) for p in ps]

        return Impl(step, result)

    def ref():
        p = [q.astype(np.float64) for q in params]
        acts, h = [xs.astype(np.float64)], xs.astype(np.float64)
        for i in range(0, len(p), 2):
            h = h @ p[i] + p[i + 1]
            if i + 2 < len(p):
                h = np.maximum(h, 0)
            acts.append(h)
        z = h - h.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        loss = -logp[np.arange(batch), ys].mean()
        g = np.exp(logp)
        g[np.arange(batch), ys] -= 1
        g /= batch
        grads = [None] * len(p)
        for i in reversed(range(0, len(p), 2)):
            grads[i], grads[i + 1] = acts[i // 2].T @ g, g.sum(0)
            if i > 0:
                g = (g @ p[i].T) * (acts[i // 2] > 0)
        return [loss] + grads

    def np_run():
        h = xs
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = np.maximum(h, 0)
        z = h - h.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        return -logp[np.arange(batch), ys].mean()

    label = f"MLP {'-'.join(map(str, sizes))} training step, batch {batch}" + ("" if update else " (no update)")
    w = Workload("mlp", label, ref, tolerances=lambda: [(1e-4, 1e-5)] * (1 + len(params)))
    w.impls["ferrograd"] = make(fg_leaf, fg.nn.functional, fg.tensor(ys.tolist(), dtype=fg.int64), fg.no_grad)
    w.impls["numpy"] = Impl(np_run, lambda: [to_np(np_run())], mode="fwd")
    if torch is not None:
        w.impls["torch"] = make(th_leaf, torch.nn.functional, torch.from_numpy(ys), torch.no_grad)
    return w


UNARY = ("exp", "log", "tanh", "sigmoid", "gelu", "sin")


def workloads(quick: bool) -> list:
    """Builders, lazily: a workload allocates its data only when it runs."""
    if quick:
        ws = [
            ("tutorial", w_tutorial),
            ("chain", lambda: w_chain(1000)),
            ("expsum", lambda: w_expsum(10**5)),
            ("matmul", lambda: w_matmul((64, 64), (64, 64), "matmul", "(A @ B).sum(), n = 64")),
            ("bmm", lambda: w_matmul((8, 32, 32), (8, 32, 32), "bmm", "batched (A @ B).sum(), 8×32×32")),
        ]
        ws += [("reduce", (lambda op=op, ax=ax: w_reduce(256, op, ax))) for op in ("sum", "mean") for ax in (0, 1)]
        ws += [("broadcast", lambda: w_broadcast(128)), ("transposed", lambda: w_transposed(64))]
        ws += [("mlp", lambda: w_mlp(16, (64, 32, 32, 10)))]
        ws += [("unary", (lambda f=f: w_unary(10**4, f))) for f in UNARY]
        return ws
    ws = [("tutorial", w_tutorial), ("chain", lambda: w_chain(1000))]
    ws += [("expsum", (lambda n=n: w_expsum(n))) for n in (10**6, 10**7)]
    ws += [
        ("matmul", (lambda n=n: w_matmul((n, n), (n, n), "matmul", f"(A @ B).sum(), n = {n}")))
        for n in (256, 1024, 2048)
    ]
    ws += [("bmm", lambda: w_matmul((64, 128, 128), (64, 128, 128), "bmm", "batched (A @ B).sum(), 64×128×128"))]
    ws += [("reduce", (lambda op=op, ax=ax: w_reduce(4096, op, ax))) for op in ("sum", "mean") for ax in (0, 1)]
    ws += [("broadcast", lambda: w_broadcast(1024)), ("transposed", lambda: w_transposed(1024))]
    ws += [("mlp", lambda: w_mlp(128, (784, 512, 512, 10)))]
    ws += [("unary", (lambda f=f: w_unary(10**6, f))) for f in UNARY]
    return ws


# ---------------------------------------------------------------------------------------------------------
# Checking and timing
# ---------------------------------------------------------------------------------------------------------


def check(w: Workload, name: str, impl: Impl) -> str:
    """'' when the framework's result matches the reference, else what differs."""
    ref = w.reference()
    got = impl.result()
    tols = w.tolerances() if w.tolerances else [(1e-4, 1e-6)] * len(ref)
    for i, g in enumerate(got):  # forward-only impls return a prefix of the reference
        r = np.asarray(ref[i], dtype=np.float64)
        rtol, atol = tols[i]
        if g.shape != r.shape:
            return f"{name}: output {i} has shape {g.shape}, expected {r.shape}"
        if not np.all(np.abs(g - r) <= atol + rtol * np.abs(r)):
            err = np.max(np.abs(g - r))
            return f"{name}: output {i} differs from the float64 reference (max abs error {err:.3g})"
    return ""


def calibrate(fn, target: float) -> int:
    """Inner iterations per sample so one sample lasts about `target` seconds (small ops need batching
    so the timer's own cost does not show)."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target or number >= 1 << 20:
            return number
        number = max(number * 2, int(number * target / max(dt, 1e-9) * 1.2))


# Thread pools keep spinning after their last parallel op (measured here: a 2-thread ferrograd sum ran
# 2-3x slower for the first ~20 ms after a torch sum, while torch's OpenMP threads still held the cores).
# So frameworks are not alternated call by call: each gets turns, every turn starts with untimed calls
# for SETTLE seconds, and turns go in the order A B C, C B A, A B C, ... so slow drift cancels.
SETTLE = 0.05


def time_in_turns(impls: dict, min_time: float, max_reps: int, min_reps: int, sample_target: float, turns: int) -> dict:
    """Median seconds per iteration of each impl, over `turns` turns per framework."""
    numbers = {}
    for name, impl in impls.items():
        impl.run()  # warm-up (first-call caches, allocator, thread pools)
        numbers[name] = calibrate(impl.run, sample_target)
    samples = {name: [] for name in impls}
    spent = {name: 0.0 for name in impls}
    gc.collect()
    order = list(impls)
    for turn in range(turns):
        for name in order if turn % 2 == 0 else order[::-1]:
            fn, number = impls[name].run, numbers[name]
            settle_end = time.perf_counter() + SETTLE
            while time.perf_counter() < settle_end:
                fn()
            while True:
                need_time = spent[name] < min_time * (turn + 1) / turns
                need_reps = len(samples[name]) < min_reps * (turn + 1) / turns
                if len(samples[name]) >= max_reps * (turn + 1) / turns or not (need_time or need_reps):
                    break
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                dt = time.perf_counter() - t0
                spent[name] += dt
                samples[name].append(dt / number)
    return {n: (statistics.median(s), len(s), numbers[n]) for n, s in samples.items()}


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


# ---------------------------------------------------------------------------------------------------------
# Machine header
# ---------------------------------------------------------------------------------------------------------


def machine_header(argv: list, note: str) -> list:
    model, flags = "", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not model:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    model = model or platform.processor() or "unknown"
    simd = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "sse/other"
    simd_flags = " ".join(f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl") if f in flags)
    lines = [
        f"- CPU: {model}; {os.cpu_count()} logical cores; SIMD level: {simd} (flags: {simd_flags or 'none'})",
        f"- Python {platform.python_version()}, numpy {np.__version__} ({blas_info()}), "
        + (
            f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
            if torch is not None
            else "torch not importable"
        ),
        f"- ferrograd {getattr(fg, '__version__', '?')} at commit {git_commit()}, extension "
        f"`{os.path.relpath(fg._core.__file__)}`",
    ]
    env = {
        k: os.environ.get(k)
        for k in (
            "OPENBLAS_CORETYPE",
            "OPENBLAS_L2_SIZE",
            "OMP_NUM_THREADS",
            "OPENBLAS_NUM_THREADS",
            "FERROGRAD_NUM_THREADS",
            "PYTHONPATH",
        )
    }
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k == "PYTHONPATH" and v)
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, *argv])
    lines.append(f"- Command: `{(prefix + ' ' if prefix else '')}{cmd}`")
    lines.append(
        "- Environment: " + ", ".join(f"{k}={'unset' if v is None else v}" for k, v in env.items() if k != "PYTHONPATH")
    )
    try:
        lines.append("- Load average at start (1/5/15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    except OSError:
        pass
    if note:
        lines.append(f"- Note: {note}")
    return lines


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info

        infos = [
            f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} ×{i.get('num_threads')}"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        ]
        if infos:
            return "BLAS: " + "; ".join(infos)
    except Exception:
        pass
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        return f"BLAS: {blas.get('name')} {blas.get('version')}"
    except Exception:
        return "BLAS: unknown"


def git_commit() -> str:
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(
            ["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "-C", here, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)*.md"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if out.returncode == 0 else "unknown"
    except Exception:
        return "unknown"


# ---------------------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes and few repetitions (a smoke run)")
    p.add_argument(
        "--only",
        default="",
        help="comma-separated groups: tutorial,chain,expsum,matmul,bmm,reduce,broadcast,transposed,mlp",
    )
    p.add_argument("--out", default="", help="also write the markdown table with the machine header to this file")
    p.add_argument("--note", default="", help="free text for the header (e.g. 'machine shared with compile jobs')")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="pin every framework to N threads (OMP/OpenBLAS/MKL/FERROGRAD_NUM_THREADS and torch.set_num_threads); "
        "default: each framework's own default",
    )
    p.add_argument("--append", action="store_true", help="append to --out instead of overwriting it")
    p.add_argument(
        "--min-time", type=float, default=None, help="seconds of samples per framework (default 0.5; quick 0.05)"
    )
    p.add_argument("--max-reps", type=int, default=None, help="most samples per framework (default 500; quick 10)")
    args = p.parse_args(argv)
    if args.threads is not None and torch is not None:
        torch.set_num_threads(args.threads)
    min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 0.5)
    max_reps = args.max_reps if args.max_reps is not None else (10 if args.quick else 500)
    min_reps = 3 if args.quick else 5
    # short samples: calls >= 1 ms are timed one by one, so a stall (another process taking a core
    # from a 2-thread pool) spoils one sample and barely moves the median, instead of every batch
    sample_target = 0.0005 if args.quick else 0.001

    builders = workloads(args.quick)
    groups = {g for g, _ in builders}
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in only if s not in groups]
    if unknown:
        p.error(f"unknown workload group(s) {', '.join(unknown)}; known: {', '.join(sorted(groups))}")
    if only:
        builders = [(g, b) for g, b in builders if g in only]

    header = machine_header([sys.argv[0], *argv], args.note)
    print("\n".join(header), flush=True)
    if os.environ.get("OPENBLAS_CORETYPE") or os.environ.get("OPENBLAS_L2_SIZE"):
        print(
            "warning: OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE are set: numpy's BLAS may run a slower kernel", file=sys.stderr
        )

    cols = ["workload", "ferrograd", "numpy", "torch", "torch/ferrograd", "numpy/ferrograd"]
    rows, notes, failed = [], [], False
    print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols), flush=True)
    for group, build in builders:
        if group == "mlp" and mlp_missing():
            row = ["MLP 784-512-512-10 training step, batch 128", "skipped", "", "", "", ""]
            if args.quick:
                row[0] = "MLP training step (small)"
            notes.append(f"MLP row skipped: ferrograd lacks {mlp_missing()}")
            print("| " + " | ".join(row) + " |", flush=True)
            rows.append(row)
            continue
        w = build()
        if w.note:
            notes.append(w.note)
        problems = [msg for name, impl in w.impls.items() if (msg := check(w, name, impl))]
        if any(m.startswith("ferrograd") for m in problems):
            failed = True
        bad = {m.split(":", 1)[0] for m in problems}
        notes.extend(f"{w.label}: {m} — not timed" for m in problems)
        timed = {n: i for n, i in w.impls.items() if n not in bad}
        res = time_in_turns(timed, min_time, max_reps, min_reps, sample_target, turns=2 if args.quick else 4)
        cell = {}
        for n in FRAMEWORKS:
            if n in bad:
                cell[n] = "WRONG"
            elif n not in res:
                cell[n] = "n/a"
            else:
                mode = w.impls[n].mode
                cell[n] = fmt_time(res[n][0]) + (" (fwd)" if mode == "fwd" else "")
        ratio = {}
        for n in ("torch", "numpy"):
            if n in res and "ferrograd" in res:
                r = res[n][0] / res["ferrograd"][0]
                unlike = w.impls[n].mode != w.impls["ferrograd"].mode
                ratio[n] = f"{r:.2f}×" + (" (fwd vs fwd+bwd)" if unlike else "")
            else:
                ratio[n] = "n/a"
        row = [w.label, cell["ferrograd"], cell["numpy"], cell["torch"], ratio["torch"], ratio["numpy"]]
        print("| " + " | ".join(row) + " |", flush=True)
        rows.append(row)
        del w, timed
        gc.collect()

    if notes:
        print("\n" + "\n".join(f"- {n}" for n in notes))
    if args.out:
        append = args.append and os.path.exists(args.out)
        text = [""] if append else ["# ferrograd benchmark results", ""]
        if append:
            text += ["## " + (f"{args.threads} thread(s) per framework" if args.threads else "Another run"), ""]
        else:
            text += [
                "Median time per iteration; ratios are other/ferrograd, so **>1 means ferrograd is faster**. "
                "Each framework's result was checked against a float64 numpy reference before timing. "
                "numpy has no autograd: its column is the forward pass only (fwd), so numpy/ferrograd "
                "compares numpy's forward with ferrograd's forward+backward where marked. Frameworks were "
                "timed in turns (A B C, C B A, ...), each turn after 50 ms of untimed calls so the previous "
                "framework's spinning threads have gone to sleep.",
                "",
                "## "
                + (f"{args.threads} thread(s) per framework" if args.threads else "Each framework's default threads"),
                "",
            ]
        text += header + ["", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        text += ["| " + " | ".join(r) + " |" for r in rows]
        try:
            text += ["", "Load average at end (1/5/15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg())]
        except OSError:
            pass
        if notes:
            text += ["", "Notes:", ""] + [f"- {n}" for n in notes]
        with open(args.out, "a" if append else "w", encoding="utf-8") as f:
            f.write("\n".join(text) + "\n")
        print(f"\nwrote {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
