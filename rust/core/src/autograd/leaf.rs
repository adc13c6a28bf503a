//! Leaves: a tensor that requires grad owns a `GradMeta` (its `.grad` and hooks); gradients reach it
//! through its `AccumulateGrad` node, which holds the meta strongly while the meta holds the node
//! only weakly (so the same leaf shows the same node while a graph lives, and no cycle forms).
use super::node::{next_hook_id, Backward, Ctx, Grads, Node, PostAccumulateHook, TensorHook};
use super::saved::{AsField, Field};
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::any::Any;
use std::sync::{Arc, OnceLock, Weak};

#[derive(Default)]
pub struct GradMeta {
    pub(crate) grad: Mutex<Option<Tensor>>,
    accumulator: Mutex<Option<Weak<Node>>>,
    /// Hooks of a leaf's gradient, run before it is accumulated or captured.
    pub(crate) hooks: Mutex<Vec<(u64, TensorHook)>>,
    /// Hooks run once `.grad` holds a new sum (`register_post_accumulate_grad_hook`): what lets an
    /// optimizer step each parameter during backward.
    pub(crate) post_accumulate_hooks: Mutex<Vec<(u64, PostAccumulateHook)>>,
    /// What the owner of the tensor objects keeps about this leaf (the Python bindings: its object and
    /// its `.grad`'s object, both weakly, so that the graph hands back the objects the user holds).
    owner: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl GradMeta {
    /// The owner's record of this leaf, made by `init` on first use (None if another type was stored).
    pub fn owner<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Option<&T> {
        self.owner.get_or_init(|| Box::new(init())).downcast_ref()
    }

    /// Adds a hook run after each accumulation into `.grad`; returns the id to remove it with.
    pub fn add_post_accumulate_hook(&self, hook: PostAccumulateHook) -> u64 {
        let id = next_hook_id();
        self.post_accumulate_hooks.lock().push((id, hook));
        id
    }

    /// Runs the post-accumulate hooks in the order they were added (none is held locked while one runs,
    /// so a hook may add or remove hooks).
    pub(crate) fn run_post_accumulate_hooks(&self) -> Result<()> {
        let hooks: Vec<_> = self.post_accumulate_hooks.lock().iter().map(|(_, h)| h.clone()).collect();
        hooks.iter().try_for_each(|hook| hook())
    }

    /// The accumulated gradient (`.grad`).
    pub fn grad(&self) -> Option<Tensor> {
        self.grad.lock().clone()
    }

    /// Swaps in `new` as the gradient if the gradient still is `old` (a `.grad` object that took a new
    /// record, e.g. by `.data = ...`, stays the gradient).
    pub fn replace_grad(&self, old: &Tensor, new: Tensor) {
        let mut slot = self.grad.lock();
        if slot.as_ref().is_some_and(|g| g.same_tensor(old)) {
            *slot = Some(new);
        }
    }

    /// The leaf's one AccumulateGrad node, made again if every graph that used it is gone.
    pub(crate) fn accumulator(&self, this: &Arc<GradMeta>) -> Arc<Node> {
        let mut slot = self.accumulator.lock();
        if let Some(node) = slot.as_ref().and_then(Weak::upgrade) {
            return node;
        }
        let node: Arc<Node> = Arc::new(Node::new(vec![], u64::MAX, AccumulateGrad { variable: this.clone() }));
        *slot = Some(Arc::downgrade(&node));
        node
    }
}

crate::backward_rule! {
    /// A leaf's gradient sink: `.grad` accumulates what reaches it. Made once per leaf while a graph
    /// uses it (`GradMeta::accumulator`).
    pub struct AccumulateGrad {
        variable: Arc<GradMeta>,
    }
}

impl AccumulateGrad {
    /// The leaf's autograd state (PyTorch's `AccumulateGrad.variable` is the leaf itself).
    pub fn variable(&self) -> &Arc<GradMeta> {
        &self.variable
    }
}

impl AsField for Arc<GradMeta> {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

impl Backward for AccumulateGrad {
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        // the engine recognises this rule and accumulates into `.grad` itself (`engine::evaluate`)
        Ok(vec![])
    }
}
