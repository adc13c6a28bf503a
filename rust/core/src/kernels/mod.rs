//! Forward kernels over slices and layouts. They know nothing of autograd.
pub mod attention;
pub mod conv;
pub mod elementwise;
pub mod gelu;
pub mod gemv;
pub mod layer_norm;
pub mod math;
pub mod matmul;
pub mod reduce;
pub mod simd;
pub mod sincos;
pub mod softmax;
pub mod special;
pub mod split;
pub mod sum;
pub mod threads;
pub mod transpose;
