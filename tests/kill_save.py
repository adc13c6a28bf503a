"""Crash test of `save`: a child process saves checkpoints in a loop and is SIGKILLed at random moments.

After each kill the target must still load and hold one complete checkpoint. Used by
tests/test_serialization.py (ferrograd, a quick run) and runnable by itself against either framework:

    .venv/bin/python tests/kill_save.py --kills 50
    /work/torchenv/bin/python tests/kill_save.py --framework torch --kills 50

Each checkpoint version k is {"version": k, "w0": full(k), "w1": full(k), ...} (--mb in total), so a
file mixing two versions, or a half-written one, is caught. Reports how many kills left an unloadable
or inconsistent file, and how many landed while a save was writing (a temporary file was left behind).
"""

import argparse
import importlib
import os
import random
import signal
import subprocess
import sys
import time

VERSIONS = 3
TEMP_SUFFIX = ".ferrograd-tmp"


def checkpoint(fw, version, mb):
    n = mb * (1 << 20) // 4 // 4
    return {"version": version, **{f"w{i}": fw.full((n,), float(version)) for i in range(4)}}


def child(framework, path, mb):
    fw = importlib.import_module(framework)
    ckpts = [checkpoint(fw, k, mb) for k in range(VERSIONS)]
    fw.save(ckpts[0], path)  # one-time costs (lazy imports) before the kills' window, which is a few save times
    print("ready", flush=True)
    k = 0
    while True:
        k = (k + 1) % VERSIONS
        fw.save(ckpts[k], path)


def verdict(fw, path):
    """None when `path` holds one complete checkpoint, else what is wrong with it."""
    try:
        obj = fw.load(path)
    except Exception as e:  # any failure to load is the finding
        return f"unloadable: {type(e).__name__}: {str(e)[:120]}"
    k = obj.get("version") if isinstance(obj, dict) else None
    if k not in range(VERSIONS):
        return f"no version in {type(obj).__name__}"
    for name, t in obj.items():
        if name != "version" and not bool((t == float(k)).all()):
            return f"{name} is not all {k}: a mix of checkpoints"
    return None


def temp_files(path):
    d, name = os.path.split(os.path.abspath(path))
    return [f for f in os.listdir(d) if f.startswith(f".{name}.") and f.endswith(TEMP_SUFFIX)]


def run(framework, path, kills, mb, seed=0, python=sys.executable):
    """Kills `kills` saving children; returns counts and the problems found."""
    fw = importlib.import_module(framework)
    fw.save(checkpoint(fw, 0, mb), path)
    t0 = time.perf_counter()
    fw.save(checkpoint(fw, 1, mb), path)
    save_time = time.perf_counter() - t0
    rng = random.Random(seed)
    bad, mid_save, max_temps = [], 0, 0
    for i in range(kills):
        proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--child", "--framework", framework, "--path", path, "--mb", str(mb)],
            stdout=subprocess.PIPE,
        )
        try:
            assert proc.stdout.readline().strip() == b"ready", "the child did not start"
            time.sleep(rng.uniform(0.0, 2.5 * save_time))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            proc.stdout.close()
        problem = verdict(fw, path)
        if problem:
            bad.append(f"kill {i}: {problem}")
        temps = temp_files(path)
        mid_save += bool(temps)
        max_temps = max(max_temps, len(temps))
    return {"kills": kills, "bad": bad, "mid_save": mid_save, "max_temps": max_temps, "save_time": save_time}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", default="ferrograd", choices=["ferrograd", "torch"])
    ap.add_argument("--path", default=None)
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(args.framework, args.path, args.mb)
        return
    import tempfile

    path = args.path or os.path.join(tempfile.mkdtemp(prefix="kill-save-"), "ckpt")
    r = run(args.framework, path, args.kills, args.mb, args.seed)
    print(
        f"{args.framework}: {len(r['bad'])} of {r['kills']} kills left a bad file; "
        f"{r['mid_save']} kills left a temporary file (killed mid-write); at most {r['max_temps']} temporary "
        f"files at once; one save of {args.mb} MB took {r['save_time'] * 1e3:.0f} ms"
    )
    for line in r["bad"]:
        print("  " + line)


if __name__ == "__main__":
    main()
