"""Records torch's `utils.benchmark.Compare` tables for tests/test_func_support.py; run with torch's Python:
`/work/torchvenv/bin/python tests/golden/record_benchmark_compare.py`. The measurements are the test's."""

import json
import os

import _torch_path  # noqa: F401  (first: tests/ on the path)
import benchmark_compare_cases
from torch.utils.benchmark import Compare
from torch.utils.benchmark.utils.common import Measurement, TaskSpec


def measurement(times, **task):
    spec = TaskSpec(stmt="f(x)", setup="pass", **task)
    return Measurement(number_per_run=10, raw_times=[t * 10 for t in times], task_spec=spec)


def main():
    tables = benchmark_compare_cases.tables(Compare(benchmark_compare_cases.measurements(measurement)))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmark_compare.json")
    recorded_with = (
        "torch 2.15.0 (CPU): str(Compare(...)) of the measurements tests/test_func_support.py makes, plain, "
        "trimmed, colorized by column, then by row with warnings highlighted"
    )
    with open(out, "w") as f:
        json.dump({"recorded_with": recorded_with, "tables": tables}, f, indent=1)


if __name__ == "__main__":
    main()
