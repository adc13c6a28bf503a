//! `embedding`: rows of a weight matrix picked by integer indices (EmbeddingBackward0). Repeated
//! indices add their gradients; the `padding_idx` row gets none.
use crate::autograd::{grad_mode, one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::error::Result;
use crate::ops::index::Positions;
use crate::ops::reorder::{gather_rows, DimMap};
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

impl Tensor {
    /// `weight[indices]` for a 2-D `weight` and int64 `indices` of any shape.
    pub fn embedding(weight: &Tensor, indices: &Tensor, padding_idx: Option<usize>) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| Tensor::embedding_eager(x[0], x[1], padding_idx);
        traced("embedding", NodeKind::Opaque, &[weight, indices], || eager(&[weight, indices]), || eager)
    }

    fn embedding_eager(weight: &Tensor, indices: &Tensor, padding_idx: Option<usize>) -> Result<Tensor> {
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
        let w = weight.detach().contiguous()?;
        let picks: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
        let out = with_dtype!(w.dtype(), T => w.with_data(|l, src: &[T]| {
            let src = &src[l.contiguous_range().expect("contiguous")];
            Tensor::from_vec(gather_rows(src, dim, &picks, DimMap::InOrder), &shape)
        })?);
        // the weight row each output row came from, or -1 (no gradient) for padding
        let rows_of: Vec<i64> = idx.iter().map(|&i| if padding_idx == Some(i as usize) { -1 } else { i }).collect();
        let rule = |_: &Tensor| EmbeddingBackward0 {
            weight_sym_sizes: vec![rows, dim],
            positions: Arc::new(rows_of),
            padding_idx,
        };
        Ok(record(out, &[weight], rule))
    }
}

crate::backward_rule! {
    /// Rows of a weight gathered by index: each output element's gradient added back at the weight
    /// element it came from (`positions`; none for `padding_idx` rows).
    pub struct EmbeddingBackward0 {
        weight_sym_sizes: Vec<usize>,
        /// The weight row of each output row (-1: padding, no gradient).
        positions: Positions,
        padding_idx: Option<usize>,
    }
}
impl Backward for EmbeddingBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let dim = self.weight_sym_sizes[1];
        if grad_mode::is_enabled() {
            // recorded (double backward): through put_flat, one position per element
            let pos = self
                .positions
                .iter()
                .flat_map(|&r| (0..dim as i64).map(move |j| if r < 0 { -1 } else { r * dim as i64 + j }));
            let zeros = Tensor::zeros(&self.weight_sym_sizes, g.dtype());
            let node = crate::ops::index::IndexPutBackward0::gradient_write(true);
            return one(zeros.put_flat(Arc::new(pos.collect()), g, true, node));
        }
        one(crate::ops::reorder::add_rows_into_zeros(&self.weight_sym_sizes, dim, &self.positions, g))
    }
}
