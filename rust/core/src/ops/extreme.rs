//! Extremes: amax/amin, max/min (of everything, or along a dim with indices), argmax/argmin.
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, traced_fusable, traced_pair, NodeKind, Reduction, RowReduction, SliceKernel};
use crate::error::Result;
use crate::kernels::reduce::fold;
#[cfg(target_arch = "x86_64")]
use crate::kernels::simd::{as_f32, level, Level};
use crate::kernels::strided_rows::Rows;
use crate::layout::wrap_dim;
use crate::ops::formula::{c, signed, unsqueeze_dims};
use crate::ops::reduce::{reduced_shape, reduction_dims};
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;
use crate::DType;

/// Whether `v` replaces the running extreme `a` (NaN wins and then stays; ties keep the first).
#[inline(always)]
pub(crate) fn better<T: crate::element::Element>(v: T, a: T, is_max: bool) -> bool {
    #[allow(clippy::eq_op)]
    let (v_nan, a_nan) = (v != v, a != a);
    if a_nan {
        return false;
    }
    if v_nan {
        return true;
    }
    if is_max {
        v > a
    } else {
        v < a
    }
}

/// The extreme of each group and its position within the group (dims must hold one dim for a
/// meaningful index).
fn extreme_kernel<T: crate::element::Element>(x: &Tensor, dims: &[usize], is_max: bool) -> (Vec<T>, Vec<i64>) {
    let acc = x.with_data(|l, v: &[T]| {
        fold(l, v, dims, (None::<T>, 0i64, 0i64), |(best, at, n), v| match best {
            Some(b) if !better(v, b, is_max) => (Some(b), at, n + 1),
            _ => (Some(v), n, n + 1),
        })
    });
    acc.into_iter().map(|(b, at, _)| (b.unwrap_or_default(), at)).unzip()
}

/// The extreme of a contiguous run (None when it is empty), by the rule `extreme_kernel` folds with
/// (`better`: NaN wins, the first of equals kept): eager's amax/amin over contiguous rows, and a fused chain's (each
/// chunk, then the chunks' results).
#[inline(always)]
pub(crate) fn extreme_run<T: crate::element::Element>(x: &[T], is_max: bool) -> Option<T> {
    let fold = || {
        x.iter().fold(None, |best, &v| match best {
            Some(b) if !better(v, b, is_max) => Some(b),
            _ => Some(v),
        })
    };
    #[cfg(target_arch = "x86_64")]
    if let (Some(run), Level::Avx512) = (as_f32(x), level()) {
        // SAFETY: the level is Avx512 only where `detect` found AVX-512F.
        return match unsafe { crate::kernels::extreme::lane_extreme_f32_avx512(run, is_max) } {
            // T is f32 (`as_f32`), so the value converts to itself
            Some(best) => Some(T::from_f64(best as f64)),
            None => fold(),
        };
    }
    const LANES: usize = 16;
    if x.len() < 2 * LANES {
        return fold();
    }
    // lane by lane, in a loop the compiler vectorizes (a 1000-float row: 2.6 µs by the fold); NaN compares false
    // everywhere, so it is looked for apart
    let (mut lanes, mut nan) = ([x[0]; LANES], false);
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            #[allow(clippy::eq_op)]
            let is_nan = c[k] != c[k];
            nan |= is_nan;
            let replaces = if is_max { c[k] > lanes[k] } else { c[k] < lanes[k] };
            lanes[k] = if replaces { c[k] } else { lanes[k] };
        }
    }
    let best = lanes.iter().chain(rest).fold(lanes[0], |b, &v| if better(v, b, is_max) { v } else { b });
    // equal values are one bit pattern except zeros (-0 == 0), whose first the fold keeps; a NaN's payload is the
    // first NaN's
    #[allow(clippy::eq_op)]
    let nan = nan || best != best;
    if nan || best == T::default() {
        return fold();
    }
    Some(best)
}

