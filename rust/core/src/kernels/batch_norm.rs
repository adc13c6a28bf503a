//! batch_norm forward and backward over contiguous (N, C, S) data, in passes over memory in order, a sample per
//! task: each plane's sums (float64 accumulators: the mean first and then the centred squares, as layer_norm's
//! rows) into an (N, C) table, the channels' totals over the samples in order, then the affine map, instead of
//! ~10 tensor ops and their temporaries. The backward likewise: each plane's two sums, then the input gradient.
use crate::element::Float;
use crate::kernels::batch_norm_rows::{affine_of, input_grad_constants};
use crate::kernels::layer_norm::lane_sum;
use crate::kernels::simd::dispatch;
use crate::kernels::split::BATCH_NORM_ELEMENTS as PARALLEL_ABOVE;
use crate::kernels::threads::{par_for, threads, OutPtr};
use std::mem::MaybeUninit;

/// The shape the kernels see: `batch` planes of `channels` × `spatial` (a (N, C, *) tensor, contiguous).
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    pub batch: usize,
    pub channels: usize,
    pub spatial: usize,
}

impl Planes {
    /// Elements a channel has over the batch (the count its statistics divide by).
    pub fn per_channel(&self) -> usize {
        self.batch * self.spatial
    }

    /// The S values of channel `c` in sample `n`.
    fn plane<'a, T>(&self, x: &'a [T], n: usize, c: usize) -> &'a [T] {
        let start = (n * self.channels + c) * self.spatial;
        &x[start..start + self.spatial]
    }
}

/// Runs `task(n)` for every sample, on several threads when the data is large enough to pay for them. Every pass
/// goes over memory in order, sample after sample: a channel's N planes lie C·S elements apart, and with C·S a power
/// of two (16 channels of 32×32 float32: 64 KiB) they fall into the same cache sets, so a task per channel re-read
/// its planes from memory on each pass (ResNet's BatchNorm2d(16) forward on 32×16×32×32: 446 µs, against 291 µs
/// with 15 channels).
fn for_samples(p: Planes, task: &(dyn Fn(usize) + Sync)) {
    if threads() > 1 && p.batch > 1 && p.channels * p.per_channel() >= PARALLEL_ABOVE {
        par_for(p.batch, task);
    } else {
        (0..p.batch).for_each(task);
    }
}

/// A buffer of `samples · len` elements that `fill(row, n)` writes sample by sample (`for_samples`), each task its
/// own row of `len`; every element must be written. From the pool: a fresh buffer costs a page fault per 4 KiB.
fn by_samples<V: Copy + Send + 'static>(
    p: Planes,
    len: usize,
    fill: &(dyn Fn(&mut [MaybeUninit<V>], usize) + Sync),
) -> Vec<V> {
    let mut buf: Vec<V> = crate::pool::take(p.batch * len);
    let at = OutPtr(buf.spare_capacity_mut().as_mut_ptr().cast::<V>());
    for_samples(p, &|n| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrapper, not its raw pointer
        let at = at;
        // SAFETY: the buffer has room for N rows of `len` and outlives the pass; task n takes row n alone, and
        // MaybeUninit admits any bits.
        let row = unsafe { std::slice::from_raw_parts_mut(at.0.add(n * len).cast::<MaybeUninit<V>>(), len) };
        fill(row, n);
    });
    // SAFETY: every row was written by its task (`fill`'s contract).
    unsafe { buf.set_len(p.batch * len) };
    buf
}

/// Each of sample `n`'s planes summed in float64 lanes: its values, or with `mean` given, their squared deviations
/// from their channel's mean (the variance's pass, after the mean's, as layer_norm's rows).
#[inline(always)]
fn plane_moments<T: Float>(row: &mut [MaybeUninit<f64>], x: &[T], p: Planes, n: usize, mean: Option<&[f64]>) {
    for (c, slot) in row.iter_mut().enumerate() {
        let plane = p.plane(x, n, c);
        slot.write(match mean {
            None => lane_sum(plane, |v| v),
            Some(mean) => lane_sum(plane, |v| (v - mean[c]) * (v - mean[c])),
        });
    }
}

