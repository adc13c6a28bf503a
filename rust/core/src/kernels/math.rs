//! Vectorizable float32 `exp`, `ln`, `tanh`, `erf`, `sin` and `cos` (and AVX-512 kernels for exp, ln,
//! tanh and erf): straight-line code (no table lookups, no calls), so the elementwise loops compile to
//! wide SIMD under run-time dispatch. Error bounds are tested below against float64 references:
//! `exp_f32` within 2 ulp, `ln_f32` within 1, `tanh_f32` within 2 (the AVX-512 tanh within 2.5), `erf_f32`,
//! `sin_f32` and `cos_f32` within 1. The float32 sin/cos slice kernels with FMA are in `sincos.rs`, GELU's in
//! `gelu.rs`.
use crate::kernels::simd::{level, map_into, Level};
use std::mem::MaybeUninit;

const LOG2E: f32 = std::f32::consts::LOG2_E;
// ln 2 split in two so that n·ln2 is exact in the high part
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
/// Adding then subtracting 1.5·2^23 rounds a float32 to the nearest integer without SSE4.1.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// 2^n for integral n in [-254, 254], as a product of two normal powers of two.
#[inline(always)]
fn pow2(n: i32) -> (f32, f32) {
    let half = n >> 1;
    let p1 = f32::from_bits(((half + 127) as u32) << 23);
    let p2 = f32::from_bits(((n - half + 127) as u32) << 23);
    (p1, p2)
}

#[inline(always)]
#[allow(clippy::manual_clamp)] // f32::clamp would be the same for NaN, but this form is what the kernel was tuned with
pub fn exp_f32(x: f32) -> f32 {
    // beyond these, the result is inf or 0 anyway; NaN falls through both comparisons
    let x = if x > 89.0 {
        89.0
    } else if x < -104.0 {
        -104.0
    } else {
        x
    };
    let shifted = x * LOG2E + ROUND_MAGIC;
    let n = shifted - ROUND_MAGIC;
    // the integer n read from the low mantissa bits: no float-to-int conversion, which would not vectorize
    let n_int = shifted.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let r = x - n * LN2_HI - n * LN2_LO; // |r| <= ln2 / 2
                                         // Taylor to degree 7 on |r| <= 0.347: truncation error < 2e-9 relative
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    let (p1, p2) = pow2(n_int);
    p * p1 * p2
}

/// `out[i] = f(x[i])` over float32 slices of one length.
pub type F32SliceKernel = fn(&mut [MaybeUninit<f32>], &[f32]);

/// `out[i] = f(a[i], b[i])` over float32 slices of one length.
pub type F32ZipKernel = fn(&mut [MaybeUninit<f32>], &[f32], &[f32]);

/// A float32 slice kernel: its own AVX-512 code where the CPU has it, else the scalar function
/// through the generic vectorized loop (the other levels).
macro_rules! avx512_or_scalar {
    ($(#[$doc:meta])* $name:ident, $avx512:ident, $scalar:ident) => {
        $(#[$doc])*
        pub fn $name(out: &mut [MaybeUninit<f32>], x: &[f32]) {
            #[cfg(target_arch = "x86_64")]
            if level() == Level::Avx512 {
                // Safety: AVX-512F and FMA are present (checked by `level`).
                return unsafe { x86::$avx512(out, x) };
            }
            map_into(out, x, &$scalar)
        }
    };
}

avx512_or_scalar!(
    /// `out[i] = exp(x[i])` for float32. On AVX-512 a kernel of its own, sixteen lanes at a time with
    /// FMA: a degree-7 polynomial in the reduced argument (r² times Cephes' degree-5 minimax
    /// coefficients, plus 1 + r) and `vscalefps` for the power of two, ~14 instructions a vector against
    /// ~35 for `exp_f32`'s scheme; 1e6 elements on one thread went from 621 to ~330 µs (memory-bound
    /// now). It agrees with `exp_f32` to within an ulp or two, not bit for bit: both are tested within
    /// 2 ulp of a float64 reference. Other CPUs run `exp_f32`.
    exp_f32_into, exp_f32_into_avx512, exp_f32
);

avx512_or_scalar!(
    /// `out[i] = ln(x[i])` for float32: on AVX-512 the scheme of `ln_f32` with FMA, sixteen lanes at a
    /// time (1e6 elements: 313 µs compiler-vectorized against PyTorch's 154); within 1 ulp either way, and the
    /// same bits.
    ln_f32_into, ln_f32_into_avx512, ln_f32
);

avx512_or_scalar!(
    /// `out[i] = tanh(x[i])` for float32: on AVX-512 one formula through expm1 (`x86::tanh_f32x16`), within 2.5
    /// ulp; elsewhere `tanh_f32`, within 2.
    tanh_f32_into, tanh_f32_into_avx512, tanh_f32
);

avx512_or_scalar!(
    /// `out[i] = erf(x[i])` for float32: on AVX-512 `erf_f32`'s scheme in float32 with FMA (the exponent
    /// split exactly, see `erf_f32x16`); within 2 ulp either way.
    erf_f32_into, erf_f32_into_avx512, erf_f32
);

/// `out[i] = exp(x[i] - shift)` for float32 (softmax's numerators): the kernels of `exp_f32_into`.
pub fn exp_shifted_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32], shift: f32) {
    #[cfg(target_arch = "x86_64")]
    if level() == Level::Avx512 {
        // Safety: AVX-512F and FMA are present (checked by `level`).
        return unsafe { x86::exp_shifted_f32_into_avx512(out, x, shift) };
    }
    map_into(out, x, &|v| exp_f32(v - shift))
}

