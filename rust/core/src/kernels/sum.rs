//! Fast sums over a block of adjacent dims of a contiguous tensor, read as (outer, n, inner).
//!
//! Accumulation is in f64 (accurate for any n without pairwise trees; a float32 run adds four values a lane in
//! float32 first, `F32_SPAN`). The loops are shaped so the compiler turns them into wide vector code: a run is summed
//! into 32 independent lanes (four AVX-512 registers, so the adds are throughput- not latency-bound), and rows are
//! added four at a time so the accumulator row is loaded and stored once per four input rows. Each loop is compiled
//! for AVX-512, AVX2 and the baseline and picked at run time; large sums are split across threads by rows.
use crate::element::Element;
use crate::kernels::simd::{as_f32, level, Level};
use crate::kernels::strided_rows::Rows;
use crate::kernels::threads::{par_chunks_mut, sum_of_parts};
use crate::layout::Layout;
use crate::pool;

use crate::kernels::split::SUM_ELEMENTS as PARALLEL_ABOVE;
const LANES: usize = 32;

/// `(outer, n, inner)` when `dims` (sorted) are adjacent dims of a contiguous layout.
pub fn as_block(l: &Layout, dims: &[usize]) -> Option<(usize, usize, usize)> {
    l.contiguous_range()?;
    let (&first, &last) = (dims.first()?, dims.last()?);
    if last - first + 1 != dims.len() {
        return None;
    }
    let outer = l.shape[..first].iter().product();
    let n = l.shape[first..=last].iter().product();
    let inner = l.shape[last + 1..].iter().product();
    Some((outer, n, inner))
}

/// Chunks of `LANES` float32 values whose lanes add in float32 before each lane's partial sum joins its float64 total.
/// Widening each value to float64 as it was read cost a conversion per eight values, and those bound the loop (a
/// million floats: 36 µs, against 23 µs for the same bytes of float64 and torch's 31). Four values a lane round at
/// most three times (2⁻²⁴ of their magnitudes each) before the float64 sum, so a total stays accurate for any length.
const F32_SPAN: usize = 4;

/// `sum_run_generic` for float32, in `F32_SPAN` blocks; the vector kernels below add in this order too.
#[inline(always)]
fn sum_run_f32_blocked(x: &[f32]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let blocks = x.chunks_exact(LANES * F32_SPAN);
    let rest = blocks.remainder();
    for block in blocks {
        let mut part = [0.0f32; LANES];
        for c in block.chunks_exact(LANES) {
            for k in 0..LANES {
                part[k] += c[k];
            }
        }
        for k in 0..LANES {
            acc[k] += part[k] as f64;
        }
    }
    let chunks = rest.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            acc[k] += c[k] as f64;
        }
    }
    fold_lanes(acc) + tail.iter().map(|&v| v as f64).sum::<f64>()
}

#[inline(always)]
fn sum_run_generic<T: Element>(x: &[T]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            acc[k] += c[k].to_f64();
        }
    }
    fold_lanes(acc) + rest.iter().map(|v| v.to_f64()).sum::<f64>()
}

/// Folds the lanes pairwise, in one fixed order, so results do not depend on the SIMD level.
#[inline(always)]
fn fold_lanes(mut acc: [f64; LANES]) -> f64 {
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] += acc[k + width];
        }
    }
    acc[0]
}

/// `acc[j] += Σ_k rows[k][j]`, four rows per pass over `acc`.
#[inline(always)]
fn add_rows_generic<T: Element>(
    acc: &mut [f64],
    x: &[T],
    rows: std::ops::Range<usize>,
    stride: usize,
    cols: std::ops::Range<usize>,
) {
    add_rows_by(acc, x, rows, stride, cols, |a, b, c, d| (a.to_f64() + b.to_f64()) + (c.to_f64() + d.to_f64()))
}

