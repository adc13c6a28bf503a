//! Fractional max pooling (Graham, 2014) over the last two or three dims, as torch's CPU kernels compute it.
//!
//! Each (batch, channel) plane draws its own window starts from one random sample per pooled dim (the samples
//! tensor is (N, C, dims)): along a dim of `n` inputs pooled to `o` outputs by windows of `k`, with
//! `a = (n - k) / (o - 1)` and sample `u`, window `i < o - 1` starts at `int((i + u)·a) - int(u·a)` and the last
//! one at `n - k`. The arithmetic runs in the input's dtype (the samples share it) and `int` is C's truncating
//! conversion as x86 does it (NaN and values outside int32 give INT32_MIN), so seeded draws give torch's windows.
//! The samples map to dims as torch's kernels read them: 2-D (W, H), 3-D (T, H, W).
//!
//! Each window's maximum is its first largest element, or its last NaN (torch's `val > max || isnan(val)`); the
//! output is the input read at those positions, so the gradient goes back to them (`FractionalMaxPoolBackward`,
//! a scatter recorded as its own node under create_graph, so the gradient differentiates again).
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::threads::{par_for, threads, OutPtr};
use crate::ops::index::Positions;
use crate::ops::pool::is_nan;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

/// C's `static_cast<int>` of a float as x86's cvtt instructions do it: truncation, and the "integer
/// indefinite" INT32_MIN for NaN and anything outside int32.
fn c_int(v: f64) -> i32 {
    if v.is_nan() || v >= 2_147_483_648.0 || v <= -2_147_483_649.0 {
        return i32::MIN;
    }
    v.trunc() as i32
}

/// The window starts along one dim for `sample`, each step rounded to `T` as torch's kernel rounds it (an
/// integer added to a half is first made a half, as c10's operators do).
fn window_starts<T: Element>(sample: T, size: i64, out: usize, kernel: i64) -> Vec<i64> {
    let mut starts = vec![0i64; out];
    if out > 1 {
        let alpha = T::div(T::from_i64(size - kernel), T::from_i64(out as i64 - 1));
        let base = c_int(T::mul(sample, alpha).to_f64());
        for (i, s) in starts.iter_mut().enumerate().take(out - 1) {
            let at = c_int(T::mul(T::add(T::from_i64(i as i64), sample), alpha).to_f64());
            *s = i64::from(at.wrapping_sub(base));
        }
    }
    if let Some(last) = starts.last_mut() {
        *last = size - kernel;
    }
    starts
}

/// The pool's geometry as three dims (a 2-D pool is a 3-D one with a depth of 1).
struct Geometry {
    planes: usize,
    channels: usize,
    size: [usize; 3],
    kernel: [usize; 3],
    out: [usize; 3],
    /// which sample of a plane's row drives each of the three dims (None: the 2-D pool's unit depth)
    sample_of: [Option<usize>; 3],
    dims: usize,
}

