//! `sparse_mm`: a sparse COO matrix (row and column of each stored entry, and its value) times a dense
//! matrix, the product graph networks take every layer. Entries are added into their output row one by one,
//! so duplicates (an uncoalesced matrix) count as their sum. Gradients go to the values (one per entry,
//! `grad[row] · dense[col]`) and to the dense operand (the transposed sparse matrix times the gradient).
use crate::autograd::{grad_mode, record, Backward, Ctx, Grads};
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::ops::index::Positions;
use crate::tensor::Tensor;
use crate::{with_dtype, DType};
use std::sync::Arc;

/// Which call made the product: its node is named as PyTorch names it (`torch.sparse.mm` records
/// `SparseAddmmBackward0`, `torch.mm`/`spmm`/`@` record `MmBackward0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparseMmCall {
    Mm,
    SparseMm,
}

impl Tensor {
    /// `S @ dense` for the `rows × dense.shape[0]` sparse matrix with entries `values[k]` at
    /// (`indices[0, k]`, `indices[1, k]`); `indices` is int64 of shape `[2, nnz]`, `values` 1-D.
    pub fn sparse_mm(
        indices: &Tensor,
        values: &Tensor,
        dense: &Tensor,
        rows: usize,
        cols: usize,
        call: SparseMmCall,
    ) -> Result<Tensor> {
        if indices.dtype() != DType::I64 || indices.ndim() != 2 || indices.shape()[0] != 2 {
            bail!(Runtime, "sparse_mm: indices must be an int64 tensor of shape [2, nnz], got {:?}", indices.shape());
        }
        let nnz = indices.shape()[1];
        if values.ndim() != 1 || values.shape()[0] != nnz {
            bail!(Runtime, "sparse_mm: values must be 1-D with {nnz} entries, got {:?}", values.shape());
        }
        if dense.ndim() != 2 {
            bail!(
                Index,
                "Dimension out of range (expected to be in range of [-{n}, {m}], but got 1)",
                n = dense.ndim().max(1),
                m = dense.ndim().max(1) - 1
            );
        }
        if dense.shape()[0] != cols {
            bail!(Runtime, "addmm: Argument #3 (dense): Expected dim 0 size {cols}, got {}", dense.shape()[0]);
        }
        if values.dtype() != dense.dtype() {
            bail!(
                Runtime,
                "expected scalar type {} but found {}",
                values.dtype().scalar_type_name(),
                dense.dtype().scalar_type_name()
            );
        }
        let flat = indices.contiguous()?.to_vec::<i64>();
        let (row, col) = flat.split_at(nnz);
        if let Some(r) = row.iter().find(|&&r| r < 0 || r as usize >= rows) {
            bail!(Index, "sparse_mm: row index {r} is out of bounds for size {rows}");
        }
        if let Some(c) = col.iter().find(|&&c| c < 0 || c as usize >= cols) {
            bail!(Index, "sparse_mm: column index {c} is out of bounds for size {cols}");
        }
        let (row, col): (Positions, Positions) = (Arc::new(row.to_vec()), Arc::new(col.to_vec()));
        entries_times_dense(row, col, values, dense, rows, call)
    }
}

/// The product for checked entry positions (the backward calls it again with rows and columns swapped).
fn entries_times_dense(
    row: Positions,
    col: Positions,
    values: &Tensor,
    dense: &Tensor,
    rows: usize,
    call: SparseMmCall,
) -> Result<Tensor> {
    let width = dense.shape()[1];
    let Some(len) = rows.checked_mul(width) else {
        bail!(Runtime, "sparse_mm: the result's size {rows} x {width} is too large");
    };
    let (v, d) = (values.detach().contiguous()?, dense.detach().contiguous()?);
    let out = with_dtype!(d.dtype(), T => {
        let mut out: Vec<T> = crate::pool::try_filled(len, T::ZERO)?;
        v.with_data(|vl, vs: &[T]| d.with_data(|dl, ds: &[T]| {
            let vs = &vs[vl.contiguous_range().expect("contiguous")];
            let ds = &ds[dl.contiguous_range().expect("contiguous")];
            for ((&r, &c), &x) in row.iter().zip(col.iter()).zip(vs) {
                let src = &ds[c as usize * width..][..width];
                let dst = &mut out[r as usize * width..][..width];
                dst.iter_mut().zip(src).for_each(|(o, &s)| *o = T::add(*o, T::mul(x, s)));
            }
        }));
        Tensor::from_vec(out, &[rows, width])?
    });
    let cols = dense.shape()[0];
    Ok(record(out, &[values, dense], |_| SparseMmBackward {
        row,
        col,
        values: dense.requires_grad().then(|| crate::autograd::SavedTensor::input(values)),
        dense: values.requires_grad().then(|| crate::autograd::SavedTensor::input(dense)),
        rows,
        cols,
        sparse_grad: call == SparseMmCall::SparseMm,
    }))
}