/// The extreme of each run of `n` in `x`: rows split across the threads when large, each compiled for the widest
/// vectors (1000×1000 float32 `amax(-1)`: 203 µs at the baseline's width on one thread).
fn row_extremes<T: crate::element::Element>(x: &[T], n: usize, is_max: bool) -> Vec<T> {
    let rows = x.len() / n;
    let mut out = vec![T::default(); rows];
    let parallel = x.len() >= crate::kernels::split::SUM_ELEMENTS && rows > 1;
    let per_task = crate::kernels::threads::items_per_task(rows, parallel);
    crate::kernels::threads::par_chunks_mut(&mut out, per_task, &|t, slots| {
        let first = t * per_task;
        crate::kernels::simd::dispatch!(extremes_into(slots, &x[first * n..(first + slots.len()) * n], n, is_max));
    });
    out
}

#[inline(always)]
fn extremes_into<T: crate::element::Element>(out: &mut [T], x: &[T], n: usize, is_max: bool) {
    for (slot, row) in out.iter_mut().zip(x.chunks_exact(n)) {
        *slot = extreme_run(row, is_max).expect("a row of n > 0");
    }
}

/// The first extreme of each run of `n` in `x` and its position (`better`'s rule: the first NaN, else the first of
/// equals), rows split across the threads as `row_extremes`: each row's extreme by `extreme_run`, then its first
/// occurrence. `max(dim)` folded element by element through the layout before: 1000×1000 float32 along the last dim,
/// 688 µs on one thread or two (torch: 536 and 292).
fn row_arg_extremes<T: crate::element::Element>(x: &[T], n: usize, is_max: bool) -> (Vec<T>, Vec<i64>) {
    let rows = x.len() / n;
    let mut at = vec![0i64; rows];
    let parallel = x.len() >= crate::kernels::split::SUM_ELEMENTS && rows > 1;
    let per_task = crate::kernels::threads::items_per_task(rows, parallel);
    crate::kernels::threads::par_chunks_mut(&mut at, per_task, &|t, slots| {
        let first = t * per_task;
        crate::kernels::simd::dispatch!(arg_extremes_into(slots, &x[first * n..(first + slots.len()) * n], n, is_max));
    });
    let values = at.iter().enumerate().map(|(r, &i)| x[r * n + i as usize]).collect();
    (values, at)
}

#[inline(always)]
fn arg_extremes_into<T: crate::element::Element>(out: &mut [i64], x: &[T], n: usize, is_max: bool) {
    for (slot, row) in out.iter_mut().zip(x.chunks_exact(n)) {
        let best = extreme_run(row, is_max).expect("a row of n > 0");
        #[allow(clippy::eq_op)]
        let at = if best != best { row.iter().position(|v| v != v) } else { row.iter().position(|&v| v == best) };
        *slot = at.expect("a row's extreme is one of its elements") as i64;
    }
}

/// `row_arg_extremes` along a dim that is not the last: `x` as blocks of `n` rows of `inner` elements (inner > 1),
/// the extreme of each column of each block and its first row, by `better`'s rule. A row at a time against a row of
/// running extremes (vectorized), the columns split across the threads: `max(0)` of 1000×1000 float32 folded
/// element by element through the layout, 2.65 ms (torch 0.45).
fn column_arg_extremes<T: crate::element::Element>(
    x: &[T],
    n: usize,
    inner: usize,
    is_max: bool,
) -> (Vec<T>, Vec<i64>) {
    let out_len = x.len() / n;
    let mut at = vec![0i64; out_len];
    let parallel = x.len() >= crate::kernels::split::SUM_ELEMENTS;
    // whole cache lines of columns a task
    let band = crate::kernels::threads::items_per_task(out_len, parallel).next_multiple_of(16);
    crate::kernels::threads::par_chunks_mut(&mut at, band, &|t, slots| {
        let mut start = t * band;
        let mut slots = slots;
        // a band may span blocks: a segment of columns in each
        while !slots.is_empty() {
            let (block, j) = (start / inner, start % inner);
            let width = slots.len().min(inner - j);
            let (seg, rest) = slots.split_at_mut(width);
            let cols = &x[block * n * inner + j..];
            crate::kernels::simd::dispatch!(column_extremes_into(seg, cols, n, inner, is_max));
            (slots, start) = (rest, start + width);
        }
    });
    let values = at.iter().enumerate().map(|(k, &i)| x[(k / inner * n + i as usize) * inner + k % inner]).collect();
    (values, at)
}

