//! 2-D pooling over the last two dims of a (C, H, W) or (N, C, H, W) tensor.
//!
//! - max_pool2d: a kernel finds each window's argmax; the output is the input read at those
//!   positions (`take_flat`), so its gradient goes back to the argmax elements.
//! - avg_pool2d and adaptive_avg_pool2d: a kernel sums each window in the input's type and divides
//!   as torch's kernels do (so huge values overflow, and an inf stays in its own windows). Their
//!   gradient is separable, `A_hᵀ · g · A_w` with per-dim averaging matrices (tensor ops, so it
//!   differentiates again).
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, traced_pair, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::threads::{par_for, threads, OutPtr};
use crate::ops::conv::Window;
use crate::ops::index::TakeFlatBackward;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

/// PyTorch's pooling output size: floor (or ceil) division, with the last window made to start
/// inside the input or its left padding.
pub fn pool_out_len(size: usize, kernel: usize, stride: usize, pad: usize, dilation: usize, ceil_mode: bool) -> isize {
    // in i128: sizes from Python may be near usize::MAX, where usize arithmetic would wrap
    let (size, kernel, stride, pad, dilation) =
        (size as i128, kernel as i128, stride as i128, pad as i128, dilation as i128);
    let span = dilation * (kernel - 1) + 1;
    let num = size + 2 * pad - span + if ceil_mode { stride - 1 } else { 0 };
    let mut out = num.div_euclid(stride) + 1;
    if ceil_mode && (out - 1) * stride >= size + pad {
        out -= 1;
    }
    out.clamp(isize::MIN as i128, isize::MAX as i128) as isize
}

fn check_pool_input(x: &Tensor, name: &str) -> Result<(usize, [usize; 2])> {
    let nd = x.ndim();
    let ok = nd == 4 && x.shape()[1..].iter().all(|&s| s > 0) || nd == 3 && x.shape().iter().all(|&s| s > 0);
    if !ok {
        // torch's max_pool2d names a wrong dim count so (avg_pool2d's Python raises for fewer than 3 dims)
        if name == "max_pool2d" && !(nd == 3 || nd == 4) {
            bail!(Runtime, "non-empty 3D or 4D (batch mode) tensor expected for input");
        }
        bail!(
            Runtime,
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{:?}",
            x.shape()
        );
    }
    let planes = x.shape()[..nd - 2].iter().product();
    Ok((planes, [x.shape()[nd - 2], x.shape()[nd - 1]]))
}

/// Checks a pooling window as PyTorch does and returns the output size.
fn pooled_size(x: &Tensor, hw: [usize; 2], win: &Window, ceil_mode: bool) -> Result<[usize; 2]> {
    if win.stride.contains(&0) || win.kernel.contains(&0) {
        bail!(Runtime, "stride should not be zero");
    }
    if win.dilation.contains(&0) {
        bail!(
            Runtime,
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            win.dilation[0],
            win.dilation[1]
        );
    }
    for d in 0..2 {
        if win.padding[d] as u128 * 2 > win.dilation[d] as u128 * (win.kernel[d] as u128 - 1) + 1 {
            bail!(
                Runtime,
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                win.padding[d],
                win.kernel[d],
                win.dilation[d]
            );
        }
    }
    let out =
        [0, 1].map(|d| pool_out_len(hw[d], win.kernel[d], win.stride[d], win.padding[d], win.dilation[d], ceil_mode));
    if out[0] < 1 || out[1] < 1 {
        let c = if x.ndim() == 4 { x.shape()[1] } else { x.shape()[0] };
        bail!(
            Runtime,
            "Given input size: ({c}x{}x{}). Calculated output size: ({c}x{}x{}). Output size is too small",
            hw[0],
            hw[1],
            out[0].max(0),
            out[1].max(0)
        );
    }
    let out = [out[0] as usize, out[1] as usize];
    // the output, and the window lists made for it, must fit before they are built
    crate::alloc::check_new_shape(&[x.numel() / (hw[0] * hw[1]).max(1), out[0], out[1]], x.dtype().itemsize())?;
    Ok(out)
}

