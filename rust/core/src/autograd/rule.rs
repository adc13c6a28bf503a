//! What a backward rule is: the `Backward` trait every op's rule implements (in the op's own file),
//! the context a rule runs in, and the one rule the engine owns, `AccumulateGrad`.
//!
//! A rule maps the gradient of the op's output to the gradients of its inputs, written with the same
//! differentiable tensor ops as the forward pass, so `create_graph=True` differentiates it again.
//! Rules return gradients shaped like the broadcast output; the engine sums them down to each input's
//! shape and casts them to its dtype, once, for every op.
use super::node::{GradMeta, Node};
use super::saved::{Fields, SavedTensor};
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

/// One gradient per input of the op; None where the input needs none (or gets none).
pub type Grads = Vec<Option<Tensor>>;

/// A backward rule: its PyTorch name and its gradient. Its fields (`Fields`, from `backward_rule!`)
/// are the tensors and arguments it keeps, named as PyTorch names them.
pub trait Backward: Fields + Send + Sync + 'static {
    /// The `grad_fn` name, e.g. `"MulBackward0"`.
    fn name(&self) -> &'static str;

    /// The inputs' gradients from `grad`, the gradient of the op's (single) output.
    fn apply(&self, ctx: &Ctx<'_>, grad: &Tensor) -> Result<Grads>;

    /// The inputs' gradients from those of every output (None where an output got none). Rules with
    /// several outputs (split, custom functions) override this; the others see their one gradient.
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        match grads.first() {
            Some(Some(g)) => self.apply(ctx, g),
            _ => Ok(vec![]),
        }
    }

    /// The leaf an `AccumulateGrad` rule feeds (the engine runs its hooks and fills its `.grad`).
    fn leaf(&self) -> Option<&Arc<GradMeta>> {
        None
    }
}

/// What a running rule may ask of its node.
pub struct Ctx<'a> {
    pub(crate) node: &'a Arc<Node>,
}

impl Ctx<'_> {
    /// Whether input `i` wants a gradient (it requires grad).
    pub fn needs(&self, i: usize) -> bool {
        self.node.next.get(i).is_some_and(Option::is_some)
    }

    /// `f()` if input `i` wants a gradient, else None.
    pub fn grad_if(&self, i: usize, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
        if self.needs(i) {
            f().map(Some)
        } else {
            Ok(None)
        }
    }

    /// A saved tensor, version-checked (saved outputs get this node back as their grad_fn).
    pub fn unpack(&self, saved: &SavedTensor) -> Result<Tensor> {
        saved.unpack(self.node)
    }

    /// An optional saved tensor.
    pub fn unpack_opt(&self, saved: &Option<SavedTensor>) -> Result<Option<Tensor>> {
        saved.as_ref().map(|s| s.unpack(self.node)).transpose()
    }

    pub fn num_inputs(&self) -> usize {
        self.node.next.len()
    }

    /// A post hook sees the gradient of each input separately, so they must not be merged.
    pub fn has_post_hooks(&self) -> bool {
        self.node.has_post_hooks()
    }
}

/// One gradient for the op's one input.
pub fn one(t: Result<Tensor>) -> Result<Grads> {
    t.map(|t| vec![Some(t)])
}

crate::backward_rule! {
    /// A leaf's gradient sink: `.grad` accumulates what reaches it. Made once per leaf while a graph
    /// uses it (`GradMeta::accumulator`).
    pub struct AccumulateGrad {
        variable: Arc<GradMeta>,
    }
}

impl super::saved::AsField for Arc<GradMeta> {
    fn as_field(&self) -> super::saved::Field<'_> {
        super::saved::Field::Opaque
    }
}

impl Backward for AccumulateGrad {
    fn name(&self) -> &'static str {
        "AccumulateGrad"
    }
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        // the engine accumulates through `leaf()` and never calls this
        Ok(vec![])
    }
    fn leaf(&self) -> Option<&Arc<GradMeta>> {
        Some(&self.variable)
    }
}
