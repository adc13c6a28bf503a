//! `torch.native_dropout`'s node: `input * mask * scale` for a mask the caller drew (from the stream torch's
//! dropout draws from), recorded as NativeDropoutBackward0 with torch's saved fields (`result1`: the mask, `p`).
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::error::Result;
use crate::ops::formula::c;
use crate::tensor::Tensor;

impl Tensor {
    /// `self * mask * scale`, `mask` a bool tensor of `self`'s shape; in training `scale` is `1 / (1 - p)` (0 for
    /// p = 1), else 1.
    pub fn native_dropout_apply(&self, mask: &Tensor, p: f64, train: bool) -> Result<Tensor> {
        let scale = dropout_scale(p, train);
        let out = self.detach().mul(&mask.to_dtype(self.dtype())?)?.mul(&c(scale))?;
        Ok(record(out, &[self], |_| NativeDropoutBackward0 { result1: SavedTensor::input(mask), p, train }))
    }
}

fn dropout_scale(p: f64, train: bool) -> f64 {
    let keep = 1.0 - p;
    if !train {
        1.0
    } else if keep == 0.0 {
        0.0
    } else {
        1.0 / keep
    }
}

crate::backward_rule! {
    /// `native_dropout`: the gradient where the mask kept, scaled as the kept values were.
    pub struct NativeDropoutBackward0 {
        result1: SavedTensor,
        p: f64,
        train: bool,
    }
}
impl Backward for NativeDropoutBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let mask = ctx.unpack(&self.result1)?;
        one(g.mul(&mask.to_dtype(g.dtype())?)?.mul(&c(dropout_scale(self.p, self.train))))
    }
}
