//! batch_norm over (N, C) data (a BatchNorm1d on 2-d input: planes of one element), row by row: each row holds one
//! value of every channel, so the per-channel sums run along the row, vectorized across channels. The per-channel
//! kernels of `batch_norm.rs` would walk a channel's N values C apart, each one a plane of its own.
use crate::element::Float;
use crate::kernels::simd::dispatch;
use std::mem::MaybeUninit;

/// A channel's `x · scale + shift` in the data's dtype, as PyTorch forms it: scale = invstd · w, shift = b - mean ·
/// scale, each rounded to `T`. So a value equal to the (rounded) mean maps to `b` exactly: a constant channel
/// normalises to 0, as in PyTorch, where a shift rounded from float64 left ~1e-5.
#[inline]
pub(crate) fn affine_of<T: Float>(mean: f64, invstd: f64, w: Option<T>, b: Option<T>) -> (T, T) {
    let scale = T::from_f64(invstd) * w.unwrap_or(T::ONE);
    (scale, b.unwrap_or(T::ZERO) - T::from_f64(mean) * scale)
}

/// Each channel's constants of the input gradient `(g - mean_g - (x - mean)·proj)·scale`, from its sums Σ g and
/// Σ (x - mean)·g over `count` elements: in training the statistics depend on x, so
/// dx = (g - mean(g) - (x - mean)·mean(g·(x - mean))·invstd²)·invstd·w; in evaluation dx = g·invstd·w.
pub(crate) fn input_grad_constants<T: Float>(
    (mean, invstd): (&[f64], &[f64]),
    w: Option<&[T]>,
    (sums, dots): (&[f64], &[f64]),
    count: f64,
    training: bool,
) -> Vec<[T; 4]> {
    (0..mean.len())
        .map(|c| {
            let scale = invstd[c] * w.map_or(1.0, |w| w[c].to_f64());
            let (mean_g, proj) =
                if training { (sums[c] / count, dots[c] / count * invstd[c] * invstd[c]) } else { (0.0, 0.0) };
            [mean[c], mean_g, proj, scale].map(T::from_f64)
        })
        .collect()
}

#[inline(always)]
fn add_row<T: Float>(acc: &mut [f64], row: &[T]) {
    for (a, &v) in acc.iter_mut().zip(row) {
        *a += v.to_f64();
    }
}

#[inline(always)]
fn add_squares<T: Float>(acc: &mut [f64], row: &[T], mean: &[f64]) {
    for ((a, &v), &m) in acc.iter_mut().zip(row).zip(mean) {
        let d = v.to_f64() - m;
        *a += d * d;
    }
}

#[inline(always)]
fn affine_rows<T: Float>(out: &mut [MaybeUninit<T>], x: &[T], scale: &[T], shift: &[T]) {
    for (o, row) in out.chunks_exact_mut(scale.len()).zip(x.chunks_exact(scale.len())) {
        for (((o, &v), &a), &b) in o.iter_mut().zip(row).zip(scale).zip(shift) {
            o.write(v * a + b);
        }
    }
}

/// A buffer of `len` elements from the pool (a fresh one costs a page fault per 4 KiB) that `fill` writes whole.
fn written_by<T: Float>(len: usize, fill: impl FnOnce(&mut [MaybeUninit<T>])) -> Vec<T> {
    let mut v: Vec<T> = crate::pool::take(len);
    fill(&mut v.spare_capacity_mut()[..len]);
    // SAFETY: `fill` wrote every element (each caller's loop covers the whole buffer).
    unsafe { v.set_len(len) };
    v
}

/// Each channel's (mean, biased variance) over the rows: the mean first, then the centred squares (float64).
fn moments<T: Float>(x: &[T], channels: usize) -> (Vec<f64>, Vec<f64>) {
    let rows = (x.len() / channels) as f64;
    let mut sum = vec![0.0; channels];
    for row in x.chunks_exact(channels) {
        dispatch!(add_row(&mut sum, row));
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / rows).collect();
    let mut squares = vec![0.0; channels];
    for row in x.chunks_exact(channels) {
        dispatch!(add_squares(&mut squares, row, &mean));
    }
    (mean, squares.iter().map(|s| s / rows).collect())
}

/// `batch_norm_forward` for planes of one element: with `given` (mean, invstd) per channel, or else the batch's
/// statistics with `eps`.
pub fn forward<T: Float>(
    x: &[T],
    w: Option<&[T]>,
    b: Option<&[T]>,
    channels: usize,
    given: Option<(&[f64], &[f64])>,
    eps: f64,
) -> (Vec<T>, Vec<f64>, Vec<f64>) {
    if channels == 0 {
        return (Vec::new(), Vec::new(), Vec::new());
    }
    let (means, vars, mean, invstd) = match given {
        None => {
            let (m, v) = moments(x, channels);
            let invstd = v.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
            (m.clone(), v, m, invstd)
        }
        Some((mean, invstd)) => (vec![0.0; channels], vec![0.0; channels], mean.to_vec(), invstd.to_vec()),
    };
    let (scale, shift): (Vec<T>, Vec<T>) =
        (0..channels).map(|c| affine_of(mean[c], invstd[c], w.map(|w| w[c]), b.map(|b| b[c]))).unzip();
    let out = written_by(x.len(), |out| dispatch!(affine_rows(out, x, &scale, &shift)));
    (out, means, vars)
}

#[inline(always)]
fn grad_sums_row<T: Float>(sum: &mut [f64], dot: &mut [f64], x: &[T], g: &[T], mean: &[f64]) {
    for ((((s, d), &xv), &gv), &m) in sum.iter_mut().zip(dot.iter_mut()).zip(x).zip(g).zip(mean) {
        let gv = gv.to_f64();
        *s += gv;
        *d += (xv.to_f64() - m) * gv;
    }
}

#[inline(always)]
fn input_grad_rows<T: Float>(dx: &mut [MaybeUninit<T>], x: &[T], g: &[T], k: &[[T; 4]]) {
    let c = k.len();
    for ((o, xr), gr) in dx.chunks_exact_mut(c).zip(x.chunks_exact(c)).zip(g.chunks_exact(c)) {
        for (((o, &xv), &gv), &[mean, mean_g, proj, scale]) in o.iter_mut().zip(xr).zip(gr).zip(k) {
            o.write((gv - mean_g - (xv - mean) * proj) * scale);
        }
    }
}

/// `batch_norm_backward` for planes of one element.
pub fn backward<T: Float>(
    x: &[T],
    g: &[T],
    w: Option<&[T]>,
    channels: usize,
    (mean, invstd): (&[f64], &[f64]),
    training: bool,
    input_grad: bool,
) -> (Vec<T>, Vec<f64>, Vec<f64>) {
    if channels == 0 {
        return (Vec::new(), Vec::new(), Vec::new());
    }
    let (mut sum, mut dot) = (vec![0.0; channels], vec![0.0; channels]);
    for (xr, gr) in x.chunks_exact(channels).zip(g.chunks_exact(channels)) {
        dispatch!(grad_sums_row(&mut sum, &mut dot, xr, gr, mean));
    }
    let dw: Vec<f64> = dot.iter().zip(invstd).map(|(d, i)| d * i).collect();
    if !input_grad {
        return (Vec::new(), dw, sum);
    }
    let count = (x.len() / channels) as f64;
    let k = input_grad_constants((mean, invstd), w, (&sum, &dot), count, training);
    let dx = written_by(x.len(), |dx| dispatch!(input_grad_rows(dx, x, g, &k)));
    (dx, dw, sum)
}
