//! float32 GELU over slices, both forms, and the gradients, with FMA on the AVX2 and AVX-512 levels:
//!
//! - exact, `x·Φ(x)`. On AVX-512, Φ from a table of polynomial pieces (`avx512.rs`, 17 instructions a
//!   vector: 365 -> 133 µs for 5e5 elements on one thread, same process; 2.5-3x on 1e6 through
//!   `F.gelu`). With AVX2+FMA, Φ(x) = 1 / (1 + e^{-w(x)}) with w = logit Φ, an odd function, fitted as
//!   x·W(x²) with W a degree-6 polynomial on |x| <= 5.7 (tools/fit_gelu.py; beyond, Φ is within 6e-9
//!   of 0 or 1, and W is held at its end value): one exponential and one division. Either is within
//!   `GELU_ABS` · |x| of the float64 value: absolute in Φ, the kind of bound PyTorch's own kernel has
//!   (its erf is within ~1e-7 absolute), and relative where Φ is not small (x >= 0: within 4 ulp); for
//!   x < -3, where Φ(x) < 1.4e-3, the relative error grows (the table's stays below 3e-7 down to -4).
//! - tanh, `x/2·(1 + tanh(√(2/π)(x + 0.044715x³)))`, computed as x / (1 + e^{-2√(2/π)(x + 0.044715x³)}),
//!   the same function without the cancellation of 1 + tanh for x < 0 (on AVX-512 with its own exp).
//! - on AVX-512, both gradients in one pass each: the exact form's g·(Φ(x) + x·φ(x)) from a table too, within
//!   `GELU_GRAD_ABS`·|g|, and the tanh form's (elsewhere their tensor-op formulas run).
//!
//! ±inf and NaN: exact GELU gives inf, NaN and NaN for +inf, -inf and NaN (as `math::gelu_f32`; PyTorch
//! gives NaN for +inf too); the tanh form inf, NaN, NaN, as PyTorch; both gradients NaN at ±inf and NaN,
//! as PyTorch. Without FMA (the baseline level) the previous scalar formulas run.
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod tables;

use crate::kernels::math::{exp_f32, gelu_f32, F32ZipKernel};
use crate::kernels::simd::{level, map_into, Level};
use std::mem::MaybeUninit;

/// |GELU error| <= GELU_ABS·|x| (measured, see the tests).
pub const GELU_ABS: f64 = 2.5e-7;
/// |error of g·GELU'(x)| <= GELU_GRAD_ABS·|g| (measured, see the tests).
pub const GELU_GRAD_ABS: f64 = 2.5e-7;

const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const GELU_TANH_COEF: f32 = 0.044715;
/// x² beyond which W is held (5.7²).
const W_END: f32 = 32.49;
/// logit Φ(x) / x ≈ W(u), u = 2x²/W_END - 1, powers u⁰..u⁶ (tools/fit_gelu.py: |ΔΦ| <= 2.9e-8).
const W: [f32; 7] = [2.602_340_8, 0.823_339_03, -0.150_837_08, 0.033_080_87, 0.024_197_563, 0.088_073_0, 0.064_561_45];

const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
const ROUND_MAGIC: f32 = 12_582_912.0;
/// Cephes' expf: e^r ≈ 1 + r + r²·P(r) on |r| <= ln2/2.
const EXP_P: [f32; 6] = [1.987_569_1e-4, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 0.166_666_65, 0.5];

/// e^v in float32 with FMA, within 2 ulp; inf above 89 and 0 below -104 (NaN stays NaN).
#[inline(always)]
#[allow(clippy::manual_clamp)] // NaN must fall through both comparisons
fn exp_fma(v: f32) -> f32 {
    let v = if v > 89.0 {
        89.0
    } else if v < -104.0 {
        -104.0
    } else {
        v
    };
    let shifted = v.mul_add(LOG2E, ROUND_MAGIC);
    let n = shifted - ROUND_MAGIC;
    let n_int = shifted.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, v));
    let mut p = EXP_P[0];
    for c in &EXP_P[1..] {
        p = p.mul_add(r, *c);
    }
    let p = p.mul_add(r * r, r + 1.0);
    // 2^n as two normal powers of two: n runs from -150 to 129
    let half = n_int >> 1;
    let p1 = f32::from_bits(((half + 127) as u32) << 23);
    let p2 = f32::from_bits(((n_int - half + 127) as u32) << 23);
    p * p1 * p2
}

