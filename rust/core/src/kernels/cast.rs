//! Conversions over contiguous runs between float32 and the 16-bit floats, int32 and int64, where the generic cast
//! (through float64 or int64, a closure the vector loop did not inline) took 600 µs for 1M float32 to float16 or
//! bfloat16 and 770 to int32 (torch: 150 and 195). Each gives the generic cast's values: float16 by the CPU's
//! `vcvtps2ph`/`vcvtph2ps` (AVX-512), else by `half`; bfloat16 by integer rounding written without branches, so
//! that it vectorizes; the integers by plain functions the vector loop inlines.
use crate::dtype::DType;
use crate::element::Element;
use crate::kernels::simd::{map_slice, map_slice_by, same_type, vec_of_same_type};
use crate::layout::Layout;
use half::{bf16, f16};
use std::mem::MaybeUninit;

/// `x` (of `l`) converted to `U` by a vector kernel, for the pairs that have one; None: the generic cast.
pub(crate) fn convert<T: Element, U: Element>(l: &Layout, x: &[T]) -> Option<Vec<U>> {
    let x = &x[l.contiguous_range()?];
    match (T::DTYPE, U::DTYPE) {
        (DType::F32, DType::F16) => vec_of_same_type(map_slice_by(same_type::<T, f32>(x)?, f32_to_f16_into)),
        (DType::F16, DType::F32) => vec_of_same_type(map_slice_by(same_type::<T, f16>(x)?, f16_to_f32_into)),
        (DType::F32, DType::BF16) => vec_of_same_type(map_slice(same_type::<T, f32>(x)?, bf16_from_f32)),
        (DType::BF16, DType::F32) => vec_of_same_type(map_slice(same_type::<T, bf16>(x)?, bf16::to_f32)),
        (DType::F32, DType::I32) => vec_of_same_type(map_slice_by(same_type::<T, f32>(x)?, f32_to_i32_into)),
        (DType::F32, DType::I64) => vec_of_same_type(map_slice(same_type::<T, f32>(x)?, f32_to_i64)),
        (DType::I64, DType::F32) => vec_of_same_type(map_slice(same_type::<T, i64>(x)?, i64_to_f32)),
        _ => None,
    }
}

/// float32 → bfloat16, rounded to nearest even; a NaN stays a NaN with its sign and top payload bits, made quiet
/// (`bf16::from_f32`'s values).
#[inline(always)]
pub fn bf16_from_f32(v: f32) -> bf16 {
    let bits = v.to_bits();
    let rounded = (bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16) as u16;
    let quiet_nan = ((bits >> 16) | 0x0040) as u16;
    bf16::from_bits(if v.is_nan() { quiet_nan } else { rounded })
}

/// int64 → float32, rounded once. (A plain function, as every kernel here: a closure written inside `convert`
/// would be a type of its own in each of its hundred instantiations, and its vector loop compiled for each.)
fn i64_to_f32(v: i64) -> f32 {
    v as f32
}

/// float32 → int32 as the generic cast: truncated toward zero, saturated at int64's range, then wrapped.
#[inline(always)]
fn f32_to_i32(v: f32) -> i32 {
    f32_to_i64(v) as i32
}

/// float32 → int32 over a run: each block of 64 converted straight to int32 (exact for |v| < 2^31), and converted
/// again as `f32_to_i32` when any of its values is outside that range or NaN. Through int64 for every value (two
/// conversions, two narrowings and the selects around them) the cast of 1M took 76 µs against torch's 49.
fn f32_to_i32_into(out: &mut [MaybeUninit<i32>], x: &[f32]) {
    crate::kernels::simd::dispatch!(f32_to_i32_run(out, x))
}

#[inline(always)]
fn f32_to_i32_run(out: &mut [MaybeUninit<i32>], x: &[f32]) {
    const BLOCK: usize = 64;
    const TWO_31: f32 = 2_147_483_648.0;
    for (o, xs) in out.chunks_mut(BLOCK).zip(x.chunks(BLOCK)) {
        let mut outside = false;
        for (o, &v) in o.iter_mut().zip(xs) {
            let inside = v.abs() < TWO_31; // false for NaN
            outside |= !inside;
            // SAFETY: converted only when |v| < 2^31, so its truncation is an int32.
            o.write(if inside { unsafe { v.to_int_unchecked::<i32>() } } else { 0 });
        }
        if outside {
            o.iter_mut().zip(xs).for_each(|(o, &v)| _ = o.write(f32_to_i32(v)));
        }
    }
}

/// float32 → int64 as `v as i64` (truncated toward zero, saturated, NaN → 0), written as selects around an
/// unchecked conversion: LLVM keeps the saturating conversion scalar (747 µs for 1M to int32; this: see the module).
#[inline(always)]
fn f32_to_i64(v: f32) -> i64 {
    const TWO_63: f32 = 9_223_372_036_854_775_808.0;
    // the largest float32 below 2^63: 2^63 - 2^39
    const BELOW_TWO_63: f32 = 9_223_371_487_098_961_920.0;
    let t = if v.is_nan() { 0.0 } else { v.clamp(-TWO_63, BELOW_TWO_63) };
    // SAFETY: t is finite and within [-2^63, 2^63), so its truncation is an int64.
    let i = unsafe { t.to_int_unchecked::<i64>() };
    if v >= TWO_63 {
        i64::MAX
    } else {
        i
    }
}

