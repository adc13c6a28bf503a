//! `tensor * number` and `tensor / number` as ATen's C++ compositions call them (`mul.Scalar`,
//! `div.Scalar`): their nodes are MulBackward1 / DivBackward1, where Python's `t * 0.5` records
//! MulBackward0. Used by the compositions that follow torch's (`trapezoid`).
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::error::Result;
use crate::ops::formula::c;
use crate::tensor::Tensor;

impl Tensor {
    pub fn mul_number(&self, other: f64) -> Result<Tensor> {
        let out = self.detach().mul(&c(other))?;
        Ok(record(out, &[self], |_| MulBackward1 { other }))
    }

    pub fn div_number(&self, other: f64) -> Result<Tensor> {
        let out = self.detach().div(&c(other))?;
        Ok(record(out, &[self], |_| DivBackward1 { other }))
    }
}

crate::backward_rule! {
    /// `self * other` with a number `other`.
    pub struct MulBackward1 {
        other: f64,
    }
}
impl Backward for MulBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.mul(&c(self.other)))
    }
}

crate::backward_rule! {
    /// `self / other` with a number `other`.
    pub struct DivBackward1 {
        other: f64,
    }
}
impl Backward for DivBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.div(&c(self.other)))
    }
}
