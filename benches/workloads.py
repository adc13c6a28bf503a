#!/usr/bin/env python3
"""Issue 16's training-step workloads (T1-T7), `(A@B).sum()` fwd+bwd and single float32 functions:
ferrograd against PyTorch in one run, with the peak memory of each.

Every workload runs in fresh child processes, one at a time (never both frameworks at once, so neither's
spinning threads slow the other and `ru_maxrss` is that workload's alone): `--rounds` rounds of one
ferrograd child and one torch child, the order alternating, so that a slow spell of a shared machine falls
on both columns. A child builds the model and data from numpy (same numbers in both
frameworks), computes a check value (the loss in eval mode, or a checksum), runs warm-up steps, then
times steps until it has `--min-time` seconds or `--max-reps` samples and reports the median per step and
its peak RSS above the RSS it had just before the first step. The parent compares the check values (a
mismatch marks the row WRONG and exits 1) and writes the table: each framework's median over its rounds,
their ratio (torch/ferrograd > 1 means ferrograd is faster) and the lowest and highest of the rounds' own
ratios, which show how much the machine moved.

    python benches/workloads.py [--torch-python /path/to/python] [--only T1,T4,matmul] [--rounds N] [--out FILE]
                                [--quick]

Without --torch-python the children use this interpreter, and torch's column is empty if it cannot
import torch. ferrograd's children always use this interpreter.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import models
import numpy as np
from _common import provenance, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(HERE), "python")


@dataclass
class Spec:
    label: str
    build: Callable  # (lib, quick) -> (step, check value)
    target: float  # the target ratio torch/ferrograd
    torch_options: dict | None = None  # passed to the torch side's build (e.g. fused Adam)


# ---------------------------------------------------------------------------------------------------------
# Shared helpers: data from numpy, weights copied in
# ---------------------------------------------------------------------------------------------------------


def tensor(lib, a):
    return lib.from_numpy(np.ascontiguousarray(a))


def init_weights(lib, model, seed: int) -> None:
    """Every parameter from numpy in named_parameters order: matrices and biases uniform in
    ±1/sqrt(fan_in), norm weights one."""
    params = list(model.named_parameters())
    arrays = init_arrays([(name, tuple(p.shape)) for name, p in params], seed)
    with lib.no_grad():
        for (_, p), a in zip(params, arrays):
            p.copy_(tensor(lib, a))


def init_arrays(named_shapes: list[tuple[str, tuple[int, ...]]], seed: int) -> list[np.ndarray]:
    """The numpy arrays `init_weights` copies in, for (name, shape) pairs in named_parameters order (also
    used by benches/peers.py's hand-written JAX models)."""
    r = np.random.default_rng(seed)
    arrays = []
    for name, shape in named_shapes:
        if len(shape) == 1 and ("norm" in name or name.startswith("ln")) and name.endswith("weight"):
            arrays.append(np.ones(shape, np.float32))
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            bound = 1.0 / math.sqrt(fan_in)
            arrays.append(r.uniform(-bound, bound, shape).astype(np.float32))
    return arrays


def eval_loss(lib, model, loss_of) -> float:
    model.eval()
    with lib.no_grad():
        value = float(loss_of())
    model.train()
    return value


def train_step(model, opt, loss_of):
    def step():
        opt.zero_grad()
        loss = loss_of()
        loss.backward()
        opt.step()
        return loss

    return step


# ---------------------------------------------------------------------------------------------------------
# Workloads
# ---------------------------------------------------------------------------------------------------------


def lenet(lib, quick, **_):
    model = models.lenet(lib.nn)
    init_weights(lib, model, 1)
    r = np.random.default_rng(11)
    x = tensor(lib, r.standard_normal((64, 1, 32, 32)).astype(np.float32))
    y = tensor(lib, r.integers(0, 10, 64))
    crit = lib.nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_of = lambda: crit(model(x), y)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def resnet(lib, quick, **_):
    model = models.resnet_small(lib.nn)
    init_weights(lib, model, 3)
    r = np.random.default_rng(13)
    x = tensor(lib, r.standard_normal((32, 3, 32, 32)).astype(np.float32))
    y = tensor(lib, r.integers(0, 10, 32))
    crit = lib.nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    loss_of = lambda: crit(model(x), y)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def mlp_t2(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    init_weights(lib, model, 2)
    return model


def mlp_adam(lib, quick, **_):
    model = mlp_t2(lib)
    r = np.random.default_rng(12)
    x = tensor(lib, r.standard_normal((128, 784)).astype(np.float32))
    y = tensor(lib, r.integers(0, 10, 128))
    crit = lib.nn.CrossEntropyLoss()
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    loss_of = lambda: crit(model(x), y)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def transformer(lib, quick, **_):
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    init_weights(lib, model, 3)
    r = np.random.default_rng(13)
    x = tensor(lib, r.standard_normal((16, 64, 128)).astype(np.float32))
    target = tensor(lib, r.standard_normal((16, 64, 128)).astype(np.float32))
    crit = nn.MSELoss()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    loss_of = lambda: crit(model(x), target)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def lstm(lib, quick, **_):
    nn = lib.nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(64, 128)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[-1])

    model = Tagger()
    init_weights(lib, model, 4)
    r = np.random.default_rng(14)
    x = tensor(lib, r.standard_normal((35, 32, 64)).astype(np.float32))
    y = tensor(lib, r.integers(0, 10, 32))
    crit = lib.nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    loss_of = lambda: crit(model(x), y)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def mlp_inference(lib, quick, **_):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    init_weights(lib, model, 5)
    x = tensor(lib, np.random.default_rng(15).standard_normal((1, 64)).astype(np.float32))

    def step():
        with lib.no_grad():
            return model(x)

    return step, float(step().sum())


def adam_alone(lib, quick, fused=None, **_):
    model = mlp_t2(lib)
    r = np.random.default_rng(16)
    with lib.no_grad():
        for p in model.parameters():
            p.grad = tensor(lib, r.standard_normal(tuple(p.shape)).astype(np.float32))
    params = list(model.parameters())
    opt = lib.optim.Adam(params) if fused is None else lib.optim.Adam(params, fused=fused)
    first = params[0].detach().clone()
    opt.step()
    check = float((params[0] - first).abs().sum())  # the first step moves each element by lr (1e-3)
    return opt.step, check


def char_gpt(lib, quick, **_):
    nn, F = lib.nn, lib.nn.functional
    vocab, dim, heads, ctx, batch = 65, 64, 4, 32, 8

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.ln2 = nn.LayerNorm(dim)
            self.fc = nn.Linear(dim, 4 * dim)
            self.out = nn.Linear(4 * dim, dim)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(dim, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, dim)
            self.pos = nn.Embedding(ctx, dim)
            self.blocks = nn.Sequential(Block(), Block())
            self.ln_f = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(positions)
            return self.head(self.ln_f(self.blocks(x)))

    positions = lib.arange(ctx)
    model = GPT()
    init_weights(lib, model, 7)
    r = np.random.default_rng(17)
    idx = tensor(lib, r.integers(0, vocab, (batch, ctx)))
    targets = tensor(lib, r.integers(0, vocab, (batch * ctx,)))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    loss_of = lambda: F.cross_entropy(model(idx).view(batch * ctx, vocab), targets)
    return train_step(model, opt, loss_of), eval_loss(lib, model, loss_of)


def matmul_sum(n):
    def build(lib, quick, **_):
        r = np.random.default_rng(20 + n)
        a = tensor(lib, r.standard_normal((n, n)).astype(np.float32)).requires_grad_()
        b = tensor(lib, r.standard_normal((n, n)).astype(np.float32)).requires_grad_()

        def step():
            a.grad = b.grad = None
            out = (a @ b).sum()
            out.backward()
            return out

        step()
        return step, float(a.grad.double().sum() + b.grad.double().sum()) / n**2

    return build


def unary(name):
    def build(lib, quick, **_):
        a = np.random.default_rng(30).standard_normal(10**6).astype(np.float32) * 3
        if name == "log":
            a = np.abs(a) + np.float32(1e-3)
        x = tensor(lib, a)
        f = lib.nn.functional.gelu if name == "gelu" else getattr(lib, name)
        return (lambda: f(x)), float(f(x).double().mean())

    return build


UNARY = ("exp", "log", "tanh", "sigmoid", "gelu", "sin", "cos")

SPECS = {
    "T1": Spec("T1 LeNet-5, batch 64×1×32×32, CrossEntropy, SGD momentum", lenet, 1.5),
    "T2": Spec("T2 MLP 784-512-512-10 (Sequential), batch 128, CrossEntropy, Adam", mlp_adam, 1.3),
    "T3": Spec("T3 2 TransformerEncoderLayers d=128, 4 heads, ff 512, 16×64, MSE, AdamW", transformer, 1.2),
    "T4": Spec("T4 LSTM 64→128, 35 steps, batch 32, linear head, SGD", lstm, 2.0),
    "T5": Spec("T5 MLP 64-128-128-10 inference, batch 1, no_grad", mlp_inference, 5.0),
    "T6": Spec("T6 Adam step alone, 669,706 params (torch default Adam)", adam_alone, 2.0),
    "T6f": Spec("T6 Adam step alone (against torch `fused=True`)", adam_alone, 1.0, {"fused": True}),
    "T7": Spec("T7 char-GPT: 2 blocks causal SDPA (4 heads) + MLP + LayerNorm, 8×32, AdamW", char_gpt, 1.5),
}
# a CNN with BatchNorm after every convolution, the layout most image models train with (no T-cell has one)
SPECS["C1"] = Spec("C1 ResNet-8 (CIFAR-style, BatchNorm), batch 32×3×32×32, CrossEntropy, SGD momentum", resnet, 1.2)
SPECS.update({f"matmul{n}": Spec(f"(A@B).sum() fwd+bwd, n = {n}", matmul_sum(n), 1.0) for n in (256, 1024, 2048)})
SPECS.update({name: Spec(f"{name}, 1e6 float32 (forward)", unary(name), 1.0) for name in UNARY})
GROUPS = {"T": [k for k in SPECS if k.startswith("T")], "matmul": [k for k in SPECS if k.startswith("matmul")]}
GROUPS["unary"] = list(UNARY)
GROUPS["cnn"] = ["C1"]


# ---------------------------------------------------------------------------------------------------------
# Child: one workload, one framework
# ---------------------------------------------------------------------------------------------------------


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(key: str, framework: str, min_time: float, max_reps: int, quick: bool) -> dict:
    if framework == "torch":
        import torch as lib

        if os.environ.get("OMP_NUM_THREADS"):
            lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    else:
        import ferrograd as lib
    spec = SPECS[key]
    options = spec.torch_options if framework == "torch" and spec.torch_options else {}
    step, check = spec.build(lib, quick, **options)
    base = rss_bytes()
    median, count = time_steps(step, min_time, max_reps, quick)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    threads = lib.get_num_threads() if hasattr(lib, "get_num_threads") else None
    return {
        "median": median,
        "samples": count,
        "check": check,
        "peak_above_setup": max(0, peak - base),
        "peak": peak,
        "version": lib.__version__,
        "threads": threads,
    }


def time_steps(step: Callable, min_time: float, max_reps: int, quick: bool) -> tuple[float, int]:
    """Warm up, then the median seconds per call of `step` and the number of samples."""
    # warm-up: first-call caches, allocator pools, thread pools
    end = time.perf_counter() + (0.05 if quick else 0.3)
    warm = 0
    while warm < 3 or time.perf_counter() < end:
        step()
        warm += 1
    # calls shorter than 1 ms are batched so the timer's own cost does not show
    t0 = time.perf_counter()
    step()
    once = time.perf_counter() - t0
    number = max(1, int(1e-3 / max(once, 1e-9)))
    samples, spent = [], 0.0
    while len(samples) < 5 or (spent < min_time and len(samples) < max_reps):
        t0 = time.perf_counter()
        for _ in range(number):
            step()
        dt = time.perf_counter() - t0
        spent += dt
        samples.append(dt / number)
    return statistics.median(samples), len(samples)


# ---------------------------------------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------------------------------------


def run_child(python: str | list[str], key: str, framework: str, args, script: str = __file__, env_extra=None) -> dict:
    """Runs `script --child key --framework framework` in a fresh process (`python` may be a command line, e.g.
    under taskset); its last stdout line is JSON."""
    cmd = [*([python] if isinstance(python, str) else python), os.path.abspath(script), "--child", key]
    cmd += ["--framework", framework]
    cmd += ["--min-time", str(args.min_time), "--max-reps", str(args.max_reps)] + (["--quick"] if args.quick else [])
    env = {**os.environ, **(env_extra or {})}
    if args.threads:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "FERROGRAD_NUM_THREADS"):
            env[var] = str(args.threads)
    if framework == "ferrograd":
        env["PYTHONPATH"] = PACKAGE + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def torch_python(args) -> str | None:
    if args.torch_python:
        return args.torch_python
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    return sys.executable if probe.returncode == 0 else None