/// `Σ exp(x[i] - shift)` for float32 (log_softmax's normalizer), accumulated in float64 lanes.
pub fn exp_shifted_sum_f32(x: &[f32], shift: f32) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if level() == Level::Avx512 {
        // Safety: AVX-512F and FMA are present (checked by `level`).
        return unsafe { x86::exp_shifted_sum_f32_avx512(x, shift) };
    }
    let mut acc = [0.0f64; 8];
    let chunks = x.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().map(|&v| exp_f32(v - shift) as f64).sum();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += exp_f32(v - shift) as f64;
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// GELU of a float32 (the formula PyTorch's CPU kernel uses).
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    0.5 * x * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2))
}

avx512_or_scalar!(
    /// `out[i] = 1 / (1 + e^{-x[i]})` for float32, through the AVX-512 exp where present; within 3 ulp.
    sigmoid_f32_into, sigmoid_f32_into_avx512, sigmoid_f32
);

avx512_or_scalar!(
    /// `out[i] = x[i] / (1 + e^{-x[i]})` (SiLU) for float32, as `sigmoid_f32_into`; within 4 ulp.
    silu_f32_into, silu_f32_into_avx512, silu_f32
);

/// sigmoid of a float32 (the formula of the op table's generic kernel).
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

/// SiLU of a float32 (the formula of the op table's generic kernel).
#[inline(always)]
pub fn silu_f32(x: f32) -> f32 {
    x / (1.0 + exp_f32(-x))
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// Cephes' expf coefficients: exp(r) ≈ 1 + r + r²·P(r) on |r| <= ln2/2, P of degree 5.
    const P: [f32; 6] = [1.987_569_1e-4, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 0.166_666_65, 0.5];

    #[target_feature(enable = "avx512f,fma")]
    pub(crate) unsafe fn exp_f32x16(x: __m512) -> __m512 {
        let set = _mm512_set1_ps;
        // the clamp of `exp_f32`; min/max return their second operand when either is NaN, so NaN stays
        let x = _mm512_max_ps(set(-104.0), _mm512_min_ps(set(89.0), x));
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(x, set(LOG2E)));
        let r = _mm512_fnmadd_ps(n, set(LN2_LO), _mm512_fnmadd_ps(n, set(LN2_HI), x));
        let mut p = set(P[0]);
        for c in &P[1..] {
            p = _mm512_fmadd_ps(p, r, set(*c));
        }
        let p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, set(1.0)));
        // p·2^n in one rounding: overflow to inf and the subnormal range come out right
        _mm512_scalef_ps(p, n)
    }

    /// `kernel` over a slice, sixteen lanes at a time; the tail through the same kernel (masked), so no
    /// element's result depends on its position.
    #[inline(always)]
    pub(crate) unsafe fn map16(out: &mut [MaybeUninit<f32>], x: &[f32], kernel: impl Fn(__m512) -> __m512) {
        let n = out.len().min(x.len());
        let (src, dst) = (x.as_ptr(), out.as_mut_ptr().cast::<f32>());
        let mut i = 0;
        while i + 16 <= n {
            _mm512_storeu_ps(dst.add(i), kernel(_mm512_loadu_ps(src.add(i))));
            i += 16;
        }
        if i < n {
            let mask: __mmask16 = (1u16 << (n - i)) - 1;
            _mm512_mask_storeu_ps(dst.add(i), mask, kernel(_mm512_maskz_loadu_ps(mask, src.add(i))));
        }
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn exp_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        map16(out, x, |v| exp_f32x16(v))
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn exp_shifted_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32], shift: f32) {
        let s = _mm512_set1_ps(shift);
        map16(out, x, |v| exp_f32x16(_mm512_sub_ps(v, s)))
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn exp_shifted_sum_f32_avx512(x: &[f32], shift: f32) -> f64 {
        let (s, n, src) = (_mm512_set1_ps(shift), x.len(), x.as_ptr());
        let (mut lo, mut hi) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        let mut add = |e: __m512| {
            lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
            hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(e)))));
        };
        let mut i = 0;
        while i + 16 <= n {
            add(exp_f32x16(_mm512_sub_ps(_mm512_loadu_ps(src.add(i)), s)));
            i += 16;
        }
        if i < n {
            let mask: __mmask16 = (1u16 << (n - i)) - 1;
            let e = exp_f32x16(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, src.add(i)), s));
            add(_mm512_maskz_mov_ps(mask, e));
        }
        _mm512_reduce_add_pd(_mm512_add_pd(lo, hi))
    }

    /// `ln_f32` on sixteen lanes, with FMA. `vgetmantps`/`vgetexpps` split x = m·2^e with m in [1, 2) (subnormals
    /// included), which `ln_f32` does with bit masks; m from √2 up is halved, as Cephes puts it in [√½, √2). One
    /// `vfixupimmps` then gives the special values, by the class of x: ±0 → -inf, +inf → inf, NaN, -inf and x < 0 →
    /// NaN. Bit for bit the results of the bit-mask split with three blends (every float32 compared), in 26 instead
    /// of 38 instructions: 5.8 → 4.2 ns a vector in L1 on this Xeon (PyTorch's log: 4.4).
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn ln_f32x16(x: __m512) -> __m512 {
        let set = _mm512_set1_ps;
        let m = _mm512_getmant_ps::<_MM_MANT_NORM_1_2, _MM_MANT_SIGN_ZERO>(x);
        let e = _mm512_getexp_ps(x);
        let above = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(m, set(std::f32::consts::SQRT_2));
        let e = _mm512_mask_add_ps(e, above, e, set(1.0));
        let f = _mm512_sub_ps(_mm512_mask_mul_ps(m, above, m, set(0.5)), set(1.0));
        let z = _mm512_mul_ps(f, f);
        let mut p = set(LN_P[0]);
        for c in &LN_P[1..] {
            p = _mm512_fmadd_ps(p, f, set(*c));
        }
        let y = _mm512_fmadd_ps(f, _mm512_mul_ps(z, p), _mm512_mul_ps(e, set(LN2_LOW_PART)));
        let y = _mm512_fnmadd_ps(set(0.5), z, y);
        let r = _mm512_fmadd_ps(e, set(LN2_HIGH_PART), _mm512_add_ps(f, y));
        _mm512_fixupimm_ps::<0>(r, x, _mm512_set1_epi32(LN_SPECIAL_VALUES))
    }

    /// `vfixupimmps`'s table for ln, a 4-bit response per class of x (classes, low nibble first: QNaN, SNaN, ±0, +1,
    /// -inf, +inf, x < 0, x > 0; responses: 0 keeps the computed value, 2 is x's NaN quieted, 3 the default NaN,
    /// 4 -inf, 5 +inf). ln(1) computes to +0 as it should.
    const LN_SPECIAL_VALUES: i32 = 0x0353_0422;

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn ln_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        map16(out, x, |v| ln_f32x16(v))
    }

    /// tanh on sixteen lanes, with FMA: tanh|x| = expm1(2|x|) / (expm1(2|x|) + 2), one formula for every |x| (no
    /// cancellation: the quotient's operands are never close), where `tanh_f32` computes both of Cephes' branches and
    /// blends them. expm1(2|x|) = 2^n·expm1(r) + (2^n - 1) after `exp_f32x16`'s reduction, expm1(r) by its Taylor
    /// series to degree 8 (|r| <= ln2/2: truncation below 1e-9 relative); |x| clamped to 10, past which tanh rounds
    /// to 1; x's sign put back last, so ±0 stays ±0 and NaN stays NaN. 23 instructions against 37: 6.9 → 5.4 ns a
    /// vector in L1 on this Xeon (PyTorch's tanh: 5.2). Within 2.5 ulp over every float32, the worst near
    /// 0.0078, where expm1, the sum with 2 and the quotient each round once; `tanh_f32` is within 2.
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn tanh_f32x16(x: __m512) -> __m512 {
        let set = _mm512_set1_ps;
        let a = _mm512_min_ps(set(10.0), _mm512_abs_ps(x)); // min returns its second operand, a NaN, when it is one
        let a2 = _mm512_add_ps(a, a);
        let n =
            _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(a2, set(LOG2E)));
        let r = _mm512_fnmadd_ps(n, set(LN2_LO), _mm512_fnmadd_ps(n, set(LN2_HI), a2));
        let mut h = set(EXPM1_TAYLOR[0]);
        for c in &EXPM1_TAYLOR[1..] {
            h = _mm512_fmadd_ps(h, r, set(*c));
        }
        let expm1_r = _mm512_fmadd_ps(_mm512_mul_ps(r, r), h, r);
        let pow = _mm512_scalef_ps(set(1.0), n);
        let expm1 = _mm512_fmadd_ps(pow, expm1_r, _mm512_sub_ps(pow, set(1.0)));
        let t = _mm512_div_ps(expm1, _mm512_add_ps(expm1, set(2.0)));
        // t | (x & sign bit): truth table of A | (B & C) over (t, x, sign bit)
        let sign = _mm512_set1_epi32(i32::MIN);
        _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0xF8>(_mm512_castps_si512(t), _mm512_castps_si512(x), sign))
    }

    /// expm1(r) = r + r²·(1/2 + r/6 + ... + r⁶/8!): the bracket's coefficients, highest first.
    const EXPM1_TAYLOR: [f32; 7] = [1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5];

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn tanh_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        map16(out, x, |v| tanh_f32x16(v))
    }

    /// `erf_f32`'s scheme in float32 with FMA. From 1 to 4, x² = hi + lo exactly (lo by FMA), and
    /// e^{-x²} = e^{-hi}·(1 - lo): rounding x² alone would cost up to 1e-6 relative in the exponential.
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn erf_f32x16(x: __m512) -> __m512 {
        const SERIES: [f32; 11] = to_f32(ERF_SERIES);
        const Q: [f32; 13] = to_f32(ERF_Q);
        let set = _mm512_set1_ps;
        // NaN stays NaN (min's second operand)
        let a = _mm512_min_ps(set(4.0), _mm512_abs_ps(x));
        // 2/√π in two parts, so the leading term a·2/√π is rounded once, at the end
        const C0_LO: f32 = (ERF_SERIES[0] - SERIES[0] as f64) as f32;
        let hi = _mm512_mul_ps(a, a);
        let mut s = set(SERIES[10]);
        for c in SERIES[1..10].iter().rev() {
            s = _mm512_fmadd_ps(s, hi, set(*c));
        }
        let tail = _mm512_fmadd_ps(s, hi, set(C0_LO));
        let small = _mm512_fmadd_ps(a, set(SERIES[0]), _mm512_mul_ps(a, tail));
        let t = _mm512_mul_ps(_mm512_sub_ps(a, set(2.5)), set(1.0 / 1.5));
        let mut q = set(Q[12]);
        for c in Q[..12].iter().rev() {
            q = _mm512_fmadd_ps(q, t, set(*c));
        }
        let lo = _mm512_fmsub_ps(a, a, hi);
        let e = _mm512_mul_ps(exp_f32x16(_mm512_sub_ps(set(0.0), hi)), _mm512_sub_ps(set(1.0), lo));
        let large = _mm512_fnmadd_ps(e, q, set(1.0));
        let r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, set(1.0)), large, small);
        let sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN));
        _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign))
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn erf_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        map16(out, x, |v| erf_f32x16(v))
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn sigmoid_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        let one = _mm512_set1_ps(1.0);
        map16(out, x, |v| _mm512_div_ps(one, _mm512_add_ps(one, exp_f32x16(_mm512_sub_ps(_mm512_setzero_ps(), v)))))
    }

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn silu_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        let one = _mm512_set1_ps(1.0);
        map16(out, x, |v| _mm512_div_ps(v, _mm512_add_ps(one, exp_f32x16(_mm512_sub_ps(_mm512_setzero_ps(), v)))))
    }
}