/// `add_rows_generic` with each four rows' values summed by `four`, the rows past the last four one at a time.
#[inline(always)]
fn add_rows_by<T: Element>(
    acc: &mut [f64],
    x: &[T],
    rows: std::ops::Range<usize>,
    stride: usize,
    cols: std::ops::Range<usize>,
    four: impl Fn(T, T, T, T) -> f64,
) {
    let w = cols.len();
    let row = |k: usize| &x[k * stride + cols.start..k * stride + cols.start + w];
    let mut k = rows.start;
    while k + 4 <= rows.end {
        let (r0, r1, r2, r3) = (row(k), row(k + 1), row(k + 2), row(k + 3));
        for j in 0..w {
            acc[j] += four(r0[j], r1[j], r2[j], r3[j]);
        }
        k += 4;
    }
    for k in k..rows.end {
        for (a, v) in acc.iter_mut().zip(row(k)) {
            *a += v.to_f64();
        }
    }
}

/// `add_rows_generic` for float32: each four rows' values added in float32 (as `F32_SPAN`), then to the float64 row.
/// Widened one by one, `sum(0)` of 1000×1000 took 40 µs against torch's 33. Only for sums down at least
/// `GROUPED_ROWS_FROM` rows: a short sum stays rounded once, so that it does not depend on the layout (the same sum
/// of a transposed tensor runs along its rows, where runs shorter than a block add in float64 too).
/// Groups start at row 0 of the sum, so a sum split across threads (at multiples of four) adds as one.
#[inline(always)]
fn add_rows_f32(acc: &mut [f64], x: &[f32], rows: std::ops::Range<usize>, stride: usize, cols: std::ops::Range<usize>) {
    add_rows_by(acc, x, rows, stride, cols, |a, b, c, d| ((a + b) + (c + d)) as f64)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    // float32 runs are written with intrinsics: left to itself the compiler vectorizes the 32-lane
    // loop above with 128-bit registers only. Lane k of the accumulators holds the same elements as
    // lane k of `sum_run_f32_blocked`, added in the same order, so both give bit-identical results.
    /// The sum of one run, in the order of `sum_run_f32_blocked`.
    ///
    /// Safety: the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sum_run_f32_avx512(run: &[f32]) -> f64 {
        let len = run.len();
        let (block, full) = (LANES * F32_SPAN, len - len % LANES);
        let blocked = len - len % block;
        let mut acc = [_mm512_setzero_pd(); LANES / 8];
        let mut i = 0;
        while i < blocked {
            let p = run.as_ptr().add(i);
            // lanes 0..16 in `low`, 16..32 in `high`; register j of `acc` holds lanes 8j..8j + 8
            let (mut low, mut high) = (_mm512_setzero_ps(), _mm512_setzero_ps());
            for s in 0..F32_SPAN {
                low = _mm512_add_ps(low, _mm512_loadu_ps(p.add(s * LANES)));
                high = _mm512_add_ps(high, _mm512_loadu_ps(p.add(s * LANES + 16)));
            }
            for (j, half) in [low, high].into_iter().enumerate() {
                let upper = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(half)));
                acc[2 * j] = _mm512_add_pd(acc[2 * j], _mm512_cvtps_pd(_mm512_castps512_ps256(half)));
                acc[2 * j + 1] = _mm512_add_pd(acc[2 * j + 1], _mm512_cvtps_pd(upper));
            }
            i += block;
        }
        while i < full {
            let p = run.as_ptr().add(i);
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm512_add_pd(*a, _mm512_cvtps_pd(_mm256_loadu_ps(p.add(8 * j))));
            }
            i += LANES;
        }
        fold_lanes_avx512(acc) + run[full..].iter().map(|&v| v as f64).sum::<f64>()
    }

    /// `fold_lanes` over four registers of eight lanes (lane k of register j is lane 8j + k), in registers and in
    /// the same order: lanes k and k + 16 (registers j and j + 2), then k and k + 8 (the two results), then the
    /// halves, quarters and last pair of the one register left. A short run's sum (a row of 128) costs little
    /// more than its adds.
    #[target_feature(enable = "avx512f")]
    unsafe fn fold_lanes_avx512(acc: [__m512d; LANES / 8]) -> f64 {
        let eight = _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
        let four = _mm256_add_pd(_mm512_castpd512_pd256(eight), _mm512_extractf64x4_pd::<1>(eight));
        let two = _mm_add_pd(_mm256_castpd256_pd128(four), _mm256_extractf128_pd::<1>(four));
        _mm_cvtsd_f64(_mm_add_sd(two, _mm_unpackhi_pd(two, two)))
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn sum_run_f32_avx2(x: &[f32]) -> f64 {
        let mut acc = [_mm256_setzero_pd(); LANES / 4];
        let (block, full) = (LANES * F32_SPAN, x.len() - x.len() % LANES);
        let blocked = x.len() - x.len() % block;
        let p = x.as_ptr();
        let mut i = 0;
        while i < blocked {
            // register q of `part` holds lanes 8q..8q + 8, register j of `acc` lanes 4j..4j + 4
            let mut part = [_mm256_setzero_ps(); LANES / 8];
            for s in 0..F32_SPAN {
                for (q, part) in part.iter_mut().enumerate() {
                    *part = _mm256_add_ps(*part, _mm256_loadu_ps(p.add(i + s * LANES + 8 * q)));
                }
            }
            for (q, part) in part.iter().enumerate() {
                acc[2 * q] = _mm256_add_pd(acc[2 * q], _mm256_cvtps_pd(_mm256_castps256_ps128(*part)));
                acc[2 * q + 1] = _mm256_add_pd(acc[2 * q + 1], _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(*part)));
            }
            i += block;
        }
        while i < full {
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_pd(*a, _mm256_cvtps_pd(_mm_loadu_ps(p.add(i + 4 * j))));
            }
            i += LANES;
        }
        let rest = &x[full..];
        let mut lanes = [0.0f64; LANES];
        for (j, a) in acc.iter().enumerate() {
            _mm256_storeu_pd(lanes.as_mut_ptr().add(4 * j), *a);
        }
        fold_lanes(lanes) + rest.iter().map(|&v| v as f64).sum::<f64>()
    }

    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub unsafe fn sum_run_avx512<T: Element>(x: &[T]) -> f64 {
        sum_run_generic(x)
    }
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn sum_run_avx2<T: Element>(x: &[T]) -> f64 {
        sum_run_generic(x)
    }
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub unsafe fn add_rows_avx512<T: Element>(
        acc: &mut [f64],
        x: &[T],
        rows: std::ops::Range<usize>,
        stride: usize,
        cols: std::ops::Range<usize>,
    ) {
        add_rows_generic(acc, x, rows, stride, cols)
    }
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn add_rows_avx2<T: Element>(
        acc: &mut [f64],
        x: &[T],
        rows: std::ops::Range<usize>,
        stride: usize,
        cols: std::ops::Range<usize>,
    ) {
        add_rows_generic(acc, x, rows, stride, cols)
    }
}

