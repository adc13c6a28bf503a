//! Matrix-vector products as dot products: `out[o] += x · w[o]` for rows `w[o]` that are contiguous.
//!
//! For a batch of one row (a layer's inference on one sample), a dot product per output reads `x` and each
//! weight row once, in memory order, with no packing; the gemm crate's setup alone costs more than the
//! whole product at these sizes (128×128: ~1.5 µs through gemm, a few hundred ns here).
#[cfg(target_arch = "x86_64")]
use crate::kernels::simd::{level, Level};

/// Elements summed side by side in the portable kernel's accumulator.
const LANES: usize = 16;

/// f32 and f64: the element types of the dot kernels.
pub trait DotElement: Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// The kernel for this type on this CPU (`dots_acc_into`'s contract; panics unless `w` holds the rows).
    fn dots(out: &mut [Self], x: &[Self], w: &[Self], w_row: usize);
}

impl DotElement for f32 {
    fn dots(out: &mut [f32], x: &[f32], w: &[f32], w_row: usize) {
        check_rows(out.len(), x.len(), w.len(), w_row);
        #[cfg(target_arch = "x86_64")]
        match level() {
            // SAFETY: the level is Avx512 only where `detect` found AVX-512F; `w` holds the rows (checked above).
            Level::Avx512 => return unsafe { x86::dots_f32_avx512(out, x, w, w_row) },
            // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA; rows checked above.
            Level::Avx2 => return unsafe { x86::dots_f32_avx2(out, x, w, w_row) },
            Level::Baseline => {}
        }
        dots_portable(out, x, w, w_row)
    }
}

impl DotElement for f64 {
    fn dots(out: &mut [f64], x: &[f64], w: &[f64], w_row: usize) {
        check_rows(out.len(), x.len(), w.len(), w_row);
        #[cfg(target_arch = "x86_64")]
        if level() == Level::Avx512 {
            // SAFETY: the level is Avx512 only where `detect` found AVX-512F; `w` holds the rows (checked above).
            return unsafe { x86::dots_f64_avx512(out, x, w, w_row) };
        }
        dots_portable(out, x, w, w_row)
    }
}

/// Panics unless a slice of `w_len` holds `rows` rows of `k` elements starting `w_row` apart: the bound the
/// unsafe kernels' pointer reads rely on (checked in `dots` itself, a safe public method).
fn check_rows(rows: usize, k: usize, w_len: usize, w_row: usize) {
    let need = rows.saturating_sub(1).checked_mul(w_row).and_then(|v| v.checked_add(k));
    assert!(rows == 0 || need.is_some_and(|need| w_len >= need), "dot rows out of bounds");
}

/// The sum of the lanes as a tree (halves added).
#[inline(always)]
fn lanes_sum<T: DotElement>(mut acc: [T; LANES]) -> T {
    let mut width = LANES / 2;
    while width > 0 {
        for j in 0..width {
            acc[j] = acc[j] + acc[j + width];
        }
        width /= 2;
    }
    acc[0]
}

