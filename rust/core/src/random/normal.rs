//! PyTorch's normal fill of 16 uniforms: u1 = 1 - u[j] and u2 = u[j + 8] for j < 8 give
//! √(-2 ln u1)·(cos, sin)(2π u2) at j and j + 8.
//!
//! float32 runs as PyTorch's AVX2 kernel (which its AVX-512 build also uses: `normal_stub` is not
//! dispatched to AVX-512) computes it: the Cephes-derived `log256_ps` and `sincos256_ps` of
//! avx_mathfun, as GCC compiles them for AVX2, which contracts each product whose one use is a sum
//! into a fused multiply-add. The lane code below follows that operation for operation (same
//! constants, same fusions), so its bits are PyTorch's; checked against recorded outputs over 2^20
//! draws. float64 is PyTorch's scalar loop: libm's `log`, `cos` and `sin` (the same glibc functions
//! Rust's `f64` methods call).
use crate::kernels::simd::dispatch;
use std::mem::MaybeUninit;

/// Lanes of one half-block.
const HALF: usize = 8;
/// Uniforms per block.
pub const BLOCK: usize = 16;

const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;
const LOG_P: [f32; 9] = [
    7.037_683_6e-2,
    -1.151_461e-1,
    1.167_699_9e-1,
    -1.242_014_1e-1,
    1.424_932_3e-1,
    -1.666_805_8e-1,
    2.000_071_4e-1,
    -2.499_999_4e-1,
    3.333_333e-1,
];
/// ln 2 = LN2_HI + LN2_LO (Cephes' split).
const LN2_LO: f32 = -2.121_944_4e-4;
const LN2_HI: f32 = 0.693_359_4;
/// The smallest normal float32: smaller inputs are raised to it.
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
const FOUR_OVER_PI: f32 = 1.273_239_5;
/// π/4 = DP1 + DP2 + DP3 (negated, as the reduction adds them).
const MINUS_DP: [f32; 3] = [-0.785_156_25, -2.418_756_5e-4, -3.774_895e-8];
const SIN_P: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1];
const COS_P: [f32; 3] = [2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2];
const TWO_PI_F32: f32 = std::f32::consts::TAU;

/// avx_mathfun's `log256_ps` for one lane of (0, 1].
#[inline(always)]
fn log_lane(x: f32) -> f32 {
    let x = x.max(MIN_NORMAL);
    let bits = x.to_bits();
    let exponent = (bits >> 23) as i32 - 0x7f;
    let m = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits()); // mantissa in [0.5, 1)
    let small = m < SQRT_HALF;
    let e = exponent as f32 + 1.0 - if small { 1.0 } else { 0.0 };
    let x = (m - 1.0) + if small { m } else { 0.0 };
    let z = x * x;
    let mut y = LOG_P[0];
    for &p in &LOG_P[1..] {
        y = y.mul_add(x, p);
    }
    let y = y * x;
    let y = y.mul_add(z, e * LN2_LO);
    let y = (-z).mul_add(0.5, y);
    e.mul_add(LN2_HI, x + y)
}

/// avx_mathfun's `sincos256_ps` for one lane of [0, 2π).
#[inline(always)]
fn sin_cos_lane(x: f32) -> (f32, f32) {
    let sign_sin = x.to_bits() & 0x8000_0000;
    let x = x.abs();
    let j = (((x * FOUR_OVER_PI) as i32) + 1) & !1;
    let y = j as f32;
    let swap_sin = ((j & 4) as u32) << 29;
    let poly_sin = j & 2 == 0; // the sine polynomial gives the sine (else the cosine one does)
    let x = y.mul_add(MINUS_DP[0], x);
    let x = y.mul_add(MINUS_DP[1], x);
    let x = y.mul_add(MINUS_DP[2], x);
    let sign_cos = ((!(j - 2) & 4) as u32) << 29;
    let z = x * x;
    let c = COS_P[0].mul_add(z, COS_P[1]).mul_add(z, COS_P[2]) * z;
    let c = c.mul_add(z, -(z * 0.5)) + 1.0;
    let s = SIN_P[0].mul_add(z, SIN_P[1]).mul_add(z, SIN_P[2]) * z;
    let s = s.mul_add(x, x);
    let (sin, cos) = if poly_sin { (s, c) } else { (c, s) };
    (f32::from_bits(sin.to_bits() ^ sign_sin ^ swap_sin), f32::from_bits(cos.to_bits() ^ sign_cos))
}

/// One block of float32 uniforms to normals N(mean, std²), as PyTorch's `normal_fill_16_AVX2`.
#[inline(always)]
fn block_f32(u: &[f32; BLOCK], mean: f32, std: f32) -> [f32; BLOCK] {
    let mut out = [0f32; BLOCK];
    for j in 0..HALF {
        let radius = (-2.0 * log_lane(1.0 - u[j])).sqrt();
        let (sin, cos) = sin_cos_lane(TWO_PI_F32 * u[j + HALF]);
        out[j] = (radius * cos).mul_add(std, mean);
        out[j + HALF] = (radius * sin).mul_add(std, mean);
    }
    out
}

/// One block of float64 uniforms to normals, as PyTorch's `normal_fill_16<double>` compiled for
/// AVX2 (`radius·cos θ·std + mean` fused into one multiply-add).
#[inline(always)]
fn block_f64(u: &[f64; BLOCK], mean: f64, std: f64) -> [f64; BLOCK] {
    let mut out = [0f64; BLOCK];
    for j in 0..HALF {
        let radius = (-2.0 * (1.0 - u[j]).ln()).sqrt();
        let theta = std::f64::consts::TAU * u[j + HALF];
        out[j] = (radius * theta.cos()).mul_add(std, mean);
        out[j + HALF] = (radius * theta.sin()).mul_add(std, mean);
    }
    out
}

#[inline(always)]
fn blocks_f32_on(out: &mut [MaybeUninit<[f32; BLOCK]>], u: &[[f32; BLOCK]], mean: f32, std: f32) {
    for (o, b) in out.iter_mut().zip(u) {
        o.write(block_f32(b, mean, std));
    }
}

/// Blocks of float32 uniforms to normals (vectorized through `dispatch!`).
pub fn blocks_f32(out: &mut [MaybeUninit<[f32; BLOCK]>], u: &[[f32; BLOCK]], mean: f32, std: f32) {
    dispatch!(blocks_f32_on(out, u, mean, std))
}

/// Blocks of float64 uniforms to normals.
pub fn blocks_f64(out: &mut [MaybeUninit<[f64; BLOCK]>], u: &[[f64; BLOCK]], mean: f64, std: f64) {
    for (o, b) in out.iter_mut().zip(u) {
        o.write(block_f64(b, mean, std));
    }
}

/// One block in place, for the tail PyTorch recomputes.
pub fn block_in_place_f32(u: &mut [f32; BLOCK], mean: f32, std: f32) {
    *u = block_f32(u, mean, std);
}

pub fn block_in_place_f64(u: &mut [f64; BLOCK], mean: f64, std: f64) {
    *u = block_f64(u, mean, std);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_log_and_sin_cos_are_accurate() {
        for k in 1..=4096 {
            let x = k as f32 / 4096.0;
            assert!((log_lane(x) as f64 - (x as f64).ln()).abs() < 4e-7, "ln {x}");
            let t = x * 6.25;
            let (s, c) = sin_cos_lane(t);
            assert!((s as f64 - (t as f64).sin()).abs() < 4e-7 && (c as f64 - (t as f64).cos()).abs() < 4e-7);
        }
    }
}
