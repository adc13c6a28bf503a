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

/// The first `k` of a row's (value, position) pairs in sorted order, ties in their positions' order (what a stable
/// sort gives): the k-th picked out first when k < n, then only those k sorted, and the values sorted beside their
/// positions rather than positions sorted by reading the values through them. `topk(5, 1)` of 1000×1000 float32
/// sorted every row whole: 64 ms against torch's 1.0.
fn first_in_order<T: Element>(keyed: &mut [(T, usize)], k: usize, descending: bool) -> &[(T, usize)] {
    let order = |a: &(T, usize), b: &(T, usize)| {
        let by_value = if descending { ascending(b.0, a.0) } else { ascending(a.0, b.0) };
        by_value.then(a.1.cmp(&b.1))
    };
    if k == 0 {
        return &[];
    }
    if k < keyed.len() {
        keyed.select_nth_unstable_by(k - 1, order);
    }
    let first = &mut keyed[..k];
    first.sort_unstable_by(order);
    first
}

/// An integer whose order is `ascending`'s for float32 (reversed for `descending`): NaN above everything, every NaN
/// alike, -0 as 0 (so ties between them keep their positions' order, as the comparison sort does).
fn f32_key(v: f32, descending: bool) -> u32 {
    let bits = (v + 0.0).to_bits(); // -0 + 0 is +0
    let key = if v.is_nan() {
        u32::MAX
    } else if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    };
    if descending {
        !key
    } else {
        key
    }
}

/// `f32_key` for float64.
fn f64_key(v: f64, descending: bool) -> u64 {
    let bits = (v + 0.0).to_bits();
    let key = if v.is_nan() {
        u64::MAX
    } else if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    if descending {
        !key
    } else {
        key
    }
}

/// Each row's first `k` by `key(flat position, position in the row)` (unique keys: the position breaks ties, as a
/// stable sort), handed to `put(outer, inner, rank, position in the row)`. `topk(5, 1)` of 1000×1000 float32 took
/// 10 ms by comparing (value, position) pairs through `ascending`, torch 0.9.
fn sort_rows<K: Ord + Copy>(
    outer: usize,
    n: usize,
    inner: usize,
    k: usize,
    key: impl Fn(usize, usize) -> K,
    src_of: impl Fn(K) -> usize,
    put: &mut impl FnMut(usize, usize, usize, usize),
) {
    let mut keys: Vec<K> = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            keys.clear();
            keys.extend((0..n).map(|j| key((o * n + j) * inner + i, j)));
            if k == 0 {
                continue;
            }
            if k < n {
                keys.select_nth_unstable(k - 1);
            }
            keys[..k].sort_unstable();
            for (j, &key) in keys[..k].iter().enumerate() {
                put(o, i, j, src_of(key));
            }
        }
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
        let mut put = |o: usize, i: usize, j: usize, src: usize| {
            let dst = (o * k + j) * inner + i;
            pos[dst] = ((o * n + src) * inner + i) as i64;
            idx[dst] = src as i64;
        };
        if n <= u32::MAX as usize {
            // float32 and float64 rows by integer keys (value, position): one compare of two integers each
            let keyed = match self.dtype() {
                crate::DType::F32 => {
                    let values = self.to_vec::<f32>();
                    let key = |at: usize, j: usize| (u64::from(f32_key(values[at], descending)) << 32) | j as u64;
                    sort_rows(outer, n, inner, k, key, |key| (key & u64::from(u32::MAX)) as usize, &mut put);
                    true
                }
                crate::DType::F64 => {
                    let values = self.to_vec::<f64>();
                    let key = |at: usize, j: usize| (u128::from(f64_key(values[at], descending)) << 64) | j as u128;
                    sort_rows(outer, n, inner, k, key, |key| (key & u128::from(u64::MAX)) as usize, &mut put);
                    true
                }
                _ => false,
            };
            if keyed {
                return (pos, idx, out_shape);
            }
        }
        with_dtype!(self.dtype(), T => {
            let values = self.to_vec::<T>();
            let mut keyed: Vec<(T, usize)> = Vec::with_capacity(n);
            for o in 0..outer {
                for i in 0..inner {
                    let at = |j: usize| (o * n + j) * inner + i;
                    keyed.clear();
                    keyed.extend((0..n).map(|j| (values[at(j)], j)));
                    for (j, &(_, src)) in first_in_order(&mut keyed, k, descending).iter().enumerate() {
                        put(o, i, j, src);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stable sort by `ascending`: what the keyed rows must give.
    fn stable_order(row: &[f64], descending: bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| if descending { ascending(row[b], row[a]) } else { ascending(row[a], row[b]) });
        order
    }

    #[test]
    fn keyed_rows_sort_as_the_stable_comparison_at_nans_zeros_and_ties() {
        let row = [2.0, f64::NAN, -0.0, 1.0, 0.0, -f64::INFINITY, 2.0, -f64::NAN, f64::INFINITY, -1.5, 1.0, 0.0];
        let n = row.len();
        // (3, n, 2): each row of dim 1 is `row` shifted; float32 and float64 alike
        let values: Vec<f64> = (0..3 * n * 2).map(|p| row[(p / 2 % n + p / (2 * n)) % n]).collect();
        for dtype in [crate::DType::F32, crate::DType::F64] {
            let t = Tensor::from_vec(values.clone(), &[3, n, 2]).unwrap().to_dtype(dtype).unwrap();
            for descending in [false, true] {
                for k in [0, 1, 5, n] {
                    let (pos, idx, shape) = t.sorted_positions(1, k, descending);
                    assert_eq!(shape, vec![3, k, 2]);
                    for o in 0..3 {
                        for i in 0..2 {
                            let line: Vec<f64> = (0..n).map(|j| values[(o * n + j) * 2 + i]).collect();
                            let want = stable_order(&line, descending);
                            for (j, &src) in want.iter().enumerate().take(k) {
                                let at = (o * k + j) * 2 + i;
                                assert_eq!(idx[at], src as i64, "{dtype:?} desc={descending} k={k} ({o}, {j}, {i})");
                                assert_eq!(pos[at], ((o * n + src) * 2 + i) as i64);
                            }
                        }
                    }
                }
            }
        }
    }
}