def summarise(results: list[dict]) -> dict:
    """One framework's rounds of a workload: the median of the children's medians, the highest peak RSS;
    the first error if any child failed."""
    if not results:
        return {}
    for r in results:
        if "error" in r:
            return r
    medians = [r["median"] for r in results]
    return {
        "median": statistics.median(medians),
        "medians": medians,
        "check": results[0]["check"],
        "peak_above_setup": max(r["peak_above_setup"] for r in results),
    }


def fmt_time(s: float) -> str:
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def fmt_mb(b: int) -> str:
    return f"{b / 2**20:.1f} MB"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torch-python", default="", help="a Python that imports torch (default: this one if it does)")
    p.add_argument("--only", default="", help="comma-separated keys or groups: T (T1-T7), matmul, unary, T4, exp, ...")
    p.add_argument("--out", default="", help="write the markdown table to this file")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds of timed steps per child")
    p.add_argument("--max-reps", type=int, default=300)
    p.add_argument("--rounds", type=int, default=3, help="alternating child pairs per workload (default 3)")
    p.add_argument("--threads", type=int, default=0, help="threads for both frameworks (default: their own)")
    p.add_argument("--quick", action="store_true", help="a smoke run: few, short samples")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    p.add_argument("--framework", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.min_time, args.max_reps, args.rounds = min(args.min_time, 0.05), min(args.max_reps, 5), 1
    if args.child:
        print(json.dumps(child(args.child, args.framework, args.min_time, args.max_reps, args.quick)))
        return 0

    keys = []
    for item in filter(None, (s.strip() for s in args.only.split(","))):
        if item not in SPECS and item not in GROUPS:
            p.error(f"unknown workload {item}; known: {', '.join([*GROUPS, *SPECS])}")
        keys += GROUPS.get(item, [item])
    keys = keys or list(SPECS)
    th_py = torch_python(args)
    load_start = os.getloadavg()
    cols = [
        "workload",
        "torch",
        "ferrograd",
        "torch/ferrograd",
        "rounds' range",
        "target",
        "peak RSS torch",
        "peak RSS ferrograd",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    print("\n".join(lines), flush=True)
    failed, versions = False, {}
    frameworks = ["ferrograd"] + (["torch"] if th_py is not None else [])
    for i, key in enumerate(keys):
        rounds: dict[str, list[dict]] = {fw: [] for fw in frameworks}
        for j in range(max(1, args.rounds)):
            for fw in frameworks if (i + j) % 2 == 0 else frameworks[::-1]:
                r = run_child(sys.executable if fw == "ferrograd" else th_py, key, fw, args)
                rounds[fw].append(r)
                if "version" in r:
                    versions[fw] = (r["version"], r["threads"])
        fg_r, th_r = summarise(rounds.get("ferrograd", [])), summarise(rounds.get("torch", []))
        spec = SPECS[key]
        cell = lambda r: fmt_time(r["median"]) if "median" in r else ("error: " + r["error"] if r else "n/a")
        ratio, spread, met = "n/a", "", ""
        if "median" in fg_r and "median" in th_r:
            a, b = fg_r["check"], th_r["check"]
            if abs(a - b) > 1e-3 * max(1.0, abs(b)):
                failed = True
                ratio = f"WRONG (check {a:.6g} vs torch {b:.6g})"
            else:
                r = th_r["median"] / fg_r["median"]
                per_round = [t / f for t, f in zip(th_r["medians"], fg_r["medians"])]
                ratio, met = f"{r:.2f}×", "met" if r >= spec.target else "missed"
                spread = f"{min(per_round):.2f}–{max(per_round):.2f}"
        elif "error" in fg_r:
            failed = True
        rss = lambda r: fmt_mb(r["peak_above_setup"]) if "peak_above_setup" in r else ""
        row = [
            spec.label,
            cell(th_r),
            cell(fg_r),
            ratio,
            spread,
            f"≥ {spec.target:g}× {met}".strip(),
            rss(th_r),
            rss(fg_r),
        ]
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    load_end = os.getloadavg()
    header = [
        "# ferrograd against PyTorch: issue 16's workloads",
        "",
        "Median time per training step (or op); **torch/ferrograd > 1 means ferrograd is faster**. Each "
        f"workload ran in {max(1, args.rounds)} rounds of one child process per framework (one at a time, the "
        "order alternating); a time is the median over the rounds of each child's median, and the rounds' "
        "range is the lowest and highest ratio of one round's pair. Peak RSS is the children's highest "
        "high-water mark above their RSS just before the first step (model, data and imports excluded). "
        + (
            "Both frameworks at their default threads"
            if not args.threads
            else f"Both frameworks at {args.threads} thread(s)"
        )
        + "; check values (eval-mode loss or a checksum) compared first.",
        "",
        *provenance(
            ", ".join(f"{fw} {v} ({t} threads)" for fw, (v, t) in sorted(versions.items())), load_start, load_end
        ),
    ]
    write_report(args.out, header + lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
