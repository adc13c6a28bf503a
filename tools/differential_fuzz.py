"""Live differential run (issue 28; `make fuzz`): random calls of tests/differential_calls.py evaluated by
PyTorch and by ferrograd, each in its own child process, with identical inputs, and compared.

    python tools/differential_fuzz.py --calls 20000 --seed 1 --torch-python /work/torchenv/bin/python
    python tools/differential_fuzz.py --describe 1234 --seed 1     # call 1234 of that run, both outcomes

Prints the table of verdicts (agree / both raise / silent wrong answer / ferrograd refuses / ferrograd accepts
what torch refuses / crash) and the disagreements grouped by op. Exits 1 if there is any disagreement. A child
that dies (a signal, a hang) is restarted after the call it was running, which counts as a crash.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import differential_calls as dc  # noqa: E402

TIMEOUT = 900


def worker(module, seed, start, stop, out_path):
    import importlib

    mod = importlib.import_module(module)
    with open(out_path, "a") as out:
        for i in range(start, stop):
            out.write(json.dumps([i, dc.run(mod, dc.generate_one(seed, i))]) + "\n")
            out.flush()


def outcomes(python, module, seed, n, env=None):
    """{call index: outcome} of calls 0..n-1 run by `module` under `python`; a call that kills the child is None."""
    got = {}
    start = 0
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    try:
        while start < n:
            cmd = [python, os.path.abspath(__file__), "--worker", module, "--seed", str(seed)]
            cmd += ["--start", str(start), "--stop", str(n), "--out", path]
            try:
                subprocess.run(cmd, env=env, timeout=TIMEOUT, check=False)
            except subprocess.TimeoutExpired:
                pass
            with open(path) as f:
                for line in f:
                    if line.endswith("\n"):
                        i, o = json.loads(line)
                        got[i] = o
            done = max((i for i in got if i >= start), default=start - 1)
            if done < n - 1:
                got[done + 1] = None  # the call that crashed or hung the child
            start = done + 2
    finally:
        os.unlink(path)
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--torch-python", default=os.environ.get("TORCH_PY", "/work/torchenv/bin/python"))
    ap.add_argument("--show", type=int, default=3, help="disagreements shown per op and verdict")
    ap.add_argument("--describe", type=int)
    ap.add_argument("--worker")
    ap.add_argument("--start", type=int)
    ap.add_argument("--stop", type=int)
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.seed, a.start, a.stop, a.out)
        return 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")]))
    if a.describe is not None:
        call = dc.generate_one(a.seed, a.describe)
        print(json.dumps(call))
        for name, python, module in [("torch", a.torch_python, "torch"), ("ferrograd", sys.executable, "ferrograd")]:
            code = (
                f"import sys, json; sys.path.insert(0, {os.path.join(ROOT, 'tests')!r});"
                f" import differential_calls as dc; import {module} as m;"
                " print(json.dumps(dc.run(m, json.loads(sys.argv[1]))))"
            )
            r = subprocess.run([python, "-c", code, json.dumps(call)], env=env, capture_output=True, text=True)
            print(f"{name}: {r.stdout.strip() or r.stderr.strip()[-2000:]}")
        return 0
    torch_env = dict(os.environ)
    torch_env.pop("PYTHONPATH", None)
    probe = subprocess.run([a.torch_python, "-c", "import torch"], env=torch_env, capture_output=True, text=True)
    if probe.returncode:
        print(f"{a.torch_python} cannot import torch (give a Python with torch: TORCH_PY=...):", file=sys.stderr)
        print(probe.stderr.strip()[-500:], file=sys.stderr)
        return 2
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        ft = ex.submit(outcomes, a.torch_python, "torch", a.seed, a.calls, torch_env)
        ff = ex.submit(outcomes, sys.executable, "ferrograd", a.seed, a.calls, env)
        t_out, f_out = ft.result(), ff.result()
    counts = collections.Counter()
    found = collections.defaultdict(list)
    for i in range(a.calls):
        call = dc.generate_one(a.seed, i)
        e, got = t_out.get(i), f_out.get(i)
        if e is None:  # torch's own crash (e.g. SIGFPE): no answer to compare with
            counts["torch crashed"] += 1
            found[("torch crashed", call["op"])].append((i, "torch's child process died on this call"))
            continue
        verdict, detail = dc.compare(call, e, got)
        counts[verdict] += 1
        if verdict not in ("agree", "both raise", "missing"):
            found[(verdict, call["op"])].append((i, detail))
    print(f"{a.calls} calls, seed {a.seed}, {len(dc.ops_of(dc.generate(a.seed, min(a.calls, 3000))))}+ ops")
    for v in dc.VERDICTS + ["torch crashed"]:
        print(f"  {dc.VERDICT_TEXT.get(v, v):40s} {counts[v]:7d}")
    for (verdict, op), items in sorted(found.items()):
        print(f"\n{dc.VERDICT_TEXT.get(verdict, verdict)}: {op} ({len(items)} calls)")
        for i, detail in items[: a.show]:
            print(f"  call {i}: {json.dumps(dc.generate_one(a.seed, i))[:400]}")
            print(f"    {detail}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
