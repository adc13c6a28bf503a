#!/usr/bin/env python3
"""Issue 27's peers benchmark: benches/workloads.py's training cells (T1-T7) and the expsum chain
`(x*x + x).exp().sum()` over 1e6 float32, ferrograd (eager and `ferrograd.compile`) against eager PyTorch,
`torch.compile` and JAX.

    python benches/peers.py --torch-python /work/torchenv/bin/python --jax-python /work/jaxenv/bin/python
                            [--only T2,T3,expsum] [--rounds 2] [--threads 2] [--columns fgcompile,torch,compile,jax]
                            [--out FILE] [--quick]

Reuses workloads.py: its models (ferrograd's and both torch columns' steps are workloads' own builders), its
child-process machinery (`run_child`: every child is a fresh process, one at a time, the order rotating each
round) and its timing loop (`time_steps`: warm-up, then the median of batched samples). JAX's models are
written by hand in benches/peers_jax.py from the same numpy weights (workloads.init_arrays) and data.

Columns:
- ferrograd: eager. ferrograd compiled: `ferrograd.compile`, the faster of compiling the model (`model.compile()`)
  and compiling the whole step, as for torch.compile below.
- torch: eager PyTorch (workloads' builders; T6 against torch's default Adam, T6f against `fused=True`).
- torch.compile: inductor, the faster of compiling the model in place (`model.compile()`, hooked into
  workloads.init_weights) and compiling the whole step function (`torch.compile(step)`); T6 and expsum have
  no model, so only the step.
- JAX: one `jax.jit` over forward, loss, backward and the optax update (benches/peers_jax.py).

Threads: every child gets OMP_NUM_THREADS / MKL_NUM_THREADS / OPENBLAS_NUM_THREADS / FERROGRAD_NUM_THREADS =
--threads (default 2; the torch children also call `torch.set_num_threads`, see workloads.child), XLA_FLAGS =
`--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=N` for JAX, and all children run under
`taskset` on the first N CPUs when taskset exists.

Checks before any time is believed: every column's eval-mode loss (or checksum) at the start, and the loss
(or output sum) returned by the 5th step, are compared with ferrograd's (relative tolerance 2e-3); a mismatch
marks the row WRONG and the run exits 1. T3's 5th-step loss is not compared (its dropout masks are
framework-specific). "build + 1st step" is the wall time from building the model (numpy weights, the start
check) to the end of the first step: it contains torch.compile's compile time and JAX's jit time.

Ratio: best peer's step time / ferrograd's, eager or compiled, whichever is faster (what a user would run; > 1:
ferrograd faster); the issue's goal is >= 1.2 on every T row.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

import workloads
from _common import provenance, write_report
from workloads import SPECS, Spec, fmt_time, run_child, summarise

HERE = os.path.dirname(os.path.abspath(__file__))
GOAL = 1.2
TOLERANCE = 2e-3
NO_LOSS5 = {"T3"}  # dropout masks differ between frameworks


def expsum(lib, quick, **_):
    import numpy as np

    x = workloads.tensor(lib, np.random.default_rng(40).uniform(-1, 1, 10**6).astype(np.float32))
    f = lambda: (x * x + x).exp().sum()
    return f, float(f())


PEER_SPECS: dict[str, Spec] = {k: v for k, v in SPECS.items() if k.startswith("T")}
PEER_SPECS["expsum"] = Spec("(x*x + x).exp().sum(), 1e6 float32 (forward)", expsum, 1.0)
COMPILE_VARIANTS = ("compile-model", "compile-step")
FG_COMPILE_VARIANTS = ("fg-compile-model", "fg-compile-step")
NO_MODEL = {"T6", "T6f", "expsum"}


# ---------------------------------------------------------------------------------------------------------
# Child
# ---------------------------------------------------------------------------------------------------------


def build(key: str, framework: str, quick: bool):
    """(step, start check, library) for one column."""
    if framework == "jax":
        import jax
        import peers_jax

        step, check = peers_jax.BUILDERS[key]()
        return step, check, ("jax", jax.__version__)
    ours = framework == "ferrograd" or framework.startswith("fg-")
    if ours:
        import ferrograd as lib
    else:
        import torch as lib

        if os.environ.get("OMP_NUM_THREADS"):
            lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    spec = PEER_SPECS[key]
    options = spec.torch_options if not ours and spec.torch_options else {}
    if framework.endswith("compile-model"):
        plain_init = workloads.init_weights

        def init_and_compile(lib, model, seed):
            plain_init(lib, model, seed)
            model.compile()

        workloads.init_weights = init_and_compile
    step, check = spec.build(lib, quick, **options)
    if framework.endswith("compile-step"):
        step = lib.compile(step)
    return step, check, (framework, lib.__version__)


def value_of(result) -> float | None:
    if result is None:
        return None
    if hasattr(result, "double"):  # ferrograd / torch tensor
        return float(result.double().sum())
    return float(result.sum())  # jax array


def child(key: str, framework: str, min_time: float, max_reps: int, quick: bool) -> dict:
    ours = framework == "ferrograd" or framework.startswith("fg-")
    __import__("jax" if framework == "jax" else "ferrograd" if ours else "torch")  # not timed
    t0 = time.perf_counter()
    step, check, (name, version) = build(key, framework, quick)
    result = step()
    first = time.perf_counter() - t0
    for _ in range(4):
        result = step()
    loss5 = value_of(result)
    median, count = workloads.time_steps(step, min_time, max_reps, quick)
    return {
        "median": median,
        "samples": count,
        "check": check,
        "loss5": loss5,
        "first": first,
        "version": f"{name} {version}",
        "peak_above_setup": 0,
    }


# ---------------------------------------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------------------------------------


def pinned_env(threads: int) -> dict:
    return {
        "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={threads}",
        "FERROGRAD_NUM_THREADS": str(threads),
    }


def close(a: float | None, b: float | None) -> bool:
    return a is None or b is None or abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def summary_with_first(rounds: list[dict]) -> dict:
    s = summarise(rounds)
    if "median" in s:
        s["first"] = min(r["first"] for r in rounds)
        s["loss5"] = rounds[0]["loss5"]
    return s


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torch-python", default="", help="a Python that imports torch")
    p.add_argument("--jax-python", default="", help="a Python that imports jax and optax")
    p.add_argument("--only", default="", help=f"comma-separated keys: {', '.join(PEER_SPECS)}")
    p.add_argument(
        "--columns",
        default="fgcompile,torch,compile,jax",
        help="columns to run besides ferrograd's eager one: fgcompile (ferrograd.compile), torch, compile, jax",
    )
    p.add_argument("--out", default="", help="write the markdown table to this file")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds of timed steps per child")
    p.add_argument("--max-reps", type=int, default=300)
    p.add_argument("--rounds", type=int, default=2, help="rounds of one child per column (default 2)")
    p.add_argument("--threads", type=int, default=2, help="threads for every framework (default 2)")
    p.add_argument("--quick", action="store_true", help="a smoke run: few, short samples, one round")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    p.add_argument("--framework", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.min_time, args.max_reps, args.rounds = min(args.min_time, 0.05), min(args.max_reps, 5), 1
    if args.child:
        sys.path.insert(0, HERE)
        print(json.dumps(child(args.child, args.framework, args.min_time, args.max_reps, args.quick)))
        return 0

    if args.threads < 1:
        p.error("--threads must be at least 1 (every framework is pinned to it)")
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or list(PEER_SPECS)
    for k in keys:
        if k not in PEER_SPECS:
            p.error(f"unknown workload {k}; known: {', '.join(PEER_SPECS)}")
    wanted = {c.strip() for c in args.columns.split(",") if c.strip()}
    pythons = {"ferrograd": sys.executable}
    if "fgcompile" in wanted:
        pythons.update({v: sys.executable for v in FG_COMPILE_VARIANTS})
    if args.torch_python and "torch" in wanted:
        pythons["torch"] = args.torch_python
    if args.torch_python and "compile" in wanted:
        pythons.update({v: args.torch_python for v in COMPILE_VARIANTS})
    if args.jax_python and "jax" in wanted:
        pythons["jax"] = args.jax_python
    taskset = shutil.which("taskset")
    cpus = ",".join(str(i) for i in range(min(args.threads, os.cpu_count() or 1)))
    env_extra = pinned_env(args.threads)
    load_start = os.getloadavg()
    cols = ["workload", "ferrograd", "ferrograd compiled", "torch", "torch.compile", "JAX", "best peer / ferrograd"]
    cols += ["goal", "build + 1st step (fg / fg compiled / torch / compile / JAX)", "loss at step 5 (fg)"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    print("\n".join(lines), flush=True)
    failed, versions = False, {}
    for i, key in enumerate(keys):
        frameworks = [fw for fw in pythons if not (fw.endswith("compile-model") and key in NO_MODEL)]
        rounds: dict[str, list[dict]] = {fw: [] for fw in frameworks}
        for j in range(max(1, args.rounds)):
            shift = (i + j) % len(frameworks)
            for fw in frameworks[shift:] + frameworks[:shift]:
                python = [taskset, "-c", cpus, pythons[fw]] if taskset else [pythons[fw]]
                r = run_child(python, key, fw, args, script=__file__, env_extra=env_extra)
                rounds[fw].append(r)
                if "version" in r:
                    versions[fw] = r["version"]
        s = {fw: summary_with_first(rs) for fw, rs in rounds.items()}
        for column, variants in (("compile", COMPILE_VARIANTS), ("fgcompile", FG_COMPILE_VARIANTS)):
            compiled = [s[v] for v in variants if "median" in s.get(v, {})]
            if compiled:
                best = min(compiled, key=lambda r: r["median"])
                s[column] = {**best, "which": "model" if best is s.get(variants[0]) else "step"}
            else:
                s[column] = next((s[v] for v in variants if v in s), {})
        fg = s["ferrograd"]
        wrong = []
        if "median" in fg:
            for col in ("fgcompile", "torch", "compile", "jax"):
                r = s.get(col, {})
                if "median" not in r:
                    continue
                if not close(r["check"], fg["check"]):
                    wrong.append(f"{col} start check {r['check']:.6g} vs {fg['check']:.6g}")
                if key not in NO_LOSS5 and not close(r["loss5"], fg["loss5"]):
                    wrong.append(f"{col} step-5 {r['loss5']:.6g} vs {fg['loss5']:.6g}")
        else:
            failed = True

        def cell(col, s=s):
            r = s.get(col, {})
            if "median" in r:
                return fmt_time(r["median"]) + (f" ({r['which']})" if "which" in r else "")
            return ("error: " + r["error"][:80]) if "error" in r else "n/a"

        peers = [s[c]["median"] for c in ("torch", "compile", "jax") if "median" in s.get(c, {})]
        ratio, met = "n/a", ""
        if wrong:
            failed = True
            ratio = "WRONG (" + "; ".join(wrong) + ")"
        elif peers and "median" in fg:
            ours = min(s[c]["median"] for c in ("ferrograd", "fgcompile") if "median" in s.get(c, {}))
            r = min(peers) / ours
            ratio = f"{r:.2f}×" + (" (compiled)" if ours < fg["median"] else "")
            met = ("met" if r >= GOAL else "missed") if key.startswith("T") else ""
        first = " / ".join(
            f"{s[c]['first']:.2f} s" if "first" in s.get(c, {}) else "–"
            for c in ("ferrograd", "fgcompile", "torch", "compile", "jax")
        )
        loss5 = f"{fg['loss5']:.6g}" if fg.get("loss5") is not None else "–"
        goal = f"≥ {GOAL:g}× {met}".strip() if key.startswith("T") else ""
        row = [PEER_SPECS[key].label, cell("ferrograd"), cell("fgcompile"), cell("torch"), cell("compile"), cell("jax")]
        row += [ratio, goal]
        lines.append("| " + " | ".join(row + [first, loss5]) + " |")
        print(lines[-1], flush=True)
    load_end = os.getloadavg()
    header = [
        "# ferrograd (eager and compiled) against eager PyTorch, torch.compile and JAX: issue 27",
        "",
        "Median time per training step (or call); **best peer / ferrograd > 1 means ferrograd is faster**. "
        f"{max(1, args.rounds)} rounds of one fresh child process per column, one at a time, the order rotating; "
        f"a time is the median over the rounds. Every framework at {args.threads} thread(s). Each compiled column is "
        "the faster of compiling the model and compiling the whole step (which one in brackets); the ratio takes "
        "ferrograd's faster column, eager or compiled (marked). Start checks and step-5 losses compared first "
        "(T3's step-5 loss excluded: dropout masks differ).",
        "",
        *provenance(", ".join(f"{fw}: {v}" for fw, v in sorted(versions.items())), load_start, load_end),
    ]
    write_report(args.out, header + lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
