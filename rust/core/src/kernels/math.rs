//! Vectorizable float32 `exp` and `tanh`: straight-line code (no table lookups, no calls), so the
//! elementwise loops compile to wide SIMD under run-time dispatch. Error bounds are tested below
//! against float64 references: `exp_f32` within 2 ulp, `tanh_f32` within 2 ulp.

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
pub fn exp_f32(x: f32) -> f32 {
    // beyond these, the result is inf or 0 anyway; NaN falls through both comparisons
    let x = if x > 89.0 { 89.0 } else if x < -104.0 { -104.0 } else { x };
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

/// `out[i] = exp_f32(x[i])`, bit for bit, sixteen lanes at a time on AVX-512. (Left to itself the
/// compiler vectorizes `exp_f32` only partly: measured ~2x slower, compute-bound at 1e6 elements.)
pub fn exp_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if level() == Level::Avx512 {
        // Safety: AVX-512F is present (checked by `level`).
        return unsafe { x86::exp_f32_into_avx512(out, x) };
    }
    map_into(out, x, &exp_f32)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// `exp_f32` on sixteen lanes: the same operations in the same order (no FMA), so the same bits.
    #[target_feature(enable = "avx512f")]
    unsafe fn exp_f32x16(x: __m512) -> __m512 {
        let set = _mm512_set1_ps;
        let x = _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, set(89.0)), x, set(89.0));
        let x = _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, set(-104.0)), x, set(-104.0));
        let shifted = _mm512_add_ps(_mm512_mul_ps(x, set(LOG2E)), set(ROUND_MAGIC));
        let n = _mm512_sub_ps(shifted, set(ROUND_MAGIC));
        let n_int = _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_set1_epi32(ROUND_MAGIC.to_bits() as i32));
        let r = _mm512_sub_ps(_mm512_sub_ps(x, _mm512_mul_ps(n, set(LN2_HI))), _mm512_mul_ps(n, set(LN2_LO)));
        let mut p = _mm512_mul_ps(r, set(1.0 / 5040.0));
        for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0] {
            p = _mm512_mul_ps(r, _mm512_add_ps(set(c), p));
        }
        let p = _mm512_add_ps(set(1.0), p);
        let half = _mm512_srai_epi32::<1>(n_int);
        let bias = _mm512_set1_epi32(127);
        let p1 = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_add_epi32(half, bias)));
        let p2 = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_add_epi32(_mm512_sub_epi32(n_int, half), bias)));
        _mm512_mul_ps(_mm512_mul_ps(p, p1), p2)
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn exp_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32]) {
        let n = out.len().min(x.len());
        let full = n - n % 16;
        let (src, dst) = (x.as_ptr(), out.as_mut_ptr().cast::<f32>());
        let mut i = 0;
        while i < full {
            _mm512_storeu_ps(dst.add(i), exp_f32x16(_mm512_loadu_ps(src.add(i))));
            i += 16;
        }
        for (o, &v) in out[full..n].iter_mut().zip(&x[full..n]) {
            o.write(exp_f32(v));
        }
    }
}

/// float64 exp for |x| <= 20 (tanh's range), same scheme with a degree-12 polynomial.
#[inline(always)]
fn exp_f64_small(x: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    let shifted = x * std::f64::consts::LOG2_E + MAGIC;
    let n = shifted - MAGIC;
    let n_int = shifted.to_bits() as i64 - MAGIC.to_bits() as i64;
    let r = x - n * 0.693_147_180_369_123_8 - n * 1.908_214_929_270_587_7e-10;
    let mut p = 1.0 / 479_001_600.0;
    for c in [1.0 / 39_916_800.0, 1.0 / 3_628_800.0, 1.0 / 362_880.0, 1.0 / 40_320.0, 1.0 / 5_040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = p * r + c;
    }
    p * f64::from_bits(((n_int + 1023) as u64) << 52)
}

/// tanh through float64 (so the cancellation in 1 - 2/(e^2x + 1) costs nothing visible in float32),
/// an odd Taylor polynomial near 0.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let a = (x as f64).abs();
    let small = {
        let a2 = a * a;
        a * (1.0 + a2 * (-1.0 / 3.0 + a2 * (2.0 / 15.0 + a2 * (-17.0 / 315.0 + a2 * (62.0 / 2835.0)))))
    };
    let clamped = if a > 20.0 { 20.0 } else { a }; // tanh(20) is 1 in float32
    let large = 1.0 - 2.0 / (exp_f64_small(2.0 * clamped) + 1.0);
    let t = if a < 0.0625 { small } else { large };
    let t = if x.is_nan() { f64::NAN } else { t };
    (if x < 0.0 { -t } else { t }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(ulps(exp_f32(-100.0), (-100.0f64).exp()) <= 2.0 || ((exp_f32(-100.0) as f64) - (-100.0f64).exp()).abs() < 1e-44);
    }

    #[test]
    fn exp_slices_match_the_scalar_exp_bit_for_bit_on_every_level() {
        let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 88.7, 89.5, -103.0, -110.0, 1e-30, f32::MIN_POSITIVE];
        let mut xs: Vec<f32> = sweep(-120.0, 100.0, 5_000).collect();
        xs.splice(17..17, specials);
        for l in [crate::kernels::simd::Level::Baseline, crate::kernels::simd::level()] {
            crate::kernels::simd::set_level(l);
            // lengths around the vector width, unaligned starts
            for (start, len) in [(0, 0), (0, 1), (1, 15), (0, 16), (3, 17), (5, 31), (0, 32), (7, 33), (1, xs.len() - 1)] {
                let x = &xs[start..start + len];
                let got = crate::kernels::simd::map_slice_by(x, exp_f32_into);
                for (g, &v) in got.iter().zip(x) {
                    let want = exp_f32(v);
                    assert!(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()), "exp({v}) = {g}, scalar {want} at {l:?}");
                }
            }
        }
        crate::kernels::simd::set_level(crate::kernels::simd::detect());
    }

    #[test]
    fn tanh_within_two_ulp_and_special_values() {
        let mut worst = 0.0f64;
        for x in sweep(-10.0, 10.0, 400_000).chain(sweep(-0.2, 0.2, 100_000)).chain(sweep(-1e-3, 1e-3, 10_000)) {
            worst = worst.max(ulps(tanh_f32(x), (x as f64).tanh()));
        }
        assert!(worst <= 2.0, "tanh_f32 worst error {worst} ulp");
        assert_eq!(tanh_f32(0.0), 0.0);
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(1e-30), 1e-30);
    }
}
