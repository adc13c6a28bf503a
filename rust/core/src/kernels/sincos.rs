//! float32 `sin` and `cos` over slices. With FMA (the AVX2 and AVX-512 levels) they compute in
//! float32: Cody–Waite reduction x = k·π/2 + r with π/2 in three float32 parts, then Cephes' sinf
//! and cosf polynomials on |r| <= π/4, picked and signed by the quadrant k mod 4. That is correct
//! for |x| <= `FMA_LIMIT`, within `SIN_COS_FMA_ULP` ulp of the true value (measured over every
//! float32 up to the limit, see `every_float32_below_the_limit` in the tests); larger finite |x|
//! are rare and take `sin_f32`/`cos_f32` (a float64 reduction, then libm's Payne–Hanek beyond 1e6),
//! within 1 ulp. NaN and ±inf give NaN, as in PyTorch. The baseline level (no FMA) runs the float64
//! scheme of `math::sin_f32` for every element.
//!
//! Why: the float64 scheme runs half the lanes a vector, and PyTorch's sin (SLEEF) ran at 0.84–0.92×
//! of it for 1e6 elements.
use crate::kernels::math::{cos_f32, cos_f32_into_f64, sin_f32, sin_f32_into_f64};
use crate::kernels::simd::{level, Level};
use std::mem::MaybeUninit;

/// The largest |x| the float32 reduction handles: k = round(|x|·2/π) stays below 2^16, so the
/// product k·π/2 is exact to ~2^-60 with three parts, and the quadrant is read from the low bits of
/// the rounding shift.
pub const FMA_LIMIT: f32 = 65_536.0;

/// Bound of the float32 (FMA) path, in ulp of the float64 result rounded to float32: over every float32
/// up to the limit the worst was 1.56 (sin at 922.8229, cos at 1840.216; AVX-512, AVX2 is the same code).
pub const SIN_COS_FMA_ULP: f64 = 2.0;

const TWO_OVER_PI: f32 = 0.636_619_75;
/// π/2 = C1 + C2 + C3 to ~1e-23; C1·k is a multiple of 2^-23, so |x| - k·C1 is exact.
const PI_2_C1: f32 = 1.570_796_4;
const PI_2_C2: f32 = -4.371_139e-8;
const PI_2_C3: f32 = -1.715_124_5e-15;
/// Adding 1.5·2^23 rounds to an integer and leaves it in the low mantissa bits.
const ROUND_MAGIC: f32 = 12_582_912.0;
/// Cephes' sinf: sin r ≈ r + r³·P(r²) on |r| <= π/4.
const SIN_P: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1];
/// Cephes' cosf: cos r ≈ 1 - r²/2 + r⁴·Q(r²) on |r| <= π/4.
const COS_P: [f32; 3] = [2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2];

/// sin (or cos) of a float32 with |x| <= `FMA_LIMIT`, in float32 with FMA. Computed for |x| and
/// signed at the end (sin is odd): so sin(-0) = -0.
#[inline(always)]
fn sin_cos_fma(x: f32, cosine: bool) -> f32 {
    let a = x.abs();
    let shifted = a.mul_add(TWO_OVER_PI, ROUND_MAGIC);
    let k = shifted - ROUND_MAGIC;
    // cos x = sin(x + π/2): one quadrant on
    let q = shifted.to_bits().wrapping_add(cosine as u32);
    let r = (-k).mul_add(PI_2_C1, a);
    let r = (-k).mul_add(PI_2_C2, r);
    let r = (-k).mul_add(PI_2_C3, r);
    let z = r * r;
    let s = SIN_P[0].mul_add(z, SIN_P[1]).mul_add(z, SIN_P[2]);
    let sin_r = s.mul_add(z * r, r);
    let c = COS_P[0].mul_add(z, COS_P[1]).mul_add(z, COS_P[2]);
    let cos_r = c.mul_add(z * z, (-0.5f32).mul_add(z, 1.0));
    let v = if q & 1 == 1 { cos_r } else { sin_r };
    let sign = ((q & 2) << 30) ^ if cosine { 0 } else { x.to_bits() & 0x8000_0000 };
    f32::from_bits(v.to_bits() ^ sign)
}

