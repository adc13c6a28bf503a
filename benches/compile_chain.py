"""`(x*x + x).exp().sum()` over 1e6 float32: ferrograd eager, ferrograd.compile (captured, replayed in Rust
with the chain fused chunk by chunk), and, when torch is importable, torch eager and torch.compile; and the
first compiled call (capture) time. Run: `.venv/bin/python benches/compile_chain.py` (ferrograd) and
`/work/torchenv/bin/python benches/compile_chain.py --torch` side by side."""

import sys
import time

import numpy as np


def best_ms(f, repeat=200):
    f()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times), 1e3 * float(np.median(times))


def main():
    if "--torch" in sys.argv:
        import torch as lib
    else:
        import ferrograd as lib
    x = lib.tensor(np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32) * 0.1)

    def chain(x):
        return (x * x + x).exp().sum()

    compiled = lib.compile(chain)
    t0 = time.perf_counter()
    compiled(x)
    first = 1e3 * (time.perf_counter() - t0)
    print(f"{lib.__name__}: first compiled call {first:.1f} ms")
    for name, f in (("eager", lambda: chain(x)), ("compiled", lambda: compiled(x))):
        best, median = best_ms(f)
        print(f"{lib.__name__} {name}: best {best:.3f} ms, median {median:.3f} ms")


if __name__ == "__main__":
    main()