/// Sum of a contiguous run.
pub fn sum_run<T: Element>(x: &[T]) -> f64 {
    if let Some(x) = as_f32(x) {
        #[cfg(target_arch = "x86_64")]
        match level() {
            // SAFETY: the level is Avx512 only where `detect` found AVX-512F (all this version enables).
            Level::Avx512 => return unsafe { x86::sum_run_f32_avx512(x) },
            // SAFETY: the level is Avx2 only where `detect` found at least AVX2 (all this version enables).
            Level::Avx2 => return unsafe { x86::sum_run_f32_avx2(x) },
            Level::Baseline => {}
        }
        return sum_run_f32_blocked(x);
    }
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL, AVX2 and FMA on this CPU.
        Level::Avx512 => return unsafe { x86::sum_run_avx512(x) },
        // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
        Level::Avx2 => return unsafe { x86::sum_run_avx2(x) },
        Level::Baseline => {}
    }
    sum_run_generic(x)
}

/// `out[r]` = the sum of run `r` of `x`, runs of length `n` one after another.
fn sum_runs<T: Element>(x: &[T], n: usize, out: &mut [f64]) {
    sum_runs_from(x, n, out, &|r| r * n)
}

/// `out[r]` = the sum of the run of `n` elements of `x` from `start(r)`, by `sum_run`. One run at a time: four runs
/// side by side in one AVX-512 loop (more loads in flight, 0891c87) measured slower on this Xeon at every length, one
/// thread or two (float32, 16..2048 per run: 65536×16 774 → 541 µs, 8192×128 100 → 74, 1000×1000 61–74 → 52 on one
/// thread; 4096×4096 1.56–1.85 → 1.38–1.44 ms on two).
fn sum_runs_from<T: Element>(x: &[T], n: usize, out: &mut [f64], start: &dyn Fn(usize) -> usize) {
    for (r, slot) in out.iter_mut().enumerate() {
        *slot = sum_run(&x[start(r)..start(r) + n]);
    }
}

