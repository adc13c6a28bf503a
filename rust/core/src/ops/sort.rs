//! sort, argsort, topk and median along one dim. Each row's order is found once; the values are then a
//! `take_flat` of the input, so the gradient goes back to the positions they came from.
use crate::autograd::SavedTensor;
use crate::bail;
use crate::compile::traced_pair;
use crate::element::Element;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::cmp::Ordering;
use std::sync::Arc;

/// Ascending order with NaN as the largest value (NaNs tie with each other); `unique` orders by it too.
pub(crate) fn ascending<T: Element>(a: T, b: T) -> Ordering {
    #[allow(clippy::eq_op)]
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

impl Tensor {
    /// The first `k` elements of each row along `dim` in sorted order (stable: ties keep their
    /// input order): (flat row-major positions into this tensor, indices along `dim`, output shape).
    fn sorted_positions(&self, dim: usize, k: usize, descending: bool) -> (Vec<i64>, Vec<i64>, Vec<usize>) {
        let shape = self.shape().to_vec();
        let n = if shape.is_empty() { 1 } else { shape[dim] };
        let inner: usize = shape.iter().skip(dim + 1).product();
        let outer = self.numel().checked_div(n * inner).unwrap_or(0);
        let mut out_shape = shape.clone();
        if !out_shape.is_empty() {
            out_shape[dim] = k;
        }
        let total = crate::layout::numel(&[outer, k, inner]);
        let (mut pos, mut idx) = (crate::pool::filled(total, 0i64), crate::pool::filled(total, 0i64));
        with_dtype!(self.dtype(), T => {
            let values = self.to_vec::<T>();
            let mut order: Vec<usize> = Vec::with_capacity(n);
            for o in 0..outer {
                for i in 0..inner {
                    let at = |j: usize| (o * n + j) * inner + i;
                    order.clear();
                    order.extend(0..n);
                    if descending {
                        order.sort_by(|&a, &b| ascending(values[at(b)], values[at(a)]));
                    } else {
                        order.sort_by(|&a, &b| ascending(values[at(a)], values[at(b)]));
                    }
                    for (j, &src) in order.iter().take(k).enumerate() {
                        let dst = (o * k + j) * inner + i;
                        pos[dst] = at(src) as i64;
                        idx[dst] = src as i64;
                    }
                }
            }
        });
        (pos, idx, out_shape)
    }

    /// `sort(dim, descending)`: (values, indices); NaN sorts as the largest value.
    pub fn sort(&self, dim: isize, descending: bool) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].sort_eager(dim, descending).map(|(v, i)| vec![v, i]);
        traced_pair("sort", &[self], || eager(&[self]), || eager)
    }

    fn sort_eager(&self, dim: isize, descending: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        let (pos, idx, shape) = self.sorted_positions(d, n, descending);
        let indices = Tensor::from_vec(idx, &shape)?;
        let node =
            SortBackward0 { dim: d, indices: SavedTensor::input(&indices), self_sym_sizes: self.shape().to_vec() };
        Ok((self.take_flat(Arc::new(pos), &shape, node)?, indices))
    }

    /// `topk(k, dim, largest)`: the k largest (or smallest) along `dim`, in sorted order.
    pub fn topk(&self, k: isize, dim: isize, largest: bool) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].topk_eager(k, dim, largest).map(|(v, i)| vec![v, i]);
        traced_pair("topk", &[self], || eager(&[self]), || eager)
    }

    fn topk_eager(&self, k: isize, dim: isize, largest: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if k < 0 || k as usize > n {
            bail!(Runtime, "selected index k out of range");
        }
        // a 0-dim tensor is its own top element, whatever k (as in PyTorch)
        let k = if self.ndim() == 0 { 1 } else { k as usize };
        let (pos, idx, shape) = self.sorted_positions(d, k, largest);
        let indices = Tensor::from_vec(idx, &shape)?;
        let node =
            TopkBackward0 { dim: d, indices: SavedTensor::input(&indices), self_sym_sizes: self.shape().to_vec() };
        Ok((self.take_flat(Arc::new(pos), &shape, node)?, indices))
    }
    /// `median(dim, keepdim)`: (values, indices) of each row's lower median, the ((n-1)/2)-th element of a
    /// stable ascending sort, so ties pick the index torch picks; a row holding NaN gives its first NaN.
    /// The gradient goes to that index (MedianBackward1).
    pub fn median_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"median_out\" not implemented for 'Bool'");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if n == 0 {
            bail!(Index, "median(): Expected reduction dim {d} to have non-zero size.");
        }
        let (pos, idx, _) = self.sorted_positions(d, n, false);
        let inner: usize = self.shape().iter().skip(d + 1).product();
        // the dims before `d` (not numel / (n * inner): `inner` is 0 for a row of empty columns)
        let outer: usize = self.shape().iter().take(d).product();
        let (mut out_pos, mut out_idx) = (Vec::with_capacity(outer * inner), Vec::with_capacity(outer * inner));
        with_dtype!(self.dtype(), T => {
            let values = self.to_vec::<T>();
            for o in 0..outer {
                for i in 0..inner {
                    let at = |j: usize| (o * n + j) * inner + i;
                    #[allow(clippy::eq_op)]
                    let first_nan = (0..n).find(|&j| { let v = values[pos[at(j)] as usize]; v != v });
                    let j = first_nan.unwrap_or((n - 1) / 2);
                    out_pos.push(pos[at(j)]);
                    out_idx.push(idx[at(j)]);
                }
            }
        });
        let mut shape = self.shape().to_vec();
        if !shape.is_empty() {
            if keepdim {
                shape[d] = 1;
            } else {
                shape.remove(d);
            }
        }
        let indices = Tensor::from_vec(out_idx, &shape)?;
        let sizes = self.shape().to_vec();
        let node = MedianBackward1 { dim: d, indices: SavedTensor::input(&indices), keepdim, self_sym_sizes: sizes };
        Ok((self.take_flat(Arc::new(out_pos), &shape, node)?, indices))
    }

    /// `median()`: the lower median of all elements (NaN if any is NaN, or if there are none); the gradient is
    /// shared evenly among the elements equal to it (MedianBackward0).
    pub fn median(&self) -> Result<Tensor> {
        use crate::autograd::record;
        use crate::ops::extreme::{ExtremeBackward, ExtremeFn};
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"median_cpu\" not implemented for 'Bool'");
        }
        let out = if self.numel() == 0 {
            if !self.dtype().is_float() {
                bail!(Index, "median(): Expected reduction dim to be specified for input.numel() == 0.");
            }
            Tensor::full(&[], crate::Scalar::Float(f64::NAN), self.dtype())
        } else {
            self.detach().reshape(&[self.numel()])?.median_dim(0, false)?.0
        };
        let dims: Vec<usize> = (0..self.ndim()).collect();
        Ok(record(out, &[self], |out| ExtremeBackward::new(ExtremeFn::Median, dims, self, out)))
    }
}

// The nodes of the sorting ops' values (each output's gradient goes back to where `indices` took it from).
crate::backward_rule! {
    pub struct SortBackward0 { dim: usize, indices: SavedTensor, self_sym_sizes: Vec<usize> }
}
crate::backward_rule! {
    pub struct TopkBackward0 { dim: usize, indices: SavedTensor, self_sym_sizes: Vec<usize> }
}
crate::backward_rule! {
    pub struct MedianBackward1 { dim: usize, indices: SavedTensor, keepdim: bool, self_sym_sizes: Vec<usize> }
}
