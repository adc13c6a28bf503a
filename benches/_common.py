"""What the side-by-side benchmarks share: a per-call timer, PyTorch when it is installed, and the lines that
say how a results table was made (command, versions, CPU and load) with writing it out."""

from __future__ import annotations

import os
import sys
import time


def optional_torch():
    """PyTorch if this Python has it (its column stays empty otherwise)."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def per_call(fn, min_time=0.05):
    """Seconds per call of `fn`: one warm-up call, then as many calls as fit in `min_time`."""
    fn()
    reps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < min_time:
        fn()
        reps += 1
    return elapsed / max(reps, 1)


def provenance(versions: str, load_start, load_end) -> list[str]:
    """The table's footnotes: the command that made it, the versions, the cores and the load around the run."""
    return [
        f"- Command: `{' '.join([os.path.relpath(sys.executable), *sys.argv])}`",
        f"- Versions: {versions}",
        f"- CPU: {os.cpu_count()} logical cores; load average (1/5/15 min) at start "
        + " ".join(f"{x:.2f}" for x in load_start)
        + ", at end "
        + " ".join(f"{x:.2f}" for x in load_end),
        "",
    ]


def write_report(path: str | None, lines: list[str]) -> None:
    """Writes the table to `path` (when one is given) and says so."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"\nwrote {path}")
