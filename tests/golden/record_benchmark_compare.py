"""Records torch's `utils.benchmark.Compare` tables for tests/test_func_support.py; run with torch's Python:
`/work/torchvenv/bin/python tests/golden/record_benchmark_compare.py`. The measurements are the test's."""

import json
import os

from torch.utils.benchmark import Compare
from torch.utils.benchmark.utils.common import Measurement, TaskSpec


def measurement(times, **task):
    spec = TaskSpec(stmt="f(x)", setup="pass", **task)
    return Measurement(number_per_run=10, raw_times=[t * 10 for t in times], task_spec=spec)


def main():
    results = []
    for threads in (1, 2):
        for sub, scale in (("[1, 1]", 1), ("[64, 1024]", 12), ("[1024, 1024]", 310)):
            for desc, base in (("mul/sum", 3e-6), ("bmm", 8e-6)):
                t = base * scale / threads
                spread = 0.6 if (sub, desc) == ("[64, 1024]", "bmm") else 0.01
                times = [t, t * (1 + spread / 3), t * (1 + spread), t * (1 + spread / 2)]
                results.append(measurement(times, label="Batched dot", sub_label=sub, description=desc,
                                           num_threads=threads))  # fmt: skip
    for env, t in (("A", 1e-3), ("B", 2e-3)):
        results.append(measurement([t] * 4, label="Env", sub_label="y", description="c", num_threads=1, env=env))
    compare = Compare(results)
    tables = [str(compare)]
    compare.trim_significant_figures()
    tables.append(str(compare))
    compare.colorize()
    tables.append(str(compare))
    compare.colorize(rowwise=True)
    compare.highlight_warnings()
    tables.append(str(compare))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmark_compare.json")
    recorded_with = (
        "torch 2.15.0 (CPU): str(Compare(...)) of the measurements tests/test_func_support.py makes, plain, "
        "trimmed, colorized by column, then by row with warnings highlighted"
    )
    with open(out, "w") as f:
        json.dump({"recorded_with": recorded_with, "tables": tables}, f, indent=1)


if __name__ == "__main__":
    main()
