"""Where each T-cell's eager step goes, and so what a compiler could gain at most (issue 27: "each T-cell compiled
at least 1.3× faster than eager, or an explanation, measured, of why not"). Each cell's step runs under
`ferrograd.profiler` and every op's self time is put in a class:

- matrix products: GEMMs, convolutions, the LSTM layer and attention, forward and backward (what fusion cannot
  shorten: a fused epilogue saves the pass over the output, not the product);
- the optimizer's fused step (one call over all parameters already);
- dropout's draws (torch's Mersenne-Twister stream, one 64-bit word per element, kept for torch's numbers);
- every other op (elementwise, norms, softmax, copies, pooling, losses), which fusion could at best remove;
- the time outside any op (Python, the module calls, the autograd engine's own bookkeeping).

The ceiling is the step time over the first three: a compiler that made every other op and all the Python free.
The profiler's own cost is taken out by scaling the op times to the unprofiled step. A benchmark, not a test.

    python benches/compile_ceiling.py [--only T1,T7] [--threads 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads

CELLS = ("T1", "T2", "T3", "T4", "T5", "T7")
CLASSES = {
    "products": re.compile(
        r"addmm|linear|^aten::mm$|MmBackward|bmm|matmul|convolution|lstm|rnn|scaled_dot|attention", re.I
    ),
    "optimizer": re.compile(r"_fused_(adam|adamw|sgd)"),
    "dropout": re.compile(r"dropout|bernoulli", re.I),
}


def child(key: str) -> dict:
    import ferrograd as lib
    from ferrograd.profiler import profile

    lib.manual_seed(0)
    step, _ = workloads.SPECS[key].build(lib, False)
    for _ in range(10):
        step()
    reps = 400 if key == "T5" else 30
    walls = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            step()
        walls.append((time.perf_counter() - t0) / reps)
    with profile() as prof:
        for _ in range(reps):
            step()
    times = dict.fromkeys([*CLASSES, "other ops"], 0.0)
    for event in prof.key_averages():
        name = next((c for c, pattern in CLASSES.items() if pattern.search(event.key)), "other ops")
        times[name] += event.self_cpu_time_total * 1e-6 / reps
    return {"wall": min(walls), "times": times}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(CELLS))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--child")
    args = p.parse_args()
    if args.child:
        import ferrograd

        ferrograd.set_num_threads(args.threads)
        print(json.dumps(child(args.child)))
        return 0
    head = "| cell | eager step | " + " | ".join(CLASSES) + " | other ops | outside ops | ceiling |"
    rows = [head, "|---" * (len(CLASSES) + 5) + "|"]
    for key in args.only.split(","):
        cmd = [sys.executable, __file__, "--child", key, "--threads", str(args.threads)]
        result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        wall, times = result["wall"], result["times"]
        profiled = sum(times.values())
        scale = wall / profiled if profiled > wall else 1.0
        share = {k: v * scale / wall for k, v in times.items()}
        outside = 1.0 - sum(share.values())
        fixed = sum(share[c] for c in CLASSES)
        cells = " | ".join(f"{share[c]:.0%}" for c in [*CLASSES, "other ops"])
        rows.append(
            f"| {workloads.SPECS[key].label} | {workloads.fmt_time(wall)} | {cells} | {outside:.0%} | "
            f"**{1 / fixed:.2f}×** |"
        )
        print(rows[-1], flush=True)
    table = "\n".join(rows)
    if args.out:
        with open(args.out, "w") as f:
            f.write(
                "# Where the T-cells' eager steps go: the ceiling of a compiler's gain\n\n"
                f"Command: `python {' '.join(sys.argv)}`\n\n{table}\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