/// Cephes' logf polynomial, and ln 2 in two parts (the high one exact in a few bits).
const LN_P: [f32; 9] = [
    7.037_683_6e-2,
    -1.151_461e-1,
    1.167_699_9e-1,
    -1.242_014_1e-1,
    1.424_932_3e-1,
    -1.666_805_8e-1,
    2.000_071_5e-1,
    -2.499_999_4e-1,
    0.333_333_3,
];
const LN2_HIGH_PART: f32 = 0.693_359_4;
const LN2_LOW_PART: f32 = -2.121_944_4e-4;

/// Natural log of a float32, straight-line (selects, no table or call) so the elementwise loops
/// vectorize it; within 1 ulp of float64 (tested). The scheme is Cephes' logf: x = m·2^e with m in
/// [√½, √2), then log(1 + f) for f = m - 1 as f - f²/2 + f³·P(f), P of degree 8, and e·ln2 added in
/// two parts.
#[inline(always)]
pub fn ln_f32(x: f32) -> f32 {
    let subnormal = x < f32::MIN_POSITIVE;
    let bits = (if subnormal { x * 8_388_608.0 } else { x }).to_bits(); // subnormals scaled by 2^23
    let e = ((bits >> 23) & 0xff) as i32 - if subnormal { 126 + 23 } else { 126 };
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000); // in [0.5, 1)
    let below = m < std::f32::consts::FRAC_1_SQRT_2;
    let e = (if below { e - 1 } else { e }) as f32;
    let f = if below { m + m - 1.0 } else { m - 1.0 };
    let z = f * f;
    let mut p = LN_P[0];
    for c in &LN_P[1..] {
        p = p * f + c;
    }
    let y = f * (z * p) + e * LN2_LOW_PART - 0.5 * z;
    let r = f + y + e * LN2_HIGH_PART;
    if x.is_nan() || x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        r
    }
}

