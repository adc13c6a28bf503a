//! Out-of-place float32 transposes in 8×8 register blocks, for operands that gemm reads slowly in
//! their given layout (`matmul::dense_rhs`) and for `contiguous()` of a transposed matrix
//! (`elementwise::dense_copy`).
use crate::element::Element;
use crate::kernels::threads::{par_for, threads, OutPtr};
use std::any::TypeId;
use std::mem::MaybeUninit;

use crate::kernels::split::TRANSPOSE_ELEMENTS as PARALLEL_ELEMENTS;

/// `dst[c·rows + r] = src[r·src_rs + c]` for `r < rows`, `c < cols`: the transpose of a `rows × cols`
/// matrix whose rows are `src_rs` apart, written as a contiguous `cols × rows` one.
/// Every element of `dst[..rows·cols]` is written, none read.
pub fn transpose_f32(dst: &mut [MaybeUninit<f32>], src: &[f32], rows: usize, cols: usize, src_rs: usize) {
    // (checked products: a wrapped one would let the unsafe writes and reads below pass these bounds)
    assert!(rows.checked_mul(cols).is_some_and(|n| dst.len() >= n), "transpose output too small");
    if rows == 0 || cols == 0 {
        return;
    }
    let src_need = (rows - 1).checked_mul(src_rs).and_then(|v| v.checked_add(cols));
    assert!(src_rs >= cols && src_need.is_some_and(|need| src.len() >= need), "transpose input too small");
    // bands of whole 64-byte output lines (16 floats), so that no two threads write one line
    let parts = if rows * cols >= PARALLEL_ELEMENTS { threads().min(rows / 16).max(1) } else { 1 };
    let out = OutPtr(dst.as_mut_ptr().cast::<f32>());
    let band = |p: usize| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let out = out;
        let edge = |p: usize| if p == parts { rows } else { rows * p / parts / 16 * 16 };
        // Safety: the asserts above bound every index; band p writes only its rows' elements.
        unsafe { transpose_band(out.0, src, rows, cols, src_rs, edge(p), edge(p + 1)) }
    };
    if parts == 1 {
        band(0)
    } else {
        par_for(parts, &band)
    }
}

/// Whether `transposed_copy` handles elements of type `T` (float32 only).
pub fn handles<T: Element>() -> bool {
    TypeId::of::<T>() == TypeId::of::<f32>()
}

/// `transpose_f32` into a new contiguous `cols × rows` vector (recycled through the pool), for callers
/// generic over the element type; `None` unless `handles::<T>()`.
pub fn transposed_copy<T: Element>(src: &[T], rows: usize, cols: usize, src_rs: usize) -> Option<Vec<T>> {
    if !handles::<T>() {
        return None;
    }
    // Safety: T is f32 (checked above), so the slice and the vector hold float32 values.
    let src = unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<f32>(), src.len()) };
    let n = rows * cols;
    let mut out: Vec<T> = crate::pool::take(n);
    // Safety: as above, and the spare capacity holds n elements.
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<f32>>(), n) };
    transpose_f32(dst, src, rows, cols, src_rs);
    // Safety: the transpose wrote all n elements.
    unsafe { out.set_len(n) };
    Some(out)
}

/// Source rows `r0..r1` of `transpose_f32`, in 8×8 register blocks where the CPU has AVX and one
/// element at a time elsewhere.
///
/// Safety: `dst` has room for `rows·cols` elements; `src` holds the matrix; 0 ≤ r0 ≤ r1 ≤ rows.
unsafe fn transpose_band(dst: *mut f32, src: &[f32], rows: usize, cols: usize, src_rs: usize, r0: usize, r1: usize) {
    let (mut full_r, mut full_c) = (r0, 0);
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::simd::level() != crate::kernels::simd::Level::Baseline {
        (full_r, full_c) = (r0 + (r1 - r0) / 8 * 8, cols / 8 * 8);
        // down the source's columns, so that each output row is written in order and whole cache lines
        // at a time (across the rows first, each block's eight 32-byte writes went to lines that the
        // next band had to fetch again: 0.38 against 0.19 ns an element at 512×128)
        for c0 in (0..full_c).step_by(8) {
            for r in (r0..full_r).step_by(8) {
                // Safety: AVX is part of the detected level; the block lies inside both matrices.
                unsafe { block8_avx(src.as_ptr().add(r * src_rs + c0), src_rs, dst.add(c0 * rows + r), rows) }
            }
        }
    }
    for r in r0..r1 {
        let first = if r < full_r { full_c } else { 0 };
        for c in first..cols {
            // Safety: c·rows + r < rows·cols
            unsafe { dst.add(c * rows + r).write(src[r * src_rs + c]) };
        }
    }
}

/// One 8×8 block: eight rows loaded, interleaved in pairs, then in fours, then the 128-bit halves
/// swapped, so that register i ends up holding column i.
///
/// Safety: the CPU has AVX; `src.add(i·src_rs)` and `dst.add(i·dst_rs)` for i < 8 each start eight
/// floats inside their buffers (readable and writable), and the two blocks do not overlap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn block8_avx(src: *const f32, src_rs: usize, dst: *mut f32, dst_rs: usize) {
    use std::arch::x86_64::*;
    // SAFETY: AVX is enabled here and present (the caller's contract); the eight loads and eight stores
    // touch exactly the rows the contract says are in bounds, and loadu/storeu need no alignment.
    unsafe {
        let r = |i: usize| _mm256_loadu_ps(src.add(i * src_rs));
        let (r0, r1, r2, r3, r4, r5, r6, r7) = (r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7));
        let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
        let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
        let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
        let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
        // columns (0|4), (1|5), (2|6), (3|7) of rows 0-3, then of rows 4-7
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let w = |i: usize, v| _mm256_storeu_ps(dst.add(i * dst_rs), v);
        w(0, _mm256_permute2f128_ps::<0x20>(s0, s4));
        w(1, _mm256_permute2f128_ps::<0x20>(s1, s5));
        w(2, _mm256_permute2f128_ps::<0x20>(s2, s6));
        w(3, _mm256_permute2f128_ps::<0x20>(s3, s7));
        w(4, _mm256_permute2f128_ps::<0x31>(s0, s4));
        w(5, _mm256_permute2f128_ps::<0x31>(s1, s5));
        w(6, _mm256_permute2f128_ps::<0x31>(s2, s6));
        w(7, _mm256_permute2f128_ps::<0x31>(s3, s7));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes around the 8×8 blocks (none, one, partial, several), with a row stride wider than a row.
    #[test]
    fn matches_an_index_by_index_transpose() {
        for (rows, cols) in [(0, 5), (1, 1), (3, 7), (8, 8), (9, 17), (16, 8), (24, 13), (64, 40), (301, 260)] {
            for pad in [0, 3] {
                let rs = cols + pad;
                let src: Vec<f32> = (0..rows * rs).map(|v| v as f32 * 0.5 - 7.0).collect();
                let mut dst = vec![MaybeUninit::new(f32::NAN); rows * cols];
                transpose_f32(&mut dst, &src, rows, cols, rs);
                // Safety: every element started initialised (and the transpose writes each)
                let dst: Vec<f32> = dst.iter().map(|v| unsafe { v.assume_init() }).collect();
                for r in 0..rows {
                    for c in 0..cols {
                        assert_eq!(dst[c * rows + r], src[r * rs + c], "{rows}×{cols} +{pad} at ({r}, {c})");
                    }
                }
            }
        }
    }
}
