#!/usr/bin/env python3
"""How long `import ferrograd` takes in a fresh interpreter, beside `import numpy` and `import torch`.

    python benches/import_time.py                      # builds a release wheel, installs it in a clean venv
    python benches/import_time.py --wheel dist/ferrograd-0.1.0-*.whl [--venv /tmp/fg-venv]
    python benches/import_time.py --python .venv/bin/python   # whatever that interpreter imports, as it is
    ... [-n 31] [--torch-python /path/to/python] [--numpy-python PY] [--baseline before=/tmp/old/bin/python]
        [--valgrind]

The wheel goes into a new venv (no pip, no setuptools: nothing on the path but the stdlib and ferrograd),
its bytecode compiled first: a user's second import reads `.pyc` files, and timing the compilation instead
would be meaningless. Every sample is a new interpreter (`python -c "import X"`, started in an empty
directory, without PYTHONPATH and with bytecode writing allowed), timing the import statement inside the
process: wall clock (`perf_counter`) and this process's CPU time (`process_time`, which other load on the
machine disturbs less). Targets are run in turns (A B C, C B A, ...) so that slow drift in the machine's
load is shared; reported is the median of N samples each, and ratios against torch and numpy. Then
`python -X importtime` (median over several runs) names the modules below `ferrograd` that cost most.

`--baseline LABEL=PYTHON` adds another interpreter that imports some other ferrograd (say, a venv with the
previous wheel) to the same turns, for a before/after measured under the same load. On a busy machine the
times swell (other processes take the cores and the caches); `--valgrind` adds a count of the instructions
each import executes, which load does not change.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Timing code run in each fresh interpreter: wall and CPU seconds of the import, and whether numpy came along.
PROBE = (
    "import time\n"
    "w0 = time.perf_counter(); c0 = time.process_time()\n"
    "import {module}\n"
    "w1 = time.perf_counter(); c1 = time.process_time()\n"
    "import sys\n"
    "print(w1 - w0, c1 - c0, 'numpy' in sys.modules)\n"
)

IMPORTTIME_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


@dataclass
class Target:
    label: str
    python: str
    module: str
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    pulls_numpy: bool = False


def clean_env() -> dict[str, str]:
    """The caller's environment minus what would change what is imported or whether `.pyc` files are used."""
    env = dict(os.environ)
    for var in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT"):
        env.pop(var, None)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run_python(python: str, args: list[str], cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([python, *args], cwd=cwd, env=clean_env(), capture_output=True, text=True, check=True)


def build_wheel(out_dir: Path) -> Path:
    maturin = shutil.which("maturin", path=str(Path(sys.executable).parent)) or shutil.which("maturin")
    if maturin is None:
        sys.exit("maturin not found: pass --wheel or --python, or run from the dev venv (make build-fast)")
    print(f"building a release wheel into {out_dir} (a few minutes) ...", flush=True)
    subprocess.run([maturin, "build", "--release", "--quiet", "--out", str(out_dir)], cwd=ROOT, check=True)
    (wheel,) = out_dir.glob("ferrograd-*.whl")
    return wheel


def venv_with_wheel(wheel: Path, venv: Path) -> str:
    """A venv holding only the stdlib and the wheel (installed without its dependencies: numpy is not needed
    to import ferrograd), its bytecode compiled."""
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    site = run_python(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=str(venv))
    subprocess.run(
        [python, "-m", "compileall", "-q", str(Path(site.stdout.strip()) / "ferrograd")],
        env=clean_env(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return python


def can_import(python: str | None, module: str, cwd: str) -> bool:
    if not python or not Path(python).exists():
        return False
    probe = subprocess.run([python, "-c", f"import {module}"], cwd=cwd, env=clean_env(), capture_output=True)
    return probe.returncode == 0


def instructions(python: str, code: str, cwd: str) -> int:
    """User-space instructions `python -c code` executes (valgrind's callgrind): a count other load on the
    machine does not change, for comparing two versions on a busy machine."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", code],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    return int(re.search(r"Collected : (\d+)", out.stderr).group(1))


def sample(target: Target, cwd: str) -> None:
    wall, cpu, numpy_loaded = run_python(target.python, ["-c", PROBE.format(module=target.module)], cwd).stdout.split()
    target.wall_ms.append(float(wall) * 1e3)
    target.cpu_ms.append(float(cpu) * 1e3)
    target.pulls_numpy = target.pulls_numpy or numpy_loaded == "True"


def importtime_tree(python: str, module: str, cwd: str) -> dict[str, tuple[int, int]]:
    """{module: (self µs, cumulative µs)} for `module` and everything its import pulled in (the lines of
    `-X importtime` nested under it; what `site` imported at startup is not counted)."""
    lines = run_python(python, ["-X", "importtime", "-c", f"import {module}"], cwd).stderr.splitlines()
    rows = [m.groups() for m in map(IMPORTTIME_LINE.match, lines) if m]
    end = next(i for i, (_, _, indent, name) in enumerate(rows) if name == module and len(indent) == 1)
    start = end
    while start > 0 and len(rows[start - 1][2]) > 1:
        start -= 1
    return {name: (int(own), int(cum)) for own, cum, _, name in rows[start : end + 1]}


def top_costs(python: str, module: str, cwd: str, runs: int, count: int) -> list[tuple[str, float, float]]:
    trees = [importtime_tree(python, module, cwd) for _ in range(runs)]
    names = set().union(*trees)
    med = {
        name: (
            statistics.median(t.get(name, (0, 0))[0] for t in trees) / 1e3,
            statistics.median(t.get(name, (0, 0))[1] for t in trees) / 1e3,
        )
        for name in names
    }
    return sorted(((n, s, c) for n, (s, c) in med.items()), key=lambda r: -r[1])[:count]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--wheel", type=Path, help="install this wheel in a clean venv (default: build one)")
    source.add_argument("--python", help="measure the ferrograd this interpreter imports, as it is")
    ap.add_argument("--venv", type=Path, help="where to make the clean venv (default: a temporary directory)")
    ap.add_argument("-n", type=int, default=21, help="fresh interpreters per target (default 21)")
    ap.add_argument("--importtime-runs", type=int, default=7, help="-X importtime runs for the top costs")
    ap.add_argument("--top", type=int, default=15, help="how many of the costliest modules to list")
    ap.add_argument("--numpy-python", default=sys.executable, help="an interpreter with numpy (default: this one)")
    ap.add_argument(
        "--torch-python", default=os.environ.get("BENCH_TORCH_PY"), help="an interpreter with torch ($BENCH_TORCH_PY)"
    )
    ap.add_argument("--baseline", action="append", default=[], metavar="LABEL=PYTHON", help="another ferrograd")
    ap.add_argument(
        "--valgrind", action="store_true", help="also count the import's instructions (valgrind; ~10 s per target)"
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="fg-import-time-") as tmp:
        cwd = str(Path(tmp) / "cwd")  # an empty directory: nothing in it shadows an installed module
        os.mkdir(cwd)
        if args.python:
            fg_python, where = args.python, f"as installed for {args.python}"
        else:
            wheel = args.wheel or build_wheel(Path(tmp) / "dist")
            fg_python = venv_with_wheel(wheel, args.venv or Path(tmp) / "venv")
            where = f"{wheel.name} in a clean venv, bytecode compiled"

        targets = [Target("ferrograd", fg_python, "ferrograd")]
        for spec in args.baseline:
            label, _, python = spec.partition("=")
            targets.append(Target(label, python, "ferrograd"))
        for module, python in (("numpy", args.numpy_python), ("torch", args.torch_python)):
            if can_import(python, module, cwd):
                targets.append(Target(module, python, module))
            else:
                print(f"({module}: not importable by {python or 'any interpreter given'}; left out)")

        for t in targets:  # warm-up: the OS's file cache, and `.pyc` files where they can be written
            sample(t, cwd)
            t.wall_ms.clear()
            t.cpu_ms.clear()
        for i in range(args.n):
            for t in targets if i % 2 == 0 else reversed(targets):
                sample(t, cwd)

        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"\n`import X` in a fresh interpreter, median of {args.n} ({where}; load average {load:.1f})\n")
        ref = {t.label: statistics.median(t.wall_ms) for t in targets}
        print(f"{'':<12} {'wall ms':>9} {'cpu ms':>8} {'min':>7} {'max':>8}   ratios (wall)")
        for t in targets:
            wall = statistics.median(t.wall_ms)
            ratios = ", ".join(f"{other}/this {ref[other] / wall:.1f}x" for other in ("numpy", "torch") if other in ref)
            flag = "  (numpy imported!)" if t.module == "ferrograd" and t.pulls_numpy else ""
            row = (
                f"{t.label:<12} {wall:>9.2f} {statistics.median(t.cpu_ms):>8.2f} {min(t.wall_ms):>7.2f} "
                f"{max(t.wall_ms):>8.2f}   {ratios if t.module == 'ferrograd' else ''}{flag}"
            )
            print(row.rstrip())

        if args.valgrind:
            print("\ninstructions executed by `import ferrograd` (callgrind; that of `python -c pass` subtracted)")
            for t in (t for t in targets if t.module == "ferrograd"):  # torch would take minutes under valgrind
                count = instructions(t.python, f"import {t.module}", cwd) - instructions(t.python, "pass", cwd)
                print(f"{t.label:<12} {count / 1e6:>9.1f} M")

        print(f"\ncostliest modules under `import ferrograd` (python -X importtime, median of {args.importtime_runs})")
        print(f"{'self ms':>8} {'cumul ms':>9}  module")
        for name, own, cum in top_costs(fg_python, "ferrograd", cwd, args.importtime_runs, args.top):
            print(f"{own:>8.2f} {cum:>9.2f}  {name}")


if __name__ == "__main__":
    main()