/// Any CPU: one row at a time, LANES partial sums.
fn dots_portable<T: DotElement>(out: &mut [T], x: &[T], w: &[T], w_row: usize) {
    let k = x.len();
    let main = k - k % LANES;
    for (o, v) in out.iter_mut().enumerate() {
        let r = &w[o * w_row..o * w_row + k];
        let mut acc = [T::default(); LANES];
        for (xc, wc) in x[..main].chunks_exact(LANES).zip(r[..main].chunks_exact(LANES)) {
            for j in 0..LANES {
                acc[j] = acc[j] + xc[j] * wc[j];
            }
        }
        let mut s = lanes_sum(acc);
        for (a, b) in x[main..].iter().zip(&r[main..]) {
            s = s + *a * *b;
        }
        *v = *v + s;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// AVX-512 kernels: four rows at a time (each load of `x` used four times, four independent sums),
    /// the tail of each row through a masked load (no scalar loop).
    macro_rules! avx512_dots {
        ($name:ident, $t:ty, $lanes:expr, $mask:ty, $zero:ident, $load:ident, $mload:ident, $fmadd:ident,
         $reduce:ident) => {
            /// Safety: AVX-512F present; `w` holds `out.len()` rows of `x.len()` elements, `w_row` apart.
            #[target_feature(enable = "avx512f")]
            pub unsafe fn $name(out: &mut [$t], x: &[$t], w: &[$t], w_row: usize) {
                let k = x.len();
                let main = k - k % $lanes;
                let mask = ((1u32 << (k % $lanes)) - 1) as $mask;
                let (xp, wp, n) = (x.as_ptr(), w.as_ptr(), out.len());
                let mut o = 0;
                // SAFETY: AVX-512F is enabled here, and the caller checked the CPU has it. A row o < n starts at
                // o·w_row <= (n - 1)·w_row; each load reads columns c..c + lanes <= main <= k of `x` and of such
                // a row, and the masked ones columns main..k only (masked-off lanes are neither read nor can
                // fault): every address is below k = x.len() in `x` and (n - 1)·w_row + k <= w.len() in `w`
                // (the contract, checked by `dots`). loadu needs no alignment.
                unsafe {
                    while o + 4 <= n {
                        let r: [*const $t; 4] = std::array::from_fn(|i| wp.add((o + i) * w_row));
                        let mut acc = [$zero(); 4];
                        let mut c = 0;
                        while c < main {
                            let xv = $load(xp.add(c));
                            for i in 0..4 {
                                acc[i] = $fmadd(xv, $load(r[i].add(c)), acc[i]);
                            }
                            c += $lanes;
                        }
                        if mask != 0 {
                            let xv = $mload(mask, xp.add(main));
                            for i in 0..4 {
                                acc[i] = $fmadd(xv, $mload(mask, r[i].add(main)), acc[i]);
                            }
                        }
                        for i in 0..4 {
                            out[o + i] += $reduce(acc[i]);
                        }
                        o += 4;
                    }
                    while o < n {
                        let r = wp.add(o * w_row);
                        let mut acc = $zero();
                        let mut c = 0;
                        while c < main {
                            acc = $fmadd($load(xp.add(c)), $load(r.add(c)), acc);
                            c += $lanes;
                        }
                        if mask != 0 {
                            acc = $fmadd($mload(mask, xp.add(main)), $mload(mask, r.add(main)), acc);
                        }
                        out[o] += $reduce(acc);
                        o += 1;
                    }
                }
            }
        };
    }
    avx512_dots!(
        dots_f32_avx512,
        f32,
        16,
        u16,
        _mm512_setzero_ps,
        _mm512_loadu_ps,
        _mm512_maskz_loadu_ps,
        _mm512_fmadd_ps,
        _mm512_reduce_add_ps
    );
    avx512_dots!(
        dots_f64_avx512,
        f64,
        8,
        u8,
        _mm512_setzero_pd,
        _mm512_loadu_pd,
        _mm512_maskz_loadu_pd,
        _mm512_fmadd_pd,
        _mm512_reduce_add_pd
    );

    #[target_feature(enable = "avx2,fma")]
    unsafe fn sum8(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)))
    }

    /// AVX2+FMA, f32: as the AVX-512 kernel with 8 lanes and a scalar tail.
    /// Safety: AVX2 and FMA present; `w` as for the AVX-512 kernels.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn dots_f32_avx2(out: &mut [f32], x: &[f32], w: &[f32], w_row: usize) {
        let k = x.len();
        let main = k - k % 8;
        let (xp, wp, n) = (x.as_ptr(), w.as_ptr(), out.len());
        let tail = |o: usize| -> f32 { (main..k).map(|c| x[c] * w[o * w_row + c]).sum() };
        let mut o = 0;
        // SAFETY: AVX2 and FMA are enabled here, and the caller checked the CPU has them. As in the AVX-512
        // kernels: a row o < n starts at o·w_row <= (n - 1)·w_row, and the loads read columns c..c + 8 <= main
        // <= k, so every address is inside `x` and below (n - 1)·w_row + k <= w.len() in `w` (checked by
        // `dots`); the tail goes through checked indexing. loadu needs no alignment.
        unsafe {
            while o + 4 <= n {
                let r: [*const f32; 4] = std::array::from_fn(|i| wp.add((o + i) * w_row));
                let mut acc = [_mm256_setzero_ps(); 4];
                let mut c = 0;
                while c < main {
                    let xv = _mm256_loadu_ps(xp.add(c));
                    for i in 0..4 {
                        acc[i] = _mm256_fmadd_ps(xv, _mm256_loadu_ps(r[i].add(c)), acc[i]);
                    }
                    c += 8;
                }
                for i in 0..4 {
                    out[o + i] += sum8(acc[i]) + tail(o + i);
                }
                o += 4;
            }
            while o < n {
                let r = wp.add(o * w_row);
                let mut acc = _mm256_setzero_ps();
                let mut c = 0;
                while c < main {
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(xp.add(c)), _mm256_loadu_ps(r.add(c)), acc);
                    c += 8;
                }
                out[o] += sum8(acc) + tail(o);
                o += 1;
            }
        }
    }
}