/// Each plane's window maxima, their indices within the plane and their flat positions in the input, the
/// planes in parallel. `samples` is the (≥ planes / channels, channels, dims) samples tensor, row-major.
fn fractional_kernel<T: Element>(x: &[T], samples: &[T], g: &Geometry) -> Result<(Vec<T>, Vec<i64>, Vec<i64>)> {
    let plane = g.size.iter().product::<usize>();
    let per_plane = g.out.iter().product::<usize>();
    let len = crate::layout::numel(&[g.planes, per_plane]);
    let (mut values, mut idx, mut pos) =
        (crate::pool::filled(len, T::ZERO), crate::pool::filled(len, 0i64), crate::pool::filled(len, 0i64));
    if per_plane == 0 {
        return Ok((values, idx, pos));
    }
    // every plane's starts first (cheap), so a sample that would put a window outside the input (torch reads
    // out of bounds there) is refused before any work
    let starts: Vec<[Vec<i64>; 3]> = (0..g.planes)
        .map(|p| {
            let row = &samples[(p / g.channels * g.channels + p % g.channels) * g.dims..][..g.dims];
            [0, 1, 2].map(|d| match g.sample_of[d] {
                Some(s) => window_starts(row[s], g.size[d] as i64, g.out[d], g.kernel[d] as i64),
                None => vec![0],
            })
        })
        .collect();
    for (d, name) in ["time", "height", "width"].iter().enumerate() {
        let last = (g.size[d] - g.kernel[d]) as i64;
        if starts.iter().any(|s| s[d].iter().any(|&v| v < 0 || v > last)) {
            bail!(
                Runtime,
                "fractional_max_pool{}d(): _random_samples put a pooling window outside the input {name}",
                g.dims
            );
        }
    }
    let [_, h, w] = g.size;
    let ptrs = (OutPtr(values.as_mut_ptr()), OutPtr(idx.as_mut_ptr()), OutPtr(pos.as_mut_ptr()));
    let chunk = g.planes.div_ceil(threads() * 4).max(1);
    par_for(g.planes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointers
        let ptrs = ptrs;
        for p in part * chunk..((part + 1) * chunk).min(g.planes) {
            let src = &x[p * plane..(p + 1) * plane];
            // SAFETY: plane p's outputs belong to this part alone.
            let (vals, at, flat) = unsafe {
                (
                    std::slice::from_raw_parts_mut(ptrs.0 .0.add(p * per_plane), per_plane),
                    std::slice::from_raw_parts_mut(ptrs.1 .0.add(p * per_plane), per_plane),
                    std::slice::from_raw_parts_mut(ptrs.2 .0.add(p * per_plane), per_plane),
                )
            };
            let [ts, hs, ws] = &starts[p];
            let mut o = 0;
            for &t0 in ts {
                for &h0 in hs {
                    for &w0 in ws {
                        let (t0, h0, w0) = (t0 as usize, h0 as usize, w0 as usize);
                        let mut best_at = (t0 * h + h0) * w + w0;
                        let mut best = T::from_f64(f64::NEG_INFINITY);
                        for t in t0..t0 + g.kernel[0] {
                            for r in h0..h0 + g.kernel[1] {
                                let line = (t * h + r) * w;
                                for (j, &v) in src[line + w0..line + w0 + g.kernel[2]].iter().enumerate() {
                                    if v > best || is_nan(v) {
                                        (best_at, best) = (line + w0 + j, v);
                                    }
                                }
                            }
                        }
                        (vals[o], at[o], flat[o]) = (best, best_at as i64, (p * plane + best_at) as i64);
                        o += 1;
                    }
                }
            }
        }
    });
    Ok((values, idx, pos))
}

