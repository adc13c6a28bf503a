//! layer_norm forward and backward over contiguous rows, each row in cache: the statistics (float64
//! accumulators, mean first and then the centred squares: a row is in L1 so the second sweep costs
//! next to nothing, and it keeps the variance exact where Σx² - n·mean² would cancel) and the affine map
//! in one kernel instead of ~6 tensor ops and their temporaries; the backward likewise, with the
//! weight's and bias's gradients summed over rows in float64.
use crate::element::Float;
use crate::kernels::simd::dispatch;
use crate::kernels::threads::{par_for, threads, OutPtr};
use std::mem::MaybeUninit;

use crate::kernels::split::LAYER_NORM_ELEMENTS as PARALLEL_ABOVE;

/// One vector of float64 lanes.
const LANES: usize = 8;
/// Independent vectors of partial sums: a row's sum is a chain of float64 adds, and with one vector a short row
/// (a char-GPT's 64 or 128 features) waited on that chain's latency; four vectors overlap it.
const CHAINS: usize = 4;

type Lanes = [f64; LANES];

#[inline(always)]
fn add_lanes<T: Float>(acc: &mut Lanes, x: &[T], f: &impl Fn(f64) -> f64) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a += f(v.to_f64());
    }
}

#[inline(always)]
fn add_products<T: Float>(acc: &mut Lanes, a: &[T], b: &[T]) {
    for ((s, &x), &y) in acc.iter_mut().zip(a).zip(b) {
        *s += x.to_f64() * y.to_f64();
    }
}

/// The chains' lanes summed, as a tree (vector adds, then halves).
#[inline(always)]
fn total(chains: [Lanes; CHAINS]) -> f64 {
    let [mut a, b, c, d] = chains;
    for i in 0..LANES {
        a[i] = (a[i] + b[i]) + (c[i] + d[i]);
    }
    ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
}

/// Σ f(x[i]) in float64 lanes.
#[inline(always)]
pub(crate) fn lane_sum<T: Float>(x: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [[0.0f64; LANES]; CHAINS];
    let wide = x.chunks_exact(LANES * CHAINS);
    let rest = wide.remainder();
    for c in wide {
        let (c0, c1, c2, c3) = (&c[..LANES], &c[LANES..2 * LANES], &c[2 * LANES..3 * LANES], &c[3 * LANES..]);
        add_lanes(&mut acc[0], c0, &f);
        add_lanes(&mut acc[1], c1, &f);
        add_lanes(&mut acc[2], c2, &f);
        add_lanes(&mut acc[3], c3, &f);
    }
    let narrow = rest.chunks_exact(LANES);
    let tail: f64 = narrow.remainder().iter().map(|&v| f(v.to_f64())).sum();
    for c in narrow {
        add_lanes(&mut acc[0], c, &f);
    }
    total(acc) + tail
}

/// Σ a[i]·b[i] in float64 lanes.
#[inline(always)]
fn lane_dot<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut acc = [[0.0f64; LANES]; CHAINS];
    let (wa, wb) = (a.chunks_exact(LANES * CHAINS), b.chunks_exact(LANES * CHAINS));
    let (ra, rb) = (wa.remainder(), wb.remainder());
    for (x, y) in wa.zip(wb) {
        for (k, chain) in acc.iter_mut().enumerate() {
            let at = k * LANES..(k + 1) * LANES;
            add_products(chain, &x[at.clone()], &y[at]);
        }
    }
    let (na, nb) = (ra.chunks_exact(LANES), rb.chunks_exact(LANES));
    let tail: f64 = na.remainder().iter().zip(nb.remainder()).map(|(&x, &y)| x.to_f64() * y.to_f64()).sum();
    for (x, y) in na.zip(nb) {
        add_products(&mut acc[0], x, y);
    }
    total(acc) + tail
}

/// (mean, 1 / sqrt(var + eps)) of one row, the biased variance.
#[inline(always)]
fn statistics<T: Float>(x: &[T], eps: f64) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = lane_sum(x, |v| v) / n;
    let var = lane_sum(x, |v| (v - mean) * (v - mean)) / n;
    (mean, 1.0 / (var + eps).sqrt())
}

#[inline(always)]
fn forward_rows<T: Float>(out: &mut [MaybeUninit<T>], x: &[T], w: Option<&[T]>, b: Option<&[T]>, n: usize, eps: f64) {
    for (o, x) in out.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
        let (mean, rstd) = statistics(x, eps);
        let (mean, rstd) = (T::from_f64(mean), T::from_f64(rstd));
        // one pass, the same roundings in the same order as x̂, then · w, then + b
        match (w, b) {
            (Some(w), Some(b)) => {
                for ((o, &v), (&w, &b)) in o.iter_mut().zip(x).zip(w.iter().zip(b)) {
                    o.write((v - mean) * rstd * w + b);
                }
            }
            (Some(w), None) => {
                for ((o, &v), &w) in o.iter_mut().zip(x).zip(w) {
                    o.write((v - mean) * rstd * w);
                }
            }
            (None, Some(b)) => {
                for ((o, &v), &b) in o.iter_mut().zip(x).zip(b) {
                    o.write((v - mean) * rstd + b);
                }
            }
            (None, None) => {
                for (o, &v) in o.iter_mut().zip(x) {
                    o.write((v - mean) * rstd);
                }
            }
        }
    }
}

/// Parts of `rows` rows of `n` for `par_for`: (parts, rows per part).
fn split(rows: usize, n: usize) -> (usize, usize) {
    let parts = if threads() > 1 && rows * n >= PARALLEL_ABOVE { (threads() * 4).min(rows) } else { 1 };
    let per = rows.div_ceil(parts.max(1)).max(1);
    (rows.div_ceil(per), per)
}

