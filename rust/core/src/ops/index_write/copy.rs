//! `index_copy(dim, index, source)`: the slices of `dim` that `index` names replaced by `source`'s.
use super::{dim_size, slice_positions};
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;

/// torch's text for a slice shape in index_copy's errors: the sizes without `dim`, space-separated.
fn slice_shape(shape: &[usize], dim: usize) -> String {
    let sizes: Vec<String> = shape.iter().enumerate().filter(|&(d, _)| d != dim).map(|(_, s)| s.to_string()).collect();
    sizes.join(" ")
}

impl Tensor {
    /// `index_copy(dim, index, source)`: slice `index[k]` of `dim` set to slice `k` of `source` (same
    /// dtype as self; int64 `index`, no negative indices, as torch's).
    pub fn index_copy(&self, dim: isize, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        if index.ndim() > 1 {
            bail!(Index, "index_copy_(): Index should have dimension 1 or 0 (got {})", index.ndim());
        }
        let (self_scalar, source_scalar) = (self.ndim() == 0, source.ndim() == 0);
        if !self_scalar && !source_scalar && self.ndim() != source.ndim() {
            bail!(
                Index,
                "index_copy_(): When source and destination are not scalars, their dimensionality must match. \
                Source dimensionality ({}), destination dimensionality ({})",
                source.ndim(),
                self.ndim()
            );
        }
        if index.dtype() != DType::I64 {
            bail!(
                Runtime,
                "index_copy_(): Expected a long tensor for index, but got {}",
                index.dtype().scalar_type_name()
            );
        }
        let source_rows = if source_scalar { 1 } else { source.shape()[d] };
        if index.numel() != source_rows {
            bail!(
                Index,
                "index_copy_(): Number of indices ({}) should be equal to source.size(dim) ({source_rows})",
                index.numel()
            );
        }
        if !self_scalar && !source_scalar && slice_shape(self.shape(), d) != slice_shape(source.shape(), d) {
            bail!(
                Runtime,
                "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: {} \
                at dimension {d} and source slice shape: {} at dimension 0.",
                slice_shape(self.shape(), d),
                slice_shape(source.shape(), d)
            );
        }
        if source.dtype() != self.dtype() {
            bail!(
                Runtime,
                "index_copy_(): self and source expected to have the same dtype, but got (self) {} and (source) {}",
                self.dtype().scalar_type_name(),
                source.dtype().scalar_type_name()
            );
        }
        let size = dim_size(self.shape(), d);
        let mut rows = Vec::with_capacity(index.numel());
        for i in index.to_vec::<i64>() {
            if i < 0 || i as usize >= size {
                bail!(Index, "index_copy_(): index {i} is out of bounds for dimension {d} with size {size}");
            }
            rows.push(i as usize);
        }
        let pos = slice_positions(self.shape(), d, &rows);
        let values = source.detach().reshape(&[pos.len()])?;
        let out = self.detach().put_values(&pos, &values, false)?;
        let rule = |_: &Tensor| IndexCopyBackward0 {
            dim: d,
            index: SavedTensor::input(index),
            // kept for its shape, only when its gradient is wanted (torch's `_saved_source` is None otherwise)
            source: source.requires_grad().then(|| SavedTensor::input(source)),
            source_dim: source.ndim(),
        };
        Ok(record(out, &[self, source], rule))
    }
}

crate::backward_rule! {
    /// `index_copy(dim, index, source)`: self's gradient is zero at the replaced slices, source's is
    /// the gradient there.
    pub struct IndexCopyBackward0 {
        dim: usize,
        index: SavedTensor,
        source: Option<SavedTensor>,
        source_dim: usize,
    }
}
impl Backward for IndexCopyBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let index = ctx.unpack(&self.index)?;
        let dim = self.dim as isize;
        Ok(vec![
            ctx.grad_if(0, || g.index_fill(dim, &index, &Tensor::scalar(0.0)))?,
            ctx.grad_if(1, || {
                let picked = g.index_select(dim, &index)?;
                match ctx.unpack_opt(&self.source)? {
                    Some(source) => picked.reshape(source.shape()),
                    None => Ok(picked),
                }
            })?,
        ])
    }
}
