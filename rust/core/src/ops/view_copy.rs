//! The `*_copy` family (`permute_copy`, `split_copy`, ...): a view op's results as fresh contiguous tensors; and
//! the `unsafe_` splits (`unsafe_chunk`, ...): the views' records themselves, sharing storage but not tracked as
//! views of their input (no base, so no in-place checks through it), as torch's. The gradient is the view's own
//! rule, run from the copy's node under torch's name for it (`PermuteBackward0_copy`, `UnsafeSplitBackward0`) and
//! showing the view rule's saved fields, so the family is this one rule over the view ops the core already has.
use crate::autograd::{record_outputs, Backward, Ctx, Field, Fields, GradFnName, GradFnNames, Grads, Node, RuleName};
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

/// The names torch gives the copies' nodes (the view rule's name with `_copy`, or a name of its own:
/// `narrow_copy`, the `unsafe_` splits), registered for listings.
macro_rules! copy_names {
    ($($name:literal),* $(,)?) => {
        const NAMES: &[&str] = &[$($name),*];
        $(crate::autograd::inventory::submit! { GradFnName($name) })*
    };
}
copy_names![
    "AliasBackward0_copy",
    "AsStridedBackward0_copy",
    "DiagonalBackward0_copy",
    "ExpandBackward0_copy",
    "NarrowCopyBackward0",
    "PermuteBackward0_copy",
    "SelectBackward0_copy",
    "SliceBackward0_copy",
    "SplitBackward0_copy",
    "SplitWithSizesBackward0_copy",
    "SqueezeBackward0_copy",
    "SqueezeBackward1_copy",
    "SqueezeBackward2_copy",
    "TBackward0_copy",
    "TransposeBackward0_copy",
    "UnbindBackward0_copy",
    "UnfoldBackward0_copy",
    "UnsafeSplitBackward0",
    "UnsafeSplitWithSizesBackward0",
    "UnsqueezeBackward0_copy",
    "ViewBackward0_copy",
];

/// The copies' node: the view's node (kept for its rule; its inputs are the copies' inputs) under another name.
pub struct ViewCopyBackward {
    name: &'static str,
    view: Arc<Node>,
}

impl GradFnNames for ViewCopyBackward {
    const NAMES: &'static [&'static str] = NAMES;
}
impl RuleName for ViewCopyBackward {
    fn rule_name(&self) -> &'static str {
        self.name
    }
}
impl Fields for ViewCopyBackward {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>)) {
        self.view.rule().fields(visit)
    }
}

impl Backward for ViewCopyBackward {
    fn apply(&self, ctx: &Ctx<'_>, grad: &Tensor) -> Result<Grads> {
        self.view.rule().apply(ctx, grad)
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        self.view.rule().apply_outputs(ctx, grads)
    }
}

impl Tensor {
    /// `views` (the results of one view op on `self`) copied into fresh contiguous tensors (or, with `alias`, their
    /// storage kept); where the view op recorded a node, the results share one node running its rule under
    /// `grad_fn`, one of torch's names above.
    pub fn copy_views(&self, views: &[Tensor], grad_fn: &str, alias: bool) -> Result<Vec<Tensor>> {
        let copies = if alias {
            views.iter().map(Tensor::detach).collect()
        } else {
            views.iter().map(|v| v.contiguous_copy()).collect::<Result<Vec<_>>>()?
        };
        let own = self.grad_fn();
        // the view op's node, unless it returned `self` (a no-op view, whose copy would need a rule of its own)
        let view = views.first().and_then(|v| v.grad_fn()).filter(|n| own.is_none_or(|o| !Arc::ptr_eq(o, n)));
        match view {
            Some(node) => {
                let Some(&name) = NAMES.iter().find(|n| **n == grad_fn) else {
                    crate::bail!(Runtime, "no copy of a view is named {grad_fn}");
                };
                Ok(record_outputs(copies, &[self], ViewCopyBackward { name, view: node.clone() }))
            }
            None if self.requires_grad() && crate::autograd::grad_mode::is_enabled() => {
                crate::bail!(Runtime, "{grad_fn}: the view op recorded no gradient")
            }
            None => Ok(copies),
        }
    }
}