/// float64 exp for |x| <= 20 (erf's range), the scheme of `exp_f32` with a degree-12 polynomial.
#[inline(always)]
fn exp_f64_small(x: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    let shifted = x * std::f64::consts::LOG2_E + MAGIC;
    let n = shifted - MAGIC;
    let n_int = shifted.to_bits() as i64 - MAGIC.to_bits() as i64;
    let r = x - n * 0.693_147_180_369_123_8 - n * 1.908_214_929_270_587_7e-10;
    let mut p = 1.0 / 479_001_600.0;
    for c in [
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = p * r + c;
    }
    p * f64::from_bits(((n_int + 1023) as u64) << 52)
}

/// erf's series below 1: the Maclaurin coefficients of erf(x)/x in x², 2/√π·(-1)^k / (k!(2k+1)).
const ERF_SERIES: [f64; 11] = [
    std::f64::consts::FRAC_2_SQRT_PI,
    -0.37612638903183754,
    0.11283791670955126,
    -0.026866170645131252,
    0.005223977625442188,
    -0.0008548327023450852,
    0.00012055332981789664,
    -1.492565035840625e-05,
    1.6462114365889246e-06,
    -1.6365844691234924e-07,
    1.4807192815879218e-08,
];
/// erf from 1 to 4: erfc(x)·e^{x²} as a polynomial in t = (x - 2.5) / 1.5 (tools/fit_erf.py).
const ERF_Q: [f64; 13] = [
    0.21080636427599794,
    -0.11152100469156717,
    0.05611047257950706,
    -0.027005725378744034,
    0.012489703735185424,
    -0.005567332339904332,
    0.002401701389605908,
    -0.0010171192390504365,
    0.00041450875330498855,
    -0.00014394697040167605,
    5.494660728291263e-05,
    -3.692937456698813e-05,
    1.3819322079583979e-05,
];

