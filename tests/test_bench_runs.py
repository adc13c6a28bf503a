"""Smoke tests of the benchmark harnesses: they run and print ferrograd's figures. They never assert times."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_bench(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benches" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")])),
        },
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_quick_benchmark_runs_and_prints_ferrograd_rows():
    lines = _run_bench("run.py", "--quick", "--only", "tutorial,chain").splitlines()
    header = next(line for line in lines if line.startswith("| workload"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    col = cells.index("ferrograd")
    for name in ("tutorial", "chain"):
        row = next((line for line in lines if line.startswith(f"| {name}")), None)
        assert row is not None, f"no table row for {name}:\n{lines}"
        ferrograd_cell = [c.strip() for c in row.strip("|").split("|")][col]
        assert re.fullmatch(r"[0-9.]+ (µs|ms|s)", ferrograd_cell), row


def test_memory_benchmark_runs_and_prints_a_ferrograd_row():
    out = _run_bench("memory.py", "--steps", "8", "--frameworks", "ferrograd")
    row = next((line for line in out.splitlines() if line.startswith("| ferrograd")), None)
    assert row is not None and re.fullmatch(r"\| ferrograd \| -?[0-9.]+ MiB \| -?[0-9.]+ MiB \|", row), out


def test_workloads_benchmark_runs_and_prints_ferrograd_rows():
    out = _run_bench("workloads.py", "--quick", "--only", "T4,T5,exp")
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    cells = [c.strip() for c in lines[0].strip("|").split("|")]
    col = cells.index("ferrograd")
    for label in ("T4 LSTM", "T5 MLP", "exp, 1e6"):
        row = next((line for line in lines if line.startswith(f"| {label}")), None)
        assert row is not None, f"no table row for {label}:\n{out}"
        assert re.fullmatch(r"[0-9.]+ (µs|ms)", [c.strip() for c in row.strip("|").split("|")][col]), row


def test_peers_benchmark_runs_the_ferrograd_column_alone():
    # the peer columns need torch and jax, which the test venv lacks; `--columns none` runs ferrograd's alone
    out = _run_bench("peers.py", "--quick", "--only", "T5,expsum", "--columns", "none")
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    cells = [c.strip() for c in lines[0].strip("|").split("|")]
    col = cells.index("ferrograd")
    for label in ("T5 MLP", "(x*x + x).exp().sum()"):
        row = next((line for line in lines if line.startswith(f"| {label}")), None)
        assert row is not None, f"no table row for {label}:\n{out}"
        assert re.fullmatch(r"[0-9.]+ (µs|ms)", [c.strip() for c in row.strip("|").split("|")][col]), row


def test_op_sweep_runs_its_ferrograd_child():
    # the parent needs a Python with torch; its ferrograd child alone reports each op's time and checksum
    out = _run_bench("op_sweep.py", "--torch-python", "-", "--child", "ferrograd", "--only", "flip(1)")
    results = json.loads(out.splitlines()[-1])
    assert set(results) == {"flip(1)", "flip(1) bwd"}, results
    for seconds, check in results.values():
        assert seconds > 0 and check > 0