/// The FMA path over a slice: blocks through `sin_cos_fma`, then the rare elements beyond the limit
/// (a branch-free check per block, which vectorizes) through the float64/libm scalar versions.
#[inline(always)]
fn fill_fma(out: &mut [MaybeUninit<f32>], x: &[f32], cosine: bool) {
    for (o, xs) in out.chunks_mut(256).zip(x.chunks(256)) {
        for (o, &v) in o.iter_mut().zip(xs) {
            o.write(sin_cos_fma(v, cosine));
        }
        if xs.iter().fold(false, |any, v| any | (v.abs() > FMA_LIMIT)) {
            for (o, &v) in o.iter_mut().zip(xs) {
                if v.abs() > FMA_LIMIT {
                    o.write(if cosine { cos_f32(v) } else { sin_f32(v) });
                }
            }
        }
    }
}

/// The FMA path compiled for AVX2+FMA (eight lanes).
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn sin_cos_f32_into_avx2(out: &mut [MaybeUninit<f32>], x: &[f32], cosine: bool) {
    fill_fma(out, x, cosine)
}

/// The FMA path compiled for AVX-512 (sixteen lanes).
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512VL, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn sin_cos_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32], cosine: bool) {
    fill_fma(out, x, cosine)
}

/// The path without FMA: the float64 scheme (`math::sin_f32`) for every element.
pub fn sin_cos_f32_into_baseline(out: &mut [MaybeUninit<f32>], x: &[f32], cosine: bool) {
    if cosine {
        cos_f32_into_f64(out, x)
    } else {
        sin_f32_into_f64(out, x)
    }
}

fn sin_cos_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32], cosine: bool) {
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL, AVX2 and FMA on this CPU.
        Level::Avx512 => return unsafe { sin_cos_f32_into_avx512(out, x, cosine) },
        // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
        Level::Avx2 => return unsafe { sin_cos_f32_into_avx2(out, x, cosine) },
        Level::Baseline => {}
    }
    sin_cos_f32_into_baseline(out, x, cosine)
}

/// `out[i] = sin(x[i])` for float32 (see the module's note for the method and its bound).
pub fn sin_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    sin_cos_f32_into(out, x, false)
}

