//! ferrograd-core: strided tensors, their kernels and a reverse-mode autograd engine, in pure Rust.
//!
//! Layout of the crate, one concern a file:
//! - `dtype`, `element`: element types, promotion, the generic element trait;
//! - `storage`, `layout`, `tensor`: shared versioned buffers, strided views over them, the tensor;
//! - `handle`: what a Python tensor object is (identity over swappable records, the view→base link);
//! - `iter`, `kernels`: walking layouts and the forward kernels;
//! - `ops`: differentiable ops: each family's forward code and its backward rules, side by side;
//! - `autograd`: nodes, the `Backward` trait the rules implement, grad mode and the engine (it knows no op).
//! - `optim`: the fused optimizer updates (one pass over every parameter of a step);
//! - `compile`: capture of traceable ops into a graph, and its replay with elementwise fusion;
//! - `profiler`: timed events (ops, backward nodes, user ranges) while a profiler is on;
//! - `serialize`: checkpoints in the safetensors format, replaced atomically on disk.
pub mod alloc;
pub mod autocast;
pub mod autograd;
pub mod compile;
pub mod dtype;
pub mod element;
pub mod error;
pub mod handle;
pub mod iter;
pub mod kernels;
pub mod layout;
mod ops;
pub mod optim;
pub mod pool;
pub mod profiler;
pub mod random;
pub mod serialize;
pub mod shared_memory;
pub mod storage;
pub mod tensor;

pub use dtype::{promote_types, DType, Scalar};
pub use error::{Error, Result};
/// The 16-bit float types (re-exported for `with_dtype!` users).
pub use half;
pub use handle::TensorHandle;
pub use layout::Layout;
pub use ops::*;
pub use tensor::Tensor;
