//! Reverse-mode autograd: graph nodes, the backward formulas (one table), grad mode and the engine.
mod engine;
mod formulas;
pub mod grad_mode;
mod node;

pub(crate) use engine::accumulate_grad;
pub use engine::{backward, grad};
pub use formulas::{BackwardOp, CustomBackward};
pub use node::{next_hook_id, Edge, GradMeta, Node, PostHook, PreHook, SavedTensor, TensorHook};
pub(crate) use node::{record, record_outputs};