/// Each channel's total of an (N, C) table of per-plane values, over the samples in order.
fn channel_totals<V: Copy>(table: &[V], p: Planes, part: impl Fn(V) -> f64) -> Vec<f64> {
    (0..p.channels).map(|c| (0..p.batch).fold(0.0, |total, n| total + part(table[n * p.channels + c]))).collect()
}

/// Sample `n`'s planes mapped by their channel's `x · scale + shift`.
#[inline(always)]
fn affine_sample<T: Float>(o: &mut [MaybeUninit<T>], x: &[T], p: Planes, n: usize, scale: &[T], shift: &[T]) {
    for (c, o) in o.chunks_exact_mut(p.spatial).enumerate() {
        let (scale, shift) = (scale[c], shift[c]);
        for (o, &v) in o.iter_mut().zip(p.plane(x, n, c)) {
            o.write(v * scale + shift);
        }
    }
}

/// What normalising channel `c` needs: its (mean, 1 / sqrt(var + eps)).
pub enum Statistics<'a> {
    /// From the batch itself (training): computed here and returned.
    Batch { eps: f64 },
    /// Given per channel (evaluation: from the running statistics).
    Given { mean: &'a [f64], invstd: &'a [f64] },
}

/// `(x - mean) · invstd · w + b` per channel, as `x · scale + shift` (scale = invstd·w, shift = b - mean·scale,
/// PyTorch's CPU form). Returns the output and, for batch statistics, each channel's mean and biased variance.
pub fn batch_norm_forward<T: Float>(
    x: &[T],
    w: Option<&[T]>,
    b: Option<&[T]>,
    p: Planes,
    stats: Statistics<'_>,
) -> (Vec<T>, Vec<f64>, Vec<f64>) {
    if p.spatial == 1 {
        let (given, eps) = match stats {
            Statistics::Batch { eps } => (None, eps),
            Statistics::Given { mean, invstd } => (Some((mean, invstd)), 0.0),
        };
        return crate::kernels::batch_norm_rows::forward(x, w, b, p.channels, given, eps);
    }
    let count = p.per_channel() as f64;
    let (means, vars, normalisers) = match stats {
        Statistics::Batch { eps } => {
            // per plane, then per channel over the samples in order: the mean, then the centred squares
            let moments = |mean: Option<&[f64]>| {
                let table = by_samples(p, p.channels, &|row, n| dispatch!(plane_moments(row, x, p, n, mean)));
                channel_totals(&table, p, |v| v).into_iter().map(|total| total / count).collect::<Vec<f64>>()
            };
            let means = moments(None);
            let vars = moments(Some(&means));
            let invstd = vars.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
            (means, vars, invstd)
        }
        Statistics::Given { mean, invstd } => (mean.to_vec(), vec![0.0; p.channels], invstd.to_vec()),
    };
    let (scale, shift): (Vec<T>, Vec<T>) =
        (0..p.channels).map(|c| affine_of(means[c], normalisers[c], w.map(|w| w[c]), b.map(|b| b[c]))).unzip();
    let out = by_samples(p, p.channels * p.spatial, &|o, n| dispatch!(affine_sample(o, x, p, n, &scale, &shift)));
    let means = if matches!(stats, Statistics::Batch { .. }) { means } else { vec![0.0; p.channels] };
    (out, means, vars)
}