/// layer_norm over rows of `n` (x.len() a multiple of n): (x - mean) · rstd · w + b.
pub fn layer_norm_forward<T: Float>(x: &[T], w: Option<&[T]>, b: Option<&[T]>, n: usize, eps: f64) -> Vec<T> {
    if n == 0 {
        return vec![T::ZERO; x.len()];
    }
    let rows = x.len() / n;
    // a pooled buffer, written once (zeroing it first was a fifth of the time, one thread's memset of 4 MB)
    let mut out: Vec<T> = crate::pool::take(rows * n);
    let (parts, per) = split(rows, n);
    let po = OutPtr(out.as_mut_ptr().cast::<MaybeUninit<T>>());
    par_for(parts, &|p| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrapper, not its raw pointer
        let po = po;
        let (start, end) = (p * per * n, ((p + 1) * per).min(rows) * n);
        // Safety: part p writes rows start..end of out alone, while out lives.
        let o = unsafe { std::slice::from_raw_parts_mut(po.0.add(start), end - start) };
        dispatch!(forward_rows(o, &x[start..end], w, b, n, eps));
    });
    // SAFETY: the parts tile rows·n slots within the capacity `take` gave, and `forward_rows` writes each of them.
    unsafe { out.set_len(rows * n) };
    out
}

/// The gradients of some rows: dx into `dx`, and Σ g·x̂ and Σ g over these rows into `dw`, `db`.
#[inline(always)]
fn backward_rows<T: Float>(
    dx: &mut [MaybeUninit<T>],
    dw: &mut [f64],
    db: &mut [f64],
    x: &[T],
    g: &[T],
    w: Option<&[T]>,
    n: usize,
    eps: f64,
) {
    let mut xhat = vec![T::ZERO; n];
    let mut gxhat = vec![T::ZERO; n];
    for ((dx, x), g) in dx.chunks_exact_mut(n).zip(x.chunks_exact(n)).zip(g.chunks_exact(n)) {
        let (mean, rstd) = statistics(x, eps);
        let (mean_t, rstd_t) = (T::from_f64(mean), T::from_f64(rstd));
        for (h, &v) in xhat.iter_mut().zip(x) {
            *h = (v - mean_t) * rstd_t;
        }
        match w {
            Some(w) => {
                for ((o, &g), &w) in gxhat.iter_mut().zip(g).zip(w) {
                    *o = g * w;
                }
            }
            None => gxhat.copy_from_slice(g),
        }
        let (s1, s2) = (lane_sum(&gxhat, |v| v), lane_dot(&gxhat, &xhat));
        let (m1, m2) = (T::from_f64(s1 / n as f64), T::from_f64(s2 / n as f64));
        for ((o, &a), &h) in dx.iter_mut().zip(&gxhat).zip(&xhat) {
            o.write(rstd_t * (a - m1 - h * m2));
        }
        for (((dw, db), &g), &h) in dw.iter_mut().zip(db.iter_mut()).zip(g).zip(&xhat) {
            *dw += (g * h).to_f64();
            *db += g.to_f64();
        }
    }
}

/// The gradients of `layer_norm_forward` for the output gradient `g`: (dx, Σ_rows g·x̂, Σ_rows g), the
/// last two in float64 (the caller casts them).
pub fn layer_norm_backward<T: Float>(
    x: &[T],
    g: &[T],
    w: Option<&[T]>,
    n: usize,
    eps: f64,
) -> (Vec<T>, Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (vec![T::ZERO; x.len()], vec![], vec![]);
    }
    let rows = x.len() / n;
    let mut dx: Vec<T> = crate::pool::take(rows * n);
    let (parts, per) = split(rows, n);
    // each part sums its rows' weight and bias gradients apart; the parts are added in order after
    let mut partial = vec![0.0f64; parts * 2 * n];
    let (pd, pp) = (OutPtr(dx.as_mut_ptr().cast::<MaybeUninit<T>>()), OutPtr(partial.as_mut_ptr()));
    par_for(parts, &|p| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrappers, not their raw pointers
        let (pd, pp) = (pd, pp);
        let (start, end) = (p * per * n, ((p + 1) * per).min(rows) * n);
        // SAFETY: start <= end <= rows·n <= dx.len(), and part p alone touches rows start..end of dx (the
        // parts' row ranges are disjoint); dx outlives `par_for`, which returns once every part has run.
        let d = unsafe { std::slice::from_raw_parts_mut(pd.0.add(start), end - start) };
        // SAFETY: p < parts, so sums p·2n..(p + 1)·2n lie inside `partial` (parts·2n long) and are this
        // part's alone; `partial` outlives `par_for`.
        let sums = unsafe { std::slice::from_raw_parts_mut(pp.0.add(p * 2 * n), 2 * n) };
        let (dw, db) = sums.split_at_mut(n);
        dispatch!(backward_rows(d, dw, db, &x[start..end], &g[start..end], w, n, eps));
    });
    // SAFETY: the parts tile rows·n slots within the capacity `take` gave, and `backward_rows` writes each of them.
    unsafe { dx.set_len(rows * n) };
    let (mut dw, mut db) = (vec![0.0f64; n], vec![0.0f64; n]);
    for part in partial.chunks_exact(2 * n) {
        for i in 0..n {
            dw[i] += part[i];
            db[i] += part[n + i];
        }
    }
    (dx, dw, db)
}