/// The input positions (along one dim) each output position's window covers inside the input.
fn window_positions(d: usize, size: usize, win: &Window, out: usize) -> Vec<Vec<usize>> {
    taps_inside(size, win.kernel[d], win.stride[d], win.padding[d], win.dilation[d], out)
}

/// The input positions each of `out` windows (kernel, stride, padding, dilation) covers inside an input
/// of `size` along one dim.
pub(crate) fn taps_inside(
    size: usize,
    kernel: usize,
    stride: usize,
    padding: usize,
    dilation: usize,
    out: usize,
) -> Vec<Vec<usize>> {
    let (stride, dil, pad) = (stride as i128, dilation as i128, padding as i128);
    (0..out)
        .map(|o| {
            // only the taps that land inside the input: a huge kernel over a small input stays cheap
            let first = pad - o as i128 * stride; // tap k reads position k·dil - first
            let lo = if first > 0 { (first + dil - 1) / dil } else { 0 };
            let hi = ((size as i128 - 1 + first).div_euclid(dil) + 1).min(kernel as i128);
            (lo..hi.max(lo)).map(|k| (k * dil - first) as usize).collect()
        })
        .collect()
}

pub(crate) fn is_nan<T: PartialOrd>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
}

/// Each window's maximum, its row-major index (h·W + w) within its plane and its flat index in the
/// input, in one pass over the planes (in parallel). NaN counts as the maximum, and as in PyTorch's
/// kernels a later NaN replaces an earlier one (the last NaN of a window wins).
fn max_pool_kernel<T: Element>(
    x: &[T],
    planes: usize,
    hw: [usize; 2],
    win: &Window,
    out: [usize; 2],
) -> (Vec<T>, Vec<i64>, Vec<i64>) {
    let plane = hw[0] * hw[1];
    let per_plane = out[0] * out[1];
    let (rows, cols) = (window_positions(0, hw[0], win, out[0]), window_positions(1, hw[1], win, out[1]));
    let len = crate::layout::numel(&[planes, per_plane]);
    let (mut values, mut idx, mut pos) =
        (crate::pool::filled(len, T::ZERO), crate::pool::filled(len, 0i64), crate::pool::filled(len, 0i64));
    if per_plane == 0 {
        return (values, idx, pos);
    }
    // undilated windows are rectangles: their bounds as ranges, without the per-position lists
    let as_range = |v: &Vec<Vec<usize>>| v.iter().map(|p| (p[0], p[p.len() - 1] + 1)).collect::<Vec<_>>();
    let ranges = (win.dilation == [1, 1] && rows.iter().chain(&cols).all(|p| !p.is_empty()))
        .then(|| (as_range(&rows), as_range(&cols)));
    // every window a whole 2 × 2 inside the input (LeNet's MaxPool2d(2)): the unrolled path
    let pairs = ranges.as_ref().is_some_and(|(r, c)| r.iter().chain(c).all(|&(lo, hi)| hi - lo == 2));
    let ptrs = (OutPtr(values.as_mut_ptr()), OutPtr(idx.as_mut_ptr()), OutPtr(pos.as_mut_ptr()));
    let chunk = planes.div_ceil(threads() * 4).max(1);
    par_for(planes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointers
        let ptrs = ptrs;
        for p in part * chunk..((part + 1) * chunk).min(planes) {
            let src = &x[p * plane..(p + 1) * plane];
            // Safety: plane p's outputs belong to this part alone.
            let (vals, at, flat) = unsafe {
                (
                    std::slice::from_raw_parts_mut(ptrs.0 .0.add(p * per_plane), per_plane),
                    std::slice::from_raw_parts_mut(ptrs.1 .0.add(p * per_plane), per_plane),
                    std::slice::from_raw_parts_mut(ptrs.2 .0.add(p * per_plane), per_plane),
                )
            };
            if let Some((rows, cols)) = ranges.as_ref().filter(|_| pairs) {
                max_pool_pairs_dispatch(src, hw[1], rows, cols, p * plane, vals, at, flat);
                continue;
            }
            if let Some((rows, cols)) = &ranges {
                for (oi, &(h0, h1)) in rows.iter().enumerate() {
                    for (oj, &(w0, w1)) in cols.iter().enumerate() {
                        let o = oi * out[1] + oj;
                        let (best_at, best) = window_max(src, hw[1], h0, h1, w0, w1);
                        (vals[o], at[o], flat[o]) = (best, best_at as i64, (p * plane + best_at) as i64);
                    }
                }
                continue;
            }
            for (oi, rows_at) in rows.iter().enumerate() {
                for (oj, cols_at) in cols.iter().enumerate() {
                    let o = oi * out[1] + oj;
                    let (Some(&h0), Some(&w0)) = (rows_at.first(), cols_at.first()) else {
                        // every tap in the padding (dilation can do that): torch's -inf (its lowest for
                        // ints), at the index of the first tap moved into the input, with no gradient
                        let first = |d: usize| {
                            let start = (if d == 0 { oi } else { oj } * win.stride[d]) as i128 - win.padding[d] as i128;
                            let dil = win.dilation[d] as i128;
                            start + ((-start).max(0) + dil - 1) / dil * dil
                        };
                        (vals[o], at[o], flat[o]) =
                            (T::from_f64(f64::NEG_INFINITY), (first(0) * hw[1] as i128 + first(1)) as i64, -1);
                        continue;
                    };
                    let (mut best_at, mut best) = (h0 * hw[1] + w0, src[h0 * hw[1] + w0]);
                    for &h in rows_at {
                        let line = &src[h * hw[1]..(h + 1) * hw[1]];
                        for &w in cols_at {
                            let v = line[w];
                            if v > best || is_nan(v) {
                                (best_at, best) = (h * hw[1] + w, v);
                            }
                        }
                    }
                    (vals[o], at[o], flat[o]) = (best, best_at as i64, (p * plane + best_at) as i64);
                }
            }
        }
    });
    (values, idx, pos)
}

