//! Rules defined outside the core (a Python `autograd.Function`): one node for all of its outputs.
use super::node::{Backward, Ctx, Grads};
use super::saved::{AsField, Field, SavedTensor};
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

/// A backward function supplied by the caller.
pub trait CustomBackward: Send + Sync {
    fn name(&self) -> &'static str;
    /// Gradients for each input, from the gradients of each output (None where an output got none).
    fn backward(&self, grads: &[Option<Tensor>], saved: Vec<Tensor>) -> Result<Grads>;
}

impl AsField for Arc<dyn CustomBackward> {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    names = [];
    /// `<Class>Backward`: calls the function's backward with the unpacked (version-checked) saved tensors.
    pub struct CustomFunctionBackward {
        function: Arc<dyn CustomBackward>,
        saved_tensors: Vec<SavedTensor>,
    }
}

impl CustomFunctionBackward {
    pub fn new(function: Arc<dyn CustomBackward>, saved_tensors: Vec<SavedTensor>) -> Self {
        CustomFunctionBackward { function, saved_tensors }
    }
}

impl Backward for CustomFunctionBackward {
    fn name(&self) -> &'static str {
        self.function.name()
    }
    fn apply(&self, ctx: &Ctx<'_>, grad: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(grad.clone())])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let saved = self.saved_tensors.iter().map(|s| ctx.unpack(s)).collect::<Result<_>>()?;
        self.function.backward(grads, saved)
    }
}