/// `at[j]` = the first row of the extreme of column j over `n` rows of `x` (rows `stride` apart).
#[inline(always)]
fn column_extremes_into<T: crate::element::Element>(at: &mut [i64], x: &[T], n: usize, stride: usize, is_max: bool) {
    let w = at.len();
    let mut best = x[..w].to_vec();
    at.fill(0);
    for i in 1..n {
        for ((b, a), &v) in best.iter_mut().zip(at.iter_mut()).zip(&x[i * stride..i * stride + w]) {
            if better(v, *b, is_max) {
                (*b, *a) = (v, i as i64);
            }
        }
    }
}

/// 0, 1, ..., n-1 along `dim` of an `ndim`-dim tensor (size 1 elsewhere).
pub(crate) fn positions_along(n: usize, dim: usize, ndim: usize) -> Result<Tensor> {
    let mut shape = vec![1; ndim];
    shape[dim] = n;
    Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), &shape)
}

/// The gradient of one element picked per row along `dim` (at `indices`) of an input of `shape`: `g` where
/// it was picked, zero elsewhere (max/min/kthvalue/mode/nanmedian along a dim).
pub(crate) fn picked_grad(g: &Tensor, indices: &Tensor, shape: &[usize], dim: usize, keepdim: bool) -> Result<Tensor> {
    let idx = unsqueeze_dims(indices, &[dim], keepdim)?;
    let mask = positions_along(shape[dim], dim, shape.len())?.eq(&idx)?;
    Tensor::where_(&mask, &unsqueeze_dims(g, &[dim], keepdim)?, &c(0.0))
}

impl Tensor {
    fn check_nonempty_reduction(&self, name: &str, dims: &[usize], all: bool) -> Result<()> {
        if self.numel() == 0 {
            if all {
                bail!(
                    Runtime,
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the \
                    reduction dim with the 'dim' argument."
                );
            }
            if let Some(d) = dims.iter().find(|&&d| self.shape()[d] == 0) {
                bail!(Index, "{name}(): Expected reduction dim {d} to have non-zero size.");
            }
        }
        Ok(())
    }

    /// amax/amin (`dims` None: all) and max()/min() without a dim (`all_name`); the gradient is
    /// shared evenly among tied extremes.
    pub fn amax_amin(&self, dims: Option<&[isize]>, keepdim: bool, is_max: bool, full_form: bool) -> Result<Tensor> {
        let all = dims.is_none() || dims.is_some_and(|d| d.is_empty());
        let kind = if all { NodeKind::FullReduction } else { NodeKind::Opaque };
        let replay = || {
            let dims = dims.map(<[isize]>::to_vec);
            move |x: &[&Tensor]| x[0].amax_amin_eager(dims.as_deref(), keepdim, is_max, full_form)
        };
        let name = if is_max { "amax" } else { "amin" };
        let kernel = |_: &Tensor| match dims {
            _ if all => Some(SliceKernel::Reduce(Reduction::Extreme { is_max })),
            Some(dims) => self.row_reduction(dims, keepdim, RowReduction::Extreme { is_max }),
            None => None,
        };
        traced_fusable(name, kind, &[self], || self.amax_amin_eager(dims, keepdim, is_max, full_form), replay, kernel)
    }