/// `max_pool_pairs` compiled for the widest instruction set present: the baseline (SSE2) has no blend, so
/// its selects become branches that mispredict on every other window of random data.
fn max_pool_pairs_dispatch<T: Element>(
    src: &[T],
    width: usize,
    rows: &[(usize, usize)],
    cols: &[(usize, usize)],
    base: usize,
    vals: &mut [T],
    at: &mut [i64],
    flat: &mut [i64],
) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::simd::{level, Level};
        /// # Safety
        /// The CPU must have the features enabled.
        #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
        unsafe fn wide<T: Element>(
            src: &[T],
            width: usize,
            rows: &[(usize, usize)],
            cols: &[(usize, usize)],
            base: usize,
            vals: &mut [T],
            at: &mut [i64],
            flat: &mut [i64],
        ) {
            max_pool_pairs(src, width, rows, cols, base, vals, at, flat)
        }
        /// # Safety
        /// The CPU must have the features enabled.
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<T: Element>(
            src: &[T],
            width: usize,
            rows: &[(usize, usize)],
            cols: &[(usize, usize)],
            base: usize,
            vals: &mut [T],
            at: &mut [i64],
            flat: &mut [i64],
        ) {
            max_pool_pairs(src, width, rows, cols, base, vals, at, flat)
        }
        match level() {
            // SAFETY: each variant runs only where `level()` detected its features
            Level::Avx512 => return unsafe { wide(src, width, rows, cols, base, vals, at, flat) },
            // SAFETY: as above
            Level::Avx2 => return unsafe { avx2(src, width, rows, cols, base, vals, at, flat) },
            Level::Baseline => {}
        }
    }
    max_pool_pairs(src, width, rows, cols, base, vals, at, flat)
}

