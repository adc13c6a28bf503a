//! Reductions: sum, mean, prod, var/std, logsumexp, all, any, and the sum back down to a broadcast
//! input's shape; max/min are in `extreme.rs`, the running sums and products in `scan.rs`.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, traced_fusable, NodeKind, Reduction, RowReduction, SliceKernel};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::memory_order::MemoryOrderReduction;
use crate::kernels::reduce::{fold, run_product, run_products};
use crate::kernels::strided_rows::Rows;
use crate::kernels::sum::sum_rows;
use crate::layout::{wrap_dim, Layout};
use crate::ops::formula::{c, signed, unsqueeze_dims};
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;

/// Wraps, sorts and checks a list of dims; `None` means every dim.
pub(crate) fn reduction_dims(dims: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(dims) = dims else { return Ok((0..ndim).collect()) };
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if out.contains(&w) {
            bail!(Runtime, "dim {w} appears multiple times in the list of dims");
        }
        out.push(w);
    }
    out.retain(|&d| d < ndim); // dim 0 of a 0-dim tensor reduces nothing
    out.sort_unstable();
    Ok(out)
}

pub(crate) fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if dims.contains(&i) { keepdim.then_some(1) } else { Some(d) })
        .collect()
}

/// Sum over `dims`, accumulating floats in f64 (accurate for any length).
fn sum_kernel(x: &Tensor, dims: &[usize]) -> Vec<f64> {
    if dims.is_empty() {
        return x.to_vec::<f64>();
    }
    // A broadcast (stride-0) dim repeats its values: summing it is a multiplication (the common case
    // of a gradient expanded from a reduction, summed back down to a broadcast input's shape).
    let l = x.layout();
    let repeated: Vec<usize> = dims.iter().copied().filter(|&d| l.strides[d] == 0 && l.shape[d] > 1).collect();
    if !repeated.is_empty() {
        let factor: usize = repeated.iter().map(|&d| l.shape[d]).product();
        let mut shape = l.shape.clone();
        for &d in &repeated {
            shape[d] = 1;
        }
        let once =
            Tensor::from_storage(x.storage().clone(), Layout { shape, strides: l.strides.clone(), offset: l.offset })
                .expect("a sub-layout of a valid layout");
        let mut sums = sum_kernel(&once, dims);
        sums.iter_mut().for_each(|v| *v *= factor as f64);
        return sums;
    }
    if let Some((r, outer, n, inner)) = dense_block(x.layout(), dims) {
        return crate::with_dtype!(x.dtype(), T => {
            x.with_data(|_, v: &[T]| crate::kernels::sum::sum_block(&v[r], outer, n, inner))
        });
    }
    if let Some(r) = x.layout().contiguous_range() {
        return crate::with_dtype!(x.dtype(), T => {
            x.with_data(|l, v: &[T]| sum_by_runs(&v[r], &l.shape, dims))
        });
    }
    if let Some((view, order)) = x.reduction_in_memory_order(dims) {
        return order.restore(sum_kernel(&view, &order.dims));
    }
    if let Some(rows) = (dims == [x.ndim() - 1]).then(|| Rows::of(x.layout())).flatten() {
        return crate::with_dtype!(x.dtype(), T => x.with_data(|_, v: &[T]| sum_rows(v, &rows)));
    }
    // Other strided data (a slice with steps) is summed as its row-major copy is, to the bit.
    // Folded element by element through the layout, the sum of an unbind view of
    // [64, 16, 3, 128] float32 took 429 µs (torch 12).
    sum_kernel(&x.row_major().expect("a copy of a valid tensor"), dims)
}

