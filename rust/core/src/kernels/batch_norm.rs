//! batch_norm forward and backward over contiguous (N, C, S) data, one channel per task: a channel's statistics
//! (float64 accumulators, the mean first and then the centred squares, as layer_norm's rows) and its affine map
//! in one kernel, while its N planes of S are still in cache, instead of ~10 tensor ops and their temporaries.
//! The backward likewise: a channel's two sums, then its input gradient.
use crate::element::Float;
use crate::kernels::batch_norm_rows::affine_of;
use crate::kernels::layer_norm::lane_sum;
use crate::kernels::simd::dispatch;
use crate::kernels::split::BATCH_NORM_ELEMENTS as PARALLEL_ABOVE;
use crate::kernels::threads::{par_for, threads, OutPtr};

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

/// Runs `task(c)` for every channel, on several threads when the data is large enough to pay for them.
fn for_channels(p: Planes, task: &(dyn Fn(usize) + Sync)) {
    let parts = if threads() > 1 && p.channels * p.per_channel() >= PARALLEL_ABOVE { p.channels } else { 1 };
    if parts == 1 {
        (0..p.channels).for_each(task);
    } else {
        par_for(parts, task);
    }
}

/// Writes `f(n, input plane, output plane)` for each sample of channel `c` into `out`, which `c` alone writes.
///
/// # Safety
/// `out` must point at a buffer of `p.batch · p.channels · p.spatial` elements that outlives the call, and no
/// other thread may touch channel `c`'s planes meanwhile.
#[inline(always)]
unsafe fn write_channel<T: Float>(out: OutPtr<T>, p: Planes, c: usize, mut f: impl FnMut(usize, &mut [T])) {
    for n in 0..p.batch {
        // SAFETY: the plane lies inside the buffer (the caller's contract) and is channel c's alone.
        let o = unsafe { std::slice::from_raw_parts_mut(out.0.add((n * p.channels + c) * p.spatial), p.spatial) };
        f(n, o);
    }
}

/// Channel `c`'s (mean, biased variance) over its N planes, into `out` (`dispatch!` returns nothing).
#[inline(always)]
fn moments<T: Float>(out: &mut (f64, f64), x: &[T], p: Planes, c: usize) {
    let count = p.per_channel() as f64;
    let mean = (0..p.batch).map(|n| lane_sum(p.plane(x, n, c), |v| v)).sum::<f64>() / count;
    let var = (0..p.batch).map(|n| lane_sum(p.plane(x, n, c), |v| (v - mean) * (v - mean))).sum::<f64>() / count;
    *out = (mean, var);
}

#[inline(always)]
fn affine_plane<T: Float>(o: &mut [T], x: &[T], scale: T, shift: T) {
    for (o, &v) in o.iter_mut().zip(x) {
        *o = v * scale + shift;
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
    // recycled (a fresh buffer costs a page fault per 4 KiB written): every element is written below
    let mut out = crate::pool::filled(x.len(), T::ZERO);
    let (mut means, mut vars) = (vec![0.0f64; p.channels], vec![0.0f64; p.channels]);
    let (po, pm, pv) = (OutPtr(out.as_mut_ptr()), OutPtr(means.as_mut_ptr()), OutPtr(vars.as_mut_ptr()));
    for_channels(p, &|c| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrappers, not their raw pointers
        let (po, pm, pv) = (po, pm, pv);
        let (mean, invstd) = match &stats {
            Statistics::Batch { eps } => {
                let mut moment = (0.0, 0.0);
                dispatch!(moments(&mut moment, x, p, c));
                let (mean, var) = moment;
                // SAFETY: c < channels, the length of both; channel c's entries are this task's alone.
                unsafe {
                    *pm.0.add(c) = mean;
                    *pv.0.add(c) = var;
                }
                (mean, 1.0 / (var + eps).sqrt())
            }
            Statistics::Given { mean, invstd } => (mean[c], invstd[c]),
        };
        let (scale, shift) = affine_of(mean, invstd, w.map(|w| w[c]), b.map(|b| b[c]));
        let plane = |n, o: &mut [T]| dispatch!(affine_plane(o, p.plane(x, n, c), scale, shift));
        // SAFETY: `out` has the input's N·C·S elements and lives past `for_channels`; task c writes channel c.
        unsafe { write_channel(po, p, c, plane) };
    });
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

/// Channel `c`'s (Σ g, Σ (x - mean)·g), into `out` (`dispatch!` returns nothing).
#[inline(always)]
fn grad_sums<T: Float>(out: &mut (f64, f64), x: &[T], g: &[T], mean: f64, p: Planes, c: usize) {
    let (mut sum, mut dot) = (0.0, 0.0);
    for n in 0..p.batch {
        let (s, d) = plane_grad_sums(p.plane(x, n, c), p.plane(g, n, c), mean);
        sum += s;
        dot += d;
    }
    *out = (sum, dot);
}

#[inline(always)]
fn input_grad_plane<T: Float>(o: &mut [T], x: &[T], g: &[T], k: [T; 4]) {
    let [mean, mean_g, proj, scale] = k;
    for ((o, &x), &g) in o.iter_mut().zip(x).zip(g) {
        *o = (g - mean_g - (x - mean) * proj) * scale;
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
    let mut dx = crate::pool::filled(if input_grad { x.len() } else { 0 }, T::ZERO);
    let (mut dw, mut db) = (vec![0.0f64; p.channels], vec![0.0f64; p.channels]);
    let (pd, pw, pb) = (OutPtr(dx.as_mut_ptr()), OutPtr(dw.as_mut_ptr()), OutPtr(db.as_mut_ptr()));
    let count = p.per_channel() as f64;
    for_channels(p, &|c| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrappers, not their raw pointers
        let (pd, pw, pb) = (pd, pw, pb);
        let mut sums = (0.0, 0.0);
        dispatch!(grad_sums(&mut sums, x, g, mean[c], p, c));
        let (sum, dot) = sums;
        // SAFETY: c < channels, the length of both; channel c's entries are this task's alone.
        unsafe {
            *pw.0.add(c) = dot * invstd[c];
            *pb.0.add(c) = sum;
        }
        if !input_grad {
            return;
        }
        let scale = invstd[c] * w.map_or(1.0, |w| w[c].to_f64());
        // in training the statistics depend on x: dx = (g - mean(g) - (x - mean)·mean(g·(x - mean))·invstd²)·scale
        let (mean_g, proj) = if training { (sum / count, dot / count * invstd[c] * invstd[c]) } else { (0.0, 0.0) };
        let k = [mean[c], mean_g, proj, scale].map(T::from_f64);
        let plane = |n, o: &mut [T]| dispatch!(input_grad_plane(o, p.plane(x, n, c), p.plane(g, n, c), k));
        // SAFETY: `dx` has the input's N·C·S elements and lives past `for_channels`; task c writes channel c.
        unsafe { write_channel(pd, p, c, plane) };
    });
    (dx, dw, db)
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
