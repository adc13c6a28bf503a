//! AVX-512 GELU kernels, sixteen lanes at a time.
//!
//! Exact form and its gradient: x·Φ(x) and GELU'(x) = Φ(x) + x·φ(x), each read from a table of 31 polynomial
//! pieces: on [-6, 6] in pieces of width 0.4, a degree-5 polynomial in the piece's own coordinate
//! t = 2.5x + 15 - j, |t| <= 1/2 (tools/fit_gelu_table.py); `vpermt2ps` reads the piece's six coefficients
//! from two registers each. x is clamped to ±6 first, where pieces 0 and 30 are the constants 0 and 1: so
//! GELU(x) = x for x >= 5.8 and ±0 for x <= -5.8 (Φ < 3.4e-9 there), -inf·0 = NaN, inf·1 = inf, and NaN
//! stays NaN through the clamp. 17 instructions a vector, no division and no exponential, against ~37 for
//! the sigmoid form compiled for AVX-512 (`fill_fma`).
//!
//! Tanh form: x / (1 + e^{-2y}) as `fill_fma` computes it, with the AVX-512 exponential (`vscalefps`).
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::tables::{DGELU_TABLE, PHI_TABLE};
use crate::kernels::math::x86::{exp_f32x16, map16};

/// Where x is clamped: Φ(-6) = 9.9e-10.
const END: f32 = 6.0;
/// t + j = SLOPE·x + 15: piece 0 at x = -6, piece 15 at 0, piece 30 at 6.
const SLOPE: f32 = 2.5;
/// 2^23 + 15: adding it rounds SLOPE·x + 15 to the integer j, kept in the low mantissa bits (the table index).
const CENTER_MAGIC: f32 = 8_388_623.0;

const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const GELU_TANH_COEF: f32 = 0.044715;

/// A table's rows as pairs of registers (entries 0-15 and 16-31), for `_mm512_permutex2var_ps`.
type Table = [[__m512; 2]; 6];

#[inline(always)]
unsafe fn load(table: &[[f32; 32]; 6]) -> Table {
    table.map(|row| [_mm512_loadu_ps(row.as_ptr()), _mm512_loadu_ps(row.as_ptr().add(16))])
}

/// The tabled function at x (clamped to ±END).
#[inline(always)]
unsafe fn lookup(x: __m512, tab: &Table) -> __m512 {
    let set = _mm512_set1_ps;
    // min/max return their second operand when either is NaN, so NaN stays
    let xc = _mm512_max_ps(set(-END), _mm512_min_ps(set(END), x));
    let m = _mm512_fmadd_ps(xc, set(SLOPE), set(CENTER_MAGIC));
    // t = SLOPE·x + 15 - j, rounded once (CENTER_MAGIC - m = 15 - j exactly)
    let t = _mm512_fmadd_ps(xc, set(SLOPE), _mm512_sub_ps(set(CENTER_MAGIC), m));
    let j = _mm512_castps_si512(m);
    let coef = |k: usize| _mm512_permutex2var_ps(tab[k][0], j, tab[k][1]);
    let mut p = coef(5);
    for k in (0..5).rev() {
        p = _mm512_fmadd_ps(p, t, coef(k));
    }
    p
}

/// Exact GELU over a slice (the tail masked).
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_exact_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    let tab = load(&PHI_TABLE);
    map16(out, x, |v| _mm512_mul_ps(v, lookup(v, &tab)))
}

/// GELU's tanh form over a slice (the tail masked).
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_tanh_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    let set = _mm512_set1_ps;
    let (c1, c3) = (set(-2.0 * SQRT_2_OVER_PI), set(-2.0 * SQRT_2_OVER_PI * GELU_TANH_COEF));
    map16(out, x, |v| {
        let e = exp_f32x16(_mm512_mul_ps(v, _mm512_fmadd_ps(_mm512_mul_ps(v, v), c3, c1)));
        _mm512_div_ps(v, _mm512_add_ps(set(1.0), e))
    })
}

/// `out[i] = kernel(g[i], x[i])` over slices of one length, sixteen lanes at a time (the tail masked).
#[inline(always)]
unsafe fn zip16(out: &mut [MaybeUninit<f32>], g: &[f32], x: &[f32], kernel: impl Fn(__m512, __m512) -> __m512) {
    let n = out.len().min(g.len()).min(x.len());
    let (gp, xp, dst) = (g.as_ptr(), x.as_ptr(), out.as_mut_ptr().cast::<f32>());
    let mut i = 0;
    while i + 16 <= n {
        _mm512_storeu_ps(dst.add(i), kernel(_mm512_loadu_ps(gp.add(i)), _mm512_loadu_ps(xp.add(i))));
        i += 16;
    }
    if i < n {
        let mask: __mmask16 = (1u16 << (n - i)) - 1;
        let r = kernel(_mm512_maskz_loadu_ps(mask, gp.add(i)), _mm512_maskz_loadu_ps(mask, xp.add(i)));
        _mm512_mask_storeu_ps(dst.add(i), mask, r);
    }
}

/// `out[i] = g[i]·GELU'(x[i])`, the exact form's gradient, over slices of one length.
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_backward_f32_into(out: &mut [MaybeUninit<f32>], g: &[f32], x: &[f32]) {
    let tab = load(&DGELU_TABLE);
    // + x·0: NaN at ±inf, as Φ(x) + x·φ(x) gives there (and PyTorch)
    zip16(out, g, x, |gv, v| _mm512_mul_ps(gv, _mm512_fmadd_ps(v, _mm512_setzero_ps(), lookup(v, &tab))))
}

/// `out[i] = g[i]·d/dx GELU_tanh(x[i])` over slices of one length. With σ = 1/(1 + e^{-2y}) (the forward's
/// factor) and 1 - tanh² y = 4σ(1 - σ), 1 - σ = e^{-2y}·σ: the derivative is σ·(1 + 2x·y'·e^{-2y}·σ), without
/// the cancellation of PyTorch's 1 - tanh² (same function). The exponent is capped at 80 so e^{-2y}·σ stays 1
/// for x < -9, and x clamped to ±30 for the rest (the derivative is 0 or 1 to float32 there).
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_tanh_backward_f32_into(out: &mut [MaybeUninit<f32>], g: &[f32], x: &[f32]) {
    let set = _mm512_set1_ps;
    let (c1, c3) = (set(-2.0 * SQRT_2_OVER_PI), set(-2.0 * SQRT_2_OVER_PI * GELU_TANH_COEF));
    // 2y' = 2k·(1 + 3a·x²)
    let (d1, d3) = (set(2.0 * SQRT_2_OVER_PI), set(6.0 * SQRT_2_OVER_PI * GELU_TANH_COEF));
    zip16(out, g, x, |gv, v| {
        let xc = _mm512_max_ps(set(-30.0), _mm512_min_ps(set(30.0), v));
        let x2 = _mm512_mul_ps(xc, xc);
        let e = exp_f32x16(_mm512_min_ps(set(80.0), _mm512_mul_ps(xc, _mm512_fmadd_ps(x2, c3, c1))));
        let sigma = _mm512_div_ps(set(1.0), _mm512_add_ps(set(1.0), e));
        let w = _mm512_mul_ps(_mm512_mul_ps(xc, _mm512_fmadd_ps(x2, d3, d1)), _mm512_mul_ps(e, sigma));
        let d = _mm512_fmadd_ps(w, sigma, sigma);
        // + x·0: NaN at ±inf, as PyTorch's formula gives there
        _mm512_mul_ps(gv, _mm512_fmadd_ps(v, _mm512_setzero_ps(), d))
    })
}
