//! Differentiable tensor ops: each computes its forward with a kernel and records its backward rule.
pub mod binary;
pub mod einsum;
pub mod conv;
pub mod embedding;
pub mod layer_norm;
pub mod loss;
pub mod pad;
pub mod pool;
pub mod index;
pub mod shape;
mod sort;
mod matmul;
mod inplace;
mod order;
mod linalg;
pub mod norm;
pub mod nn;
pub(crate) mod reduce;
pub mod unary;
pub mod view;

use crate::dtype::Scalar;
use crate::tensor::Tensor;

impl Tensor {
    /// A float constant operand for formulas (`g * 0.5`); it never widens the other operand's dtype.
    pub fn scalar(value: f64) -> Tensor {
        Tensor::wrapped_scalar(Scalar::Float(value))
    }
}
