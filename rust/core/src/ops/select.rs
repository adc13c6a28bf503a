//! Order statistics that pick one element of each row along a dim: `kthvalue`, `mode` and `nanmedian`
//! (and `nanmedian()` of all elements). Each row is ordered as torch's CPU kernel orders it
//! (`kernels::cxx_order`), so ties give torch's index; the gradient goes to that index.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::cxx_order::{aten_quick_select, cxx_nth_element, cxx_sort};
use crate::layout::wrap_dim;
use crate::ops::extreme::{picked_grad, ExtremeBackward, ExtremeFn};
use crate::tensor::Tensor;
use crate::{with_dtype, DType};

#[allow(clippy::eq_op)]
pub(crate) fn is_nan<T: Element>(v: T) -> bool {
    v != v
}

/// torch's `gt_or_nan`: NaN above every number.
fn gt_or_nan<T: Element>(a: &(T, i64), b: &(T, i64)) -> bool {
    (is_nan(a.0) && !is_nan(b.0)) || a.0 > b.0
}

/// Which op picked the elements (their gradients agree; their names differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Picked {
    Kthvalue,
    Mode,
    Nanmedian,
}

impl crate::autograd::AsField for Picked {
    fn as_field(&self) -> crate::autograd::Field<'_> {
        crate::autograd::Field::Opaque
    }
}

/// One `(value, index)` per row of `x` along `d`, chosen by `pick` from the row's `(value, index)` pairs
/// (which it may reorder); the values in the result's shape, and the int64 indices.
fn pick_rows<T: Element>(
    x: &Tensor,
    d: usize,
    keepdim: bool,
    mut pick: impl FnMut(&mut Vec<(T, i64)>) -> (T, i64),
) -> Result<(Tensor, Tensor)> {
    let shape = x.shape();
    let n = if shape.is_empty() { 1 } else { shape[d] };
    let inner: usize = shape.iter().skip(d + 1).product();
    let outer: usize = shape.iter().take(d).product();
    let values = x.to_vec::<T>();
    let (mut out, mut idx) = (Vec::with_capacity(outer * inner), Vec::with_capacity(outer * inner));
    let mut row = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            row.clear();
            row.extend((0..n).map(|j| (values[(o * n + j) * inner + i], j as i64)));
            let (v, at) = pick(&mut row);
            out.push(v);
            idx.push(at);
        }
    }
    let mut out_shape = shape.to_vec();
    if !out_shape.is_empty() {
        if keepdim {
            out_shape[d] = 1;
        } else {
            out_shape.remove(d);
        }
    }
    Ok((Tensor::from_vec(out, &out_shape)?, Tensor::from_vec(idx, &out_shape)?))
}

/// The lower median of a row's values that are not NaN, as torch's `nanmedian` finds it: an
/// `nth_element` of the positions ordered by (value, position), NaNs last; a row of NaNs keeps the
/// position libstdc++'s introselect leaves first.
fn nan_median_of<T: Element>(row: &mut [(T, i64)]) -> (T, i64) {
    let nans = row.iter().filter(|p| is_nan(p.0)).count();
    let nth = (row.len() - nans).saturating_sub(1) / 2;
    cxx_nth_element(row, nth, &|a: &(T, i64), b: &(T, i64)| {
        a.0 < b.0 || (a.0 == b.0 && a.1 < b.1) || (is_nan(b.0) && !is_nan(a.0))
    });
    row[nth]
}

/// The most frequent value of a row (ties: the smallest), at the index torch's mode kernel reports: the
/// last of its run after libstdc++'s `std::sort` by value.
fn mode_of<T: Element>(row: &mut [(T, i64)]) -> (T, i64) {
    cxx_sort(row, &|a: &(T, i64), b: &(T, i64)| a.0 < b.0);
    let (mut best, mut best_count, mut run) = ((T::ZERO, 0), 0usize, 0usize);
    for i in 0..row.len() {
        run += 1;
        if i + 1 == row.len() || row[i].0 != row[i + 1].0 {
            if run > best_count {
                best = row[i];
                best_count = run;
            }
            run = 0;
        }
    }
    best
}