/// The sum of contiguous data over dims that are not all adjacent (a BatchNorm's `x.sum((0, 2, 3))`): the last
/// run of adjacent dims by the blocked kernel, then each earlier run over those float64 partial sums. Element by
/// element through the layout, that sum of 32×16×32×32 float32 took 1.0 ms.
fn sum_by_runs<T: Element>(v: &[T], shape: &[usize], dims: &[usize]) -> Vec<f64> {
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &d in &dims {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == d => *last = d,
            _ => runs.push((d, d)),
        }
    }
    let block = |shape: &[usize], (first, last): (usize, usize)| {
        let product = |s: &[usize]| s.iter().product::<usize>();
        (product(&shape[..first]), product(&shape[first..=last]), product(&shape[last + 1..]))
    };
    let Some(&innermost) = runs.last() else { return v.iter().map(|x| x.to_f64()).collect() };
    let (outer, n, inner) = block(shape, innermost);
    let mut sums = crate::kernels::sum::sum_block(v, outer, n, inner);
    // the runs before it keep their positions in the shape that remains
    let mut shape: Vec<usize> = shape.to_vec();
    shape.drain(innermost.0..=innermost.1);
    for &run in runs.iter().rev().skip(1) {
        let (outer, n, inner) = block(&shape, run);
        sums = crate::kernels::sum::sum_block(&sums, outer, n, inner);
        shape.drain(run.0..=run.1);
    }
    sums
}

/// Where the blocked, threaded sum kernel can read `l`'s data in place: its range, and the
/// (outer, summed, inner) block. Either `l` is contiguous with adjacent `dims`, or it is a dense
/// permutation (x.T) whose dims, put in memory order, are — when the kept dims keep their order
/// there, so the sums come out in the order of the result.
fn dense_block(l: &Layout, dims: &[usize]) -> Option<(std::ops::Range<usize>, usize, usize, usize)> {
    let in_place = |l: &Layout, dims: &[usize]| {
        let (outer, n, inner) = crate::kernels::sum::as_block(l, dims)?;
        Some((l.contiguous_range()?, outer, n, inner))
    };
    if let Some(block) = in_place(l, dims) {
        return Some(block);
    }
    let perm = l.memory_order()?;
    let kept: Vec<usize> = perm.iter().copied().filter(|d| !dims.contains(d)).collect();
    if !kept.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    let moved: Vec<usize> = (0..perm.len()).filter(|&i| dims.contains(&perm[i])).collect();
    in_place(&l.permute(&perm), &moved)
}

pub(crate) fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    crate::with_dtype!(dtype, T => Tensor::from_vec(crate::kernels::simd::map_slice(&values, T::from_f64), shape))
}

impl Tensor {
    /// When this tensor is a dense permutation of contiguous data (`x.T`, `x.permute(2, 1, 0)`): its elements as a
    /// contiguous view in memory order, and the reduction over `dims` restated for that view (see
    /// `MemoryOrderReduction`). A reduction then reads it in place instead of copying it to row-major first.
    pub(crate) fn reduction_in_memory_order(&self, dims: &[usize]) -> Option<(Tensor, MemoryOrderReduction)> {
        let order = MemoryOrderReduction::of(self.layout(), dims)?;
        let view = Tensor::from_storage(self.storage().clone(), order.layout.clone()).ok()?;
        Some((view, order))
    }

    /// `fold` over `dims`, a dense permutation read in memory order (its results then put back in their places). The
    /// order a result's values are folded in changes only when several dims are reduced.
    fn fold_in_memory_order<T: Element, A: Copy>(&self, dims: &[usize], init: A, f: impl Fn(A, T) -> A) -> Vec<A> {
        match self.reduction_in_memory_order(dims) {
            Some((view, order)) => order.restore(view.with_data(|l, x: &[T]| fold(l, x, &order.dims, init, f))),
            None => self.with_data(|l, x: &[T]| fold(l, x, dims, init, f)),
        }
    }

