//! Differentiable tensor ops. Each file holds a family's forward code and, beside it, its backward
//! rules: small structs implementing `autograd::Backward`, declared with `backward_rule!`.
pub mod addc;
mod advanced_index;
mod affine_grid;
mod along_dim;
pub mod aminmax;
pub mod attention;
pub mod batch_norm;
pub mod binary;
mod block_diag;
pub mod complex;
pub mod conv;
pub mod conv3d;
pub mod copy;
pub mod correlation;
pub mod counting;
pub mod ctc_loss;
mod diag;
mod diff;
mod dims;
pub mod distance;
pub mod einsum;
pub mod embedding;
pub mod embedding_bag;
pub mod extreme;
pub(crate) mod formula;
pub mod fractional_pool;
pub mod grid_sample;
pub mod index;
pub mod index_build;
pub mod index_write;
pub(crate) mod inplace;
pub mod layer_norm;
mod linalg;
mod linear;
pub mod loss;
pub mod lstm_layer;
mod matmul;
mod meta;
pub mod moments;
pub mod nan_reduce;
pub mod native_dropout;
pub mod nll_grad;
pub mod nn;
pub mod no_derivative;
pub mod norm;
mod order;
pub mod orthogonal_polynomial;
pub mod pad;
mod pixel_shuffle;
pub mod pool;
pub mod pool3d;
pub mod products;
pub mod quantile;
pub(crate) mod reduce;
pub mod reorder;
mod rescale;
mod resize;
pub mod rnn;
pub mod rrelu;
mod scalar_arith;
pub mod scan;
pub mod search;
pub mod select;
pub mod shape;
mod slices;
mod sort;
pub mod sparse;
pub mod unary;
pub mod unpool;
pub mod upsample;
pub mod view;
pub mod view_copy;

use crate::dtype::Scalar;
use crate::tensor::Tensor;

impl Tensor {
    /// A float constant operand for formulas (`g * 0.5`); it never widens the other operand's dtype.
    pub fn scalar(value: f64) -> Tensor {
        Tensor::wrapped_scalar(Scalar::Float(value))
    }
}
