"""ferrograd compiled against ferrograd eager on the T-cells (issue 27): each cell's model under `model.compile()`
(the whole forward in one graph), and each cell's whole step under `ferrograd.compile` (zero_grad, forward,
backward and the optimizer's update in one graph), one child process per column, the columns alternating over the
rounds. Each compiled column compiles with `fullgraph=True` (a graph break raises), and every child records the
5th step's loss, which the table compares. A benchmark, not a test.

    python benches/compile_models.py [--only T1,T5] [--rounds 3] [--threads 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads

CELLS = ("T1", "T2", "T3", "T4", "T5", "T7")
COLUMNS = ("eager", "compiled", "step")


def child(key: str, column: str, min_time: float, max_reps: int) -> dict:
    import ferrograd as lib

    if column == "compiled":
        plain_init = workloads.init_weights

        def init_and_compile(lib, model, seed):
            plain_init(lib, model, seed)
            model.compile(fullgraph=True)  # a graph break raises: the column is the whole model compiled

        workloads.init_weights = init_and_compile
    lib.manual_seed(0)
    t0 = time.perf_counter()
    step, _ = workloads.SPECS[key].build(lib, False)
    if column == "step":
        step = lib.compile(step, fullgraph=True)
    result = step()
    first = time.perf_counter() - t0
    for _ in range(4):
        result = step()
    loss5 = float(result.double().sum())
    median, count = workloads.time_steps(step, min_time, max_reps, False)
    return {"median": median, "samples": count, "first": first, "loss5": loss5}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(CELLS))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--min-time", type=float, default=0.5)
    p.add_argument("--max-reps", type=int, default=60)
    p.add_argument("--quick", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--out")
    p.add_argument("--child")
    p.add_argument("--framework")
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.framework, args.min_time, args.max_reps)))
        return 0
    rows = [
        "| cell | eager | model compiled | step compiled | model ÷ eager speed | step ÷ eager speed | rounds' range "
        "(model; step) | 1st step (eager / model / step) |"
    ]
    rows.append("|---|---|---|---|---|---|---|---|")
    for key in args.only.split(","):
        runs: dict[str, list[dict]] = {c: [] for c in COLUMNS}
        for r in range(args.rounds):
            for column in COLUMNS if r % 2 == 0 else reversed(COLUMNS):
                runs[column].append(workloads.run_child(sys.executable, key, column, args, script=__file__))
        errors = [r["error"] for rs in runs.values() for r in rs if "error" in r]
        if errors:
            rows.append(f"| {key} | error: {errors[0]} | | | | | | |")
            continue
        losses = {r["loss5"] for rs in runs.values() for r in rs}
        if max(losses) - min(losses) > 1e-6 * max(1.0, abs(max(losses))):
            rows.append(f"| {key} | 5th-step losses differ: {sorted(losses)} | | | | | | |")
            continue
        med = {c: statistics.median(r["median"] for r in runs[c]) for c in COLUMNS}
        spans = []
        for c in ("compiled", "step"):
            ratios = [e["median"] / x["median"] for e, x in zip(runs["eager"], runs[c])]
            spans.append(f"{min(ratios):.2f}–{max(ratios):.2f}")
        first = {c: statistics.median(r["first"] for r in runs[c]) for c in COLUMNS}
        rows.append(
            f"| {workloads.SPECS[key].label} | {workloads.fmt_time(med['eager'])} | "
            f"{workloads.fmt_time(med['compiled'])} | {workloads.fmt_time(med['step'])} | "
            f"**{med['eager'] / med['compiled']:.2f}×** | **{med['eager'] / med['step']:.2f}×** | {'; '.join(spans)} | "
            f"{first['eager']:.2f} s / {first['compiled']:.2f} s / {first['step']:.2f} s |"
        )
        print(rows[-1], flush=True)
    table = "\n".join(rows)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# ferrograd compiled against eager\n\nCommand: `python {' '.join(sys.argv)}`\n\n{table}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
