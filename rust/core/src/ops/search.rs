//! Distinct values and sorted-sequence lookups: unique, unique_consecutive, searchsorted, bucketize.
//! None has a gradient in PyTorch (their outputs are values picked by comparison or integer positions).
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::ops::sort::ascending;
use crate::tensor::Tensor;
use crate::with_dtype;
use crate::DType;

/// What `unique` and `unique_consecutive` return: the distinct values, each element's group (shaped as
/// the input) and each group's size.
pub struct Unique {
    pub values: Tensor,
    pub inverse: Tensor,
    pub counts: Tensor,
}

/// Groups of equal neighbours in `order` (indices into `values`); NaN equals nothing, not even
/// itself, as in PyTorch. Returns (first element of each group, group of each element, group sizes).
fn groups<T: Element>(values: &[T], order: &[usize]) -> (Vec<T>, Vec<i64>, Vec<i64>) {
    let (mut firsts, mut inverse, mut counts) = (Vec::new(), vec![0i64; values.len()], Vec::<i64>::new());
    let mut last: Option<T> = None;
    for &i in order {
        let v = values[i];
        if last.is_some_and(|l| l == v) {
            *counts.last_mut().expect("a group is open") += 1;
        } else {
            firsts.push(v);
            counts.push(1);
            last = Some(v);
        }
        inverse[i] = counts.len() as i64 - 1;
    }
    (firsts, inverse, counts)
}

impl Tensor {
    /// `unique(sorted, return_inverse, return_counts, dim=None)`: the distinct elements in ascending order
    /// (PyTorch on CPU sorts whatever `sorted` says); each NaN is its own value.
    pub fn unique(&self) -> Result<Unique> {
        self.grouped(true)
    }

    /// `unique_consecutive(dim=None)`: each run of equal neighbours (in row-major order) once.
    pub fn unique_consecutive(&self) -> Result<Unique> {
        self.grouped(false)
    }

    fn grouped(&self, sort: bool) -> Result<Unique> {
        with_dtype!(self.dtype(), T => {
            let values = self.to_vec::<T>();
            let mut order: Vec<usize> = (0..values.len()).collect();
            if sort {
                order.sort_by(|&a, &b| ascending(values[a], values[b]));
            }
            let (firsts, inverse, counts) = groups(&values, &order);
            let n = firsts.len();
            Ok(Unique {
                values: Tensor::from_vec(firsts, &[n])?,
                inverse: Tensor::from_vec(inverse, self.shape())?,
                counts: Tensor::from_vec(counts, &[n])?,
            })
        })
    }

    /// `searchsorted(self, values, right, sorter)`: for each value, the index in this sorted sequence
    /// (its last dim) where it would be inserted: before equal elements, or after them when `right`.
    /// A leading-dims-matching N-d sequence searches row by row; a 1-d one serves every value. NaN sorts
    /// last, as PyTorch's comparisons put it. `sorter` (int64, this shape) gives the sorted order.
    pub fn searchsorted(
        &self,
        values: &Tensor,
        right: bool,
        sorter: Option<&Tensor>,
        out_int32: bool,
    ) -> Result<Tensor> {
        let (bshape, vshape) = (self.shape(), values.shape());
        if bshape.is_empty() {
            bail!(
                Runtime,
                "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
            );
        }
        if bshape.len() > 1 && vshape.is_empty() {
            bail!(
                Runtime,
                "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we \
                 got boundaries tensor dim({}) and input value's dim(0) numel(1)",
                bshape.len()
            );
        }
        if bshape.len() > 1
            && (bshape.len() != vshape.len() || bshape[..bshape.len() - 1] != vshape[..vshape.len() - 1])
        {
            bail!(
                Runtime,
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of \
                 boundaries tensor and input value tensor must match, but we got boundaries tensor {:?} and input \
                 value tensor {:?}",
                bshape,
                vshape
            );
        }
        let m = bshape[bshape.len() - 1];
        let order = match sorter {
            None => None,
            Some(s) => {
                if s.dtype() != DType::I64 {
                    bail!(
                        Runtime,
                        "torch.searchsorted(): sorter must be a tensor of long dtype but got {}",
                        s.dtype().scalar_type_name()
                    );
                }
                if s.shape() != bshape {
                    bail!(
                        Runtime,
                        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor \
                         {:?}and got sorter tensor {:?}",
                        bshape,
                        s.shape()
                    );
                }
                let idx = s.to_vec::<i64>();
                if idx.iter().any(|&i| i < 0 || i as usize >= m) {
                    bail!(Runtime, "torch.searchsorted(): sorter index out of range");
                }
                Some(idx)
            }
        };
        let per_row = if bshape.len() == 1 { values.numel() } else { vshape[vshape.len() - 1] };
        let both_int = !self.dtype().is_float() && !values.dtype().is_float();
        let found = if both_int {
            lookups(&self.to_vec::<i64>(), &values.to_vec::<i64>(), m, per_row, order.as_deref(), right)
        } else {
            lookups(&self.to_vec::<f64>(), &values.to_vec::<f64>(), m, per_row, order.as_deref(), right)
        };
        if out_int32 {
            Tensor::from_vec(found.into_iter().map(|i| i as i32).collect::<Vec<_>>(), vshape)
        } else {
            Tensor::from_vec(found, vshape)
        }
    }

    /// `bucketize(self, boundaries, right)`: `searchsorted(boundaries, self, right)` with 1-d boundaries.
    pub fn bucketize(&self, boundaries: &Tensor, right: bool, out_int32: bool) -> Result<Tensor> {
        if boundaries.ndim() != 1 {
            bail!(Runtime, "boundaries tensor must be 1 dimension, but got dim({})", boundaries.ndim());
        }
        boundaries.searchsorted(self, right, None, out_int32)
    }
}

/// Binary search of each value in its row of `seq` (`m` long, `per_row` values to a row; one row when the
/// values outnumber it): the first position whose element is not below the value (not above, when
/// `right`), with PyTorch's predicates so that NaN, which compares false, lands at the end.
fn lookups<T: Copy + PartialOrd>(
    seq: &[T],
    values: &[T],
    m: usize,
    per_row: usize,
    order: Option<&[i64]>,
    right: bool,
) -> Vec<i64> {
    let rows = seq.len().checked_div(m).unwrap_or(0);
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let row = if rows <= 1 { 0 } else { i / per_row.max(1) };
            let at = |k: usize| {
                let k = order.map_or(k, |o| o[row * m + k] as usize);
                seq[row * m + k]
            };
            let (mut lo, mut hi) = (0usize, m);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let s = at(mid);
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                let go_right = if right { !(s > v) } else { !(s >= v) };
                if go_right {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo as i64
        })
        .collect()
}