impl Tensor {
    fn check_picked_dim(&self, name: &str, dim: isize) -> Result<usize> {
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() > 0 && self.shape()[d] == 0 {
            bail!(Index, "{name}(): Expected reduction dim {d} to have non-zero size.");
        }
        Ok(d)
    }

    fn record_picked(
        &self,
        picked: Picked,
        d: usize,
        keepdim: bool,
        values: Tensor,
        indices: Tensor,
    ) -> (Tensor, Tensor) {
        let rule = |_: &Tensor| PickedBackward {
            picked,
            dim: if self.ndim() == 0 { None } else { Some(d) },
            indices: SavedTensor::input(&indices),
            keepdim,
            self_sym_sizes: self.shape().to_vec(),
        };
        (record(values, &[self], rule), indices)
    }

    /// `kthvalue(k, dim, keepdim)`: the k-th smallest of each row (NaN above every number) and its index.
    pub fn kthvalue(&self, k: i64, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"kthvalue_cpu\" not implemented for 'Bool'");
        }
        let d = self.check_picked_dim("kthvalue", dim)?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if k < 1 || k as u64 > n as u64 {
            bail!(Runtime, "kthvalue(): selected number k out of range for dimension {d}");
        }
        let at = (k - 1) as usize;
        let (values, indices) = with_dtype!(self.dtype(), T => pick_rows::<T>(self, d, keepdim, |row| {
            aten_quick_select(row, at, &gt_or_nan::<T>);
            row[at]
        })?);
        Ok(self.record_picked(Picked::Kthvalue, d, keepdim, values, indices))
    }

    /// `mode(dim, keepdim)`: the most frequent value of each row (ties: the smallest) and an index of it.
    pub fn mode(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = self.check_picked_dim("mode", dim)?;
        let (values, indices) = with_dtype!(self.dtype(), T => pick_rows::<T>(self, d, keepdim, |row| mode_of(row))?);
        Ok(self.record_picked(Picked::Mode, d, keepdim, values, indices))
    }

    /// `nanmedian(dim, keepdim)`: the lower median of each row's values that are not NaN (NaN for a row of
    /// NaNs) and its index.
    pub fn nanmedian_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"median_out\" not implemented for 'Bool'");
        }
        let d = self.check_picked_dim("median", dim)?;
        let (values, indices) =
            with_dtype!(self.dtype(), T => pick_rows::<T>(self, d, keepdim, |row| nan_median_of(row))?);
        Ok(self.record_picked(Picked::Nanmedian, d, keepdim, values, indices))
    }

    /// `nanmedian()`: the lower median of the elements that are not NaN (NaN if all are, or if there are
    /// none and the dtype is float); the gradient is shared evenly among the elements equal to it (NanmedianBackward0).
    pub fn nanmedian(&self) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"median_cpu\" not implemented for 'Bool'");
        }
        let out = if self.numel() == 0 {
            // torch's NaN cast to the dtype as x86 converts it: the 32/64-bit "integer indefinite" value
            let empty = match self.dtype() {
                DType::I64 => crate::Scalar::Int(i64::MIN),
                DType::I32 => crate::Scalar::Int(i32::MIN.into()),
                d if d.is_float() => crate::Scalar::Float(f64::NAN),
                _ => crate::Scalar::Int(0),
            };
            Tensor::full(&[], empty, self.dtype())
        } else {
            self.detach().reshape(&[self.numel()])?.nanmedian_dim(0, false)?.0
        };
        let dims: Vec<usize> = (0..self.ndim()).collect();
        Ok(record(out, &[self], |out| ExtremeBackward::new(ExtremeFn::Nanmedian, dims, self, out)))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.picked) {
        Picked::Kthvalue => "KthvalueBackward0",
        Picked::Mode => "ModeBackward0",
        Picked::Nanmedian => "NanmedianBackward1",
    };
    /// kthvalue/mode/nanmedian along a dim: the gradient goes to the index that was picked.
    pub struct PickedBackward {
        picked: Picked,
        dim: Option<usize>,
        indices: SavedTensor,
        keepdim: bool,
        self_sym_sizes: Vec<usize>,
    }
}
impl Backward for PickedBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let Some(dim) = self.dim else { return one(Ok(g.clone())) };
        one(picked_grad(g, &ctx.unpack(&self.indices)?, &self.self_sym_sizes, dim, self.keepdim))
    }
}
