#!/usr/bin/env python3
"""Prints the coefficients `W` of the exact GELU kernel (rust/core/src/kernels/gelu.rs): logit Φ(x) / x as a
degree-6 polynomial in u = 2x²/5.7² - 1 for |x| <= 5.7, a Chebyshev fit weighted by Φ(1-Φ)·x (the error that
reaches Φ = σ(x·W)), reweighted towards minimax. Needs mpmath. Prints the largest |ΔΦ| (2.9e-8)."""

import mpmath
import numpy as np
from numpy.polynomial import chebyshev

mpmath.mp.dps = 40
END = 5.7
xs = (np.cos(np.linspace(0, np.pi, 4000)) + 1) / 2 * END
xs = xs[xs > 1e-7]
w = np.array([float((mpmath.log(mpmath.ncdf(v)) - mpmath.log(mpmath.ncdf(-v))) / v) for v in xs])
phi = np.array([float(mpmath.ncdf(v)) for v in xs])
u = xs * xs / (END * END) * 2 - 1
gain = phi * (1 - phi) * xs  # ΔΦ = gain · ΔW
weight = gain / gain.max() + 1e-4
for _ in range(30):
    coef = chebyshev.chebfit(u, w, 6, w=weight)
    err = np.abs(chebyshev.chebval(u, coef) - w) * gain
    weight = weight * (1 + 5 * err / err.max())
print("max |dPhi|:", err.max())
print("u^0 .. u^6:", ", ".join(repr(float(c)) for c in chebyshev.cheb2poly(coef)))
