#!/usr/bin/env python3
"""Save and load of state dicts: ferrograd.save/load against torch.save/load, side by side.

    env PYTHONPATH=$PWD/python /work/torchenv/bin/python benches/serialization.py [--dir DIR] [--reps N]

Two state dicts with the same float32 values in both frameworks: the MLP 784-512-512-10 (669,706
parameters, 2.7 MB) and five 1620x1620 layers with biases (13.1M parameters, 52 MB). Both write PyTorch's
zip format (ferrograd's earlier safetensors writer, `save_safetensors`, has rows of its own). Files go to one
directory (default: a fresh one under the system's temporary folder), the frameworks take turns, and
each time is the median of --reps. ferrograd.save fsyncs the file and its directory (that is what
makes it crash-safe); torch.save does not, so the table also shows torch.save followed by an fsync of
the file. Loads read files the page cache holds (both were just written). Ratios > 1: ferrograd faster.
"""

import argparse
import os
import statistics
import tempfile
import time
from functools import partial

import ferrograd as fg
import numpy as np
import torch


def state_dicts():
    rng = np.random.default_rng(0)
    mlp = [(784, 512), (512, 512), (512, 10)]
    big = [(1620, 1620)] * 5
    out = {}
    for name, layers in (("MLP 784-512-512-10 (669,706 params)", mlp), ("5 x 1620x1620 layers (52 MB)", big)):
        arrays = {}
        for i, (fan_in, fan_out) in enumerate(layers):
            arrays[f"{i}.weight"] = rng.standard_normal((fan_out, fan_in), dtype=np.float32)
            arrays[f"{i}.bias"] = rng.standard_normal(fan_out, dtype=np.float32)
        out[name] = (
            {k: fg.tensor(a) for k, a in arrays.items()},
            {k: torch.tensor(a) for k, a in arrays.items()},
        )
    return out


def median_time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_save_fsync(sd, path):
    with open(path, "wb") as f:
        torch.save(sd, f)
        f.flush()
        os.fsync(f.fileno())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=None)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    d = args.dir or tempfile.mkdtemp(prefix="fg-ser-bench-")
    fg_path, pt_path = os.path.join(d, "sd-fg.pt"), os.path.join(d, "sd.pt")
    st_path = os.path.join(d, "sd.safetensors")
    from ferrograd.serialization import save_safetensors

    print(f"files in {d}; median of {args.reps}; ratios > 1 mean ferrograd is faster\n")
    print("| state dict | op | ferrograd | torch | torch/ferrograd |")
    print("|---|---|---|---|---|")
    for name, (fsd, tsd) in state_dicts().items():
        fg.save(fsd, fg_path)
        torch.save(tsd, pt_path)
        back = fg.load(fg_path)
        assert all(np.array_equal(back[k].numpy(), tsd[k].numpy()) for k in tsd), "ferrograd round trip differs"
        rows = [
            (
                "save (ferrograd: atomic + fsync; torch: plain)",
                partial(fg.save, fsd, fg_path),
                partial(torch.save, tsd, pt_path),
            ),
            ("save (both fsync the file)", partial(fg.save, fsd, fg_path), partial(torch_save_fsync, tsd, pt_path)),
            ("load", partial(fg.load, fg_path), partial(torch.load, pt_path)),
            ("load, mmap=True", partial(fg.load, fg_path, mmap=True), partial(torch.load, pt_path, mmap=True)),
            ("load of torch's file", partial(fg.load, pt_path), partial(torch.load, pt_path)),
            (
                "save_safetensors vs torch.save (plain)",
                partial(save_safetensors, fsd, st_path),
                partial(torch.save, tsd, pt_path),
            ),
            ("load safetensors vs torch.load", partial(fg.load, st_path), partial(torch.load, pt_path)),
        ]
        for op, f_fn, t_fn in rows:
            a, b = in_turns(f_fn, t_fn, args.reps)
            print(f"| {name} | {op} | {a * 1e3:.2f} ms | {b * 1e3:.2f} ms | {b / a:.2f}x |")


def in_turns(f_fn, t_fn, reps):
    """Medians of both, timed in turns (ferrograd, torch, torch, ferrograd) after a warm-up call each."""
    f_fn(), t_fn()
    tf, tt = [], []
    for _ in range(2):
        tf.append(median_time(f_fn, reps))
        tt.append(median_time(t_fn, reps))
        tt.append(median_time(t_fn, reps))
        tf.append(median_time(f_fn, reps))
    return statistics.median(tf), statistics.median(tt)


if __name__ == "__main__":
    main()