    /// `sum(dim=dims, keepdim)`; ints and bools sum to int64.
    pub fn sum(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let kind = if dims.is_none() { NodeKind::FullReduction } else { NodeKind::Opaque };
        let replay = || {
            let dims = dims.map(<[isize]>::to_vec);
            move |x: &[&Tensor]| x[0].sum_eager(dims.as_deref(), keepdim)
        };
        // fused, each chunk is summed by `sum_run`, the kernel `sum_block` runs for a contiguous full sum
        let kernel = |_: &Tensor| match dims {
            None => Some(SliceKernel::Reduce(Reduction::Sum)),
            Some(dims) => self.row_reduction(dims, keepdim, RowReduction::Sum),
        };
        traced_fusable("sum", kind, &[self], || self.sum_eager(dims, keepdim), replay, kernel)
    }

    /// The row kernel of a sum or mean over the last dim, kept, of at least two rows: `sum_block` sums each such row
    /// by `sum_run` (one row alone it splits across threads, so that one is not a row group's).
    pub(crate) fn row_reduction(&self, dims: &[isize], keepdim: bool, reduction: RowReduction) -> Option<SliceKernel> {
        let last = self.ndim().checked_sub(1)?;
        let row = *self.shape().last()?;
        let is_last = reduction_dims(Some(dims), self.ndim()).is_ok_and(|d| d == [last]);
        (is_last && keepdim && self.numel() / row.max(1) >= 2).then_some(SliceKernel::RowReduce { reduction, row })
    }

    fn sum_eager(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let (all, requested) = (dims.is_none(), dims);
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = if self.is_complex() {
            self.detach().complex_reduce(requested, keepdim, false)?
        } else if self.dtype().is_float() {
            from_f64s(sum_kernel(self, &dims), &shape, self.dtype())?
        } else {
            Tensor::from_vec(self.integer_sum(&dims), &shape)?
        };
        let self_sym_sizes = self.shape().to_vec();
        Ok(if all {
            record(out, &[self], |_| SumBackward0 { self_sym_sizes })
        } else {
            record(out, &[self], |_| SumBackward1 { self_sym_sizes, dim: dims, keepdim })
        })
    }

    /// The int64 sums of an integer or bool tensor over `dims` (wrapping, as torch's): contiguous rows read in their
    /// own type (a mask's count per row of 1000×1000: 746 → 60 µs), anything else folded through the layout as int64.
    fn integer_sum(&self, dims: &[usize]) -> Vec<i64> {
        if let Some((view, order)) = self.reduction_in_memory_order(dims) {
            return order.restore(view.integer_sum(&order.dims));
        }
        let rows = match (crate::kernels::sum::as_block(self.layout(), dims), self.layout().contiguous_range()) {
            (Some((outer, n, 1)), Some(range)) if n > 0 => Some((outer, n, range)),
            _ => None,
        };
        match rows {
            Some((outer, n, range)) => crate::with_dtype!(self.dtype(), T => self.with_data(|_, v: &[T]| {
                let rows = v[range].chunks_exact(n).take(outer);
                rows.map(|row| row.iter().fold(0i64, |a, &b| a.wrapping_add(b.to_i64()))).collect()
            })),
            None => self.with_data(|l, x: &[i64]| fold(l, x, dims, 0i64, |a, b| a.wrapping_add(b))),
        }
    }

    pub fn mean(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        // a full mean is not fused (a mean of chunk means is not the mean when the last chunk is shorter); a mean
        // over rows is, row by row
        let replay = || {
            let dims = dims.map(<[isize]>::to_vec);
            move |x: &[&Tensor]| x[0].mean_eager(dims.as_deref(), keepdim)
        };
        let kernel = |_: &Tensor| dims.and_then(|dims| self.row_reduction(dims, keepdim, RowReduction::Mean));
        traced_fusable("mean", NodeKind::Opaque, &[self], || self.mean_eager(dims, keepdim), replay, kernel)
    }