/// `max_pool_kernel` over one plane whose windows are all 2 × 2 (`rows` and `cols` hold each window's
/// first row and column): the four taps unrolled, in the generic path's order and NaN rule, without
/// its per-window loops (which took a fifth of LeNet-5's training step).
#[inline(always)]
fn max_pool_pairs<T: Element>(
    src: &[T],
    width: usize,
    rows: &[(usize, usize)],
    cols: &[(usize, usize)],
    base: usize,
    vals: &mut [T],
    at: &mut [i64],
    flat: &mut [i64],
) {
    let ow = cols.len();
    let w_first = cols[0].0;
    // windows side by side (stride 2 along the row): branch-free over the row, which vectorises
    let packed = cols.iter().enumerate().all(|(j, &(w0, _))| w0 == w_first + 2 * j);
    for (oi, &(h0, _)) in rows.iter().enumerate() {
        let (vals, at, flat) = (&mut vals[oi * ow..][..ow], &mut at[oi * ow..][..ow], &mut flat[oi * ow..][..ow]);
        let origin = h0 * width + w_first;
        if packed {
            let (top, bottom) = (&src[origin..][..2 * ow], &src[origin + width..][..2 * ow]);
            let windows = top.chunks_exact(2).zip(bottom.chunks_exact(2));
            for (j, ((t, b), (v, (a, f)))) in
                windows.zip(vals.iter_mut().zip(at.iter_mut().zip(flat.iter_mut()))).enumerate()
            {
                let (mut best, mut off) = (t[0], 0);
                for (o, x) in [(1, t[1]), (width, b[0]), (width + 1, b[1])] {
                    let take = x > best || is_nan(x);
                    best = if take { x } else { best };
                    off = if take { o } else { off };
                }
                let here = origin + 2 * j + off;
                (*v, *a, *f) = (best, here as i64, (base + here) as i64);
            }
            continue;
        }
        for (oj, &(w0, _)) in cols.iter().enumerate() {
            let first = h0 * width + w0;
            let (mut best_at, mut best) = (first, src[first]);
            for off in [1, width, width + 1] {
                let v = src[first + off];
                if v > best || is_nan(v) {
                    (best_at, best) = (first + off, v);
                }
            }
            (vals[oj], at[oj], flat[oj]) = (best, best_at as i64, (base + best_at) as i64);
        }
    }
}

/// (index h·W + w, value) of the maximum of `src` over rows h0..h1 and columns w0..w1 (non-empty);
/// NaN wins, the last NaN first.
#[inline(always)]
fn window_max<T: Element>(src: &[T], width: usize, h0: usize, h1: usize, w0: usize, w1: usize) -> (usize, T) {
    let (mut best_at, mut best) = (h0 * width + w0, src[h0 * width + w0]);
    for h in h0..h1 {
        let start = h * width + w0;
        for (j, &v) in src[start..start + (w1 - w0)].iter().enumerate() {
            if v > best || is_nan(v) {
                (best_at, best) = (start + j, v);
            }
        }
    }
    (best_at, best)
}

/// `A[i, j] = 1 / divisor(i)` for j in the window's range along one dim: an (out, size) matrix (the
/// average pools' gradient is `A_hᵀ · g · A_w`).
pub(crate) fn averaging_matrix(
    size: usize,
    windows: &[AvgWindow],
    divisor: impl Fn(&AvgWindow) -> f64,
) -> Result<Tensor> {
    let mut a = crate::pool::try_filled(crate::layout::numel(&[windows.len(), size]), 0.0f64)?;
    for (i, w) in windows.iter().enumerate() {
        for j in w.start..w.end {
            a[i * size + j] = 1.0 / divisor(w);
        }
    }
    Tensor::from_vec(a, &[windows.len(), size])
}

/// One output's window along one dim: the input range it sums, and its length counting the padding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AvgWindow {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) padded: usize,
}