/// `grad[row[k]] · dense[col[k]]` for each entry k: the values' gradient, in one pass (no graph).
fn entry_dots(row: &[i64], col: &[i64], g: &Tensor, dense: &Tensor) -> Result<Tensor> {
    let width = dense.shape()[1];
    let (g, d) = (g.contiguous()?, dense.contiguous()?);
    with_dtype!(d.dtype(), T => g.with_data(|gl, gs: &[T]| d.with_data(|dl, ds: &[T]| {
        let gs = &gs[gl.contiguous_range().expect("contiguous")];
        let ds = &ds[dl.contiguous_range().expect("contiguous")];
        let dots: Vec<T> = row
            .iter()
            .zip(col)
            .map(|(&r, &c)| {
                let (a, b) = (&gs[r as usize * width..][..width], &ds[c as usize * width..][..width]);
                a.iter().zip(b).fold(T::ZERO, |acc, (&x, &y)| T::add(acc, T::mul(x, y)))
            })
            .collect();
        Tensor::from_vec(dots, &[row.len()])
    })))
}

crate::backward_rule! {
    name_by = |rule| match (rule.sparse_grad) {
        true => "SparseAddmmBackward0",
        false => "MmBackward0",
    };
    /// `S @ dense` for S given by entries. Each operand is kept only for the other's gradient.
    pub struct SparseMmBackward {
        /// The output row of each entry.
        row: Positions,
        /// The dense operand's row each entry multiplies.
        col: Positions,
        values: Option<crate::autograd::SavedTensor>,
        dense: Option<crate::autograd::SavedTensor>,
        rows: usize,
        cols: usize,
        /// Made by `torch.sparse.mm` (its name), not `torch.mm`.
        sparse_grad: bool,
    }
}
impl Backward for SparseMmBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let grad_values = ctx.grad_if(0, || {
            let dense = ctx.unpack_opt(&self.dense)?.expect("saved when needed");
            if grad_mode::is_enabled() {
                // recorded (double backward): the same dots written with differentiable ops
                let at = |p: &Positions| Tensor::from_vec(p.to_vec(), &[p.len()]);
                let picked = g.index_select(0, &at(&self.row)?)?.mul(&dense.index_select(0, &at(&self.col)?)?)?;
                return picked.sum(Some(&[1]), false);
            }
            entry_dots(&self.row, &self.col, g, &dense)
        })?;
        let grad_dense = ctx.grad_if(1, || {
            let values = ctx.unpack_opt(&self.values)?.expect("saved when needed");
            let call = if self.sparse_grad { SparseMmCall::SparseMm } else { SparseMmCall::Mm };
            entries_times_dense(self.col.clone(), self.row.clone(), &values, g, self.cols, call)
        })?;
        Ok(vec![grad_values, grad_dense])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> (Tensor, Tensor) {
        // [[0, 0, 4], [4, 0, 5]] with (0, 2) stored twice (3 + 1)
        let idx = Tensor::from_vec(vec![0i64, 1, 1, 0, 2, 0, 2, 2], &[2, 4]).unwrap();
        (idx, Tensor::from_vec(vec![3.0f64, 4.0, 5.0, 1.0], &[4]).unwrap())
    }

    #[test]
    fn product_sums_duplicate_entries() {
        let (idx, vals) = entries();
        let d = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
        let out = Tensor::sparse_mm(&idx, &vals, &d, 2, 3, SparseMmCall::Mm).unwrap();
        assert_eq!(out.to_vec::<f64>(), vec![20.0, 24.0, 29.0, 38.0]);
    }

    #[test]
    fn bad_entries_and_shapes_are_errors() {
        let (idx, vals) = entries();
        let d = Tensor::zeros(&[3, 2], DType::F64);
        assert!(Tensor::sparse_mm(&idx, &vals, &d, 1, 3, SparseMmCall::Mm).is_err());
        assert!(Tensor::sparse_mm(&idx, &vals, &Tensor::zeros(&[4, 2], DType::F64), 2, 3, SparseMmCall::Mm).is_err());
        assert!(Tensor::sparse_mm(&idx, &vals, &Tensor::zeros(&[3, 2], DType::F32), 2, 3, SparseMmCall::Mm).is_err());
        assert!(Tensor::sparse_mm(&vals, &vals, &d, 2, 3, SparseMmCall::Mm).is_err());
        // a result no machine holds is an error before any allocation
        assert!(Tensor::sparse_mm(&idx, &vals, &d, usize::MAX / 2, 3, SparseMmCall::Mm).is_err());
    }
}