/// torch's checks of a fractional pool's arguments, in its order; returns the geometry and the output shape.
fn check(x: &Tensor, dims: usize, kernel: &[i64], output: &[i64], samples: &Tensor) -> Result<(Geometry, Vec<usize>)> {
    let (name, tuple) =
        if dims == 2 { ("fractional_max_pool2d", "Ints") } else { ("fractional_max_pool3d", "three Ints") };
    // the 3-D kernel's messages after the argument checks name its `_out` function
    let func = if dims == 2 { "fractional_max_pool2d()" } else { "fractional_max_pool3d_out()" };
    if kernel.len() != dims {
        bail!(Runtime, "{name}: kernel_size must either be a single Int or tuple of {tuple}");
    }
    if output.len() != dims {
        bail!(Runtime, "{name}: output_size must either be a single Int or tuple of {tuple}");
    }
    if kernel.iter().any(|&k| k <= 0) {
        let shown = kernel.iter().map(i64::to_string).collect::<Vec<_>>().join("x");
        bail!(Runtime, "{name}(): kernel size should be greater than zero, but got {shown}");
    }
    let nd = x.ndim();
    if nd != dims + 1 && nd != dims + 2 {
        bail!(Runtime, "{func}: Expected {}D or {}D tensor, but got: {:?}", dims + 1, dims + 2, x.shape());
    }
    if let Some(d) = (1..nd).find(|&d| x.shape()[d] == 0) {
        bail!(
            Runtime,
            "{func}: Expected input to have non-zero size for non-batch dimensions, but got{:?} with dimension {d} \
            being empty.",
            x.shape()
        );
    }
    let spatial = &x.shape()[nd - dims..];
    // torch's 2-D kernel checks height then width and allows a window ending at the input's end; the 3-D one
    // checks time, width, height and does not
    let order: &[(usize, &str)] =
        if dims == 2 { &[(0, "height"), (1, "width")] } else { &[(0, "time"), (2, "width"), (1, "height")] };
    for &(d, side) in order {
        let end = output[d] as i128 + kernel[d] as i128 - 1;
        let fits = if dims == 2 { end <= spatial[d] as i128 } else { end < spatial[d] as i128 };
        if !fits {
            bail!(Runtime, "{func}: pool {side} {} too large relative to input {side} {}", kernel[d], spatial[d]);
        }
    }
    let mut shape: Vec<i64> = x.shape()[..nd - dims].iter().map(|&s| s as i64).collect();
    shape.extend_from_slice(output);
    if let Some(&bad) = shape.iter().find(|&&s| s < 0) {
        bail!(Runtime, "Trying to create tensor with negative dimension {bad}: {shape:?}");
    }
    if samples.dtype() != x.dtype() {
        bail!(Runtime, "Expect _random_samples to have the same dtype as input");
    }
    if samples.ndim() != 3 {
        bail!(Runtime, "Expect _random_samples to have 3 dimensions, got {}", samples.ndim());
    }
    let (batch, channels) = if nd == dims + 1 { (1, x.shape()[0]) } else { (x.shape()[0], x.shape()[1]) };
    let s = samples.shape();
    if s[0] < batch {
        bail!(Runtime, "Expect _random_samples.size(0) no less then input batch size.");
    }
    if s[1] != channels {
        bail!(Runtime, "Expect _random_samples.size(1) equals to input channel size.");
    }
    if s[2] != dims {
        bail!(Runtime, "Expect _random_samples.size(2) equals to {dims}; got {}.", s[2]);
    }
    if !x.dtype().is_float() {
        bail!(NotImplemented, "\"{name}_out_frame\" not implemented for '{}'", x.dtype().scalar_type_name());
    }
    if crate::autograd::grad_mode::is_enabled() && samples.requires_grad() {
        bail!(
            Runtime,
            "The function '{name}' is not differentiable with respect to argument 'random_samples'. This input \
            cannot have requires_grad True."
        );
    }
    let shape: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
    crate::alloc::check_new_shape(&shape, x.dtype().itemsize())?;
    let geometry = if dims == 2 {
        Geometry {
            planes: batch * channels,
            channels,
            size: [1, spatial[0], spatial[1]],
            kernel: [1, kernel[0] as usize, kernel[1] as usize],
            out: [1, output[0] as usize, output[1] as usize],
            sample_of: [None, Some(1), Some(0)],
            dims,
        }
    } else {
        Geometry {
            planes: batch * channels,
            channels,
            size: [spatial[0], spatial[1], spatial[2]],
            kernel: [0, 1, 2].map(|d| kernel[d] as usize),
            out: [0, 1, 2].map(|d| output[d] as usize),
            sample_of: [Some(0), Some(1), Some(2)],
            dims,
        }
    };
    Ok((geometry, shape))
}

