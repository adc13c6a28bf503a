//! softmax and log_softmax over contiguous float32 rows, and their gradients, each row in two or three
//! vectorized passes (max, shifted exponentials with their sum, scale) and rows split across threads.
//! Before, every row was copied out, exponentiated by a scalar call per element and copied back: a
//! (16·4·64, 64) attention softmax took 3.6 ms against PyTorch's 0.2.
use crate::kernels::math::{exp_f32_into, exp_shifted_f32_into, exp_shifted_sum_f32};
use crate::kernels::simd::dispatch;
use crate::kernels::split::SOFTMAX_ELEMENTS;
use crate::kernels::threads::{par_chunks_mut, threads};
use std::mem::MaybeUninit;

/// Lanes of the partial maxima and sums (wide enough for AVX-512's sixteen).
const LANES: usize = 16;

/// The row's maximum, NaN ignored (a NaN still makes the whole row NaN through the sum, as in PyTorch).
#[inline(always)]
fn row_max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = if v > *a { v } else { *a };
        }
    }
    let m = tail.iter().fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    acc.iter().fold(m, |a, &b| if b > a { b } else { a })
}

/// Σ x, accumulated in float64 lanes.
#[inline(always)]
fn row_sum(x: &[f32]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail: f64 = chunks.remainder().iter().map(|&v| v as f64).sum();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += v as f64;
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Σ a·b, accumulated in float64 lanes.
#[inline(always)]
fn row_dot(a: &[f32], b: &[f32]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| x as f64 * y as f64).sum();
    for (xa, xb) in ca.zip(cb) {
        for ((s, &x), &y) in acc.iter_mut().zip(xa).zip(xb) {
            *s += x as f64 * y as f64;
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// The elements of a row that its kernel has just written in full.
#[inline(always)]
fn written(out: &mut [MaybeUninit<f32>]) -> &mut [f32] {
    // Safety: callers pass rows whose every element was written before this call.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<f32>(), out.len()) }
}

/// softmax (`log` = false) or log_softmax of one row, shifted by its max (an infinite max too, so a
/// row holding inf, or only -inf, gives NaN as in PyTorch).
#[inline(always)]
fn forward_row(out: &mut [MaybeUninit<f32>], x: &[f32], log: bool) {
    let m = row_max(x);
    if log {
        let ls = exp_shifted_sum_f32(x, m).ln() as f32;
        for (o, &v) in out.iter_mut().zip(x) {
            o.write((v - m) - ls);
        }
    } else {
        exp_shifted_f32_into(out, x, m);
        let out = written(out);
        let s = row_sum(out) as f32;
        for o in out.iter_mut() {
            *o /= s;
        }
    }
}

/// The gradient of one row: `y·(g - Σ g·y)` for softmax output y, `g - exp(y)·Σ g` for log_softmax.
#[inline(always)]
fn backward_row(out: &mut [MaybeUninit<f32>], g: &[f32], y: &[f32], log: bool) {
    if log {
        let sg = row_sum(g) as f32;
        exp_f32_into(out, y);
        for (o, &gv) in written(out).iter_mut().zip(g) {
            *o = gv - *o * sg;
        }
    } else {
        let dot = row_dot(g, y) as f32;
        for ((o, &gv), &yv) in out.iter_mut().zip(g).zip(y) {
            o.write(yv * (gv - dot));
        }
    }
}

#[inline(always)]
fn forward_rows_on(out: &mut [MaybeUninit<f32>], x: &[f32], n: usize, log: bool) {
    for (o, r) in out.chunks_mut(n).zip(x.chunks(n)) {
        forward_row(o, r, log);
    }
}

#[inline(always)]
fn backward_rows_on(out: &mut [MaybeUninit<f32>], g: &[f32], y: &[f32], n: usize, log: bool) {
    for ((o, gr), yr) in out.chunks_mut(n).zip(g.chunks(n)).zip(y.chunks(n)) {
        backward_row(o, gr, yr, log);
    }
}

fn forward_rows(out: &mut [MaybeUninit<f32>], x: &[f32], n: usize, log: bool) {
    dispatch!(forward_rows_on(out, x, n, log))
}

fn backward_rows(out: &mut [MaybeUninit<f32>], g: &[f32], y: &[f32], n: usize, log: bool) {
    dispatch!(backward_rows_on(out, g, y, n, log))
}

/// Runs `rows(out part, first row)` over whole rows of `n` elements, split across threads when large.
fn by_rows(len: usize, n: usize, rows: impl Fn(&mut [MaybeUninit<f32>], usize) + Sync) -> Vec<f32> {
    let mut out: Vec<f32> = crate::pool::take(len);
    let dst = &mut out.spare_capacity_mut()[..len];
    match len.checked_div(n) {
        Some(count) if len >= SOFTMAX_ELEMENTS && count > 1 => {
            let per_task = count.div_ceil(threads() * 4).max(1);
            par_chunks_mut(dst, per_task * n, &|c, o| rows(o, c * per_task));
        }
        Some(_) => rows(dst, 0),
        None => {}
    }
    // Safety: the row kernels write every element of every row.
    unsafe { out.set_len(len) };
    out
}

/// softmax or log_softmax of each `n`-long row of `x` (contiguous rows).
pub fn softmax_f32(x: &[f32], n: usize, log: bool) -> Vec<f32> {
    by_rows(x.len(), n, |o, r| forward_rows(o, &x[r * n..][..o.len()], n, log))
}

/// The input gradient of `softmax_f32` from the output gradient `g` and the saved output `y`.
pub fn softmax_backward_f32(g: &[f32], y: &[f32], n: usize, log: bool) -> Vec<f32> {
    by_rows(g.len(), n, |o, r| backward_rows(o, &g[r * n..][..o.len()], &y[r * n..][..o.len()], n, log))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::{detect, set_level, Level};

    fn reference(x: &[f32], log: bool) -> Vec<f64> {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
        let s: f64 = x.iter().map(|&v| (v as f64 - m).exp()).sum();
        x.iter().map(|&v| if log { v as f64 - m - s.ln() } else { (v as f64 - m).exp() / s }).collect()
    }

    #[test]
    fn rows_match_float64_on_every_level_and_threaded() {
        for (rows, n) in [(3usize, 1usize), (5, 17), (7, 64), (2, 1000), (5000, 33)] {
            let x: Vec<f32> = (0..rows * n).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.37).collect();
            let g: Vec<f32> = (0..rows * n).map(|i| ((i * 13 % 29) as f32 - 14.0) * 0.1).collect();
            for l in [Level::Baseline, detect()] {
                set_level(l);
                for log in [false, true] {
                    let y = softmax_f32(&x, n, log);
                    let gi = softmax_backward_f32(&g, &y, n, log);
                    for r in 0..rows {
                        let (xr, gr) = (&x[r * n..][..n], &g[r * n..][..n]);
                        let want = reference(xr, log);
                        let p: Vec<f64> = reference(xr, false);
                        let sg: f64 = gr.iter().map(|&v| v as f64).sum();
                        let dot: f64 = gr.iter().zip(&p).map(|(&a, &b)| a as f64 * b).sum();
                        for j in 0..n {
                            let tol = 1e-5 * (1.0 + want[j].abs());
                            assert!((y[r * n + j] as f64 - want[j]).abs() < tol, "{l:?} log={log} {rows}x{n}");
                            let gw = if log { gr[j] as f64 - p[j] * sg } else { p[j] * (gr[j] as f64 - dot) };
                            let err = (gi[r * n + j] as f64 - gw).abs();
                            assert!(err < 1e-5 * (1.0 + gw.abs() + sg.abs()), "{l:?} log={log} grad {gi:?}");
                        }
                    }
                }
            }
            set_level(detect());
        }
    }

    #[test]
    fn infinities_and_nan_follow_pytorch() {
        let nan_row = softmax_f32(&[1.0, f32::NAN, 2.0], 3, false);
        assert!(nan_row.iter().all(|v| v.is_nan()));
        let inf_row = softmax_f32(&[1.0, f32::INFINITY], 2, true);
        assert!(inf_row.iter().all(|v| v.is_nan()));
        assert!(softmax_f32(&[f32::NEG_INFINITY; 2], 2, false).iter().all(|v| v.is_nan()));
        // a -inf among finite values is an exact 0 (softmax) and -inf (log_softmax)
        assert_eq!(softmax_f32(&[0.0, f32::NEG_INFINITY], 2, false), vec![1.0, 0.0]);
        assert_eq!(softmax_f32(&[0.0, f32::NEG_INFINITY], 2, true), vec![0.0, f32::NEG_INFINITY]);
    }
}
