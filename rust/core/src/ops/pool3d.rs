//! 3-D pooling over the last three dims of a (C, D, H, W) or (N, C, D, H, W) tensor, as torch's CPU
//! kernels compute it (the 2-D pools, with their tuned paths, are `pool.rs`; the per-dim window
//! arithmetic is shared with them).
//!
//! - max_pool3d and adaptive_max_pool3d: each window's argmax (NaN wins, the last NaN first; a window wholly
//!   in the padding gives -inf); the output is the input read at those positions (`TakeFlatBackward`), so
//!   its gradient goes back to the argmax elements, and the indices (flat in each D·H·W volume) are
//!   max_unpool3d's.
//! - avg_pool3d and adaptive_avg_pool3d: each window summed in the input's type, then divided as torch's
//!   kernels divide (avg: once by the window's size; adaptive: by each side in turn). The gradient is
//!   separable, `A_d`, `A_h`, `A_w` (per-dim averaging matrices) applied transposed along each dim, with
//!   tensor ops, so it differentiates again.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, traced_pair, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::threads::{par_for, threads, OutPtr};
use crate::ops::conv3d::Window3;
use crate::ops::index::{IndexMapNode, TakeFlatBackward};
use crate::ops::pool::{
    adaptive_windows, all_finite, averaging_matrix, avg_windows, is_nan, pool_out_len, spread_non_finite, taps_inside,
    AvgDivisor, AvgWindow,
};
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

/// Which 3-D pool a check or message is for (torch's kernels word their errors differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pool3d {
    Max,
    Avg,
}

/// The (D, H, W) dims of a 4-D or 5-D input and its number of volumes.
fn volumes_of(x: &Tensor) -> (usize, [usize; 3]) {
    let nd = x.ndim();
    let s = x.shape();
    (s[..nd - 3].iter().product(), [s[nd - 3], s[nd - 2], s[nd - 1]])
}

/// torch's `pool3d_shape_check` and output-size arithmetic, in its order; returns the output size.
fn check_pool3d(x: &Tensor, win: &Window3, ceil_mode: bool, kind: Pool3d) -> Result<[usize; 3]> {
    let nd = x.ndim();
    if nd != 4 && nd != 5 {
        bail!(Runtime, "non-empty 4D or 5D (batch mode) tensor expected for input");
    }
    for d in 0..3 {
        if win.stride[d] == 0 {
            bail!(Runtime, "stride should not be zero");
        }
        let span = win.dilation[d] as u128 * (win.kernel[d] as u128).saturating_sub(1) + 1;
        if win.padding[d] as u128 * 2 > span {
            bail!(
                Runtime,
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                win.padding[d],
                win.kernel[d],
                win.dilation[d]
            );
        }
    }
    let (_, vol) = volumes_of(x);
    let out = [0, 1, 2]
        .map(|d| pool_out_len(vol[d], win.kernel[d], win.stride[d], win.padding[d], win.dilation[d], ceil_mode));
    if win.kernel.contains(&0) {
        let [t, h, w] = win.kernel;
        bail!(Runtime, "kernel size should be greater than zero, but got kT: {t} kH: {h} kW: {w}");
    }
    if win.dilation.contains(&0) {
        let [t, h, w] = win.dilation;
        bail!(Runtime, "dilation should be greater than zero, but got dilationT: {t} dilationH: {h} dilationW: {w}");
    }
    if let Some(d) = (1..nd).find(|&d| x.shape()[d] == 0) {
        let func = match kind {
            Pool3d::Max => "max_pool3d_with_indices_out_cpu_template()",
            Pool3d::Avg => "avg_pool3d()",
        };
        bail!(
            Runtime,
            "{func}: Expected input to have non-zero size for non-batch dimensions, but input has sizes {:?} with \
            dimension {d} being empty",
            x.shape()
        );
    }
    if kind == Pool3d::Avg && (0..3).any(|d| vol[d] < win.kernel[d]) {
        let ([t, h, w], [kt, kh, kw]) = (vol, win.kernel);
        bail!(Runtime, "input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})");
    }
    if out.iter().any(|&o| o < 1) {
        let c = x.shape()[nd - 4];
        let [od, oh, ow] = out.map(|o| o.max(0));
        bail!(
            Runtime,
            "Given input size: ({c}x{}x{}x{}). Calculated output size: ({c}x{od}x{oh}x{ow}). Output size is too small",
            vol[0],
            vol[1],
            vol[2]
        );
    }
    let out = out.map(|o| o as usize);
    // the output, and the window lists made for it, must fit before they are built
    let (volumes, _) = volumes_of(x);
    crate::alloc::check_new_shape(&[volumes, out[0], out[1], out[2]], x.dtype().itemsize())?;
    Ok(out)
}