impl Tensor {
    /// `fractional_max_pool2d` (`dims` 2) or `fractional_max_pool3d` (3) with `kernel` and `output` sizes and
    /// the (N, C, dims) `samples`: (output, int64 indices into each plane), grad_fn
    /// FractionalMaxPool2DBackward0 / FractionalMaxPool3DBackward0.
    pub fn fractional_max_pool(
        &self,
        dims: usize,
        kernel: &[i64],
        output: &[i64],
        samples: &Tensor,
    ) -> Result<(Tensor, Tensor)> {
        let (geometry, shape) = check(self, dims, kernel, output, samples)?;
        let (values, idx, pos) = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let samples = samples.detach().contiguous()?;
            let samples: Vec<T> = samples.to_vec::<T>();
            let (values, idx, pos) = x.with_data(|l, xs: &[T]| {
                fractional_kernel(&xs[l.contiguous_range().expect("contiguous")], &samples, &geometry)
            })?;
            (Tensor::from_vec(values, &shape)?, idx, pos)
        });
        let rule = |_: &Tensor| FractionalMaxPoolBackward {
            dims,
            kernel_size: kernel.to_vec(),
            output_size: output.to_vec(),
            self_: SavedTensor::input(self),
            positions: Arc::new(pos),
        };
        let values = record(values, &[self], rule);
        Ok((values, Tensor::from_vec(idx, &shape)?))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.dims) {
        2 => "FractionalMaxPool2DBackward0",
        _ => "FractionalMaxPool3DBackward0",
    };
    /// fractional_max_pool2d/3d, `out = input_flat[positions]`: the gradient added back at the argmax positions.
    /// With `create_graph` that scatter is recorded (`FractionalMaxPoolBackwardBackward`) on the gradient and on
    /// `self`, as torch's backward is, so the gradient differentiates again.
    pub struct FractionalMaxPoolBackward {
        dims: usize,
        kernel_size: Vec<i64>,
        output_size: Vec<i64>,
        self_: SavedTensor,
        positions: Positions,
    }
}
impl Backward for FractionalMaxPoolBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let x = ctx.unpack(&self.self_)?;
        let grad = Tensor::scatter_add_into_zeros(x.shape(), &self.positions, g)?;
        if !crate::autograd::grad_mode::is_enabled() {
            return one(Ok(grad));
        }
        let rule = |_: &Tensor| FractionalMaxPoolBackwardBackward {
            dims: self.dims,
            grad_output_sym_sizes: g.shape().to_vec(),
            self_sym_sizes: x.shape().to_vec(),
            positions: self.positions.clone(),
        };
        one(Ok(record(grad, &[g, &x], rule)))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.dims) {
        2 => "FractionalMaxPool2DBackwardBackward0",
        _ => "FractionalMaxPool3DBackwardBackward0",
    };
    /// The recorded scatter of a fractional max pool's gradient: linear in the incoming gradient (whose gradient
    /// is read back at the positions) and constant in `self` (a zero gradient, as torch's).
    pub struct FractionalMaxPoolBackwardBackward {
        dims: usize,
        grad_output_sym_sizes: Vec<usize>,
        self_sym_sizes: Vec<usize>,
        positions: Positions,
    }
}
impl Backward for FractionalMaxPoolBackwardBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![
            ctx.grad_if(0, || {
                g.take_flat(
                    self.positions.clone(),
                    &self.grad_output_sym_sizes,
                    crate::ops::index::IndexBackward0::of(g),
                )
            })?,
            ctx.grad_if(1, || Ok(Tensor::zeros(&self.self_sym_sizes, g.dtype())))?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_int_truncates_and_gives_int_min_outside() {
        assert_eq!(c_int(2.9), 2);
        assert_eq!(c_int(-2.9), -2);
        assert_eq!(c_int(f64::NAN), i32::MIN);
        assert_eq!(c_int(3e9), i32::MIN);
        assert_eq!(c_int(-3e9), i32::MIN);
    }

    #[test]
    fn starts_end_at_the_last_window_and_span_the_input() {
        // 8 inputs, windows of 2, 5 outputs: a = 1.5
        assert_eq!(window_starts(0.0f32, 8, 5, 2), vec![0, 1, 3, 4, 6]);
        assert_eq!(window_starts(0.5f64, 8, 5, 2), vec![0, 2, 3, 5, 6]);
        assert_eq!(window_starts(0.3f32, 8, 1, 2), vec![6]);
        assert!(window_starts(0.3f32, 8, 0, 2).is_empty());
    }

    #[test]
    fn pools_a_plane_and_scatters_back() {
        let x = Tensor::from_vec((0..16).map(|v| v as f32).collect(), &[1, 1, 4, 4]).unwrap();
        let samples = Tensor::from_vec(vec![0.5f32, 0.5], &[1, 1, 2]).unwrap();
        let (y, i) = x.fractional_max_pool(2, &[2, 2], &[2, 2], &samples).unwrap();
        assert_eq!(y.to_vec::<f32>(), vec![5.0, 7.0, 13.0, 15.0]);
        assert_eq!(i.to_vec::<i64>(), vec![5, 7, 13, 15]);
    }
}
