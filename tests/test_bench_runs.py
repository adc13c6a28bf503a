"""Smoke test of the benchmark harness: it runs and prints a ferrograd timing. It never asserts times."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_runs_and_prints_ferrograd_rows():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benches" / "run.py"), "--quick", "--only", "tutorial,chain"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")]))},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| workload"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    col = cells.index("ferrograd")
    for name in ("tutorial", "chain"):
        row = next((line for line in lines if line.startswith(f"| {name}")), None)
        assert row is not None, f"no table row for {name}:\n{proc.stdout}"
        ferrograd_cell = [c.strip() for c in row.strip("|").split("|")][col]
        assert re.fullmatch(r"[0-9.]+ (µs|ms|s)", ferrograd_cell), row