/// (Σ g, Σ (x - mean)·g) of one plane in float64 lanes, in one pass: centred before the product, so a channel
/// far from zero loses nothing to the cancellation of Σ x·g - mean·Σ g. Four independent chains of each sum, as
/// layer_norm's `lane_sum`: with one, every vector of adds waited on the one before.
#[inline(always)]
fn plane_grad_sums<T: Float>(x: &[T], g: &[T], mean: f64) -> (f64, f64) {
    const LANES: usize = 8;
    const CHAINS: usize = 4;
    let (mut sum, mut dot) = ([[0.0f64; LANES]; CHAINS], [[0.0f64; LANES]; CHAINS]);
    let (wx, wg) = (x.chunks_exact(LANES * CHAINS), g.chunks_exact(LANES * CHAINS));
    let (rx, rg) = (wx.remainder(), wg.remainder());
    for (xs, gs) in wx.zip(wg) {
        for k in 0..CHAINS {
            for i in 0..LANES {
                let (xv, gv) = (xs[k * LANES + i].to_f64(), gs[k * LANES + i].to_f64());
                sum[k][i] += gv;
                dot[k][i] += (xv - mean) * gv;
            }
        }
    }
    for (i, (&xv, &gv)) in rx.iter().zip(rg).enumerate() {
        sum[i / LANES][i % LANES] += gv.to_f64();
        dot[i / LANES][i % LANES] += (xv.to_f64() - mean) * gv.to_f64();
    }
    let total = |a: [[f64; LANES]; CHAINS]| a.iter().flatten().sum::<f64>();
    (total(sum), total(dot))
}

/// Sample `n`'s planes' (Σ g, Σ (x - mean)·g).
#[inline(always)]
fn sample_grad_sums<T: Float>(
    row: &mut [MaybeUninit<(f64, f64)>],
    x: &[T],
    g: &[T],
    mean: &[f64],
    p: Planes,
    n: usize,
) {
    for (c, slot) in row.iter_mut().enumerate() {
        slot.write(plane_grad_sums(p.plane(x, n, c), p.plane(g, n, c), mean[c]));
    }
}

/// Sample `n`'s input gradient, plane by plane: `(g - mean_g - (x - mean)·proj)·scale` with its channel's constants.
#[inline(always)]
fn input_grad_sample<T: Float>(o: &mut [MaybeUninit<T>], x: &[T], g: &[T], p: Planes, n: usize, k: &[[T; 4]]) {
    for (c, o) in o.chunks_exact_mut(p.spatial).enumerate() {
        let [mean, mean_g, proj, scale] = k[c];
        for ((o, &x), &g) in o.iter_mut().zip(p.plane(x, n, c)).zip(p.plane(g, n, c)) {
            o.write((g - mean_g - (x - mean) * proj) * scale);
        }
    }
}