/// torch's checks of an adaptive 3-D pool's input (the two word its rank error apart) and of the output's size;
/// returns the number of volumes and their (D, H, W).
fn check_adaptive3d(x: &Tensor, out: [usize; 3], kind: Pool3d) -> Result<(usize, [usize; 3])> {
    let (name, colon) = match kind {
        Pool3d::Max => ("adaptive_max_pool3d", ":"),
        Pool3d::Avg => ("adaptive_avg_pool3d", ""),
    };
    let nd = x.ndim();
    if nd != 4 && nd != 5 {
        bail!(Runtime, "{name}(): Expected 4D or 5D tensor, but got{colon} {:?}", x.shape());
    }
    if let Some(d) = (1..nd).find(|&d| x.shape()[d] == 0) {
        bail!(
            Runtime,
            "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {:?} with \
            dimension {d} being empty",
            x.shape()
        );
    }
    if !x.dtype().is_float() {
        bail!(NotImplemented, "\"{name}_cpu\" not implemented for '{}'", x.dtype().scalar_type_name());
    }
    let (volumes, vol) = volumes_of(x);
    crate::alloc::check_new_shape(&[volumes, out[0], out[1], out[2]], x.dtype().itemsize())?;
    Ok((volumes, vol))
}

/// `x`'s shape with its last three dims replaced by `out`.
fn pooled_shape(x: &Tensor, out: [usize; 3]) -> Vec<usize> {
    let mut shape = x.shape().to_vec();
    let nd = shape.len();
    shape[nd - 3..].copy_from_slice(&out);
    shape
}

/// The first tap of output `o`'s window along one dim moved into the input's non-negative positions
/// (torch's starting index, which names a window wholly in the padding).
fn first_tap(o: usize, stride: usize, padding: usize, dilation: usize) -> i128 {
    let start = (o * stride) as i128 - padding as i128;
    let dil = dilation as i128;
    start + ((-start).max(0) + dil - 1) / dil * dil
}

/// Each window's maximum, its row-major index within its volume and its flat index in the input (-1 for a
/// window wholly in the padding, which takes no gradient), the volumes in parallel. `taps[d][o]` lists the
/// input positions output `o` reads along dim `d`; `first(d, o)` is the position torch names for a window
/// with no tap inside the input.
fn max_pool3d_kernel<T: Element>(
    x: &[T],
    volumes: usize,
    vol: [usize; 3],
    taps: &[Vec<Vec<usize>>; 3],
    first: impl Fn(usize, usize) -> i128 + Sync,
) -> (Vec<T>, Vec<i64>, Vec<i64>) {
    let plane = crate::layout::numel(&vol);
    let per_volume = taps.iter().map(Vec::len).product::<usize>();
    let len = crate::layout::numel(&[volumes, per_volume]);
    let (mut values, mut idx, mut pos) =
        (crate::pool::filled(len, T::ZERO), crate::pool::filled(len, 0i64), crate::pool::filled(len, 0i64));
    if per_volume == 0 {
        return (values, idx, pos);
    }
    let ptrs = (OutPtr(values.as_mut_ptr()), OutPtr(idx.as_mut_ptr()), OutPtr(pos.as_mut_ptr()));
    let chunk = volumes.div_ceil(threads() * 4).max(1);
    par_for(volumes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointers
        let ptrs = ptrs;
        for v in part * chunk..((part + 1) * chunk).min(volumes) {
            let src = &x[v * plane..(v + 1) * plane];
            // SAFETY: volume v's outputs belong to this part alone.
            let (vals, at, flat) = unsafe {
                (
                    std::slice::from_raw_parts_mut(ptrs.0 .0.add(v * per_volume), per_volume),
                    std::slice::from_raw_parts_mut(ptrs.1 .0.add(v * per_volume), per_volume),
                    std::slice::from_raw_parts_mut(ptrs.2 .0.add(v * per_volume), per_volume),
                )
            };
            let mut o = 0;
            for (od, ds) in taps[0].iter().enumerate() {
                for (oh, hs) in taps[1].iter().enumerate() {
                    for (ow, ws) in taps[2].iter().enumerate() {
                        let (Some(&d0), Some(&h0), Some(&w0)) = (ds.first(), hs.first(), ws.first()) else {
                            let index = (first(0, od) * vol[1] as i128 + first(1, oh)) * vol[2] as i128 + first(2, ow);
                            (vals[o], at[o], flat[o]) = (T::from_f64(f64::NEG_INFINITY), index as i64, -1);
                            o += 1;
                            continue;
                        };
                        let mut best_at = (d0 * vol[1] + h0) * vol[2] + w0;
                        let mut best = src[best_at];
                        // the taps along a row are evenly spaced (the dilation): a strided slice, not a list
                        let step = if ws.len() > 1 { ws[1] - w0 } else { 1 };
                        let w_last = ws[ws.len() - 1];
                        for &d in ds {
                            for &h in hs {
                                let line = (d * vol[1] + h) * vol[2];
                                for (j, &value) in src[line + w0..=line + w_last].iter().step_by(step).enumerate() {
                                    if value > best || is_nan(value) {
                                        (best_at, best) = (line + w0 + j * step, value);
                                    }
                                }
                            }
                        }
                        (vals[o], at[o], flat[o]) = (best, best_at as i64, (v * plane + best_at) as i64);
                        o += 1;
                    }
                }
            }
        }
    });
    (values, idx, pos)
}

