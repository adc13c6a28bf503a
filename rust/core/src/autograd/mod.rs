//! Reverse-mode autograd: graph nodes, the backward formulas (one table), grad mode and the engine.
mod engine;
mod formulas;
pub mod grad_mode;
mod node;

pub use engine::backward;
pub use formulas::BackwardOp;
pub use node::{Edge, LeafMeta, Node, SavedTensor};
pub(crate) use node::record;
