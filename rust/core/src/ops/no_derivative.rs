//! Results torch computes without a derivative formula: when an input requires grad, torch still records a
//! node (`NotImplemented`), and backward through it fails naming the op (`native_channel_shuffle`).
use crate::autograd::{record, Backward, Ctx, Grads};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

crate::backward_rule! {
    names = ["NotImplemented"];
    /// The node of an op without a derivative: backward through it fails.
    pub struct NoDerivativeBackward {
        op: &'static str,
    }
}
impl Backward for NoDerivativeBackward {
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        bail!(Runtime, "derivative for aten::{} is not implemented", self.op)
    }
}

/// The ops that take this node: from Python (their values composed there), and ctc_loss's backward.
const OPS: &[&str] = &["native_channel_shuffle", "_ctc_loss_backward"];

impl Tensor {
    /// `values` (computed from `inputs`) with torch's node for `op`, which has no derivative, in place of
    /// whatever history they had.
    pub fn without_derivative(values: &Tensor, inputs: &[&Tensor], op: &str) -> Result<Tensor> {
        let Some(&op) = OPS.iter().find(|&&o| o == op) else {
            bail!(Value, "no derivative-less op named {op:?}");
        };
        Ok(record(values.detach(), inputs, |_| NoDerivativeBackward { op }))
    }
}