/// Each window's sum divided as torch's kernels divide (`AvgDivisor`), summed in the input's own type
/// (torch's avg_pool3d frame and adaptive kernel: a sum past the largest float is inf there too), in
/// window order.
fn avg_pool3d_kernel<T: Element>(
    x: &[T],
    volumes: usize,
    vol: [usize; 3],
    windows: &[Vec<AvgWindow>; 3],
    divisor: AvgDivisor,
) -> Vec<T> {
    let plane = crate::layout::numel(&vol);
    let per_volume = windows.iter().map(Vec::len).product::<usize>();
    let mut out = crate::pool::filled(crate::layout::numel(&[volumes, per_volume]), T::ZERO);
    if per_volume == 0 {
        return out;
    }
    // int64, the one integer type torch averages, divides as C++ does: truncating (and wrapping at the ends)
    let by = |s: T, d: i64| {
        if T::DTYPE == crate::DType::I64 {
            s.cast::<i64>().wrapping_div(d).cast::<T>()
        } else {
            T::div(s, T::from_f64(d as f64))
        }
    };
    let mean = |src: &[T], [a, b, c]: [&AvgWindow; 3]| -> T {
        if a.len() == 0 || b.len() == 0 || c.len() == 0 {
            return T::ZERO;
        }
        let mut sum = T::ZERO;
        for d in a.start..a.end {
            for h in b.start..b.end {
                let line = (d * vol[1] + h) * vol[2];
                for &v in &src[line + c.start..line + c.end] {
                    sum = T::add(sum, v);
                }
            }
        }
        match divisor {
            AvgDivisor::WithPadding => by(sum, (a.padded * b.padded * c.padded) as i64),
            AvgDivisor::InputOnly => by(sum, (a.len() * b.len() * c.len()) as i64),
            AvgDivisor::Override(d) => by(sum, d),
            AvgDivisor::EachSide => by(by(by(sum, a.len() as i64), b.len() as i64), c.len() as i64),
        }
    };
    let ptr = OutPtr(out.as_mut_ptr());
    let chunk = volumes.div_ceil(threads() * 4).max(1);
    par_for(volumes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer
        let ptr = ptr;
        for v in part * chunk..((part + 1) * chunk).min(volumes) {
            let src = &x[v * plane..(v + 1) * plane];
            // SAFETY: volume v's outputs belong to this part alone.
            let dst = unsafe { std::slice::from_raw_parts_mut(ptr.0.add(v * per_volume), per_volume) };
            let mut o = 0;
            for a in &windows[0] {
                for b in &windows[1] {
                    for c in &windows[2] {
                        dst[o] = mean(src, [a, b, c]);
                        o += 1;
                    }
                }
            }
        }
    });
    out
}

crate::backward_rule! {
    /// `max_pool3d`'s node: the gradient added back at each window's maximum (the positions).
    pub struct MaxPool3DWithIndicesBackward0 {
        kernel_size: [usize; 3],
        stride: [usize; 3],
        padding: [usize; 3],
        dilation: [usize; 3],
        ceil_mode: bool,
    }
}
crate::backward_rule! {
    /// `adaptive_max_pool3d`'s node.
    pub struct AdaptiveMaxPool3DBackward0;
}

impl Tensor {
    /// `max_pool3d`: (output, int64 indices into each D·H·W volume), grad_fn MaxPool3DWithIndicesBackward0.
    pub fn max_pool3d(&self, win: &Window3, ceil_mode: bool) -> Result<(Tensor, Tensor)> {
        let win = *win;
        let eager = move |x: &[&Tensor]| x[0].max_pool3d_eager(&win, ceil_mode).map(|(v, i)| vec![v, i]);
        traced_pair("max_pool3d_with_indices", &[self], || eager(&[self]), || eager)
    }