fn f32_to_f16_into(out: &mut [MaybeUninit<f16>], x: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::simd::level() == crate::kernels::simd::Level::Avx512 {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F on this CPU.
        return unsafe { avx512::f32_to_f16_into(out, x) };
    }
    out.iter_mut().zip(x).for_each(|(o, &v)| _ = o.write(f16::from_f32(v)));
}

fn f16_to_f32_into(out: &mut [MaybeUninit<f32>], x: &[f16]) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::simd::level() == crate::kernels::simd::Level::Avx512 {
        // SAFETY: as above.
        return unsafe { avx512::f16_to_f32_into(out, x) };
    }
    out.iter_mut().zip(x).for_each(|(o, &v)| _ = o.write(v.to_f32()));
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use half::f16;
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// 16 lanes a step, the tail one at a time (`f16::from_f32` rounds as `vcvtps2ph` does, to nearest even).
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn f32_to_f16_into(out: &mut [MaybeUninit<f16>], x: &[f32]) {
        let n = out.len().min(x.len());
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: lanes i..i + 16 are inside both slices; the loads and stores are unaligned ones.
            unsafe {
                let v = _mm512_loadu_ps(x.as_ptr().add(i));
                let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v);
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), h);
            }
            i += 16;
        }
        out[i..n].iter_mut().zip(&x[i..n]).for_each(|(o, &v)| _ = o.write(f16::from_f32(v)));
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn f16_to_f32_into(out: &mut [MaybeUninit<f32>], x: &[f16]) {
        let n = out.len().min(x.len());
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: as above.
            unsafe {
                let h = _mm256_loadu_si256(x.as_ptr().add(i).cast());
                _mm512_storeu_ps(out.as_mut_ptr().add(i).cast(), _mm512_cvtph_ps(h));
            }
            i += 16;
        }
        out[i..n].iter_mut().zip(&x[i..n]).for_each(|(o, &v)| _ = o.write(v.to_f32()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every float32 bit pattern in steps (all exponents, signs, NaNs, subnormals, halfway cases): the vector
    /// conversions give `half`'s values bit for bit.
    #[test]
    fn conversions_match_half_bit_for_bit() {
        let x: Vec<f32> =
            (0..=u32::MAX).step_by(4099).map(f32::from_bits).chain([0.0, -0.0, 65520.0, 65519.99]).collect();
        // int32's bounds (the steps above hold long runs inside them, which take the direct conversion)
        let bounds = [-2_147_483_648.0, 2_147_483_520.0, -2_147_483_520.0, 2_147_483_648.0, f32::NAN];
        let x: Vec<f32> = x.into_iter().chain(bounds).collect();
        let l = Layout::contiguous(&[x.len()]);
        let h: Vec<f16> = convert(&l, &x).unwrap();
        let b: Vec<bf16> = convert(&l, &x).unwrap();
        for (i, &v) in x.iter().enumerate() {
            assert_eq!(h[i].to_bits(), f16::from_f32(v).to_bits(), "f16 of {v:e} ({:#x})", v.to_bits());
            assert_eq!(b[i].to_bits(), bf16::from_f32(v).to_bits(), "bf16 of {v:e} ({:#x})", v.to_bits());
        }
        let (i32s, i64s): (Vec<i32>, Vec<i64>) = (convert(&l, &x).unwrap(), convert(&l, &x).unwrap());
        for (i, &v) in x.iter().enumerate() {
            assert_eq!((i32s[i], i64s[i]), (v.cast::<i32>(), v.cast::<i64>()), "int of {v:e}");
        }
        let ints: Vec<i64> = i64s
            .iter()
            .chain(&[i64::MAX, i64::MIN, (1 << 24) + 1, -(1 << 53) - 1, (1 << 60) + (1 << 36) + 1])
            .copied()
            .collect();
        let floats: Vec<f32> = convert(&Layout::contiguous(&[ints.len()]), &ints).unwrap();
        for (&i, &f) in ints.iter().zip(&floats) {
            assert_eq!(f.to_bits(), i.cast::<f32>().to_bits(), "float32 of {i}");
            assert_eq!(f, i as f32, "float32 of {i}, rounded once");
        }
        let back: Vec<f32> = convert(&l, &h).unwrap();
        let back_b: Vec<f32> = convert(&l, &b).unwrap();
        for i in 0..x.len() {
            assert_eq!(back[i].to_bits(), h[i].to_f32().to_bits());
            assert_eq!(back_b[i].to_bits(), b[i].to_f32().to_bits());
        }
    }
}
