//! `masked_scatter(mask, source)`: `source`'s leading elements written, in order, where `mask` is true.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::ops::index::{IndexBackward0, Positions};
use crate::tensor::Tensor;
use std::sync::Arc;

/// Where no source element is read (a position `take_flat` reads as zero).
const UNREAD: i64 = -1;

impl Tensor {
    /// `masked_scatter(mask, source)`: self and the bool `mask` broadcast together; the k-th true
    /// element (row-major) takes `source`'s k-th element.
    pub fn masked_scatter(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            bail!(
                Runtime,
                "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().scalar_type_name()
            );
        }
        if source.dtype() != self.dtype() {
            bail!(
                Runtime,
                "masked_scatter: expected self and source to have same dtypes but got{} and {}",
                self.dtype().scalar_type_name(),
                source.dtype().scalar_type_name()
            );
        }
        let shape = broadcast_shapes(self.shape(), mask.shape())?;
        if shape.as_slice() != self.shape() {
            return self.expand(&shape)?.masked_scatter(mask, source);
        }
        let flags = mask.expand(&shape)?.to_vec::<bool>();
        let pos: Vec<i64> = flags.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i as i64).collect();
        let n = pos.len();
        if n > source.numel() {
            bail!(Runtime, "Number of elements of source < number of ones in mask");
        }
        let read = source.detach().reshape(&[source.numel()])?.slice(0, 0, n, 1)?;
        // where each source element went (UNREAD for the ones past the mask's count)
        let mut source_positions = pos.clone();
        source_positions.resize(source.numel(), UNREAD);
        let out = self.detach().put_values(&Arc::new(pos), &read, false)?;
        let rule = |_: &Tensor| MaskedScatterBackward0 {
            mask: SavedTensor::input(mask),
            source_sym_sizes: source.shape().to_vec(),
            source_positions: Arc::new(source_positions),
        };
        Ok(record(out, &[self, source], rule))
    }
}

crate::backward_rule! {
    /// `masked_scatter(mask, source)`: self's gradient is zero where the mask is true; source's is the
    /// gradient at the elements it was written to (zero for those not read).
    pub struct MaskedScatterBackward0 {
        mask: SavedTensor,
        source_sym_sizes: Vec<usize>,
        source_positions: Positions,
    }
}
impl Backward for MaskedScatterBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![
            ctx.grad_if(0, || g.masked_fill(&ctx.unpack(&self.mask)?, &Tensor::scalar(0.0)))?,
            ctx.grad_if(1, || {
                g.take_flat(self.source_positions.clone(), &self.source_sym_sizes, IndexBackward0::of(g))
            })?,
        ])
    }
}
