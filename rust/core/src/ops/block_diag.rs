//! `block_diag(*tensors)`: the tensors (0-d as 1×1, 1-d as one row) down the diagonal of a zero matrix of
//! their promoted dtype, as one node (BlockDiagBackward0) whose gradient cuts each block back out.
use crate::autograd::{Backward, Ctx, Grads};
use crate::bail;
use crate::dtype::result_type_of;
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::with_dtype;

/// A block's (rows, cols) as it sits on the diagonal.
fn block_size(t: &Tensor) -> (usize, usize) {
    match t.shape() {
        [] => (1, 1),
        [n] => (1, *n),
        s => (s[0], s[1]),
    }
}

impl Tensor {
    pub fn block_diag(tensors: &[Tensor]) -> Result<Tensor> {
        for (i, t) in tensors.iter().enumerate() {
            if t.ndim() > 2 {
                bail!(
                    Runtime,
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {} dimensions",
                    t.ndim()
                );
            }
        }
        if tensors.is_empty() {
            // torch's result for no tensors: one row of no columns
            return Ok(Tensor::zeros(&[1, 0], crate::dtype::default_float()));
        }
        let keys: Vec<_> = tensors.iter().map(|t| t.promotion_key()).collect();
        let dtype = result_type_of(&keys);
        let sizes: Vec<(usize, usize)> = tensors.iter().map(block_size).collect();
        let rows: usize = sizes.iter().map(|s| s.0).sum();
        let cols: usize = sizes.iter().map(|s| s.1).sum();
        let out = with_dtype!(dtype, T => {
            let mut data = vec![T::ZERO; rows * cols];
            let (mut r0, mut c0) = (0, 0);
            for (t, &(r, c)) in tensors.iter().zip(&sizes) {
                let values = t.detach().to_dtype(dtype)?.to_vec::<T>();
                for i in 0..r {
                    data[(r0 + i) * cols + c0..(r0 + i) * cols + c0 + c].copy_from_slice(&values[i * c..(i + 1) * c]);
                }
                (r0, c0) = (r0 + r, c0 + c);
            }
            Tensor::from_vec(data, &[rows, cols])?
        });
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        let rule = |_: &Tensor| BlockDiagBackward0 {
            rows: sizes.iter().map(|s| s.0).collect(),
            cols: sizes.iter().map(|s| s.1).collect(),
            ndims: tensors.iter().map(Tensor::ndim).collect(),
        };
        Ok(crate::autograd::record(out, &inputs, rule))
    }
}

crate::backward_rule! {
    /// `block_diag(*tensors)`: each input's block of the gradient, in its own shape.
    pub struct BlockDiagBackward0 {
        rows: Vec<usize>,
        cols: Vec<usize>,
        ndims: Vec<usize>,
    }
}
impl Backward for BlockDiagBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (mut r0, mut c0) = (0, 0);
        let mut grads = Vec::with_capacity(self.rows.len());
        for i in 0..self.rows.len() {
            let (r, c) = (self.rows[i], self.cols[i]);
            let shape: Vec<usize> = match self.ndims[i] {
                0 => vec![],
                1 => vec![c],
                _ => vec![r, c],
            };
            grads.push(ctx.grad_if(i, || g.slice(0, r0, r0 + r, 1)?.slice(1, c0, c0 + c, 1)?.reshape(&shape))?);
            (r0, c0) = (r0 + r, c0 + c);
        }
        Ok(grads)
    }
}