    fn mean_eager(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() && !self.is_complex() {
            bail!(
                NotImplemented,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. \
                    Got: {}",
                self.dtype().scalar_type_name()
            );
        }
        let all = dims.is_none();
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = if self.is_complex() {
            let requested: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            self.detach().complex_reduce(Some(&requested), keepdim, true)?
        } else {
            let count = dims.iter().map(|&d| self.shape()[d]).product::<usize>() as f64;
            let sums = sum_kernel(self, &dims);
            from_f64s(sums.into_iter().map(|s| s / count).collect(), &shape, self.dtype())?
        };
        let self_sym_sizes = self.shape().to_vec();
        Ok(if all {
            record(out, &[self], |_| MeanBackward0 { self_sym_numel: self.numel(), self_sym_sizes })
        } else {
            record(out, &[self], |_| MeanBackward1 { self_sym_numel: self.numel(), self_sym_sizes, dim: dims, keepdim })
        })
    }

    /// `all(dim, keepdim)` (`is_all`) or `any`: bool results (uint8 for a uint8 input, as torch);
    /// `dims` None reduces every dim.
    pub fn all_any(&self, dims: Option<&[isize]>, keepdim: bool, is_all: bool) -> Result<Tensor> {
        let dims = dims.map(<[isize]>::to_vec);
        let eager = move |x: &[&Tensor]| x[0].all_any_eager(dims.as_deref(), keepdim, is_all);
        let replay = eager.clone();
        traced(if is_all { "all" } else { "any" }, NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn all_any_eager(&self, dims: Option<&[isize]>, keepdim: bool, is_all: bool) -> Result<Tensor> {
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let v = if is_all {
            self.fold_in_memory_order(&dims, true, |a, b: bool| a && b)
        } else {
            self.fold_in_memory_order(&dims, false, |a, b: bool| a || b)
        };
        let out = Tensor::from_vec(v, &shape)?;
        Ok(if self.dtype() == DType::U8 { out.cast_detached(DType::U8) } else { out })
    }

    pub fn all(&self) -> Result<Tensor> {
        self.all_any(None, false, true)
    }

    pub fn any(&self) -> Result<Tensor> {
        self.all_any(None, false, false)
    }

    /// Sums a broadcast gradient back to `shape` (which must broadcast to this tensor's shape).
    pub fn sum_to_size(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let lead = match self.ndim().checked_sub(shape.len()) {
            Some(lead) => lead,
            None => bail!(Runtime, "size {{{:?}}} is not expandable to size {{{:?}}}.", shape, self.shape()),
        };
        let mut dims: Vec<isize> = (0..lead as isize).collect();
        for (i, &want) in shape.iter().enumerate() {
            let have = self.shape()[lead + i];
            if want == 1 && have != 1 {
                dims.push((lead + i) as isize);
            } else if want != have {
                bail!(Runtime, "size {{{:?}}} is not expandable to size {{{:?}}}.", shape, self.shape());
            }
        }
        let summed = if dims.is_empty() { self.clone() } else { self.sum(Some(&dims), true)? };
        if summed.shape() == shape {
            Ok(summed)
        } else {
            summed.reshape(shape)
        }
    }

    /// `prod` over all elements or one dim; ints and bools multiply to int64.
    pub fn prod(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        let all = dim.is_none();
        let dims = match dim {
            None => reduction_dims(None, self.ndim())?,
            Some(d) => reduction_dims(Some(&[d]), self.ndim())?,
        };
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = if let Some(products) = self.last_dim_products(&dims) {
            from_f64s(products, &shape, self.dtype())?
        } else if self.dtype().is_float() {
            from_f64s(self.fold_in_memory_order(&dims, 1.0, |a, b: f64| a * b), &shape, self.dtype())?
        } else {
            Tensor::from_vec(self.fold_in_memory_order(&dims, 1i64, |a, b: i64| a.wrapping_mul(b)), &shape)?
        };
        Ok(record(out, &[self], |out| ProdBackward {
            all,
            dim: dims,
            keepdim,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// `prod` of a float32/float64 tensor over its last dim (of n > 0), a run at a time; None otherwise.
    fn last_dim_products(&self, dims: &[usize]) -> Option<Vec<f64>> {
        let n = *self.shape().last()?;
        if dims != [self.ndim() - 1] || n == 0 || !matches!(self.dtype(), DType::F32 | DType::F64) {
            return None;
        }
        if let Some(rows) = (!self.is_contiguous()).then(|| Rows::of(self.layout())).flatten() {
            // a view's rows (one of `unbind`'s) read in place
            return crate::with_dtype!(self.dtype(), T => Some(self.with_data(|_, v: &[T]| rows.map(v, run_product))));
        }
        // other strided data from its row-major copy
        let x = self.row_major().ok()?;
        match x.dtype() {
            DType::F32 => x.with_data(|l, v: &[f32]| Some(run_products(&v[l.contiguous_range()?], n))),
            DType::F64 => x.with_data(|l, v: &[f64]| Some(run_products(&v[l.contiguous_range()?], n))),
            _ => None,
        }
    }

    /// var (`std` = false) or std with `correction` (1: unbiased), over `dims` (None: all).
    pub fn var_std(&self, dims: Option<&[isize]>, correction: f64, keepdim: bool, std: bool) -> Result<Tensor> {
        let dims = dims.map(<[isize]>::to_vec);
        let eager = move |x: &[&Tensor]| x[0].var_std_eager(dims.as_deref(), correction, keepdim, std);
        let replay = eager.clone();
        traced(if std { "std" } else { "var" }, NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn var_std_eager(&self, dims: Option<&[isize]>, correction: f64, keepdim: bool, std: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "std and var only support floating point and complex dtypes");
        }
        let dims_given = dims;
        let dims = reduction_dims(dims, self.ndim())?;
        let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
        let n = dims.iter().map(|&d| self.shape()[d]).product::<usize>() as f64;
        // torch accumulates float32 in float64 (so the std of [1e-30, 0] is 7e-31, not an underflowed 0)
        let x = if self.dtype() == DType::F64 { self.detach() } else { self.detach().to_dtype(DType::F64)? };
        let dev = x.sub(&x.mean(Some(&idims), true)?)?;
        let var = dev.mul(&dev)?.sum(Some(&idims), keepdim)?.div(&Tensor::scalar((n - correction).max(0.0)))?;
        let out = if std { var.sqrt()? } else { var }.to_dtype(self.dtype())?;
        Ok(record(out, &[self], |out| VarStdBackward {
            dim: dims,
            all_dims: dims_given.is_none() || self.ndim() == 0,
            correction,
            keepdim,
            self_: SavedTensor::input(self),
            result: std.then(|| SavedTensor::output(out)),
        }))
    }

    /// log(sum(exp(x))) over `dims`, shifted by the max for stability.
    pub fn logsumexp(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let x = if self.dtype().is_float() { self.detach() } else { self.to_dtype(crate::dtype::default_float())? };
        let dims_u = reduction_dims(Some(dims), self.ndim())?;
        let idims: Vec<isize> = dims_u.iter().map(|&d| d as isize).collect();
        let out = if x.numel() == 0 {
            x.sum(Some(&idims), keepdim)?.log()?
        } else {
            let m = x.amax_amin(Some(&idims), true, true, false)?;
            // an infinite max would make x - m NaN: shift by 0 there instead
            let m = Tensor::where_(&m.float_class(FloatClass::Infinite)?, &Tensor::scalar(0.0), &m)?;
            let s = x.sub(&m)?.exp()?.sum(Some(&idims), true)?.log()?.add(&m)?;
            if keepdim {
                s
            } else {
                squeeze_dims(&s, &dims_u)?
            }
        };
        Ok(record(out, &[self], |out| LogsumexpBackward0 {
            dim: dims_u,
            keepdim,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }
}

pub(crate) fn squeeze_dims(t: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let mut t = t.clone();
    for &d in dims.iter().rev() {
        t = t.squeeze_dim(d as isize)?;
    }
    Ok(t)
}

crate::backward_rule! {
    /// `sum()`: the gradient spread over every element.
    pub struct SumBackward0 {
        self_sym_sizes: Vec<usize>,
    }
}
impl Backward for SumBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.expand(&self.self_sym_sizes))
    }
}

crate::backward_rule! {
    /// `sum(dim, keepdim)`.
    pub struct SumBackward1 {
        self_sym_sizes: Vec<usize>,
        dim: Vec<usize>,
        keepdim: bool,
    }
}
impl Backward for SumBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(unsqueeze_dims(g, &self.dim, self.keepdim)?.expand(&self.self_sym_sizes))
    }
}

crate::backward_rule! {
    /// `mean()`.
    pub struct MeanBackward0 {
        self_sym_numel: usize,
        self_sym_sizes: Vec<usize>,
    }
}
impl Backward for MeanBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let n = self.self_sym_sizes.iter().product::<usize>() as f64;
        one(g.expand(&self.self_sym_sizes)?.div(&c(n)))
    }
}

crate::backward_rule! {
    /// `mean(dim, keepdim)`.
    pub struct MeanBackward1 {
        self_sym_numel: usize,
        self_sym_sizes: Vec<usize>,
        dim: Vec<usize>,
        keepdim: bool,
    }
}
impl Backward for MeanBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let n = self.dim.iter().map(|&d| self.self_sym_sizes[d]).product::<usize>() as f64;
        // divided before it is expanded (the same quotients, each computed once; a leaf's accumulation makes its
        // `.grad` contiguous): torch's `expand(...) / n` divides the expanded tensor, n times the work
        one(unsqueeze_dims(&g.div(&c(n))?, &self.dim, self.keepdim)?.expand(&self.self_sym_sizes))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.all) {
        true => "ProdBackward0",
        false => "ProdBackward1",
    };
    /// `prod()` (ProdBackward0) or `prod(dim)` (ProdBackward1): right with zeros among the factors.
    pub struct ProdBackward {
        all: bool,
        dim: Vec<usize>,
        keepdim: bool,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for ProdBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        if a.ndim() == 0 {
            // the product of one factor is that factor: the gradient passes as it is (also at 0, inf, NaN)
            return one(Ok(g.clone()));
        }
        let out = unsqueeze_dims(&out, &self.dim, self.keepdim)?;
        let g = unsqueeze_dims(g, &self.dim, self.keepdim)?;
        let zeros = a.eq(&c(0.0))?.to_dtype(crate::DType::I64)?.to_vec::<i64>().iter().sum::<i64>();
        // as torch: out / a without zeros; else the product of the others, from exclusive cumulative products
        // (so 0 * NaN stays NaN), except that prod() of two zeros or more is 0
        if zeros == 0 {
            return one(g.mul(&out)?.div(&a));
        }
        if self.all && zeros > 1 {
            return one(Tensor::zeros(a.shape(), a.dtype()).mul(&g));
        }
        let flat = self.all || self.dim.is_empty();
        let x = if flat { a.reshape(&[a.numel()])? } else { a.clone() };
        let d = if flat { 0 } else { self.dim[0] as isize };
        let n = x.shape()[d as usize] as isize;
        let mut ones_shape = x.shape().to_vec();
        ones_shape[d as usize] = 1;
        let ones = Tensor::ones(&ones_shape, x.dtype());
        let before = Tensor::cat(&[ones.clone(), x.narrow(d, 0, n - 1)?], d)?.cumprod(d)?;
        let after = Tensor::cat(&[ones, x.narrow(d, 1, n - 1)?.flip(&[d])?], d)?.cumprod(d)?.flip(&[d])?;
        let others = before.mul(&after)?;
        let others = if flat { others.reshape(a.shape())? } else { others };
        one(g.mul(&others))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.result.is_some()) {
        true => "StdBackward0",
        false => "VarBackward0",
    };
    /// `var` (VarBackward0) or `std` (StdBackward0, which keeps its result too).
    pub struct VarStdBackward {
        dim: Vec<usize>,
        /// no `dim` given (or a 0-d input): torch's formula then has its own rule for `correction >= n`
        all_dims: bool,
        correction: f64,
        keepdim: bool,
        self_: SavedTensor,
        result: Option<SavedTensor>,
    }
}
impl Backward for VarStdBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, std) = (ctx.unpack(&self.self_)?, ctx.unpack_opt(&self.result)?);
        let spread =
            Spread { dim: &self.dim, all_dims: self.all_dims, correction: self.correction, keepdim: self.keepdim };
        one(spread.grad(g, &a, std.as_ref()))
    }
}