const fn to_f32<const N: usize>(v: [f64; N]) -> [f32; N] {
    let mut out = [0.0f32; N];
    let mut i = 0;
    while i < N {
        out[i] = v[i] as f32;
        i += 1;
    }
    out
}

/// erf of a float32, computed in float64 in straight-line code (the elementwise loops vectorize it);
/// within 1 ulp (tested). Below 1, the Maclaurin series x·Σ (-1)^k x^{2k} / (k!(2k+1)) · 2/√π to
/// k = 10 (relative error 1.4e-9); from 1 to 4, 1 - e^{-x²}·Q(x) with Q a degree-12 fit of
/// erfc(x)·e^{x²} (tools/fit_erf.py, relative error 7.6e-9); beyond 4, erf rounds to ±1 in float32.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let a = (x as f64).abs();
    let a = if a > 4.0 { 4.0 } else { a }; // NaN stays NaN
    let z = a * a;
    let mut s = ERF_SERIES[10];
    for c in ERF_SERIES[..10].iter().rev() {
        s = s * z + c;
    }
    let t = (a - 2.5) * (1.0 / 1.5);
    let mut q = ERF_Q[12];
    for c in ERF_Q[..12].iter().rev() {
        q = q * t + c;
    }
    let r = if a < 1.0 { a * s } else { 1.0 - exp_f64_small(-z) * q };
    (r as f32).copysign(x)
}

/// Beyond this |x|, `sin_cos_f32_near` stops being exact in its reduction (k·π/2 with k < 2^20) and the
/// slice kernels hand the element to libm (Payne–Hanek reduction).
const SIN_COS_LIMIT: f32 = 1_000_000.0;

/// sin (or cos) of a float32 with |x| <= `SIN_COS_LIMIT`, in float64, straight-line: x = k·π/2 + r
/// with π/2 in two parts (the first 33 bits, so k·π/2 is exact), then Taylor series for sin and cos
/// of |r| <= π/4 to degree 13 and 14 (errors below 3e-14), picked and signed by the quadrant k mod 4.
/// Within 1 ulp (tested); larger |x| goes to libm (see `sin_f32_into_f64`).
#[inline(always)]
fn sin_cos_f32_near(x: f32, cosine: bool) -> f32 {
    const PI_2_HI: f64 = 1.570_796_326_734_125_6;
    const PI_2_LO: f64 = 6.077_100_506_506_192e-11;
    let a = (x as f64).abs(); // sin is odd, cos even: the sign is applied at the end
    let k = (a * std::f64::consts::FRAC_2_PI).round_ties_even();
    let r = (a - k * PI_2_HI) - k * PI_2_LO;
    let z = r * r;
    let mut s = -1.0 / 6_227_020_800.0; // -1/13!
    for c in [1.0 / 39_916_800.0, -1.0 / 362_880.0, 1.0 / 5_040.0, -1.0 / 120.0, 1.0 / 6.0] {
        s = s * z + c;
    }
    let sin_r = r - r * z * s;
    let mut co = 1.0 / 87_178_291_200.0; // 1/14!
    for c in [-1.0 / 479_001_600.0, 1.0 / 3_628_800.0, -1.0 / 40_320.0, 1.0 / 720.0, -1.0 / 24.0, 0.5] {
        co = co * z - c;
    }
    let cos_r = 1.0 + z * co;
    // the quadrant k mod 4 in float64 (an integer conversion of float64 lanes needs AVX-512DQ, and
    // without it the loop ran element by element); cos x = sin(x + π/2)
    let q = k - 4.0 * (k * 0.25).floor() + if cosine { 1.0 } else { 0.0 };
    let q = if q >= 4.0 { q - 4.0 } else { q };
    let v = if q == 1.0 || q == 3.0 { cos_r } else { sin_r };
    let v = if q >= 2.0 { -v } else { v };
    let v = if !cosine && x.is_sign_negative() { -v } else { v };
    if x.is_finite() {
        v as f32
    } else {
        f32::NAN
    }
}

/// sin of a float32 (libm beyond `SIN_COS_LIMIT`).
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    if x.abs() <= SIN_COS_LIMIT {
        sin_cos_f32_near(x, false)
    } else {
        libm::sinf(x)
    }
}

/// cos of a float32 (libm beyond `SIN_COS_LIMIT`).
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    if x.abs() <= SIN_COS_LIMIT {
        sin_cos_f32_near(x, true)
    } else {
        libm::cosf(x)
    }
}