impl AvgWindow {
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The average pool's windows along one dim of an input of `size`: `out` of them, `kernel` long (counting the
/// padding, and clipped at the padded input's end), `stride` apart from `-padding` on.
pub(crate) fn avg_windows(size: usize, kernel: usize, stride: usize, padding: usize, out: usize) -> Vec<AvgWindow> {
    let (p, n) = (padding as isize, size as isize);
    (0..out)
        .map(|i| {
            let start = (i * stride) as isize - p;
            let end = (start + kernel as isize).min(n + p);
            let padded = (end - start) as usize;
            let (start, end) = (start.max(0) as usize, end.min(n).max(start.max(0)) as usize);
            AvgWindow { start, end, padded }
        })
        .collect()
}

/// The adaptive pools' `out` (nearly) equal windows tiling one dim of `size`: floor(i·n/o) to ceil((i+1)·n/o).
impl Tensor {
    /// An adaptive pool's result when the input has no planes (an empty batch) and the windows need not be listed:
    /// empty, of the output's shape, as torch's. The pool's own node is kept whenever its windows fit in memory
    /// (so its grad_fn is torch's); an output size such as 2**40 could not list them, and gets an empty result
    /// over the input's sum instead (torch's backward refuses an empty batch anyway).
    pub(crate) fn empty_adaptive_pool(&self, out: &[usize]) -> Option<Result<Tensor>> {
        if self.numel() != 0 {
            return None;
        }
        let recording = crate::autograd::grad_mode::is_enabled() && self.requires_grad();
        let windows = out.iter().try_fold(0usize, |n, &o| n.checked_add(o));
        let listable = windows.is_some_and(|n| crate::alloc::checked_bytes(n, size_of::<AvgWindow>()).is_ok());
        if recording && listable {
            return None;
        }
        let nd = self.ndim();
        let mut shape = self.shape().to_vec();
        shape[nd - out.len()..].copy_from_slice(out);
        let dims: Vec<isize> = (1..=out.len() as isize).map(|d| -d).collect();
        Some(self.sum(Some(&dims), true).and_then(|s| s.expand(&shape)))
    }
}

pub(crate) fn adaptive_windows(size: usize, out: usize) -> Vec<AvgWindow> {
    (0..out)
        .map(|i| {
            let (start, end) = (i * size / out, ((i + 1) * size).div_ceil(out));
            AvgWindow { start, end, padded: end - start }
        })
        .collect()
}

/// What a window's sum is divided by, and how, as in torch's kernels: avg_pool2d divides once by the
/// product of the two sides (with or without the padding, or by `divisor_override`);
/// adaptive_avg_pool2d divides by the height, then by the width.
#[derive(Clone, Copy, Debug)]
pub(crate) enum AvgDivisor {
    WithPadding,
    InputOnly,
    Override(i64),
    EachSide,
}

/// Each window's mean, summed in the input's own type for float32, float64 and int64 (as torch's kernels do, so
/// that a sum past the largest float is inf there too; the halves in float64), in window order.
fn avg_pool_kernel<T: Element>(
    x: &[T],
    planes: usize,
    hw: [usize; 2],
    rows: &[AvgWindow],
    cols: &[AvgWindow],
    divisor: AvgDivisor,
) -> Vec<T> {
    let plane = hw[0] * hw[1];
    let per_plane = rows.len() * cols.len();
    let mut out = crate::pool::filled(crate::layout::numel(&[planes, per_plane]), T::ZERO);
    if per_plane == 0 {
        return out;
    }
    let half = matches!(T::DTYPE, crate::DType::F16 | crate::DType::BF16);
    let mean = |src: &[T], r: &AvgWindow, c: &AvgWindow| -> T {
        if r.len() == 0 || c.len() == 0 {
            return T::ZERO;
        }
        let split = |sum: f64| match divisor {
            AvgDivisor::WithPadding => sum / (r.padded * c.padded) as f64,
            AvgDivisor::InputOnly => sum / (r.len() * c.len()) as f64,
            AvgDivisor::Override(d) => sum / d as f64,
            AvgDivisor::EachSide => sum / r.len() as f64 / c.len() as f64,
        };
        if half {
            let sum: f64 =
                (r.start..r.end).flat_map(|h| &src[h * hw[1] + c.start..h * hw[1] + c.end]).map(|v| v.to_f64()).sum();
            return T::from_f64(split(sum));
        }
        let mut sum = T::ZERO;
        for h in r.start..r.end {
            for &v in &src[h * hw[1] + c.start..h * hw[1] + c.end] {
                sum = T::add(sum, v);
            }
        }
        // int64, the one integer type torch averages, divides as C++ does: truncating (and wrapping at the ends)
        let by = |s: T, d: i64| {
            if T::DTYPE == crate::DType::I64 {
                s.cast::<i64>().wrapping_div(d).cast::<T>()
            } else {
                T::div(s, T::from_f64(d as f64))
            }
        };
        match divisor {
            AvgDivisor::WithPadding => by(sum, (r.padded * c.padded) as i64),
            AvgDivisor::InputOnly => by(sum, (r.len() * c.len()) as i64),
            AvgDivisor::Override(d) => by(sum, d),
            AvgDivisor::EachSide => by(by(sum, r.len() as i64), c.len() as i64),
        }
    };
    let ptr = OutPtr(out.as_mut_ptr());
    let chunk = planes.div_ceil(threads() * 4).max(1);
    par_for(planes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer
        let ptr = ptr;
        for p in part * chunk..((part + 1) * chunk).min(planes) {
            let src = &x[p * plane..(p + 1) * plane];
            // SAFETY: plane p's outputs belong to this part alone.
            let dst = unsafe { std::slice::from_raw_parts_mut(ptr.0.add(p * per_plane), per_plane) };
            for (i, r) in rows.iter().enumerate() {
                for (j, c) in cols.iter().enumerate() {
                    dst[i * cols.len() + j] = mean(src, r, c);
                }
            }
        }
    });
    out
}

