//! `index_put(indices, values, accumulate)`: `self[indices] = values` (or `+=`) out of place.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::index::{IndexBackward0, IndexPutBackward0};
use crate::tensor::Tensor;

impl Tensor {
    /// `index_put(indices, values, accumulate)`: the elements `self[indices]` selects (one integer
    /// tensor per leading dim, a bool or uint8 mask covering as many dims as it has) set to `values`
    /// broadcast to that selection, or added to when `accumulate` (repeated positions then add up).
    pub fn index_put(&self, indices: &[Tensor], values: &Tensor, accumulate: bool) -> Result<Tensor> {
        let shape = self.shape();
        let mut adv: Vec<(usize, Tensor)> = Vec::new();
        let mut dim = 0;
        for index in indices {
            match index.dtype() {
                DType::Bool | DType::U8 => {
                    for (j, &size) in index.shape().iter().enumerate() {
                        if shape.get(dim + j) != Some(&size) {
                            bail!(
                                Index,
                                "The shape of the mask {:?} at index {j} does not match the shape of the indexed \
                                tensor {:?} at index {}",
                                index.shape(),
                                shape,
                                dim + j
                            );
                        }
                    }
                    let nonzero = index.to_dtype(DType::Bool)?.nonzero()?;
                    for j in 0..index.ndim() {
                        adv.push((dim + j, nonzero.select(1, j as isize)?.contiguous_copy()?));
                    }
                    dim += index.ndim();
                }
                DType::I64 | DType::I32 => {
                    adv.push((dim, index.to_dtype(DType::I64)?));
                    dim += 1;
                }
                _ => bail!(Index, "tensors used as indices must be long, int, byte or bool tensors"),
            }
            if dim > shape.len() {
                bail!(Index, "too many indices for tensor of dimension {} (got {})", shape.len(), indices.len());
            }
        }
        if values.dtype() != self.dtype() {
            bail!(
                Runtime,
                "Index put requires the source and destination dtypes match, got {} for the destination and {} for \
                the source.",
                self.dtype().scalar_type_name(),
                values.dtype().scalar_type_name()
            );
        }
        let geom = Layout::contiguous(shape);
        let (pos, result_shape) = if adv.is_empty() {
            (Tensor::region_positions(&geom), shape.to_vec())
        } else {
            Tensor::advanced_positions(&geom, &adv)?
        };
        if crate::layout::broadcast_shapes(values.shape(), &result_shape).ok().as_ref() != Some(&result_shape) {
            bail!(
                Runtime,
                "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
                values.shape(),
                result_shape
            );
        }
        let spread = values.detach().expand(&result_shape)?;
        let out = self.detach().put_values(&pos, &spread, accumulate)?;
        let rule = |_: &Tensor| IndexPutBackward0 {
            accumulate,
            indices: indices.iter().map(SavedTensor::input).collect(),
            positions: pos,
            result: Layout::contiguous(&result_shape),
        };
        Ok(record(out, &[self, values], rule))
    }
}

impl Backward for IndexPutBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let n = self.positions.len();
        Ok(vec![
            ctx.grad_if(0, || {
                if self.accumulate {
                    Ok(g.clone())
                } else {
                    let zeros = Tensor::zeros(&[n], g.dtype());
                    g.put_flat(self.positions.clone(), &zeros, false, IndexPutBackward0::gradient_write(false))
                }
            })?,
            ctx.grad_if(1, || g.take_flat(self.positions.clone(), &self.result.shape, IndexBackward0::of(g)))?,
        ])
    }
}
