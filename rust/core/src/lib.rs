//! ferrograd-core: strided tensors, their kernels and a reverse-mode autograd engine, in pure Rust.
//!
//! Layout of the crate, one concern a file:
//! - `dtype`, `element`: element types, promotion, the generic element trait;
//! - `storage`, `layout`, `tensor`: shared versioned buffers, strided views over them, the tensor;
//! - `iter`, `kernels`: walking layouts and the forward kernels;
//! - `ops`: differentiable ops (forward + recording);
//! - `autograd`: nodes, the backward-formula table, grad mode and the engine;
//! - `optim`: the fused optimizer updates (one pass over every parameter of a step).
pub mod autograd;
pub mod dtype;
pub mod element;
pub mod error;
pub mod iter;
pub mod kernels;
pub mod layout;
mod ops;
pub mod optim;
pub mod pool;
pub mod random;
pub mod storage;
pub mod tensor;

pub use dtype::{promote_types, DType, Scalar};
pub use error::{Error, Result};
/// The 16-bit float types (re-exported for `with_dtype!` users).
pub use half;
pub use layout::Layout;
pub use ops::*;
pub use tensor::Tensor;