crate::backward_rule! {
    /// `max_pool2d`'s node: the gradient added back at each window's maximum (the positions).
    pub struct MaxPool2DWithIndicesBackward0 {
        kernel_size: [usize; 2],
        stride: [usize; 2],
        padding: [usize; 2],
        dilation: [usize; 2],
        ceil_mode: bool,
    }
}

impl Tensor {
    /// `max_pool2d`: (output, int64 indices into each H·W plane), grad_fn MaxPool2DWithIndicesBackward0.
    pub fn max_pool2d(&self, win: &Window, ceil_mode: bool) -> Result<(Tensor, Tensor)> {
        let win = *win;
        let eager = move |x: &[&Tensor]| x[0].max_pool2d_eager(&win, ceil_mode).map(|(v, i)| vec![v, i]);
        traced_pair("max_pool2d_with_indices", &[self], || eager(&[self]), || eager)
    }

    fn max_pool2d_eager(&self, win: &Window, ceil_mode: bool) -> Result<(Tensor, Tensor)> {
        let (planes, hw) = check_pool_input(self, "max_pool2d")?;
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"max_pool2d\" not implemented for 'Bool'");
        }
        let out = pooled_size(self, hw, win, ceil_mode)?;
        let mut shape = self.shape().to_vec();
        let nd = shape.len();
        shape[nd - 2..].copy_from_slice(&out);
        let (values, idx, pos) = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let (values, idx, pos) = x.with_data(|l, xs: &[T]| {
                max_pool_kernel(&xs[l.contiguous_range().expect("contiguous")], planes, hw, win, out)
            });
            (Tensor::from_vec(values, &shape)?, idx, pos)
        });
        let node = MaxPool2DWithIndicesBackward0 {
            kernel_size: win.kernel,
            stride: win.stride,
            padding: win.padding,
            dilation: win.dilation,
            ceil_mode,
        };
        let rule =
            |_: &Tensor| TakeFlatBackward { node, self_sym_sizes: self.shape().to_vec(), positions: Arc::new(pos) };
        let values = record(values, &[self], rule);
        Ok((values, Tensor::from_vec(idx, &shape)?))
    }

    /// `avg_pool2d` (AvgPool2DBackward0); `divisor_override` replaces each window's element count.
    pub fn avg_pool2d(
        &self,
        win: &Window,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        let win = *win;
        let eager = move |x: &[&Tensor]| x[0].avg_pool2d_eager(&win, ceil_mode, count_include_pad, divisor_override);
        traced("avg_pool2d", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn avg_pool2d_eager(
        &self,
        win: &Window,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        let (_, hw) = check_pool_input(self, "avg_pool2d")?;
        if self.dtype() != crate::DType::I64 {
            self.check_float("avg_pool2d")?;
        }
        if divisor_override == Some(0) {
            bail!(Runtime, "divisor must be not zero");
        }
        let out = pooled_size(self, hw, win, ceil_mode)?;
        let [rows, cols] = [0, 1].map(|d| avg_windows(hw[d], win.kernel[d], win.stride[d], win.padding[d], out[d]));
        let divisor = match (divisor_override, count_include_pad) {
            (Some(d), _) => AvgDivisor::Override(d),
            (None, true) => AvgDivisor::WithPadding,
            (None, false) => AvgDivisor::InputOnly,
        };
        self.average_pool(hw, &rows, &cols, divisor, false)
    }

    /// `adaptive_avg_pool2d` to `out` = (out_h, out_w) (AdaptiveAvgPool2DBackward0).
    pub fn adaptive_avg_pool2d(&self, out: [usize; 2]) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].adaptive_avg_pool2d_eager(out);
        traced("adaptive_avg_pool2d", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn adaptive_avg_pool2d_eager(&self, out: [usize; 2]) -> Result<Tensor> {
        let nd = self.ndim();
        if !(nd == 3 || nd == 4) || self.shape()[nd.saturating_sub(2)..].contains(&0) {
            bail!(Runtime, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {:?}", self.shape());
        }
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"adaptive_avg_pool2d\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let hw = [self.shape()[nd - 2], self.shape()[nd - 1]];
        crate::alloc::check_new_shape(&[self.numel() / (hw[0] * hw[1]), out[0], out[1]], self.dtype().itemsize())?;
        if let Some(empty) = self.empty_adaptive_pool(&out) {
            return empty;
        }
        let [rows, cols] = [0, 1].map(|d| adaptive_windows(hw[d], out[d]));
        self.average_pool(hw, &rows, &cols, AvgDivisor::EachSide, true)
    }

    fn check_float(&self, name: &str) -> Result<()> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"{name}\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        Ok(())
    }

    /// The windows' means over the last two dims, recorded as one pooling node whose gradient is
    /// `A_hᵀ · g · A_w` with the averaging matrices (tensor ops, so it differentiates again).
    fn average_pool(
        &self,
        hw: [usize; 2],
        rows: &[AvgWindow],
        cols: &[AvgWindow],
        divisor: AvgDivisor,
        adaptive: bool,
    ) -> Result<Tensor> {
        let nd = self.ndim();
        let planes = self.shape()[..nd - 2].iter().product();
        let mut shape = self.shape().to_vec();
        shape[nd - 2..].copy_from_slice(&[rows.len(), cols.len()]);
        let out = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let values = x.with_data(|l, xs: &[T]| {
                avg_pool_kernel(&xs[l.contiguous_range().expect("contiguous")], planes, hw, rows, cols, divisor)
            });
            Tensor::from_vec(values, &shape)?
        });
        if !(crate::autograd::grad_mode::is_enabled() && self.requires_grad()) {
            return Ok(out);
        }
        // the divisor split over the two sides (each side's matrix carries its factor; an override the columns')
        let side = |w: &AvgWindow, columns: bool| match divisor {
            AvgDivisor::WithPadding => w.padded as f64,
            AvgDivisor::InputOnly | AvgDivisor::EachSide => w.len() as f64,
            AvgDivisor::Override(d) => {
                if columns {
                    d as f64
                } else {
                    1.0
                }
            }
        };
        let a_h = averaging_matrix(hw[0], rows, |w| side(w, false))?.to_dtype(self.dtype())?;
        let a_w = averaging_matrix(hw[1], cols, |w| side(w, true))?.to_dtype(self.dtype())?;
        let rule = |_: &Tensor| SeparablePoolBackward {
            adaptive,
            rows: SavedTensor::input(&a_h),
            cols: SavedTensor::input(&a_w),
        };
        Ok(record(out, &[self], rule))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.adaptive) {
        true => "AdaptiveAvgPool2DBackward0",
        false => "AvgPool2DBackward0",
    };
    /// avg_pool2d (AvgPool2DBackward0) or adaptive_avg_pool2d as `A_h · x · A_wᵀ`, with the averaging
    /// matrices `rows` (A_h) and `cols` (A_w): the gradient is `A_hᵀ · g · A_w`.
    pub struct SeparablePoolBackward {
        adaptive: bool,
        rows: SavedTensor,
        cols: SavedTensor,
    }
}
impl Backward for SeparablePoolBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a_h, a_w) = (ctx.unpack(&self.rows)?, ctx.unpack(&self.cols)?);
        let spread = |t: &Tensor| a_h.t()?.matmul(t)?.matmul(&a_w);
        if all_finite(g) {
            return one(spread(g));
        }
        one(spread_non_finite(g, &g.to_vec::<f64>(), spread))
    }
}