/// The gradients of `batch_norm_forward` for the output gradient `g`, with each channel's `mean` and `invstd`
/// (the batch's in training, the running ones in evaluation): (dx if `input_grad`, Σ g·x̂, Σ g) per channel,
/// the last two in float64.
pub fn batch_norm_backward<T: Float>(
    x: &[T],
    g: &[T],
    w: Option<&[T]>,
    p: Planes,
    (mean, invstd): (&[f64], &[f64]),
    training: bool,
    input_grad: bool,
) -> (Vec<T>, Vec<f64>, Vec<f64>) {
    if p.spatial == 1 {
        return crate::kernels::batch_norm_rows::backward(x, g, w, p.channels, (mean, invstd), training, input_grad);
    }
    let table = by_samples(p, p.channels, &|row, n| dispatch!(sample_grad_sums(row, x, g, mean, p, n)));
    let (sums, dots) = (channel_totals(&table, p, |(s, _)| s), channel_totals(&table, p, |(_, d)| d));
    let dw: Vec<f64> = dots.iter().zip(invstd).map(|(d, i)| d * i).collect();
    if !input_grad {
        return (Vec::new(), dw, sums);
    }
    let k = input_grad_constants((mean, invstd), w, (&sums, &dots), p.per_channel() as f64, training);
    let dx = by_samples(p, p.channels * p.spatial, &|o, n| dispatch!(input_grad_sample(o, x, g, p, n, &k)));
    (dx, dw, sums)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (N, C, S) = (3, 2, spatial) float64 values far from zero in channel 1 (a mean of 1000, a deviation near 1);
    /// `spatial` 1 runs the row-wise kernels of `batch_norm_rows.rs`.
    fn data(spatial: usize) -> (Vec<f64>, Planes) {
        let p = Planes { batch: 3, channels: 2, spatial };
        let x = (0..6 * spatial).map(|i| {
            if (i / spatial) % 2 == 1 {
                1000.0 + ((i * 7) % 11) as f64 / 5.0
            } else {
                i as f64 * 0.3 - 4.0
            }
        });
        (x.collect(), p)
    }

    fn channel(x: &[f64], p: Planes, c: usize) -> Vec<f64> {
        (0..p.batch).flat_map(|n| p.plane(x, n, c).to_vec()).collect()
    }

    #[test]
    fn forward_normalises_each_channel_by_its_batch_statistics() {
        for spatial in [5, 1] {
            forward_case(spatial);
        }
    }

    fn forward_case(spatial: usize) {
        let (x, p) = data(spatial);
        let count = (3 * spatial) as f64;
        let (w, b) = ([2.0, 0.5], [1.0, -3.0]);
        let (out, means, vars) = batch_norm_forward(&x, Some(&w), Some(&b), p, Statistics::Batch { eps: 1e-5 });
        for c in 0..2 {
            let v = channel(&x, p, c);
            let mean = v.iter().sum::<f64>() / count;
            let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / count;
            assert!((means[c] - mean).abs() < 1e-12 && (vars[c] - var).abs() < 1e-9);
            for (o, a) in channel(&out, p, c).iter().zip(&v) {
                assert!((o - ((a - mean) / (var + 1e-5).sqrt() * w[c] + b[c])).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn a_constant_channel_normalises_to_zero_exactly() {
        for spatial in [1, 3] {
            let p = Planes { batch: 2, channels: 2, spatial };
            let x: Vec<f32> = (0..4 * spatial).map(|i| if (i / spatial) % 2 == 0 { 0.7 } else { 1000.1 }).collect();
            let (out, ..) = batch_norm_forward(&x, None, Some(&[0.25f32, -2.0]), p, Statistics::Batch { eps: 1e-5 });
            let want: Vec<f32> = (0..4 * spatial).map(|i| if (i / spatial) % 2 == 0 { 0.25 } else { -2.0 }).collect();
            assert_eq!(out, want, "spatial {spatial}");
        }
    }

    #[test]
    fn backward_matches_the_formula_in_training_and_evaluation() {
        for spatial in [5, 1] {
            backward_case(spatial);
        }
    }

    fn backward_case(spatial: usize) {
        let (x, p) = data(spatial);
        let n = 3 * spatial;
        let g: Vec<f64> = (0..6 * spatial).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
        let w = [2.0, 0.5];
        let (_, means, vars) = batch_norm_forward(&x, Some(&w), None, p, Statistics::Batch { eps: 1e-5 });
        let invstd: Vec<f64> = vars.iter().map(|v| 1.0 / (v + 1e-5).sqrt()).collect();
        for training in [true, false] {
            let (dx, dw, db) = batch_norm_backward(&x, &g, Some(&w), p, (&means, &invstd), training, true);
            for c in 0..2 {
                let (xs, gs, dxs) = (channel(&x, p, c), channel(&g, p, c), channel(&dx, p, c));
                let xhat: Vec<f64> = xs.iter().map(|a| (a - means[c]) * invstd[c]).collect();
                let sum: f64 = gs.iter().sum();
                let dot: f64 = gs.iter().zip(&xhat).map(|(g, h)| g * h).sum();
                assert!((db[c] - sum).abs() < 1e-9 && (dw[c] - dot).abs() < 1e-6);
                for i in 0..n {
                    let want = if training {
                        w[c] * invstd[c] * (gs[i] - sum / n as f64 - xhat[i] * dot / n as f64)
                    } else {
                        w[c] * invstd[c] * gs[i]
                    };
                    assert!((dxs[i] - want).abs() < 1e-6, "channel {c}, element {i}: {} against {want}", dxs[i]);
                }
            }
        }
        let (dx, ..) = batch_norm_backward(&x, &g, Some(&w), p, (&means, &invstd), true, false);
        assert!(dx.is_empty());
    }
}