/// `out[o] += Σ_c x[c] · w[o · w_row + c]` for every `o < out.len()` (`w` holds `out.len()` rows of
/// `x.len()` contiguous elements, starting `w_row` apart), with the widest vectors this CPU has.
pub fn dots_acc_into<T: DotElement>(out: &mut [T], x: &[T], w: &[T], w_row: usize) {
    if out.is_empty() {
        return;
    }
    // (`dots` checks the bound the unsafe kernels rely on)
    T::dots(out, x, w, w_row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::set_level;

    fn naive(out: &mut [f64], x: &[f64], w: &[f64], w_row: usize) {
        for (o, v) in out.iter_mut().enumerate() {
            *v += x.iter().enumerate().map(|(c, &xc)| xc * w[o * w_row + c]).sum::<f64>();
        }
    }

    #[test]
    fn every_level_matches_the_naive_sum_at_every_size() {
        // sizes around LANES and ROWS: the vector body, the row groups and both tails
        for l in [Level::Baseline, Level::Avx2, Level::Avx512] {
            if l as u8 > crate::kernels::simd::detect() as u8 {
                continue;
            }
            set_level(l);
            for k in [0, 1, 15, 16, 17, 33, 64] {
                for n in [1, 3, 4, 5, 9] {
                    let w_row = k + 3;
                    let x: Vec<f64> = (0..k).map(|i| (i as f64 * 0.37).sin()).collect();
                    let w: Vec<f64> = (0..n * w_row).map(|i| (i as f64 * 0.11).cos()).collect();
                    let mut got: Vec<f64> = (0..n).map(|o| o as f64).collect();
                    let mut want = got.clone();
                    dots_acc_into(&mut got, &x, &w, w_row);
                    naive(&mut want, &x, &w, w_row);
                    for (g, e) in got.iter().zip(&want) {
                        assert!((g - e).abs() <= 1e-12 * (1.0 + e.abs()), "k={k} n={n} {l:?}: {g} vs {e}");
                    }
                    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                    let wf: Vec<f32> = w.iter().map(|&v| v as f32).collect();
                    let mut gf: Vec<f32> = (0..n).map(|o| o as f32).collect();
                    dots_acc_into(&mut gf, &xf, &wf, w_row);
                    for (g, e) in gf.iter().zip(&want) {
                        assert!((*g as f64 - e).abs() <= 1e-5 * (1.0 + e.abs()), "f32 k={k} n={n} {l:?}");
                    }
                }
            }
        }
        set_level(crate::kernels::simd::detect());
    }
}
