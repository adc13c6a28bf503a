//! A unary op's in-place form written straight into the tensor's memory when no gradient is taken (`relu_` in a
//! model under no_grad, or on a tensor that needs none): one threaded pass, where the general path
//! (`Tensor::apply_inplace`) computes the op out of place and copies the result back, two passes and a buffer.
//! The same scalar function as the out-of-place op's, through the same vectorized loop, so the values are equal.
use super::{InplaceNode, UnaryOp};
use crate::autograd::grad_mode;
use crate::bail;
use crate::dtype::DType;
use crate::tensor::Tensor;

impl Tensor {
    /// `self = op(self)` in this tensor's memory when nothing is recorded and it is contiguous float64, or float32
    /// for an op without a hand-vectorized float32 kernel (whose values the general path gives instead); false,
    /// with nothing written, otherwise. A traced write (`write_untracked`), so a compiled function repeats it.
    pub fn unary_dense_inplace<O: UnaryOp>(&self, op: O, name: &'static str) -> bool {
        if (grad_mode::is_enabled() && self.requires_grad()) || !self.is_contiguous() || self.is_meta() {
            return false;
        }
        let fits = match self.dtype() {
            DType::F64 => true,
            DType::F32 => op.f32_slice_kernel().is_none(),
            _ => false,
        };
        // an op whose in-place node differs may also differ in what it allows: the general path decides
        if !fits || O::INPLACE_NODE != InplaceNode::Same || op.check(self).is_err() {
            return false;
        }
        let write = move |a: &Tensor, _: &Tensor| {
            let written = match a.dtype() {
                DType::F64 => a.map_dense_inplace(op.kernel::<f64>()),
                _ => a.map_dense_inplace(op.kernel::<f32>()),
            };
            if !written {
                bail!(Runtime, "an in-place {name} no longer fits the dense write it was captured as");
            }
            Ok(())
        };
        self.write_untracked(self, name, write).is_ok()
    }
}
