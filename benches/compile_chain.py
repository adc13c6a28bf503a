"""`(x*x + x).exp().sum()` over 1e6 float32 (and `x * sigmoid(x)` without a reduction, under no_grad):
ferrograd eager and ferrograd.compile, torch eager and torch.compile, jax.jit, at 1 and 2 threads. Each
framework runs in its own process, pinned to that many cores; the processes alternate for `--rounds`
rounds and each round times `--reps` calls; the best and median per call over all rounds are reported,
as process CPU time (the machine is shared with other builds, which inflates wall time but not the CPU
time a single-threaded run spends) and as wall time.

Run: `.venv/bin/python benches/compile_chain.py` (finds torch in /work/torchvenv and jax in /work/jaxenv;
`--torch-python`/`--jax-python` to point elsewhere). `--worker NAME THREADS REPS` is one measurement."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

N = 1_000_000


def data():
    return np.random.default_rng(0).standard_normal(N).astype(np.float32) * 0.1


def timed(f, reps):
    """Per-call (cpu, wall) seconds for `reps` calls of `f`, after a warm-up."""
    for _ in range(5):
        f()
    cpu, wall = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        f()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return cpu, wall


def torch_like(lib, threads):
    lib.set_num_threads(threads)
    x = lib.tensor(data())

    def chain(x):
        return (x * x + x).exp().sum()

    def silu(x):
        return x * lib.sigmoid(x)

    compiled, compiled_silu = lib.compile(chain), lib.compile(silu)
    return {
        "eager": lambda: chain(x),
        "compiled": lambda: compiled(x),
        "eager silu": lambda: silu(x),
        "compiled silu": lambda: compiled_silu(x),
    }, lib.no_grad


def jax_fns(threads):
    import jax
    import jax.numpy as jnp

    x = jnp.asarray(data())
    chain = jax.jit(lambda x: jnp.exp(x * x + x).sum())
    silu = jax.jit(lambda x: x * jax.nn.sigmoid(x))
    chain(x).block_until_ready(), silu(x).block_until_ready()
    return {
        "jit": lambda: chain(x).block_until_ready(),
        "jit silu": lambda: silu(x).block_until_ready(),
    }


def worker(name, threads, reps):
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:threads]))
    if name == "jax":
        fns, no_grad = jax_fns(threads), None
    else:
        lib = __import__("torch" if name == "torch" else "ferrograd")
        fns, no_grad = torch_like(lib, threads)
    out = {}
    for label, f in fns.items():
        if no_grad is not None and "silu" in label:
            with no_grad():
                out[label] = timed(f, reps)
        else:
            out[label] = timed(f, reps)
    print(json.dumps(out))


def arguments(rounds, reps, threads):
    """The command line of the chain benchmarks (this one and compile_chain_grad.py), with their defaults."""
    p = argparse.ArgumentParser()
    p.add_argument("--worker", nargs=3)
    p.add_argument("--rounds", type=int, default=rounds)
    p.add_argument("--reps", type=int, default=reps)
    p.add_argument("--threads", default=threads)
    p.add_argument("--torch-python", default="/work/torchvenv/bin/python")
    p.add_argument("--jax-python", default="/work/jaxenv/bin/python")
    return p.parse_args()


def frameworks(a):
    """Each framework's Python, for those installed."""
    pythons = {"ferrograd": sys.executable, "torch": a.torch_python, "jax": a.jax_python}
    return {k: v for k, v in pythons.items() if os.path.exists(v)}


def measure(script, name, python, threads, reps):
    """One framework's measurement (`script --worker`) in its own process: its JSON output."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=1", JAX_PLATFORMS="cpu")
    cmd = [python, script, "--worker", name, str(threads), str(reps)]
    return json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)


def main():
    a = arguments(rounds=6, reps=100, threads="1,2")
    if a.worker:
        return worker(a.worker[0], int(a.worker[1]), int(a.worker[2]))
    pythons = frameworks(a)
    for threads in [int(t) for t in a.threads.split(",")]:
        samples = {}
        for _ in range(a.rounds):
            for name, python in pythons.items():
                res = measure(__file__, name, python, threads, a.reps)
                for label, (cpu, wall) in res.items():
                    s = samples.setdefault(f"{name} {label}", ([], []))
                    s[0].extend(cpu)
                    s[1].extend(wall)
        print(f"threads={threads} (per call, ms: cpu best/median, wall best/median)")
        for key, (cpu, wall) in samples.items():
            ms = [1e3 * v for v in (min(cpu), statistics.median(cpu), min(wall), statistics.median(wall))]
            print(f"  {key:28s} cpu {ms[0]:.3f} / {ms[1]:.3f}   wall {ms[2]:.3f} / {ms[3]:.3f}")
        base = {k: statistics.median(v[0 if threads == 1 else 1]) for k, v in samples.items()}
        ref = base.get("ferrograd compiled")
        if ref:
            clock = "cpu" if threads == 1 else "wall"
            ratios = ", ".join(f"{k} {v / ref:.2f}x" for k, v in base.items() if "silu" not in k)
            print(f"  medians ({clock}) relative to ferrograd compiled: {ratios}")
            ref = base.get("ferrograd compiled silu")
            ratios = ", ".join(f"{k} {v / ref:.2f}x" for k, v in base.items() if "silu" in k)
            print(f"  silu medians ({clock}) relative to ferrograd compiled silu: {ratios}")


if __name__ == "__main__":
    main()