/// What var and std reduced: the gradient rule shared by var/std and var_mean/std_mean.
pub(crate) struct Spread<'a> {
    pub dim: &'a [usize],
    /// no `dim` given (or a 0-d input): torch's formula then has its own rule for `correction >= n`
    pub all_dims: bool,
    pub correction: f64,
    pub keepdim: bool,
}

impl Spread<'_> {
    /// The gradient of var (`std` None) or of std (its result given) of `a` for the output's gradient `g`.
    pub(crate) fn grad(&self, g: &Tensor, a: &Tensor, std: Option<&Tensor>) -> Result<Tensor> {
        let n = self.dim.iter().map(|&d| a.shape()[d]).product::<usize>() as f64;
        let mean = a.mean(Some(&signed(self.dim)), true)?;
        let g = unsqueeze_dims(g, self.dim, self.keepdim)?;
        // std's gradient is var's for g / (2 std), 0 where std is 0
        let g_var = match std {
            Some(out) => {
                let out = unsqueeze_dims(out, self.dim, self.keepdim)?;
                Tensor::where_(&out.eq(&c(0.0))?, &c(0.0), &g.div(&out.mul(&c(2.0))?)?)?
            }
            None => g,
        };
        let dof = n - self.correction;
        if self.all_dims && dof <= 0.0 {
            // torch's limit of 2 / dof → inf: inf · (x - mean), NaN where x is the mean (inf · 0), else +inf
            let limit = Tensor::where_(&a.eq(&mean)?, &c(f64::NAN), &c(f64::INFINITY))?;
            return g_var.mul(&limit);
        }
        g_var.mul(&c(2.0 / dof))?.mul(&a.sub(&mean)?)
    }
}

