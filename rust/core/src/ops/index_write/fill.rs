//! `index_fill(dim, index, value)`: the slices of `dim` that `index` names set to a 0-d value.
use super::{dim_size, slice_positions};
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::ops::index::{IndexBackward0, Positions};
use crate::tensor::Tensor;
use std::sync::Arc;

impl Tensor {
    /// `index_fill(dim, index, value)`: `value` (a number, or a 0-d tensor that gets the sum of the
    /// gradient at the filled elements) written into every slice of `dim` named by the int64 `index`
    /// (0-d or 1-d; negative indices count from the end). IndexFillBackward0 for a number, 1 for a tensor.
    pub fn index_fill(&self, dim: isize, index: &Tensor, value: &Tensor) -> Result<Tensor> {
        if index.dtype() != DType::I64 {
            bail!(Index, "index_fill_(): Expected dtype int64 for index.");
        }
        if index.ndim() > 1 {
            bail!(Runtime, "Index has to be a vector/scalar");
        }
        let d = wrap_dim(dim, self.ndim())?;
        if value.ndim() != 0 {
            bail!(
                Runtime,
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                value.ndim()
            );
        }
        let size = dim_size(self.shape(), d);
        let mut rows = Vec::with_capacity(index.numel());
        for i in index.to_vec::<i64>() {
            let n = size as i64;
            if i < -n || i >= n {
                bail!(Index, "index {i} is out of bounds for dimension {d} with size {size}");
            }
            let row = if i < 0 { i + n } else { i } as usize;
            // a repeated index fills its slice once (and its gradient is taken once)
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
        let number = value.0.wrapped_number;
        if number {
            value.item()?.check_fits(self.dtype())?;
        }
        let filled = value.detach().to_dtype(self.dtype())?;
        let pos = slice_positions(self.shape(), d, &rows);
        let n = pos.len();
        let out = self.detach().put_values(&pos, &filled.expand(&[n])?, false)?;
        let (dim, index) = (d, SavedTensor::input(index));
        if number {
            Ok(record(out, &[self], |_| IndexFillBackward0 { dim, index, positions: pos }))
        } else {
            Ok(record(out, &[self, value], |_| IndexFillBackward1 { dim, index, positions: pos }))
        }
    }
}

/// The gradient of a fill: `g` with zeros at the filled positions (for self: a fill of 0, as torch's
/// `index_fill`, recorded as `IndexFillBackward0`) and, for a tensor value, the sum of `g` there.
fn fill_grads(ctx: &Ctx<'_>, g: &Tensor, dim: usize, index: &SavedTensor, positions: &Positions) -> Result<Grads> {
    let n = positions.len();
    Ok(vec![
        ctx.grad_if(0, || {
            let zeros = Tensor::zeros(&[n], g.dtype());
            let index = SavedTensor::input(&ctx.unpack(index)?);
            let node = IndexFillBackward0 { dim, index, positions: positions.clone() };
            g.put_flat(positions.clone(), &zeros, false, node)
        })?,
        ctx.grad_if(1, || g.take_flat(Arc::clone(positions), &[n], IndexBackward0::of(g))?.sum(None, false))?,
    ])
}

crate::backward_rule! {
    /// `index_fill(dim, index, number)`.
    pub struct IndexFillBackward0 {
        dim: usize,
        index: SavedTensor,
        positions: Positions,
    }
}
impl Backward for IndexFillBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        fill_grads(ctx, g, self.dim, &self.index, &self.positions)
    }
}

impl IndexFillBackward0 {
    /// The node shown by another fill along `dim` at `index` (`t[index] = number`), whose rule is the shared one.
    pub fn node(dim: usize, index: &Tensor) -> Self {
        IndexFillBackward0 { dim, index: SavedTensor::input(index), positions: Positions::default() }
    }
}

crate::backward_rule! {
    /// `index_fill(dim, index, value)` with a 0-d tensor value.
    pub struct IndexFillBackward1 {
        dim: usize,
        index: SavedTensor,
        positions: Positions,
    }
}
impl Backward for IndexFillBackward1 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        fill_grads(ctx, g, self.dim, &self.index, &self.positions)
    }
}
