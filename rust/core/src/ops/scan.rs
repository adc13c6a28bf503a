//! Running sums, products and log-sum-exps along a dim.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::split::COPY_ELEMENTS;
use crate::kernels::threads::{items_per_task, par_chunks_mut};
use crate::layout::wrap_dim;
use crate::ops::formula::c;
use crate::ops::unary::{Abs, Exp, Log};
use crate::tensor::Tensor;
use crate::with_dtype;

impl Tensor {
    /// Running sum along `dim` (from the end when `reverse`); ints and bools sum to int64.
    pub fn cumsum(&self, dim: isize, reverse: bool) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].cumsum_eager(dim, reverse);
        traced("cumsum", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn cumsum_eager(&self, dim: isize, reverse: bool) -> Result<Tensor> {
        let (d, out) = self.scan(dim, reverse, 0.0, |a, b| a + b, 0, i64::wrapping_add)?;
        Ok(record(out, &[self], |_| CumsumBackward0 { dim: d, reverse }))
    }

    /// Running product along `dim`; ints and bools multiply to int64.
    pub fn cumprod(&self, dim: isize) -> Result<Tensor> {
        let (d, out) = self.scan(dim, false, 1.0, |a, b| a * b, 1, i64::wrapping_mul)?;
        Ok(record(out, &[self], |out| CumprodBackward0 {
            dim: d,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// Running log(Σ exp) along `dim` (floats only), computed from the larger term so it neither overflows
    /// nor underflows; -inf terms add nothing, NaN spreads.
    pub fn logcumsumexp(&self, dim: isize) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"logcumsumexp_out_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let (d, out) = self.scan(dim, false, f64::NEG_INFINITY, log_add_exp, 0, |_, v| v)?;
        Ok(record(out, &[self], |out| LogcumsumexpBackward0 {
            dim: d,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// `cummax(dim)` (`is_max`) or `cummin(dim)`: (values, indices) of the running extreme. A tie moves the
    /// index to the later element and a NaN wins from where it appears (each later NaN taking the index),
    /// as in PyTorch; the gradient goes to the picked positions (CummaxBackward0 / CumminBackward0).
    pub fn cum_extreme(&self, dim: isize, is_max: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let shape = self.shape().to_vec();
        let n = if shape.is_empty() { 1 } else { shape[d] };
        let inner: usize = shape.iter().skip(d + 1).product();
        let outer = self.numel().checked_div(n * inner).unwrap_or(0);
        let (mut pos, mut idx) = (vec![0i64; self.numel()], vec![0i64; self.numel()]);
        with_dtype!(self.dtype(), T => {
            let x = self.to_vec::<T>();
            #[allow(clippy::eq_op)]
            let takes_over = |v: T, best: T| v != v || (best == best && if is_max { v >= best } else { v <= best });
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| (o * n + k) * inner + i;
                    let mut best = 0;
                    for k in 0..n {
                        if takes_over(x[at(k)], x[at(best)]) {
                            best = k;
                        }
                        pos[at(k)] = at(best) as i64;
                        idx[at(k)] = best as i64;
                    }
                }
            }
        });
        let indices = Tensor::from_vec(idx, &shape)?;
        let (pos, saved) = (std::sync::Arc::new(pos), SavedTensor::input(&indices));
        let values = if is_max {
            self.take_flat(pos, &shape, CummaxBackward0 { dim: d, indices: saved })?
        } else {
            self.take_flat(pos, &shape, CumminBackward0 { dim: d, indices: saved })?
        };
        Ok((values, indices))
    }

    /// A running fold along `dim` (floats in f64, the rest in int64); returns the wrapped dim too.
    fn scan(
        &self,
        dim: isize,
        reverse: bool,
        float_init: f64,
        float_f: impl Fn(f64, f64) -> f64 + Copy + Sync,
        int_init: i64,
        int_f: impl Fn(i64, i64) -> i64 + Copy,
    ) -> Result<(usize, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let shape = self.shape().to_vec();
        let n = if shape.is_empty() { 1 } else { shape[d] };
        let inner: usize = shape.iter().skip(d + 1).product();
        let out = if self.dtype().is_float() {
            // accumulated in float64, as torch's CPU kernel does for every float dtype
            let src = self.contiguous()?;
            with_dtype!(self.dtype(), T => {
                let values = src.with_data(|l, x: &[T]| {
                    let x = &x[l.contiguous_range().expect("contiguous")];
                    scan_floats(x, n, inner, reverse, float_init, float_f)
                });
                Tensor::from_vec(values, &shape)?
            })
        } else {
            let mut v = self.to_vec::<i64>();
            scan_block(&mut v, n, inner, reverse, int_init, int_f);
            Tensor::from_vec(v, &shape)?
        };
        Ok((d, out))
    }
}

/// `scan_block`'s running `f` over float elements into a new buffer, accumulated in float64: each (outer) block of
/// n × inner elements (or of eight rows along a last dim) is a unit of work, the units split across the threads.
/// Through a float64 copy of the whole tensor, one thread, float32 `cumsum(1)` of 1000×1000 took 0.95 ms (torch 0.40).
fn scan_floats<T: Element>(
    src: &[T],
    n: usize,
    inner: usize,
    reverse: bool,
    init: f64,
    f: impl Fn(f64, f64) -> f64 + Copy + Sync,
) -> Vec<T> {
    let len = src.len();
    let mut out: Vec<T> = crate::pool::take(len);
    if len > 0 && n > 0 {
        let unit = if inner == 1 { SIDE_BY_SIDE * n } else { n * inner };
        let per_task = items_per_task(len.div_ceil(unit), len >= COPY_ELEMENTS);
        par_chunks_mut(&mut out.spare_capacity_mut()[..len], per_task * unit, &|c, part| {
            let mut block: Vec<f64> = Vec::with_capacity(unit);
            for (u, out_block) in part.chunks_mut(unit).enumerate() {
                let at = (c * per_task + u) * unit;
                block.clear();
                block.extend(src[at..at + out_block.len()].iter().map(|v| v.to_f64()));
                scan_block(&mut block, n, inner, reverse, init, f);
                for (o, &v) in out_block.iter_mut().zip(&block) {
                    o.write(T::from_f64(v));
                }
            }
        });
    }
    // SAFETY: the tasks' parts tile the `len` slots, and each part is written whole, block by block.
    unsafe { out.set_len(len) };
    out
}

/// Lines of a last dim scanned side by side in `scan_block`.
const SIDE_BY_SIDE: usize = 8;

/// Running `f` along the middle axis of `x` read as (outer, n, inner), in place, each running value from the first
/// (or, `reverse`, the last) element on. Memory is walked in order, and the running values of several lines are kept
/// side by side (`inner` of them, or eight runs along a last dim), so their additions do not wait on each other: one
/// value at a time, down a column, 1000×1000 float32 `cumsum(1)` took 2.6 ms (torch 0.38).
fn scan_block<T: Copy>(x: &mut [T], n: usize, inner: usize, reverse: bool, init: T, f: impl Fn(T, T) -> T + Copy) {
    let Some(outer) = x.len().checked_div(n * inner) else { return };
    let step = |k: usize| if reverse { n - 1 - k } else { k };
    if inner == 1 {
        for rows in x[..outer * n].chunks_mut(SIDE_BY_SIDE * n) {
            let count = rows.len() / n;
            let mut acc = [init; SIDE_BY_SIDE];
            for k in (0..n).map(step) {
                for (r, a) in acc.iter_mut().enumerate().take(count) {
                    *a = f(*a, rows[r * n + k]);
                    rows[r * n + k] = *a;
                }
            }
        }
        return;
    }
    let mut acc = vec![init; inner];
    for block in x[..outer * n * inner].chunks_mut(n * inner) {
        acc.fill(init);
        for k in (0..n).map(step) {
            for (a, v) in acc.iter_mut().zip(&mut block[k * inner..(k + 1) * inner]) {
                *a = f(*a, *v);
                *v = *a;
            }
        }
    }
}

crate::backward_rule! {
    /// `cumsum(dim)`: the gradient summed from the other end.
    pub struct CumsumBackward0 {
        dim: usize,
        reverse: bool,
    }
}
impl Backward for CumsumBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.cumsum(self.dim as isize, !self.reverse))
    }
}

/// log(exp(a) + exp(b)) from the larger of the two (equal infinities are themselves, NaN spreads).
fn log_add_exp(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi.is_infinite() {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

crate::backward_rule! {
    /// `logcumsumexp(dim)`: x_k's gradient is Σ_{j≥k} g_j·exp(x_k - out_j), summed in log space from the
    /// other end, the positive and the negative parts of g apart (torch's formula, so it differentiates again).
    pub struct LogcumsumexpBackward0 {
        dim: usize,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LogcumsumexpBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        if g.ndim() == 0 || g.numel() == 0 {
            return one(Ok(g.clone()));
        }
        let d = self.dim as isize;
        let reverse_logcumsumexp = |t: &Tensor| t.flip(&[d])?.logcumsumexp(d)?.flip(&[d]);
        let lowest = c(g.dtype().lowest_finite());
        let log_abs = g.unary(Abs)?.unary(Log)?;
        let part = |keep: Tensor| -> Result<Tensor> {
            let log_part = Tensor::where_(&keep, &log_abs, &lowest)?;
            reverse_logcumsumexp(&log_part.sub(&out)?)?.add(&x)?.unary(Exp)
        };
        one(part(g.gt(&c(0.0))?)?.sub(&part(g.lt(&c(0.0))?)?))
    }
}

crate::backward_rule! {
    /// `cumprod(dim)`: right with zeros among the factors.
    pub struct CumprodBackward0 {
        dim: usize,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for CumprodBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        one(cumprod_grad(g, &x, &out, self.dim))
    }
}

/// The gradient of `cumprod` along `dim`: Σ_{j≥k} g_j·out_j / x_k without zeros; with zeros, torch's two
/// formulas: `cumprod_grad_first_zero` for a first-order backward, the exact products (`cumprod_grad_exact`)
/// under `create_graph`, which differentiate again (they differ only where inf or NaN meet a zero).
fn cumprod_grad(g: &Tensor, x: &Tensor, out: &Tensor, dim: usize) -> Result<Tensor> {
    // one factor: the identity (so inf and NaN pass g through, not g · inf / inf)
    if x.ndim() == 0 || x.shape()[dim] == 1 {
        return Ok(g.clone());
    }
    let has_zero = x.eq(&c(0.0))?.any()?.to_vec::<bool>()[0];
    if !has_zero {
        return g.mul(out)?.cumsum(dim as isize, true)?.div(x);
    }
    if crate::autograd::grad_mode::is_enabled() {
        cumprod_grad_exact(g, x, dim)
    } else {
        cumprod_grad_first_zero(g, x, out, dim)
    }
}

/// g_k = Σ_{j≥k} g_j·Π_{i≤j, i≠k} x_i, built as an n×n running product per row.
fn cumprod_grad_exact(g: &Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    let n = x.shape()[dim];
    let last = x.ndim() as isize - 1;
    let (xm, gm) = (x.transpose(dim as isize, last)?, g.transpose(dim as isize, last)?);
    // rows[.., k, i] = x_i with x_k replaced by 1; a running product over i, kept where i ≥ k
    let eye = Tensor::from_vec((0..n * n).map(|p| p / n == p % n).collect::<Vec<bool>>(), &[n, n])?;
    let upper = Tensor::from_vec((0..n * n).map(|p| p % n >= p / n).collect::<Vec<bool>>(), &[n, n])?;
    let rows = Tensor::where_(&eye, &c(1.0), &xm.unsqueeze(-2)?)?.cumprod(-1)?;
    let terms = Tensor::where_(&upper, &rows.mul(&gm.unsqueeze(-2)?)?, &c(0.0))?;
    terms.sum(Some(&[-1]), false)?.transpose(dim as isize, last)
}

/// The terms that are 0 because a zero is among their factors, dropped (so a 0 beside an inf is 0, not
/// NaN): before a row's first zero z, Σ_{j<z} g_j·out_j / x_k; at z, Σ_{z≤j<z'} g_j·Π_{i<z} x_i·Π_{z<i≤j} x_i
/// (z' the second zero); after z, 0.
fn cumprod_grad_first_zero(g: &Tensor, x: &Tensor, out: &Tensor, dim: usize) -> Result<Tensor> {
    let d = dim as isize;
    let zeros_through = x.eq(&c(0.0))?.to_dtype(x.dtype())?.cumsum(d, false)?;
    let before = zeros_through.eq(&c(0.0))?;
    let out_before = Tensor::where_(&before, out, &c(0.0))?;
    let x_before = Tensor::where_(&before, x, &c(1.0))?;
    let grad_before = Tensor::where_(&before, &out_before.mul(g)?.cumsum(d, true)?.div(&x_before)?, &c(0.0))?;
    let from_first = zeros_through.eq(&c(1.0))?;
    let first = from_first.logical_and(&from_first.to_dtype(x.dtype())?.cumsum(d, false)?.eq(&c(1.0))?)?;
    let after_first = from_first.logical_and(&first.logical_not()?)?;
    let products_after = Tensor::where_(&after_first, x, &c(1.0))?.cumprod(d)?;
    let g_from_first = Tensor::where_(&from_first, g, &c(0.0))?;
    let at_first = products_after.mul(&g_from_first)?.sum(Some(&[d]), true)?;
    // Π_{i<z} x_i is the previous output (1 at the row's start)
    let n = x.shape()[dim] as isize;
    let mut ones_shape = x.shape().to_vec();
    ones_shape[dim] = 1;
    let out_shifted = Tensor::cat(&[Tensor::ones(&ones_shape, out.dtype()), out.narrow(d, 0, n - 1)?], d)?;
    Tensor::where_(&first, &at_first.mul(&out_shifted)?, &grad_before)
}

// cummax's and cummin's value nodes: each gradient goes back to the running extreme's position.
crate::backward_rule! {
    pub struct CummaxBackward0 { dim: usize, indices: SavedTensor }
}
crate::backward_rule! {
    pub struct CumminBackward0 { dim: usize, indices: SavedTensor }
}

#[cfg(test)]
mod tests {
    use super::scan_block;

    #[test]
    fn scans_side_by_side_match_one_line_at_a_time() {
        // (outer, n, inner): rows along the last dim in groups of eight and a shorter last group, columns, one line
        for (outer, n, inner) in [(19usize, 7usize, 1usize), (8, 5, 1), (3, 6, 4), (1, 9, 1), (2, 1, 3), (0, 4, 2)] {
            let x: Vec<i64> = (0..outer * n * inner).map(|i| (i as i64 * 7919) % 101 - 50).collect();
            for reverse in [false, true] {
                let mut got = x.clone();
                scan_block(&mut got, n, inner, reverse, 0, i64::wrapping_add);
                for o in 0..outer {
                    for i in 0..inner {
                        let mut acc = 0;
                        for k in 0..n {
                            let k = if reverse { n - 1 - k } else { k };
                            let p = (o * n + k) * inner + i;
                            acc += x[p];
                            assert_eq!(got[p], acc, "({outer}, {n}, {inner}) reverse={reverse} at {p}");
                        }
                    }
                }
            }
        }
    }
}