    fn amax_amin_eager(&self, dims: Option<&[isize]>, keepdim: bool, is_max: bool, full_form: bool) -> Result<Tensor> {
        let all = dims.is_none() || dims.is_some_and(|d| d.is_empty());
        let dims = reduction_dims(if all { None } else { dims }, self.ndim())?;
        let name = match (full_form, is_max) {
            (true, true) => "max",
            (true, false) => "min",
            (false, true) => "amax",
            (false, false) => "amin",
        };
        self.check_nonempty_reduction(name, &dims, all)?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        // a dense permutation read in place, in memory order; a view's rows (one of `unbind`'s) reduced over the last
        // dim read in place, row by row; other strided data copied to row-major
        let order = self.reduction_in_memory_order(&dims);
        let last = self.ndim().wrapping_sub(1);
        let rows_in_place = match order {
            None if !self.is_contiguous() && !all && dims == [last] => Rows::of(self.layout()),
            _ => None,
        };
        let (x, order) = match (order, &rows_in_place) {
            (Some((view, order)), _) => (view, Some(order)),
            (None, Some(_)) => (self.detach(), None),
            (None, None) => (self.row_major()?, None),
        };
        let x_dims = order.as_ref().map_or(&dims, |o| &o.dims);
        // contiguous rows (every dim, or the last): one run each
        let row = match x.layout().contiguous_range() {
            Some(range) if all => Some((range, x.numel())),
            Some(range) if *x_dims == [x.ndim() - 1] => Some((range, x.shape()[x.ndim() - 1])),
            _ => None,
        };
        // or one dim before the last: its columns
        let column = match (x.layout().contiguous_range(), x_dims.as_slice()) {
            (Some(range), &[d]) if d + 1 < x.ndim() && x.numel() > 0 => Some((range, d)),
            _ => None,
        };
        let out = crate::with_dtype!(x.dtype(), T => {
            let values = match (row, column, &rows_in_place) {
                (_, _, Some(rows)) => {
                    x.with_data(|_, v: &[T]| rows.map(v, |row| extreme_run(row, is_max).expect("rows of n > 0")))
                }
                (Some((range, n)), _, _) if n > 0 => x.with_data(|_, v: &[T]| row_extremes(&v[range], n, is_max)),
                (_, Some((range, d)), _) => {
                    let (n, inner) = (x.shape()[d], x.shape()[d + 1..].iter().product());
                    x.with_data(|_, v: &[T]| column_arg_extremes(&v[range], n, inner, is_max).0)
                }
                _ => extreme_kernel::<T>(&x, x_dims, is_max).0,
            };
            let values = match &order {
                Some(o) => o.restore(values),
                None => values,
            };
            Tensor::from_vec(values, &shape)?
        });
        let function = match (full_form, is_max) {
            (true, true) => ExtremeFn::Max,
            (true, false) => ExtremeFn::Min,
            (false, true) => ExtremeFn::Amax,
            (false, false) => ExtremeFn::Amin,
        };
        Ok(record(out, &[self], |out| ExtremeBackward {
            function,
            dim: dims,
            keepdim,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// max/min along one dim: (values, indices of the first extreme); the gradient goes to that index.
    pub fn max_min_dim(&self, dim: isize, keepdim: bool, is_max: bool) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].max_min_dim_eager(dim, keepdim, is_max).map(|(v, i)| vec![v, i]);
        traced_pair(if is_max { "max" } else { "min" }, &[self], || eager(&[self]), || eager)
    }

    fn max_min_dim_eager(&self, dim: isize, keepdim: bool, is_max: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let dims: Vec<usize> = if self.ndim() == 0 { vec![] } else { vec![d] };
        self.check_nonempty_reduction(if is_max { "max" } else { "min" }, &dims, false)?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        // contiguous: a run per row when nothing is after `d` (the last dim, or sizes 1 after it), else columns
        // a dense permutation read in place, in memory order (`d` is still walked from its first index, so ties
        // keep the first); other strided data copied to row-major
        let (data, order) = match self.reduction_in_memory_order(&dims) {
            Some((view, order)) => (view, Some(order)),
            None => (self.row_major()?, None),
        };
        let data_dims = order.as_ref().map_or(&dims, |o| &o.dims);
        let inner: usize = match data_dims.first() {
            Some(&d) => data.shape()[d + 1..].iter().product(),
            None => 1,
        };
        let runs = match data.layout().contiguous_range() {
            Some(range) if !dims.is_empty() && self.numel() > 0 => Some(range),
            _ => None,
        };
        let (values, indices) = crate::with_dtype!(self.dtype(), T => {
            let n = self.shape().get(d).copied().unwrap_or(1);
            let (v, i) = match runs {
                Some(range) if inner == 1 => data.with_data(|_, x: &[T]| row_arg_extremes(&x[range], n, is_max)),
                Some(range) => data.with_data(|_, x: &[T]| column_arg_extremes(&x[range], n, inner, is_max)),
                None => extreme_kernel::<T>(&data, data_dims, is_max),
            };
            let (v, i) = match &order {
                Some(o) => (o.restore(v), o.restore(i)),
                None => (v, i),
            };
            (Tensor::from_vec(v, &shape)?, Tensor::from_vec(i, &shape)?)
        });
        let rule = |_: &Tensor| IndexedExtremeBackward {
            is_max,
            self_sym_sizes: self.shape().to_vec(),
            dim: dims.first().copied(),
            keepdim,
            indices: SavedTensor::input(&indices),
        };
        let values = record(values, &[self], rule);
        Ok((values, indices))
    }

    /// argmax/argmin: over all elements (flattened) when `dim` is None.
    pub fn argmax_argmin(&self, dim: Option<isize>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].argmax_argmin_eager(dim, keepdim, is_max);
        traced(if is_max { "argmax" } else { "argmin" }, NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn argmax_argmin_eager(&self, dim: Option<isize>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let name = if is_max { "argmax" } else { "argmin" };
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "{name}(): does not support bool input");
        }
        match dim {
            None => {
                if self.numel() == 0 {
                    bail!(Index, "{name}(): Expected reduction dim to be specified for input.numel() == 0.");
                }
                let flat = self.detach().reshape(&[self.numel()])?;
                let i = flat.max_min_dim(0, false, is_max)?.1;
                if keepdim {
                    i.reshape(&vec![1; self.ndim()])
                } else {
                    Ok(i)
                }
            }
            Some(d) => {
                let w = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 && self.shape()[w] == 0 {
                    bail!(Index, "{name}(): Expected reduction dim {w} to have non-zero size.");
                }
                Ok(self.detach().max_min_dim(d, keepdim, is_max)?.1)
            }
        }
    }
}

/// Which function took an extreme over a set of dims (their gradients agree; their names differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtremeFn {
    Amax,
    Amin,
    /// `max()` of every element
    Max,
    /// `min()` of every element
    Min,
    /// `median()` of every element
    Median,
    /// `nanmedian()` of every element
    Nanmedian,
}

