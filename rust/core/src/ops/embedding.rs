//! `embedding`: rows of a weight matrix picked by integer indices (EmbeddingBackward0). Repeated
//! indices add their gradients; the `padding_idx` row gets none.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::error::Result;
use crate::ops::index::Positions;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

impl Tensor {
    /// `weight[indices]` for a 2-D `weight` and int64 `indices` of any shape.
    pub fn embedding(weight: &Tensor, indices: &Tensor, padding_idx: Option<usize>) -> Result<Tensor> {
        if weight.ndim() != 2 {
            bail!(Runtime, "'weight' must be 2-D");
        }
        if indices.dtype() != crate::DType::I64 {
            bail!(
                Runtime,
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: \
                Long, Int; but got ferrograd.{} instead (while checking arguments for embedding)",
                indices.dtype().legacy_name()
            );
        }
        let (rows, dim) = (weight.shape()[0], weight.shape()[1]);
        let idx = indices.to_vec::<i64>();
        if idx.iter().any(|&i| i < 0 || i as usize >= rows) {
            bail!(Index, "index out of range in self");
        }
        let mut shape = indices.shape().to_vec();
        shape.push(dim);
        let w = weight.detach();
        let out = with_dtype!(w.dtype(), T => {
            let src = w.to_vec::<T>();
            let row = |i: i64| src[i as usize * dim..(i as usize + 1) * dim].iter().copied();
            let v: Vec<T> = idx.iter().flat_map(|&i| row(i)).collect();
            Tensor::from_vec(v, &shape)?
        });
        let rule = |_: &Tensor| {
            // where each output element's gradient goes: its weight element, or nowhere for padding
            let pos: Vec<i64> = idx
                .iter()
                .flat_map(|&i| {
                    let pad = padding_idx == Some(i as usize);
                    (0..dim as i64).map(move |j| if pad { -1 } else { i * dim as i64 + j })
                })
                .collect();
            EmbeddingBackward0 { weight_sym_sizes: vec![rows, dim], positions: Arc::new(pos), padding_idx }
        };
        Ok(record(out, &[weight], rule))
    }
}

crate::backward_rule! {
    /// Rows of a weight gathered by index: each output element's gradient added back at the weight
    /// element it came from (`positions`; none for `padding_idx` rows).
    pub struct EmbeddingBackward0 {
        weight_sym_sizes: Vec<usize>,
        positions: Positions,
        padding_idx: Option<usize>,
    }
}
impl Backward for EmbeddingBackward0 {
    fn name(&self) -> &'static str {
        "EmbeddingBackward0"
    }
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let zeros = Tensor::zeros(&self.weight_sym_sizes, g.dtype());
        one(zeros.put_flat(self.positions.clone(), g, true, "IndexPutBackward0"))
    }
}