    fn max_pool3d_eager(&self, win: &Window3, ceil_mode: bool) -> Result<(Tensor, Tensor)> {
        let out = check_pool3d(self, win, ceil_mode, Pool3d::Max)?;
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"max_pool3d\" not implemented for 'Bool'");
        }
        let (volumes, vol) = volumes_of(self);
        let taps = [0, 1, 2]
            .map(|d| taps_inside(vol[d], win.kernel[d], win.stride[d], win.padding[d], win.dilation[d], out[d]));
        let first = |d: usize, o: usize| first_tap(o, win.stride[d], win.padding[d], win.dilation[d]);
        let node = MaxPool3DWithIndicesBackward0 {
            kernel_size: win.kernel,
            stride: win.stride,
            padding: win.padding,
            dilation: win.dilation,
            ceil_mode,
        };
        self.window_maxima(volumes, vol, &taps, first, node)
    }

    /// `adaptive_max_pool3d` to `out` = (out_d, out_h, out_w): (output, int64 indices into each D·H·W
    /// volume), grad_fn AdaptiveMaxPool3DBackward0.
    pub fn adaptive_max_pool3d(&self, out: [usize; 3]) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].adaptive_max_pool3d_eager(out).map(|(v, i)| vec![v, i]);
        traced_pair("adaptive_max_pool3d", &[self], || eager(&[self]), || eager)
    }

    fn adaptive_max_pool3d_eager(&self, out: [usize; 3]) -> Result<(Tensor, Tensor)> {
        let (volumes, vol) = check_adaptive3d(self, out, Pool3d::Max)?;
        if let Some(empty) = self.empty_adaptive_pool(&out) {
            let values = empty?;
            let indices = Tensor::zeros(values.shape(), crate::DType::I64);
            return Ok((values, indices));
        }
        let taps = [0, 1, 2].map(|d| {
            adaptive_windows(vol[d], out[d]).iter().map(|w| (w.start..w.end).collect()).collect::<Vec<Vec<usize>>>()
        });
        // every adaptive window holds at least one element: no window lies in padding
        self.window_maxima(volumes, vol, &taps, |_, _| 0, AdaptiveMaxPool3DBackward0)
    }

    /// The maxima of the windows `taps` lists (`max_pool3d_kernel`), recorded as a read of the input at their
    /// positions (`name` the grad_fn), and their indices.
    fn window_maxima(
        &self,
        volumes: usize,
        vol: [usize; 3],
        taps: &[Vec<Vec<usize>>; 3],
        first: impl Fn(usize, usize) -> i128 + Sync,
        node: impl IndexMapNode,
    ) -> Result<(Tensor, Tensor)> {
        let shape = pooled_shape(self, [0, 1, 2].map(|d| taps[d].len()));
        let (values, idx, pos) = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let (values, idx, pos) = x.with_data(|l, xs: &[T]| {
                max_pool3d_kernel(&xs[l.contiguous_range().expect("contiguous")], volumes, vol, taps, &first)
            });
            (Tensor::from_vec(values, &shape)?, idx, pos)
        });
        let rule =
            |_: &Tensor| TakeFlatBackward { node, self_sym_sizes: self.shape().to_vec(), positions: Arc::new(pos) };
        let values = record(values, &[self], rule);
        Ok((values, Tensor::from_vec(idx, &shape)?))
    }

    /// `avg_pool3d` (AvgPool3DBackward0); `divisor_override` replaces each window's element count.
    pub fn avg_pool3d(
        &self,
        win: &Window3,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        let win = *win;
        let eager = move |x: &[&Tensor]| x[0].avg_pool3d_eager(&win, ceil_mode, count_include_pad, divisor_override);
        traced("avg_pool3d", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn avg_pool3d_eager(
        &self,
        win: &Window3,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        if self.ndim() != 4 && self.ndim() != 5 {
            bail!(Runtime, "non-empty 4D or 5D (batch mode) tensor expected for input");
        }
        if divisor_override == Some(0) {
            bail!(Runtime, "divisor must be not zero");
        }
        let out = check_pool3d(self, win, ceil_mode, Pool3d::Avg)?;
        // torch's CPU frame has float32, float64 and int64 only (not the halves)
        if !matches!(self.dtype(), crate::DType::F32 | crate::DType::F64 | crate::DType::I64) {
            bail!(NotImplemented, "\"avg_pool3d_out_frame\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let (_, vol) = volumes_of(self);
        let windows = [0, 1, 2].map(|d| avg_windows(vol[d], win.kernel[d], win.stride[d], win.padding[d], out[d]));
        let divisor = match (divisor_override, count_include_pad) {
            (Some(d), _) => AvgDivisor::Override(d),
            (None, true) => AvgDivisor::WithPadding,
            (None, false) => AvgDivisor::InputOnly,
        };
        self.average_pool3d(vol, &windows, divisor, false)
    }

    /// `adaptive_avg_pool3d` to `out` = (out_d, out_h, out_w) (AdaptiveAvgPool3DBackward0).
    pub fn adaptive_avg_pool3d(&self, out: [usize; 3]) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].adaptive_avg_pool3d_eager(out);
        traced("adaptive_avg_pool3d", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn adaptive_avg_pool3d_eager(&self, out: [usize; 3]) -> Result<Tensor> {
        let (_, vol) = check_adaptive3d(self, out, Pool3d::Avg)?;
        if let Some(empty) = self.empty_adaptive_pool(&out) {
            return empty;
        }
        let windows = [0, 1, 2].map(|d| adaptive_windows(vol[d], out[d]));
        self.average_pool3d(vol, &windows, AvgDivisor::EachSide, true)
    }

    /// The windows' means over the last three dims, recorded as one pooling node whose gradient applies the
    /// transposed averaging matrices along each dim (tensor ops, so it differentiates again).
    fn average_pool3d(
        &self,
        vol: [usize; 3],
        windows: &[Vec<AvgWindow>; 3],
        divisor: AvgDivisor,
        adaptive: bool,
    ) -> Result<Tensor> {
        let (volumes, _) = volumes_of(self);
        let shape = pooled_shape(self, windows.clone().map(|w| w.len()));
        let out = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let values = x.with_data(|l, xs: &[T]| {
                avg_pool3d_kernel(&xs[l.contiguous_range().expect("contiguous")], volumes, vol, windows, divisor)
            });
            Tensor::from_vec(values, &shape)?
        });
        if !(crate::autograd::grad_mode::is_enabled() && self.requires_grad()) {
            return Ok(out);
        }
        // the divisor split over the three sides (each side's matrix carries its factor; an override the last's)
        let side = |w: &AvgWindow, last: bool| match divisor {
            AvgDivisor::WithPadding => w.padded as f64,
            AvgDivisor::InputOnly | AvgDivisor::EachSide => w.len() as f64,
            AvgDivisor::Override(d) => {
                if last {
                    d as f64
                } else {
                    1.0
                }
            }
        };
        let matrix = |d: usize| -> Result<Tensor> {
            averaging_matrix(vol[d], &windows[d], |w| side(w, d == 2))?.to_dtype(self.dtype())
        };
        let rule = |_: &Tensor| SeparablePool3dBackward {
            adaptive,
            depth: SavedTensor::input(&matrix(0).expect("checked sizes")),
            rows: SavedTensor::input(&matrix(1).expect("checked sizes")),
            cols: SavedTensor::input(&matrix(2).expect("checked sizes")),
        };
        Ok(record(out, &[self], rule))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.adaptive) {
        true => "AdaptiveAvgPool3DBackward0",
        false => "AvgPool3DBackward0",
    };
    /// avg_pool3d (AvgPool3DBackward0) or adaptive_avg_pool3d with the averaging matrices `depth` (A_d),
    /// `rows` (A_h) and `cols` (A_w): the gradient is g with each transposed matrix applied along its dim.
    pub struct SeparablePool3dBackward {
        adaptive: bool,
        depth: SavedTensor,
        rows: SavedTensor,
        cols: SavedTensor,
    }
}
impl Backward for SeparablePool3dBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a_d, a_h, a_w) = (ctx.unpack(&self.depth)?, ctx.unpack(&self.rows)?, ctx.unpack(&self.cols)?);
        let spread = |t: &Tensor| -> Result<Tensor> {
            // (..., od, oh, ow) → (..., od, H, W), then the depth as rows of (volumes, od, H·W)
            let t = a_h.t()?.matmul(&t.matmul(&a_w)?)?;
            let nd = t.ndim();
            let (lead, od, plane) = (&t.shape()[..nd - 3], t.shape()[nd - 3], t.shape()[nd - 2] * t.shape()[nd - 1]);
            let volumes = lead.iter().product::<usize>();
            let spread = a_d.t()?.matmul(&t.reshape(&[volumes, od, plane])?)?;
            let mut shape = t.shape().to_vec();
            shape[nd - 3] = a_d.shape()[1];
            spread.reshape(&shape)
        };
        if all_finite(g) {
            return one(spread(g));
        }
        one(spread_non_finite(g, &g.to_vec::<f64>(), spread))
    }
}