impl AsField for ExtremeFn {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.function) {
        ExtremeFn::Amax => "AmaxBackward0",
        ExtremeFn::Amin => "AminBackward0",
        ExtremeFn::Max => "MaxBackward1",
        ExtremeFn::Min => "MinBackward1",
        ExtremeFn::Median => "MedianBackward0",
        ExtremeFn::Nanmedian => "NanmedianBackward0",
    };
    /// amax/amin and max()/min(): shared evenly among the elements equal to the extreme (for max/min/median
    /// NaN counts as equal to NaN).
    pub struct ExtremeBackward {
        function: ExtremeFn,
        dim: Vec<usize>,
        keepdim: bool,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl ExtremeBackward {
    /// The rule of a reduction over all of `dims` (not kept) of `input` to `result`.
    pub(crate) fn new(function: ExtremeFn, dim: Vec<usize>, input: &Tensor, result: &Tensor) -> ExtremeBackward {
        ExtremeBackward {
            function,
            dim,
            keepdim: false,
            self_: SavedTensor::input(input),
            result: SavedTensor::output(result),
        }
    }
}
impl Backward for ExtremeBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        let out = unsqueeze_dims(&out, &self.dim, self.keepdim)?;
        // torch's `(g / count) * mask`, the mask in g's float dtype made in one traceable pass when the backward is
        // not recorded, so a compiled backward fuses it (and eager skips the bool mask's promotions)
        if matches!(self.function, ExtremeFn::Amax | ExtremeFn::Amin) && g.dtype() == a.dtype() {
            if let Some(mask) = equal_mask(&a, &out.expand(a.shape())?) {
                let mask = mask?;
                let count = mask.sum(Some(&signed(&self.dim)), true)?;
                return one(unsqueeze_dims(g, &self.dim, self.keepdim)?.div(&count)?.mul(&mask));
            }
        }
        // max()/min()/median() count a NaN as equal to a NaN extreme (torch's evenly_distribute_backward);
        // amax/amin compare with `==` only, so a NaN extreme has no element equal to it: 0/0, NaN everywhere
        let mut mask = a.eq(&out)?;
        if !matches!(self.function, ExtremeFn::Amax | ExtremeFn::Amin) {
            let both_nan = a.float_class(FloatClass::Nan)?.logical_and(&out.float_class(FloatClass::Nan)?)?;
            mask = mask.logical_or(&both_nan)?;
        }
        let count = mask.sum(Some(&signed(&self.dim)), true)?;
        one(unsqueeze_dims(g, &self.dim, self.keepdim)?.mul(&mask)?.div(&count))
    }
}

