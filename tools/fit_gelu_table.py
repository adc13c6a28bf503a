#!/usr/bin/env python3
"""Prints `PHI_TABLE` of the AVX-512 exact GELU kernel (rust/core/src/kernels/gelu.rs): Φ(x) on x ∈ [-6, 6] as
31 pieces of width 0.4, a degree-5 polynomial in t = 2.5x + 15 - j on piece j (|t| <= 1/2), fitted for
relative error (least squares on Chebyshev points, reweighted towards minimax). Pieces 0 and 30 are the constants
0 and 1 (the clamped ends, |ΔΦ| < 3.4e-9 there); entry 31 is unused. Needs numpy and mpmath. Prints the
largest relative error of each piece in float64 (the float32 kernel is tested in gelu.rs)."""

import mpmath
import numpy as np

mpmath.mp.dps = 30
SLOPE, CENTER, PIECES, DEG = 2.5, 15, 31, 5

t = np.cos(np.linspace(0, np.pi, 400)) / 2
vander = np.vander(t, DEG + 1, increasing=True)
table = np.zeros((DEG + 1, 32), dtype=np.float32)
worst = []
for j in range(1, PIECES - 1):
    phi = np.array([float(mpmath.ncdf((v + j - CENTER) / SLOPE)) for v in t])
    weight = 1 / phi
    for _ in range(40):
        coef, *_ = np.linalg.lstsq(vander * weight[:, None], phi * weight, rcond=None)
        err = np.abs(vander @ coef - phi) / phi
        weight = weight * (1 + 3 * err / err.max())
    worst.append(err.max())
    table[:, j] = coef
table[0, PIECES - 1] = 1.0
print("max relative error per piece:", " ".join(f"{e:.1e}" for e in worst))
print(f"const PHI_TABLE: [[f32; 32]; {DEG + 1}] = [")
for row in table:
    text = (np.format_float_scientific(v, unique=True, trim="-", exp_digits=1).replace("e+0", "") for v in row)
    print("    [" + ", ".join(s if "." in s or "e" in s else s + ".0" for s in text) + "],")
print("];")