/// `out[i] = cos(x[i])` for float32, as `sin_f32_into`.
pub fn cos_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    sin_cos_f32_into(out, x, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// |got - want| in ulp of `want` rounded to float32 (0 when both are NaN).
    fn ulps(got: f32, want: f64) -> f64 {
        let w32 = want as f32;
        if got == w32 || (got.is_nan() && want.is_nan()) {
            return 0.0;
        }
        let ulp = (f32::from_bits(w32.abs().to_bits() + 1) - w32.abs()) as f64;
        ((got as f64) - want).abs() / ulp
    }

    type Path = (&'static str, fn(&mut [MaybeUninit<f32>], &[f32], bool));

    /// Every path this CPU can run, named.
    fn paths() -> Vec<Path> {
        let mut p: Vec<Path> = vec![("baseline", sin_cos_f32_into_baseline)];
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                // Safety: the features were just checked.
                p.push(("avx2", |o, x, c| unsafe { sin_cos_f32_into_avx2(o, x, c) }));
            }
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("fma")
            {
                // SAFETY: every feature the AVX-512 version enables was just found on this CPU.
                p.push(("avx512", |o, x, c| unsafe { sin_cos_f32_into_avx512(o, x, c) }));
            }
        }
        p
    }

    fn run(path: Path, x: &[f32], cosine: bool) -> Vec<f32> {
        let mut out = vec![MaybeUninit::uninit(); x.len()];
        (path.1)(&mut out, x, cosine);
        // Safety: every path writes every element.
        out.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    /// The float32 neighbours (and the nearest float32) of k·π/2, where r is smallest.
    fn near_multiples_of_half_pi() -> Vec<f32> {
        let ks =
            (0..2_000i64).chain((0..400).map(|i| 1i64 << (i % 40)).map(|k| k + 3)).chain((0..2000).map(|i| i * 97));
        let mut xs = Vec::new();
        for k in ks {
            let m = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
            let bits = m.to_bits();
            for b in bits.saturating_sub(2)..=bits.saturating_add(2) {
                xs.push(f32::from_bits(b));
            }
        }
        xs
    }

    fn points() -> Vec<f32> {
        let mut xs: Vec<f32> = (0..=200_000).map(|i| -12.0 + 24.0 * i as f32 / 200_000.0).collect();
        // log-spaced, from subnormals to the largest float32
        xs.extend((0..=40_000).map(|i| 10f64.powf(-45.0 + 83.5 * i as f64 / 40_000.0) as f32));
        xs.extend(near_multiples_of_half_pi());
        // around the limit of the float32 reduction
        let limit = FMA_LIMIT.to_bits();
        xs.extend((limit - 300..limit + 300).map(f32::from_bits));
        xs.extend([
            0.0,
            f32::MIN_POSITIVE,
            1e-45,
            1e-40,
            f32::EPSILON,
            std::f32::consts::FRAC_PI_4,
            std::f32::consts::FRAC_PI_2,
            std::f32::consts::PI,
            FMA_LIMIT,
            1e6,
            16_367_173.0 * 2f32.powi(72), // a hard case for the reduction
            f32::MAX,
        ]);
        let negated: Vec<f32> = xs.iter().map(|v| -v).collect();
        xs.extend(negated);
        xs
    }

    /// Every path within its bound of float64 (1 ulp for the float64 path, `SIN_COS_FMA_ULP` for the
    /// float32 one), on lengths around the vector width and unaligned starts; ±0 keep sin's sign; NaN and
    /// ±inf give NaN.
    #[test]
    fn every_path_within_its_bound_at_many_points() {
        let xs = points();
        for path in paths() {
            let bound = if path.0 == "baseline" { 1.0 } else { SIN_COS_FMA_ULP };
            for (cosine, reference) in [(false, f64::sin as fn(f64) -> f64), (true, f64::cos)] {
                for (start, len) in [(0, 1), (1, 7), (3, 17), (5, 31), (1, 300), (0, xs.len())] {
                    let x = &xs[start..start + len];
                    for (&v, g) in x.iter().zip(run(path, x, cosine)) {
                        let want = reference(v as f64);
                        let err = ulps(g, want);
                        // results below float32's normal range: within two subnormal steps
                        let tiny = want.abs() < f32::MIN_POSITIVE as f64 && (g as f64 - want).abs() <= 2.8e-45;
                        assert!(
                            err <= bound || tiny,
                            "{} cos={cosine} ({v:e}) = {g:e}, want {want:e} ({err} ulp)",
                            path.0
                        );
                    }
                }
            }
            let specials = [0.0, -0.0, f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
            let sin = run(path, &specials, false);
            let cos = run(path, &specials, true);
            assert_eq!(sin[0].to_bits(), 0f32.to_bits(), "{}", path.0);
            assert_eq!(sin[1].to_bits(), (-0f32).to_bits(), "{}", path.0);
            assert_eq!((cos[0], cos[1]), (1.0, 1.0), "{}", path.0);
            assert!(sin[2..].iter().chain(&cos[2..]).all(|v| v.is_nan()), "{} {sin:?} {cos:?}", path.0);
        }
    }

    /// The FMA path against float64 over every float32 up to `FMA_LIMIT` (about 1.2e9 of them; the
    /// negatives mirror them). Slow: run with `cargo test --release -- --ignored every_float32`.
    #[test]
    #[ignore]
    fn every_float32_below_the_limit() {
        let path = *paths().last().unwrap();
        let end = FMA_LIMIT.to_bits();
        let mut worst = [(0.0f64, 0f32); 2];
        let mut x = Vec::with_capacity(1 << 20);
        for start in (0..=end).step_by(1 << 20) {
            x.clear();
            x.extend((start..(start + (1 << 20)).min(end + 1)).map(f32::from_bits));
            for (cosine, reference) in [(false, f64::sin as fn(f64) -> f64), (true, f64::cos)] {
                for (&v, g) in x.iter().zip(run(path, &x, cosine)) {
                    let err = ulps(g, reference(v as f64));
                    if err > worst[cosine as usize].0 {
                        worst[cosine as usize] = (err, v);
                    }
                }
            }
        }
        println!("{}: worst sin {:?}, cos {:?} (ulp, at x)", path.0, worst[0], worst[1]);
        assert!(worst.iter().all(|w| w.0 <= SIN_COS_FMA_ULP), "{worst:?}");
    }
}
