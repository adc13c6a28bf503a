//! sort, argsort and topk along one dim. Each row's order is found once; the values are then a
//! `take_flat` of the input, so the gradient goes back to the positions they came from.
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::cmp::Ordering;
use std::sync::Arc;

/// Ascending order with NaN as the largest value (NaNs tie with each other).
fn ascending<T: Element>(a: T, b: T) -> Ordering {
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
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        let (pos, idx, shape) = self.sorted_positions(d, n, descending);
        let indices = Tensor::from_vec(idx, &shape)?;
        Ok((self.take_flat(Arc::new(pos), &shape, "SortBackward0")?, indices))
    }

    /// `topk(k, dim, largest)`: the k largest (or smallest) along `dim`, in sorted order.
    pub fn topk(&self, k: isize, dim: isize, largest: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if k < 0 || k as usize > n {
            bail!(Runtime, "selected index k out of range");
        }
        // a 0-dim tensor is its own top element, whatever k (as in PyTorch)
        let k = if self.ndim() == 0 { 1 } else { k as usize };
        let (pos, idx, shape) = self.sorted_positions(d, k, largest);
        let indices = Tensor::from_vec(idx, &shape)?;
        Ok((self.take_flat(Arc::new(pos), &shape, "TopkBackward0")?, indices))
    }
}