/// `a == b` as 1 or 0 in their float dtype (float32 or float64), in one pass, when the backward is not recorded.
fn equal_mask(a: &Tensor, b: &Tensor) -> Option<Result<Tensor>> {
    let (f32, f64) = (|a: f32, b: f32| f32::from(u8::from(a == b)), |a: f64, b: f64| f64::from(u8::from(a == b)));
    crate::ops::formula::one_pass_grad("eq", a, b, Some(f32), Some(f64), None)
}

crate::backward_rule! {
    name_by = |rule| match (rule.is_max) {
        true => "MaxBackward0",
        false => "MinBackward0",
    };
    /// max/min along a dim: the gradient goes to the index that was picked.
    pub struct IndexedExtremeBackward {
        is_max: bool,
        self_sym_sizes: Vec<usize>,
        dim: Option<usize>,
        keepdim: bool,
        indices: SavedTensor,
    }
}
impl Backward for IndexedExtremeBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let Some(dim) = self.dim else { return one(Ok(g.clone())) };
        one(picked_grad(g, &ctx.unpack(&self.indices)?, &self.self_sym_sizes, dim, self.keepdim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-at-a-time fold `extreme_run` must agree with, bit for bit.
    fn folded(x: &[f32], is_max: bool) -> Option<f32> {
        x.iter().fold(None, |best, &v| match best {
            Some(b) if !better(v, b, is_max) => Some(b),
            _ => Some(v),
        })
    }

    #[test]
    fn the_lane_wise_extreme_is_the_folds_at_ties_zeros_and_nans() {
        let mut runs: Vec<Vec<f32>> = Vec::new();
        for n in [0, 1, 31, 32, 33, 100, 1000] {
            runs.push((0..n).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.25).collect());
        }
        // zeros of both signs as the extreme, the negative one first
        let mut zeros = vec![-1.0f32; 64];
        zeros[17] = -0.0;
        zeros[40] = 0.0;
        runs.push(zeros.clone());
        runs.push(zeros.iter().map(|v| -v).collect());
        // NaNs: the first one's payload wins
        let mut nans = runs[5].clone();
        nans[70] = f32::from_bits(0x7fc0_0001);
        nans[90] = f32::from_bits(0x7fc0_0002);
        runs.push(nans);
        runs.push(vec![f32::NAN; 40]);
        runs.push(vec![f32::NEG_INFINITY; 40]);
        for run in &runs {
            for is_max in [true, false] {
                let (got, want) = (extreme_run(run, is_max), folded(run, is_max));
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{run:?} max={is_max}");
            }
        }
    }

    #[test]
    fn rows_with_positions_are_the_layout_folds() {
        // 300 rows of 1000 (split across threads) and of 7 (below the lane kernel's length), with NaNs, ties of
        // equal values, zeros of both signs and infinities placed in some rows
        for n in [1000usize, 7] {
            let rows = 300;
            let mut x: Vec<f32> = (0..rows * n).map(|i| ((i * 37 % 1009) as f32 - 500.0) * 0.25).collect();
            x[3 * n + n / 2] = f32::NAN;
            x[3 * n + n - 1] = f32::from_bits(0x7fc0_0002);
            x[5 * n + 1] = 1e9;
            x[5 * n + n - 2] = 1e9;
            x[7 * n..8 * n].iter_mut().for_each(|v| *v = -1.0);
            x[7 * n + 2] = -0.0;
            x[7 * n + 4] = 0.0;
            x[9 * n..10 * n].iter_mut().for_each(|v| *v = f32::NEG_INFINITY);
            x[11 * n + n - 1] = f32::INFINITY;
            let t = Tensor::from_vec(x.clone(), &[rows, n]).unwrap();
            for is_max in [true, false] {
                let (values, at) = row_arg_extremes(&x, n, is_max);
                let (want_values, want_at) = extreme_kernel::<f32>(&t, &[1], is_max);
                assert_eq!(at, want_at, "n={n} max={is_max}");
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&values), bits(&want_values), "n={n} max={is_max}");
                let (got, idx) = t.max_min_dim(-1, false, is_max).unwrap();
                assert_eq!(bits(&got.to_vec::<f32>()), bits(&want_values));
                assert_eq!(idx.to_vec::<i64>(), want_at);
            }
        }
        // integers, and a dim followed by sizes of one
        let ints: Vec<i64> = (0..6000).map(|i| (i * 7919) % 613).collect();
        let t = Tensor::from_vec(ints.clone(), &[6, 1000, 1]).unwrap();
        let (_, want_at) = extreme_kernel::<i64>(&t, &[1], true);
        assert_eq!(t.max_min_dim(1, false, true).unwrap().1.to_vec::<i64>(), want_at);
        assert_eq!(row_arg_extremes(&ints, 1000, true).1, want_at);
    }

    #[test]
    fn columns_with_positions_are_the_layout_folds() {
        // dim 0 of 300×1000 (columns split across the threads, a band spanning no block) and dim 1 of 3×300×50
        // (bands spanning blocks), with NaNs, ties, signed zeros and infinities down some columns
        for shape in [[1usize, 300, 1000], [3, 300, 50]] {
            let [outer, n, inner] = shape;
            let mut x: Vec<f32> = (0..outer * n * inner).map(|i| ((i * 37 % 1009) as f32 - 500.0) * 0.25).collect();
            let at = |o: usize, i: usize, j: usize| (o * n + i) * inner + j;
            x[at(0, 5, 3)] = f32::NAN;
            x[at(0, 9, 3)] = f32::from_bits(0x7fc0_0002);
            x[at(outer - 1, 1, 7)] = 1e9;
            x[at(outer - 1, n - 2, 7)] = 1e9;
            for i in 0..n {
                x[at(0, i, 11)] = if i == 4 {
                    0.0
                } else if i == 2 {
                    -0.0
                } else {
                    -1.0
                };
                x[at(0, i, 12)] = f32::NEG_INFINITY;
            }
            x[at(0, n - 1, 13)] = f32::INFINITY;
            let t = Tensor::from_vec(x.clone(), &shape).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for is_max in [true, false] {
                let (want_values, want_at) = extreme_kernel::<f32>(&t, &[1], is_max);
                let (values, positions) = column_arg_extremes(&x, n, inner, is_max);
                assert_eq!(positions, want_at, "{shape:?} max={is_max}");
                assert_eq!(bits(&values), bits(&want_values), "{shape:?} max={is_max}");
                let (got, idx) = t.max_min_dim(1, false, is_max).unwrap();
                assert_eq!(bits(&got.to_vec::<f32>()), bits(&want_values));
                assert_eq!(idx.to_vec::<i64>(), want_at);
            }
        }
    }
}