/// Exact GELU with FMA (see the module's note).
#[inline(always)]
fn gelu_fma(x: f32) -> f32 {
    let s = x * x;
    let s = if s > W_END { W_END } else { s };
    let u = s.mul_add(2.0 / W_END, -1.0);
    let mut p = W[6];
    for c in W[..6].iter().rev() {
        p = p.mul_add(u, *c);
    }
    x / (1.0 + exp_fma(-(x * p)))
}

/// GELU's tanh form with FMA, as x·σ(2y).
#[inline(always)]
fn gelu_tanh_fma(x: f32) -> f32 {
    let y = x * (x * x).mul_add(GELU_TANH_COEF, 1.0);
    x / (1.0 + exp_fma(y * (-2.0 * SQRT_2_OVER_PI)))
}

/// GELU's tanh form without FMA, as x·σ(2y) through `exp_f32`.
#[inline(always)]
pub fn gelu_tanh_f32(x: f32) -> f32 {
    x / (1.0 + exp_f32(-2.0 * SQRT_2_OVER_PI * (x + GELU_TANH_COEF * x * x * x)))
}

/// Which GELU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeluForm {
    Exact,
    Tanh,
}

#[inline(always)]
fn fill_fma(out: &mut [MaybeUninit<f32>], x: &[f32], form: GeluForm) {
    match form {
        GeluForm::Exact => {
            for (o, &v) in out.iter_mut().zip(x) {
                o.write(gelu_fma(v));
            }
        }
        GeluForm::Tanh => {
            for (o, &v) in out.iter_mut().zip(x) {
                o.write(gelu_tanh_fma(v));
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
pub unsafe fn gelu_f32_into_avx2(out: &mut [MaybeUninit<f32>], x: &[f32], form: GeluForm) {
    fill_fma(out, x, form)
}

/// The FMA path compiled for AVX-512 (sixteen lanes).
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512VL, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_f32_into_avx512(out: &mut [MaybeUninit<f32>], x: &[f32], form: GeluForm) {
    match form {
        GeluForm::Exact => avx512::gelu_exact_f32_into(out, x),
        GeluForm::Tanh => avx512::gelu_tanh_f32_into(out, x),
    }
}

/// The path without FMA: `math::gelu_f32` (erf in float64) or `gelu_tanh_f32`.
pub fn gelu_f32_into_baseline(out: &mut [MaybeUninit<f32>], x: &[f32], form: GeluForm) {
    match form {
        GeluForm::Exact => map_into(out, x, &gelu_f32),
        GeluForm::Tanh => map_into(out, x, &gelu_tanh_f32),
    }
}

fn gelu_into(out: &mut [MaybeUninit<f32>], x: &[f32], form: GeluForm) {
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL, AVX2 and FMA on this CPU.
        Level::Avx512 => return unsafe { gelu_f32_into_avx512(out, x, form) },
        // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
        Level::Avx2 => return unsafe { gelu_f32_into_avx2(out, x, form) },
        Level::Baseline => {}
    }
    gelu_f32_into_baseline(out, x, form)
}

/// `out[i] = GELU(x[i])` for float32, the exact form.
pub fn gelu_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    gelu_into(out, x, GeluForm::Exact)
}

/// `out[i] = GELU(x[i])` for float32, the tanh form.
pub fn gelu_tanh_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    gelu_into(out, x, GeluForm::Tanh)
}

/// The AVX-512 kernels of the gradients, `out[i] = g[i]·GELU'(x[i])` over float32 slices of one length, where
/// the CPU has AVX-512 (elsewhere the tensor-op formulas of `Gelu::grad` run: a fused closure of `erf_f32` and
/// `exp_f32` measured no faster than them).
pub fn gelu_backward_f32_kernel(form: GeluForm) -> Option<F32ZipKernel> {
    #[cfg(target_arch = "x86_64")]
    if level() == Level::Avx512 {
        // The kernels are handed out only on this branch, so they only ever run on this CPU.
        return Some(match form {
            // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL, AVX2 and FMA on this CPU;
            // the kernel touches only the first min(o, g, x lengths) elements of each slice.
            GeluForm::Exact => |o, g, x| unsafe { avx512::gelu_backward_f32_into(o, g, x) },
            // SAFETY: as above.
            GeluForm::Tanh => |o, g, x| unsafe { avx512::gelu_tanh_backward_f32_into(o, g, x) },
        });
    }
    let _ = form;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    type Path = (&'static str, fn(&mut [MaybeUninit<f32>], &[f32], GeluForm));

    fn paths() -> Vec<Path> {
        let mut p: Vec<Path> = vec![("baseline", gelu_f32_into_baseline)];
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                // Safety: the features were just checked.
                p.push(("avx2", |o, x, f| unsafe { gelu_f32_into_avx2(o, x, f) }));
            }
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("fma")
            {
                // SAFETY: every feature the AVX-512 version enables was just found on this CPU.
                p.push(("avx512", |o, x, f| unsafe { gelu_f32_into_avx512(o, x, f) }));
            }
        }
        p
    }

    fn run(path: Path, x: &[f32], form: GeluForm) -> Vec<f32> {
        let mut out = vec![MaybeUninit::uninit(); x.len()];
        (path.1)(&mut out, x, form);
        // Safety: every path writes every element.
        out.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    fn exact(x: f64) -> f64 {
        0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
    }

    fn tanh_form(x: f64) -> f64 {
        let inner = 0.797_884_560_802_865_4 * (x + 0.044715 * x * x * x);
        // 1 + tanh(y) = 2 / (1 + e^{-2y}), without the cancellation
        x / (1.0 + (-2.0 * inner).exp())
    }

    fn points() -> Vec<f32> {
        let mut xs: Vec<f32> = (0..=240_000).map(|i| -12.0 + 24.0 * i as f32 / 240_000.0).collect();
        xs.extend((0..=20_000).map(|i| -1.0 + 2.0 * i as f32 / 20_000.0));
        let tiny: Vec<f32> = (0..=20_000).map(|i| 10f64.powf(-45.0 + 83.5 * i as f64 / 20_000.0) as f32).collect();
        xs.extend(tiny.iter().flat_map(|&v| [v, -v]));
        xs.extend([0.0, 5.7, -5.7, 5.699_999, 13.0, -13.0, 20.0, -20.0, 1e30, -1e30, f32::MAX, f32::MIN]);
        xs
    }

    /// Each path: the exact form within `GELU_ABS`·|x| of float64 and within 4 ulp where x >= 0; the tanh
    /// form within 4 ulp of its float64 value, plus the rounding of its exponent's argument 2y;
    /// on lengths around the vector width and unaligned starts.
    #[test]
    fn every_path_within_its_bound() {
        let xs = points();
        let ulps = |g: f32, want: f64| {
            let w = want as f32;
            if g == w {
                return 0.0;
            }
            let ulp = (f32::from_bits(w.abs().to_bits() + 1) - w.abs()) as f64;
            (g as f64 - want).abs() / ulp
        };
        for path in paths() {
            for (start, len) in [(0, 1), (1, 7), (3, 17), (5, 31), (1, 300), (0, xs.len())] {
                let x = &xs[start..start + len];
                for (&v, g) in x.iter().zip(run(path, x, GeluForm::Exact)) {
                    let want = exact(v as f64);
                    // (plus one subnormal step: 0.5·1e-45 rounds to 0)
                    let ok = (g as f64 - want).abs() <= GELU_ABS * (v as f64).abs() + 2.8e-45
                        && (v < 0.0 || ulps(g, want) <= 4.0);
                    assert!(ok, "{} gelu({v:e}) = {g:e}, want {want:e}", path.0);
                }
                for (&v, g) in x.iter().zip(run(path, x, GeluForm::Tanh)) {
                    let want = tanh_form(v as f64);
                    // e^{-2y} carries the float32 roundings of 2y (up to three): 3·2^-24·|2y| beyond the 4 ulp
                    let y2 = 1.595_769_121_605_731 * (v as f64 + 0.044715 * (v as f64).powi(3));
                    // and results below |x|·e^-89 come out ±0 (e^{-2y} overflows first)
                    let tol = want.abs() * 6e-8 * (4.0 + 3.0 * y2.abs()) + 1e-38 * (v as f64).abs() + 2.8e-45;
                    let ok = (g as f64 - want).abs() <= tol || (g.is_nan() && want.is_nan());
                    assert!(ok, "{} gelu_tanh({v:e}) = {g:e}, want {want:e}", path.0);
                }
            }
            let specials = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
            for form in [GeluForm::Exact, GeluForm::Tanh] {
                let got = run(path, &specials, form);
                assert_eq!(got[0].to_bits(), 0f32.to_bits(), "{} {form:?}", path.0);
                assert_eq!(got[1].to_bits(), (-0f32).to_bits(), "{} {form:?}", path.0);
                assert_eq!(got[2], f32::INFINITY, "{} {form:?}", path.0);
                assert!(got[3].is_nan() && got[4].is_nan(), "{} {form:?} {got:?}", path.0);
            }
        }
    }

    type GradPath = (&'static str, fn(&mut [MaybeUninit<f32>], &[f32], &[f32]), fn(f64) -> f64);

    fn exact_grad(x: f64) -> f64 {
        let phi = 0.5 * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2);
        phi + x * (-0.5 * x * x).exp() * 0.398_942_280_401_432_7
    }

    fn tanh_grad(x: f64) -> f64 {
        let k = 0.797_884_560_802_865_4;
        let t = (k * (x + 0.044715 * x * x * x)).tanh();
        // 1 - t² as 4σ(1 - σ), without the cancellation
        let sigma = 1.0 / (1.0 + (-2.0 * k * (x + 0.044715 * x * x * x)).exp());
        0.5 * (1.0 + t) + 2.0 * x * sigma * (1.0 - sigma) * k * (1.0 + 3.0 * 0.044715 * x * x)
    }

    fn grad_paths() -> Vec<GradPath> {
        let mut p: Vec<GradPath> = vec![];
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
        {
            // SAFETY: every feature these kernels enable was just found on this CPU.
            p.push(("avx512", |o, g, x| unsafe { avx512::gelu_backward_f32_into(o, g, x) }, exact_grad));
            // SAFETY: as above.
            p.push(("avx512 tanh", |o, g, x| unsafe { avx512::gelu_tanh_backward_f32_into(o, g, x) }, tanh_grad));
        }
        p
    }

    /// g·GELU'(x) on each path within `GELU_GRAD_ABS`·|g| of float64 (and one rounding of the product), on
    /// lengths around the vector width and unaligned starts; NaN at ±inf and NaN, g/2 at ±0. (Only AVX-512
    /// has kernels of its own; elsewhere the tensor-op formula runs, tested through Python.)
    #[test]
    fn every_gradient_path_within_its_bound() {
        let xs = points();
        let gs: Vec<f32> = (0..xs.len()).map(|i| [1.0, -0.75, 3.0e-3, 2.5e4][i % 4]).collect();
        for path in grad_paths() {
            let want = path.2;
            for (start, len) in [(0, 1), (1, 7), (3, 17), (5, 31), (1, 300), (0, xs.len())] {
                let (x, g) = (&xs[start..start + len], &gs[start..start + len]);
                let mut out = vec![MaybeUninit::uninit(); len];
                (path.1)(&mut out, g, x);
                for ((&v, &gv), o) in x.iter().zip(g).zip(out) {
                    // Safety: every path writes every element.
                    let got = unsafe { o.assume_init() } as f64;
                    let w = gv as f64 * want(v as f64);
                    let ok = (got - w).abs() <= GELU_GRAD_ABS * (gv as f64).abs() + 6e-8 * w.abs();
                    assert!(ok, "{} g={gv} x={v:e}: {got:e}, want {w:e}", path.0);
                }
            }
            let specials = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
            let mut out = vec![MaybeUninit::uninit(); specials.len()];
            (path.1)(&mut out, &[3.0; 5], &specials);
            // Safety: every path writes every element.
            let got: Vec<f32> = out.into_iter().map(|v| unsafe { v.assume_init() }).collect();
            assert_eq!(&got[..2], &[1.5, 1.5], "{}", path.0);
            assert!(got[2..].iter().all(|v| v.is_nan()), "{} {got:?}", path.0);
        }
    }
}