/// Whether every element of `g` is finite (read in place when contiguous, as a gradient usually is).
pub(crate) fn all_finite(g: &Tensor) -> bool {
    with_dtype!(g.dtype(), T => g.with_data(|l, xs: &[T]| match l.contiguous_range() {
        Some(range) => xs[range].iter().all(|v| v.to_f64().is_finite()),
        None => crate::kernels::elementwise::dense_copy(l, xs).iter().all(|v: &T| v.to_f64().is_finite()),
    }))
}

/// The pooling gradient of a `g` holding NaN or ±inf. The products with the averaging matrices would carry
/// each such entry, times their zeros, to every position of its row and column (0 · NaN = NaN), where torch
/// adds a window's gradient to its own positions only: the finite part is spread as usual, and each kind of
/// non-finite entry as an indicator, which marks the positions its windows reach; +inf and -inf meeting make
/// NaN, as in a sum. (An inf keeps its sign: the weights are positive but for a negative divisor_override.)
pub(crate) fn spread_non_finite(
    g: &Tensor,
    values: &[f64],
    spread: impl Fn(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let indicator = |keep: fn(f64) -> bool| -> Result<Tensor> {
        let marks: Vec<f64> = values.iter().map(|&v| if keep(v) { 1.0 } else { 0.0 }).collect();
        let marks = Tensor::from_vec(marks, g.shape())?.to_dtype(g.dtype())?;
        spread(&marks)?.ne(&Tensor::scalar(0.0).to_dtype(g.dtype())?)
    };
    let reached_by_nan = indicator(f64::is_nan)?;
    let reached_by_pos = indicator(|v| v == f64::INFINITY)?;
    let reached_by_neg = indicator(|v| v == f64::NEG_INFINITY)?;
    let nan = reached_by_nan.logical_or(&reached_by_pos.logical_and(&reached_by_neg)?)?;
    let constant = |v: f64| Tensor::scalar(v).to_dtype(g.dtype());
    let mut out = spread(&g.nan_to_num(0.0, Some(0.0), Some(0.0))?)?;
    out = Tensor::where_(&reached_by_pos, &constant(f64::INFINITY)?, &out)?;
    out = Tensor::where_(&reached_by_neg, &constant(f64::NEG_INFINITY)?, &out)?;
    Tensor::where_(&nan, &constant(f64::NAN)?, &out)
}
