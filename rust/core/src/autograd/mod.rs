//! Reverse-mode autograd: graph nodes, the rule trait every op's backward implements, grad mode and
//! the engine. This module knows no op: each op's rule lives in the op's own file under `ops/`.
mod captured;
pub use captured::{backward, grad, note_grad_read};
mod custom;
mod engine;
pub mod grad_mode;
mod leaf;
mod node;
mod saved;

pub use custom::{CustomBackward, CustomFunctionBackward};
pub(crate) use engine::accumulate_grad;
/// `grad` run now, never recorded as a node while a capture is on (a capture of the rules themselves).
pub(crate) use engine::grad as grad_through_rules;
#[doc(hidden)]
pub use inventory;
pub use leaf::{AccumulateGrad, GradMeta};
pub use node::{
    next_hook_id, one, Backward, Ctx, Edge, Grads, Node, PostAccumulateHook, PostHook, PreHook, TensorHook,
};
pub(crate) use node::{record, record_outputs};
pub(crate) use saved::freed_error;
pub use saved::{
    field_name, grad_fn_names, AsField, Field, Fields, GradFnName, GradFnNames, MatrixStrides, RuleName, SavedTensor,
};