/// `out[i] = sin(x[i])` in float64 (the path without FMA): the vectorized series everywhere, then libm
/// for the rare |x| beyond the limit.
pub fn sin_f32_into_f64(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    #[inline(always)] // so the vectorized loop gets the whole series, not a call per element
    fn near(v: f32) -> f32 {
        sin_cos_f32_near(v, false)
    }
    map_into(out, x, &near);
    patch_large(out, x, libm::sinf);
}

/// `out[i] = cos(x[i])`, as `sin_f32_into_f64`.
pub fn cos_f32_into_f64(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    #[inline(always)]
    fn near(v: f32) -> f32 {
        sin_cos_f32_near(v, true)
    }
    map_into(out, x, &near);
    patch_large(out, x, libm::cosf);
}

/// `out[i] = f(x[i])` where |x[i]| is beyond `SIN_COS_LIMIT` (and finite). Blocks are first checked
/// with a branch-free pass that vectorizes even in the baseline build: a branch per element took a
/// third of the time of `sin` itself.
fn patch_large(out: &mut [MaybeUninit<f32>], x: &[f32], f: fn(f32) -> f32) {
    for (o, xs) in out.chunks_mut(256).zip(x.chunks(256)) {
        if xs.iter().fold(false, |any, v| any | (v.abs() > SIN_COS_LIMIT)) {
            for (o, &v) in o.iter_mut().zip(xs) {
                if v.abs() > SIN_COS_LIMIT && v.is_finite() {
                    o.write(f(v));
                }
            }
        }
    }
}

/// Cephes' tanhf polynomial in x² for |x| < 0.625.
const TANH_Q: [f32; 5] = [-5.704_988_7e-3, 2.063_909e-2, -5.373_971_5e-2, 0.133_314_42, -0.333_332_8];

/// tanh of a float32 in float32, straight-line, Cephes' tanhf scheme: an odd polynomial below 0.625
/// (x + x³·Q(x²), Q of degree 4) and 1 - 2/(e^{2|x|} + 1) above, where no cancellation is left to
/// lose bits. (It went through a float64 exp before, at about a sixth of PyTorch's speed.)
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let mut q = TANH_Q[0];
    for c in &TANH_Q[1..] {
        q = q * z + c;
    }
    let small = if z == 0.0 { x } else { q * z * x + x }; // keeps the sign of ±0
    let large = 1.0 - 2.0 / (exp_f32(a + a) + 1.0); // exp_f32 saturates to inf: tanh(±large) = ±1
    let large = if x < 0.0 { -large } else { large };
    if a < 0.625 {
        small
    } else if x.is_nan() {
        x
    } else {
        large
    }
}

/// atan2(y, x) of float32s, computed in float64 without branches so that it vectorizes (libm's `atan2f`, a call
/// per element, took 13 ms for 1M; torch 0.76): the smaller magnitude over the larger, t in [0, 1], reduced below
/// tan(π/8) by atan(t) = π/4 + atan((t - 1)/(t + 1)) with the same single division, then 12 terms of atan's series
/// (error below 1e-11, so the float32 result is rounded from a value good to ~37 bits), then the octant restored.
#[inline(always)]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    const TAN_PI_8: f64 = 0.414_213_562_373_095_03;
    let (ay, ax) = (f64::from(y.abs()), f64::from(x.abs()));
    let swapped = ay > ax;
    let (num, den) = if swapped { (ax, ay) } else { (ay, ax) };
    // both infinite: the diagonal (t = 1); both zero: t = 0
    let both_inf = num.is_infinite();
    let (num, den) = if both_inf {
        (1.0, 1.0)
    } else if den == 0.0 {
        (0.0, 1.0)
    } else {
        (num, den)
    };
    let reduced = num > TAN_PI_8 * den;
    // one division, its operands selected (written as two selected quotients, both were computed)
    let (top, bottom) = if reduced { (num - den, num + den) } else { (num, den) };
    let t = top / bottom;
    let s = t * t;
    let mut p = ATAN_SERIES[0];
    // fused multiply-adds (one rounding each, so every SIMD level gives the same bits): the series is half the
    // instructions, and atan2 of 1M took 0.93-0.98 ms with a multiply and an add per term (torch 0.71-0.76)
    for c in &ATAN_SERIES[1..] {
        p = p.mul_add(s, *c);
    }
    let mut r = t.mul_add(p, if reduced { FRAC_PI_4 } else { 0.0 });
    if swapped {
        r = FRAC_PI_2 - r;
    }
    if x.is_sign_negative() {
        r = PI - r;
    }
    let r = if y.is_sign_negative() { -r } else { r };
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else {
        r as f32
    }
}

