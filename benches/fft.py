#!/usr/bin/env python3
"""`torch.fft` and complex calls (forward and forward+backward) on float32/complex64 inputs: ferrograd and
PyTorch in one process, timed in turns (order reversed every round), median per call, with the ratio
torch/ferrograd (> 1: ferrograd faster). Results are checked against each other first.

    PYTHONPATH=python /work/torchvenv/bin/python benches/fft.py [--rounds 7]
"""

import argparse
import statistics

import ferrograd as fg
import numpy as np
from _common import optional_torch, per_call

torch = optional_torch()


def cases(lib):
    """name -> (f(x, z), needs grad) for each framework's namespace; x real (64, 256, 256), z complex."""
    F = lib.fft
    return {
        "fft c64 (4096x256)": lambda x, z: F.fft(z),
        "rfft2 f32 (64x256x256)": lambda x, z: F.rfft2(x),
        "irfftn f32 (64x256x129)": lambda x, z: F.irfftn(F.rfft2(x), s=x.shape[-2:], dim=(-2, -1)),
        "hfft c64 (4096x256)": lambda x, z: F.hfft(z),
        "fftshift c64 (4096x256)": lambda x, z: F.fftshift(z),
        "rfft2 fwd+bwd f32": lambda x, z: F.rfft2(x.detach().requires_grad_()).abs().sum().backward(),
        "exp c64 (4096x256)": lambda x, z: z.exp(),
        "matmul c64 (256x256)": lambda x, z: z[:256] @ z[:256],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256, 256)).astype(np.float32)
    z = (rng.standard_normal((4096, 256)) + 1j * rng.standard_normal((4096, 256))).astype(np.complex64)
    libs = {"ferrograd": fg} if torch is None else {"ferrograd": fg, "torch": torch}
    inputs = {name: (lib.from_numpy(x.copy()), lib.from_numpy(z.copy())) for name, lib in libs.items()}
    print(f"median of {args.rounds} rounds (ratio > 1: ferrograd faster)")
    for case in cases(fg):
        fns = {name: cases(lib)[case] for name, lib in libs.items()}
        out = {name: fns[name](*inputs[name]) for name in libs}
        if torch is not None and out["torch"] is not None:
            np.testing.assert_allclose(out["ferrograd"].numpy(), out["torch"].numpy(), rtol=2e-3, atol=2e-2)
        times = {name: [] for name in libs}
        order = list(libs)
        for _ in range(args.rounds):
            for name in order:
                times[name].append(per_call(lambda f=fns[name], args=inputs[name]: f(*args)))
            order.reverse()
        med = {name: statistics.median(t) for name, t in times.items()}
        ratio = f"{med['torch'] / med['ferrograd']:.2f}x" if "torch" in med else "-"
        cols = "  ".join(f"{name} {1e3 * t:8.3f} ms" for name, t in med.items())
        print(f"{case:28s} {cols}  torch/ferrograd {ratio}")


if __name__ == "__main__":
    main()