crate::backward_rule! {
    /// `logsumexp(dim, keepdim)`: `g · exp(x - result)`.
    pub struct LogsumexpBackward0 {
        dim: Vec<usize>,
        keepdim: bool,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LogsumexpBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        let out = unsqueeze_dims(&out, &self.dim, self.keepdim)?;
        one(unsqueeze_dims(g, &self.dim, self.keepdim)?.mul(&x.sub(&out)?.exp()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dims in runs (and one run, and every dim) against the element-by-element fold through the layout.
    #[test]
    fn sums_by_runs_match_the_fold() {
        let shape = [3usize, 4, 5, 6];
        let l = Layout::contiguous(&shape);
        let x: Vec<f32> = (0..360).map(|i| ((i * 37) % 101) as f32 * 0.25 - 12.0).collect();
        for dims in [vec![0usize, 2, 3], vec![0, 2], vec![1, 3], vec![0, 1, 3], vec![0, 3], vec![2], vec![0, 1, 2, 3]] {
            let got = sum_by_runs(&x, &shape, &dims);
            let want = fold(&l, &x, &dims, 0.0f64, |a, b| a + b as f64);
            assert_eq!(got.len(), want.len(), "{dims:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{dims:?}: {g} vs {w}");
            }
        }
        assert_eq!(sum_by_runs::<f32>(&[], &[0, 3, 2], &[0, 2]), vec![0.0; 3]);
    }
}