/// atan(t)/t = Σ (-1)^k t^{2k}/(2k + 1), k = 11 down to 0 (Horner's order).
const ATAN_SERIES: [f64; 12] = {
    let mut c = [0.0; 12];
    let mut k = 0;
    while k < 12 {
        let term = 1.0 / (2 * (11 - k) + 1) as f64;
        c[k] = if (11 - k) % 2 == 0 { term } else { -term };
        k += 1;
    }
    c
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atan2_f32_is_float64_atan2_rounded_and_exact_at_the_special_values() {
        let mut worst = 0.0f64;
        let mut k = 0u32;
        while k < 2_000_000 {
            // pairs across every exponent and sign, both orders of magnitude, subnormals and huge ratios
            let y = f32::from_bits(k.wrapping_mul(2_654_435_761));
            let x = f32::from_bits(k.wrapping_mul(40_503).rotate_left(7));
            if y.is_finite() && x.is_finite() {
                worst = worst.max(ulps(atan2_f32(y, x), f64::from(y).atan2(f64::from(x))));
            }
            k += 1;
        }
        assert!(worst <= 0.5 + 1e-3, "worst {worst} ulp");
        let specials = [0.0f32, -0.0, 1.0, -1.0, 3.5e-42, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e-30];
        for &y in &specials {
            for &x in &specials {
                // (libm's atan2f gives 1.5707963 for atan2(1, -1e-30); π/2 rounds to 1.5707964)
                let (got, want) = (atan2_f32(y, x), f64::from(y).atan2(f64::from(x)) as f32);
                assert!(
                    got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                    "atan2({y}, {x}): {got} {want}"
                );
            }
        }
    }

    fn ulps(a: f32, b: f64) -> f64 {
        let b32 = b as f32;
        if a == b32 || (a.is_nan() && b.is_nan()) {
            return 0.0;
        }
        let ulp = (f32::from_bits(b32.abs().to_bits() + 1) - b32.abs()) as f64;
        ((a as f64) - b).abs() / ulp
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = f32> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f32 / n as f32)
    }

    #[test]
    fn exp_within_two_ulp_and_special_values() {
        let mut worst = 0.0f64;
        for x in sweep(-87.0, 88.7, 400_000).chain(sweep(-1.0, 1.0, 100_000)) {
            worst = worst.max(ulps(exp_f32(x), (x as f64).exp()));
        }
        assert!(worst <= 2.0, "exp_f32 worst error {worst} ulp");
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
        // into the subnormal range
        assert!(
            ulps(exp_f32(-100.0), (-100.0f64).exp()) <= 2.0
                || ((exp_f32(-100.0) as f64) - (-100.0f64).exp()).abs() < 1e-44
        );
    }

    /// Each level's slice kernels (the AVX-512 ones are their own code) against float64 within their
    /// stated bounds, with the special values of the scalar versions, on lengths around the vector
    /// width and unaligned starts.
    #[test]
    fn slice_kernels_on_every_level_are_within_their_bounds() {
        let specials = [
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            88.7,
            89.5,
            -103.0,
            -110.0,
            1e-30,
            -1e-30,
            f32::MIN_POSITIVE,
            1e-40,
            -1.0,
            0.625,
            -0.625,
        ];
        let mut xs: Vec<f32> =
            sweep(-120.0, 100.0, 5_000).chain(sweep(-87.0, 88.7, 200_000)).chain(sweep(-1.0, 1.0, 50_000)).collect();
        xs.extend((0..=50_000).map(|i| 10f64.powf(-44.0 + 82.0 * i as f64 / 50_000.0) as f32));
        xs.splice(17..17, specials);
        // (name, slice kernel, scalar version, float64 reference, ulp bound, and below which result
        // size an absolute bound of that size applies instead): two subnormal steps for most; for
        // sigmoid and SiLU, results that small come out 0, because e^{-x} overflows first (PyTorch's
        // formula does the same)
        const NORMAL: f64 = f32::MIN_POSITIVE as f64;
        const SUB: (f64, f64) = (NORMAL, 2.0 * 1.4e-45);
        // (name, slice kernel, scalar, float64 reference, ulp bound, range)
        type Case = (&'static str, F32SliceKernel, fn(f32) -> f32, fn(f64) -> f64, f64, (f64, f64));
        let cases: [Case; 6] = [
            ("exp", exp_f32_into, exp_f32, f64::exp, 2.0, SUB),
            ("ln", ln_f32_into, ln_f32, f64::ln, 1.0, SUB),
            ("tanh", tanh_f32_into, tanh_f32, f64::tanh, 2.5, SUB),
            ("erf", erf_f32_into, erf_f32, libm::erf, 2.0, SUB),
            ("sigmoid", sigmoid_f32_into, sigmoid_f32, |x| 1.0 / (1.0 + (-x).exp()), 3.0, (NORMAL, NORMAL)),
            ("silu", silu_f32_into, silu_f32, |x| x / (1.0 + (-x).exp()), 4.0, (3e-37, 3e-37)),
        ];
        for l in [crate::kernels::simd::Level::Baseline, crate::kernels::simd::level()] {
            crate::kernels::simd::set_level(l);
            for (name, kernel, scalar, reference, bound, tiny) in cases {
                for (start, len) in
                    [(0, 0), (0, 1), (1, 15), (0, 16), (3, 17), (5, 31), (0, 32), (7, 33), (1, xs.len() - 1)]
                {
                    let x = &xs[start..start + len];
                    let got = crate::kernels::simd::map_slice_by(x, kernel);
                    for (&g, &v) in got.iter().zip(x) {
                        let want = reference(v as f64);
                        let close = if want.abs() < tiny.0 {
                            (g as f64 - want).abs() <= tiny.1
                        } else {
                            ulps(g, want) <= bound
                        };
                        assert!(close || (g.is_nan() && want.is_nan()), "{name}({v}) = {g}, want {want} at {l:?}");
                        if !v.is_finite() || v == 0.0 {
                            let s = scalar(v);
                            assert!(
                                g.to_bits() == s.to_bits() || (g.is_nan() && s.is_nan()),
                                "{name}({v}) = {g}, scalar {s} at {l:?}"
                            );
                        }
                    }
                }
            }
        }
        crate::kernels::simd::set_level(crate::kernels::simd::detect());
    }

    #[test]
    fn ln_within_one_ulp_and_special_values() {
        let mut worst = 0.0f64;
        let log_spaced = (0..=200_000).map(|i| 10f64.powf(-44.0 + 82.0 * i as f64 / 200_000.0) as f32);
        for x in log_spaced.chain(sweep(0.5, 2.0, 200_000)).chain(sweep(0.999, 1.001, 20_000)) {
            worst = worst.max(ulps(ln_f32(x), (x as f64).ln()));
        }
        assert!(worst <= 1.0, "ln_f32 worst error {worst} ulp");
        assert_eq!(ln_f32(1.0), 0.0);
        assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
        for x in [-1.0, f32::NEG_INFINITY, f32::NAN, -1e-40] {
            assert!(ln_f32(x).is_nan(), "ln({x})");
        }
        assert!(ulps(ln_f32(1e-45), (1e-45f32 as f64).ln()) <= 1.0);
    }

    #[test]
    fn erf_within_one_ulp_and_special_values() {
        let mut worst = 0.0f64;
        for x in sweep(-5.0, 5.0, 400_000)
            .chain(sweep(-1e-3, 1e-3, 10_000))
            .chain(sweep(0.99, 1.01, 10_000))
            .chain(sweep(3.9, 4.1, 1_000))
        {
            worst = worst.max(ulps(erf_f32(x), libm::erf(x as f64)));
        }
        assert!(worst <= 1.0, "erf_f32 worst error {worst} ulp");
        assert_eq!(erf_f32(0.0), 0.0);
        assert!(erf_f32(-0.0).is_sign_negative());
        assert_eq!(erf_f32(f32::INFINITY), 1.0);
        assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(erf_f32(1e3), 1.0);
        assert!(erf_f32(f32::NAN).is_nan());
        assert_eq!(erf_f32(1e-30), (1e-30f64 * std::f64::consts::FRAC_2_SQRT_PI) as f32);
    }

    #[test]
    #[allow(clippy::approx_constant)] // float32 neighbours of k·π/2, on purpose
    fn sin_and_cos_within_one_ulp_and_special_values() {
        let xs: Vec<f32> = sweep(-10.0, 10.0, 200_000)
            .chain(sweep(-1e-3, 1e-3, 10_000))
            // up to 1e7, past the limit
            .chain((0..=20_000).map(|i| 10f64.powf(-30.0 + 37.0 * i as f64 / 20_000.0) as f32))
            .chain([
                1.570_796_4,
                3.141_592_7,
                4.712_389,
                6.283_185_5,
                102_943.7,
                999_999.9,
                1_000_000.1,
                f32::MAX,
                f32::MIN_POSITIVE,
                1e-40,
            ])
            .collect();
        type Case = (&'static str, fn(f32) -> f32, fn(&mut [MaybeUninit<f32>], &[f32]), fn(f64) -> f64);
        let cases: [Case; 2] =
            [("sin", sin_f32, sin_f32_into_f64, f64::sin), ("cos", cos_f32, cos_f32_into_f64, f64::cos)];
        for (name, scalar, slice, reference) in cases {
            let sliced = crate::kernels::simd::map_slice_by(&xs, slice);
            for (&x, &g) in xs.iter().zip(&sliced) {
                let want = reference(x as f64);
                let s = scalar(x);
                let close = |v: f32| ulps(v, want) <= 1.0 || (v as f64 - want).abs() < 1e-44;
                assert!(close(s) && close(g), "{name}({x}) = {s} (slice {g}), want {want}");
            }
        }
        assert!(sin_f32(-0.0).is_sign_negative() && sin_f32(0.0) == 0.0 && cos_f32(-0.0) == 1.0);
        for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(sin_f32(x).is_nan() && cos_f32(x).is_nan(), "{x}");
            assert!(crate::kernels::simd::map_slice_by(&[x], sin_f32_into_f64)[0].is_nan());
        }
    }

    #[test]
    fn tanh_within_two_ulp_and_special_values() {
        let mut worst = 0.0f64;
        let around_the_switch = sweep(0.62, 0.63, 20_000).chain(sweep(-0.63, -0.62, 20_000));
        for x in sweep(-10.0, 10.0, 400_000)
            .chain(sweep(-0.2, 0.2, 100_000))
            .chain(sweep(-1e-3, 1e-3, 10_000))
            .chain(around_the_switch)
            .chain(sweep(-60.0, 60.0, 10_000))
        {
            worst = worst.max(ulps(tanh_f32(x), (x as f64).tanh()));
        }
        assert!(worst <= 2.0, "tanh_f32 worst error {worst} ulp");
        assert_eq!(tanh_f32(0.0), 0.0);
        assert!(tanh_f32(-0.0).is_sign_negative());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(1e-30), 1e-30);
    }
}