/// The sum of each of a view's rows (its last dim), read in place, each summed as `sum_run` sums it: so as the rows
/// of its row-major copy would be, split across the threads as `sum_block` splits rows.
pub fn sum_rows<T: Element>(x: &[T], rows: &Rows) -> Vec<f64> {
    let (starts, n) = (&rows.starts, rows.len);
    let mut out = pool::filled(starts.len(), 0.0f64);
    if n == 0 {
        return out;
    }
    let parallel = starts.len() > 1 && starts.len() * n >= PARALLEL_ABOVE && crate::kernels::threads::threads() > 1;
    let per_task = match parallel {
        true => starts.len().div_ceil(4 * crate::kernels::threads::threads()).max(16),
        false => starts.len().max(1),
    };
    par_chunks_mut(&mut out, per_task, &|c, slots| sum_runs_from(x, n, slots, &|r| starts[c * per_task + r]));
    out
}

/// Sums down at least this many rows add float32 rows four at a time in float32 (`add_rows_f32`).
const GROUPED_ROWS_FROM: usize = LANES * F32_SPAN;

/// `acc[j] += Σ_k rows[k][j]`, for the rows of a sum down `n` rows.
fn add_rows<T: Element>(
    acc: &mut [f64],
    x: &[T],
    rows: std::ops::Range<usize>,
    stride: usize,
    cols: std::ops::Range<usize>,
    n: usize,
) {
    if let (Some(x), true) = (as_f32(x), n >= GROUPED_ROWS_FROM) {
        return crate::kernels::simd::dispatch!(add_rows_f32(acc, x, rows, stride, cols));
    }
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL, AVX2 and FMA on this CPU.
        Level::Avx512 => return unsafe { x86::add_rows_avx512(acc, x, rows, stride, cols) },
        // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
        Level::Avx2 => return unsafe { x86::add_rows_avx2(acc, x, rows, stride, cols) },
        Level::Baseline => {}
    }
    add_rows_generic(acc, x, rows, stride, cols)
}

/// Sums `x` (contiguous, `outer * n * inner` elements from `x[0]`) over the middle axis.
pub fn sum_block<T: Element>(x: &[T], outer: usize, n: usize, inner: usize) -> Vec<f64> {
    let parallel = outer * n * inner >= PARALLEL_ABOVE && crate::kernels::threads::threads() > 1;
    let mut out = pool::filled(outer * inner, 0.0f64);
    if out.is_empty() {
        return out;
    }
    if inner == 1 {
        if parallel && outer > 1 {
            // four tasks per thread (of at least 16 runs): short rows in tasks of 16 cost more to hand out than
            // to sum (8192 rows of 128, with the fold in registers: 120 → 66 µs on two threads, torch 53)
            let per_task = outer.div_ceil(4 * crate::kernels::threads::threads()).max(16);
            par_chunks_mut(&mut out, per_task, &|c, slots| {
                let first = c * per_task;
                sum_runs(&x[first * n..(first + slots.len()) * n], n, slots)
            });
        } else if parallel {
            // one long run: split it (at whole float32 blocks, as in one run), then add the parts
            out[0] = sum_of_parts(n, true, LANES * F32_SPAN, &|part| sum_run(&x[part]));
        } else {
            sum_runs(x, n, &mut out);
        }
        return out;
    }
    if parallel && outer >= 2 * crate::kernels::threads::threads() {
        par_chunks_mut(&mut out, inner, &|o, acc| {
            add_rows(acc, &x[o * n * inner..(o + 1) * n * inner], 0..n, inner, 0..inner, n)
        });
        return out;
    }
    for (o, acc) in out.chunks_mut(inner).enumerate() {
        let block = &x[o * n * inner..(o + 1) * n * inner];
        if parallel && n >= 8 {
            // rows split across threads, each streaming its rows into a partial sum, then the partials added
            let parts = crate::kernels::threads::threads().min(n / 4).max(1);
            let per = n.div_ceil(parts).next_multiple_of(4); // float32 rows add in groups of four from row 0
            let mut partials = vec![vec![0.0f64; inner]; parts];
            par_chunks_mut(&mut partials, 1, &|p, part| {
                add_rows(&mut part[0], block, (p * per).min(n)..((p + 1) * per).min(n), inner, 0..inner, n)
            });
            for part in &partials {
                acc.iter_mut().zip(part).for_each(|(a, v)| *a += v);
            }
        } else {
            add_rows(acc, block, 0..n, inner, 0..inner, n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sums_match_naive_for_each_axis() {
        let shape = [3usize, 700, 5];
        let x: Vec<f32> = (0..3 * 700 * 5).map(|i| ((i * 37) % 101) as f32 * 0.25 - 7.0).collect();
        let l = Layout::contiguous(&shape);
        for dims in [vec![0usize], vec![1], vec![2], vec![0, 1], vec![1, 2], vec![0, 1, 2]] {
            let (o, n, i) = as_block(&l, &dims).unwrap();
            let got = sum_block(&x, o, n, i);
            let want = crate::kernels::reduce::fold(&l, &x, &dims, 0.0f64, |a, v| a + v as f64);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-9 * w.abs().max(1.0), "{dims:?}: {g} vs {w}");
            }
        }
        assert!(as_block(&l, &[0, 2]).is_none());
        assert!(as_block(&l.transpose(0, 1), &[0]).is_none());
    }

    #[test]
    fn large_sums_split_across_threads_agree() {
        let x: Vec<f32> = (0..(1 << 20)).map(|i| (i % 7) as f32).collect();
        let whole = sum_block(&x, 1, 1 << 20, 1)[0];
        assert_eq!(whole, x.iter().map(|&v| v as f64).sum::<f64>());
        let cols = sum_block(&x, 1, 1024, 1024);
        let want: Vec<f64> = (0..1024).map(|j| (0..1024).map(|k| x[k * 1024 + j] as f64).sum()).collect();
        assert_eq!(cols, want);
    }

    #[test]
    fn every_level_agrees_with_a_plain_f64_loop() {
        use crate::kernels::simd::set_level;
        let best = level();
        for n in [0usize, 1, 7, 31, 32, 33, 63, 64, 65, 127, 1000] {
            let x: Vec<f32> = (0..n + 3).map(|i| ((i * 13) % 29) as f32 * 0.125 - 1.5).collect();
            for start in [0usize, 1, 3] {
                let run = &x[start..start + n];
                let want: f64 = run.iter().map(|&v| v as f64).sum();
                set_level(Level::Baseline);
                let baseline = sum_run(run);
                for l in [Level::Baseline, Level::Avx2, best] {
                    if l as u8 > best as u8 {
                        continue;
                    }
                    set_level(l);
                    let got = sum_run(run);
                    assert!(
                        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                        "n={n} start={start} {l:?}: {got} vs {want}"
                    );
                    assert_eq!(got.to_bits(), baseline.to_bits(), "every level adds in the same order");
                    // rows of width n, 6 of them (4 at a time + a tail of 2)
                    if n > 0 {
                        let rows: Vec<f32> = (0..6 * n + start).map(|i| ((i * 7) % 17) as f32 - 8.0).collect();
                        let mut acc = vec![0.0f64; n];
                        add_rows(&mut acc, &rows[start..], 0..6, n, 0..n, 6);
                        for j in 0..n {
                            let w: f64 = (0..6).map(|k| rows[start + k * n + j] as f64).sum();
                            assert_eq!(acc[j], w, "rows n={n} j={j} {l:?}");
                        }
                    }
                }
                set_level(best);
            }
        }
    }

    #[test]
    fn runs_summed_in_a_row_match_one_summed_alone_on_every_level() {
        use crate::kernels::simd::set_level;
        let best = level();
        for (rows, n) in [(1usize, 5usize), (4, 1), (4, 32), (5, 33), (7, 100), (9, 1000), (16, 64), (8, 128)] {
            let x: Vec<f32> = (0..rows * n).map(|i| ((i * 31) % 97) as f32 * 0.3 - 11.0).collect();
            let want: Vec<f64> = (0..rows).map(|r| x[r * n..(r + 1) * n].iter().map(|&v| v as f64).sum()).collect();
            set_level(Level::Baseline);
            let one_at_a_time: Vec<f64> = (0..rows).map(|r| sum_run(&x[r * n..(r + 1) * n])).collect();
            for l in [Level::Baseline, Level::Avx2, best] {
                if l as u8 > best as u8 {
                    continue;
                }
                set_level(l);
                let mut got = vec![0.0; rows];
                sum_runs(&x, n, &mut got);
                for r in 0..rows {
                    assert_eq!(got[r].to_bits(), one_at_a_time[r].to_bits(), "rows={rows} n={n} r={r} {l:?}");
                    // four values a lane in float32 first (`F32_SPAN`): within float32's rounding of their size
                    let size: f64 = x[r * n..(r + 1) * n].iter().map(|&v| v.abs() as f64).sum();
                    assert!((got[r] - want[r]).abs() <= 1e-6 * size.max(1.0));
                }
            }
            set_level(best);
        }
    }

    #[test]
    fn float32_blocks_add_alike_on_every_level_and_stay_accurate() {
        // values float32 cannot add exactly (their four-value partial sums round), at lengths around the blocks
        use crate::kernels::simd::set_level;
        let best = level();
        for n in [127usize, 128, 129, 160, 1000, 4096 + 37, 100_003] {
            let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.7371).sin() * 1e3 + 1e-3 * i as f32).collect();
            let exact: f64 = x.iter().map(|&v| v as f64).sum();
            let size: f64 = x.iter().map(|&v| v.abs() as f64).sum();
            set_level(Level::Baseline);
            let baseline = sum_run(&x);
            for l in [Level::Avx2, best] {
                if l as u8 > best as u8 {
                    continue;
                }
                set_level(l);
                assert_eq!(sum_run(&x).to_bits(), baseline.to_bits(), "n={n} {l:?}");
                let mut in_rows = [0.0f64; 5];
                let rows: Vec<f32> = x.iter().copied().cycle().take(5 * n).collect();
                sum_runs(&rows, n, &mut in_rows);
                assert!(in_rows.iter().all(|s| s.to_bits() == baseline.to_bits()), "rows n={n} {l:?}");
                // the same values as 7 rows of columns, summed down the rows (four in float32 at a time)
                let cols = n / 7;
                let (mut down, mut down_baseline) = (vec![0.0f64; cols], vec![0.0f64; cols]);
                add_rows(&mut down, &x, 0..7, cols, 0..cols, GROUPED_ROWS_FROM);
                set_level(Level::Baseline);
                add_rows(&mut down_baseline, &x, 0..7, cols, 0..cols, GROUPED_ROWS_FROM);
                set_level(l);
                assert!(down.iter().zip(&down_baseline).all(|(a, b)| a.to_bits() == b.to_bits()), "cols n={n} {l:?}");
                for (j, &got) in down.iter().enumerate() {
                    let column = (0..7).map(|k| x[k * cols + j] as f64);
                    let (exact, size) = column.fold((0.0, 0.0), |(s, a), v| (s + v, a + v.abs()));
                    assert!((got - exact).abs() <= 4.0 * f32::EPSILON as f64 * size, "cols n={n} j={j}");
                }
            }
            set_level(best);
            // each lane's four float32 adds round by at most 2^-24 of what they hold
            assert!((baseline - exact).abs() <= 4.0 * f32::EPSILON as f64 * size, "n={n}: {baseline} vs {exact}");
        }
    }

    #[test]
    fn zero_sized_blocks_sum_to_zeros() {
        for (o, n, i) in [(0usize, 0usize, 0usize), (0, 3, 4), (3, 0, 4), (3, 4, 0), (1, 0, 1 << 19)] {
            assert_eq!(sum_block::<f32>(&[], o, n, i), vec![0.0; o * i], "({o}, {n}, {i})");
        }
    }

    #[test]
    fn nan_and_inf_propagate_on_every_path() {
        let mut x = vec![1.0f32; 1 << 19];
        x[12345] = f32::INFINITY;
        assert_eq!(sum_block(&x, 1, 1 << 19, 1)[0], f64::INFINITY);
        assert_eq!(sum_block(&x, 1, 512, 1024)[12345 % 1024], f64::INFINITY);
        x[777] = f32::NAN;
        assert!(sum_block(&x, 1, 1 << 19, 1)[0].is_nan());
        assert!(sum_block(&x, 1 << 9, 1024, 1)[0].is_nan());
        assert!(sum_block(&x, 1, 512, 1024)[777].is_nan());
        assert!(sum_block(&x, 2, 256, 1024)[777].is_nan());
    }
}
