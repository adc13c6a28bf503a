//! In-place ops: compute out of place, write the result into the tensor's own memory (bumping its
//! version), and give the tensor the result's history.
//!
//! The out-of-place step reads a private copy of the old values when a gradient may need them, so the
//! saved tensors of the new node never see the write.
use crate::autograd::{grad_mode, one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ops::copy::DenseWrite;
use crate::ops::formula::c;
use crate::tensor::{Tensor, TensorImpl};
use std::sync::Arc;

/// The kinds of dtypes, in the order in-place results may not go up (an int tensor cannot take a float
/// result, a bool tensor an int one).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    Bool,
    Integer,
    Floating,
}

fn category(d: DType) -> Category {
    if d == DType::Bool {
        Category::Bool
    } else if d.is_int() {
        Category::Integer
    } else {
        Category::Floating
    }
}

/// torch's `canCast` for in-place results: a result may not go up a category from the tensor's dtype.
pub(crate) fn check_can_cast(result: DType, into: DType) -> Result<()> {
    if category(result) > category(into) {
        bail!(
            Runtime,
            "result type {} can't be cast to the desired output type {}",
            scalar_type_name(result),
            scalar_type_name(into)
        );
    }
    Ok(())
}

impl Tensor {
    fn check_inplace(&self, result_requires_grad: bool) -> Result<()> {
        if !grad_mode::is_enabled() {
            return Ok(());
        }
        if self.is_leaf() && self.requires_grad() {
            bail!(Runtime, "a leaf Variable that requires grad is being used in an in-place operation.");
        }
        if self.0.is_view && (self.requires_grad() || result_requires_grad) {
            bail!(
                Runtime,
                "in-place operation on a view of a tensor that is part of the autograd graph is not supported yet: \
                    write into a clone() instead"
            );
        }
        Ok(())
    }

    /// PyTorch's refusal of `self op= other` where `other` reads part of what is written (`x.mul_(x[0])`,
    /// `x.T.add_(x)`): the two share memory without being the same elements. Checked, as PyTorch checks it, where
    /// both are dense (their elements fill a range of memory in some order); where it cannot tell, the op runs.
    pub fn check_no_partial_overlap(&self, other: &Tensor) -> Result<()> {
        if !self.same_storage(other) {
            return Ok(());
        }
        let (Some(a), Some(b)) = (dense_range(self), dense_range(other)) else { return Ok(()) };
        let same = a == b && self.shape() == other.shape() && self.strides() == other.strides();
        if !same && a.start < b.end && b.start < a.end {
            bail!(
                Runtime,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single \
                memory location. Please clone() the tensor before performing the operation."
            );
        }
        Ok(())
    }

    /// `self op= other` straight into this tensor's memory (one pass, no result buffer) when nothing is
    /// recorded and both are contiguous float32/float64 tensors of one shape (the SGD update
    /// `p.sub_(lr * p.grad)`) or `other` is a real number (`p.mul_(0.9)`); false when nothing was written and the
    /// general `apply_inplace` must run.
    /// (The caller picks between the two, because in-place writes through a view go via its base.)
    pub fn dense_in_place(&self, other: &Tensor, op: DenseWrite) -> bool {
        if grad_mode::is_enabled() && (self.requires_grad() || other.requires_grad()) {
            return false;
        }
        let fits = self.dense_fits(other) || self.dense_scalar_fits(other);
        if !matches!(self.dtype(), DType::F32 | DType::F64) || op == DenseWrite::Copy || !fits {
            return false;
        }
        let write = move |a: &Tensor, b: &Tensor| {
            if !(a.write_dense(b, op) || a.write_dense_scalar(b, op)) {
                bail!(Runtime, "an in-place {op:?} no longer fits the dense write it was captured as");
            }
            Ok(())
        };
        // the write is checked to fit, so an error is the capture's replay of it, which cannot come here
        self.write_untracked(other, op.inplace_name(), write).is_ok()
    }

    /// `apply_inplace(f)` as one traced op (`relu_`): its replay writes again and takes the history again. With
    /// `old_read` false, `f`'s node keeps no input (`unary::inplace_reads_input`), so the old values are not copied.
    pub fn apply_inplace_traced<F>(&self, name: &'static str, old_read: bool, f: F) -> Result<Tensor>
    where
        F: Fn(&Tensor) -> Result<Tensor> + Clone + Send + Sync + 'static,
    {
        let eager = move |x: &[&Tensor]| x[0].apply_inplace_reading(old_read, f.clone());
        let replay = eager.clone();
        let out = traced(name, NodeKind::Opaque, &[self], || eager(&[self]), || replay)?;
        self.check_new_history(&out);
        Ok(out)
    }

    /// `self op= other` through `apply_inplace`, as one traced op (a ResNet's `out += identity`).
    pub fn apply_arith_traced(&self, other: &Tensor, op: DenseWrite) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].apply_inplace(|old| op.result(old, x[1]));
        let out = traced(op.inplace_name(), NodeKind::Opaque, &[self, other], || eager(&[self, other]), || eager)?;
        self.check_new_history(&out);
        Ok(out)
    }

    /// A replay gives an in-place op's new record (its history) to the graph's value, not to a tensor object from
    /// outside (an argument, a closure's tensor), which would keep the capture run's history: not captured.
    fn check_new_history(&self, out: &Tensor) {
        if !Arc::ptr_eq(&out.0, &self.0) && crate::compile::is_outside_value(self) {
            crate::compile::unsupported("an in-place op that records history on a tensor from outside the function");
        }
    }

    /// This tensor's values in new memory, with its history: what the rule of an in-place op reads once the
    /// write is made. Traced, so that a captured in-place op that needs no gradient reads it as a graph value.
    fn copy_with_history(&self) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| x[0].with_data_of(&x[0].contiguous_copy()?);
        traced("clone", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    /// A write into this tensor's memory that takes no history (`copy_`/`add_` under no_grad, a running
    /// statistic's update): a traced node over (self, src), so a compiled function writes again on each replay;
    /// the tensor keeps its record, which later ops of the capture read as the node's value.
    pub(crate) fn write_untracked(
        &self,
        src: &Tensor,
        name: &'static str,
        write: impl Fn(&Tensor, &Tensor) -> Result<()> + Clone + Send + Sync + 'static,
    ) -> Result<()> {
        let eager = move |x: &[&Tensor]| write(x[0], x[1]).map(|()| x[0].clone());
        let replay = eager.clone();
        traced(name, NodeKind::Opaque, &[self, src], || eager(&[self, src]), || replay).map(drop)
    }

    /// `self = f(self)` in place; `f` gets the old values with this tensor's history.
    pub fn apply_inplace(&self, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
        self.apply_inplace_reading(true, f)
    }

    /// `apply_inplace`, told whether the node `f` records may keep its input (`old_read`). The write below changes
    /// this tensor's memory, so a kept input must be a copy; a node that keeps nothing or only its result (`relu_`)
    /// reads this tensor itself, saving a pass over the data and a buffer.
    pub fn apply_inplace_reading(&self, old_read: bool, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
        let recording = grad_mode::is_enabled();
        if self.is_leaf() && self.requires_grad() && recording {
            bail!(Runtime, "a leaf Variable that requires grad is being used in an in-place operation.");
        }
        let old = if recording && old_read { self.copy_with_history()? } else { self.clone() };
        let out = f(&old)?;
        check_can_cast(out.dtype(), self.dtype())?;
        if out.shape() != self.shape() {
            bail!(Runtime, "output with shape {:?} doesn't match the broadcast shape {:?}", self.shape(), out.shape());
        }
        self.check_inplace(out.requires_grad())?;
        if !(recording && out.requires_grad()) {
            // no history to take (`with_history_of` keeps this record)
            self.write_untracked(&out, "copy_", Tensor::copy_from)?;
            return Ok(self.clone());
        }
        let node = out.grad_fn();
        // the node's saved output now reads this tensor (before `write_result` counts who else holds `out`), and is
        // bound again after the write, at the version the write leaves
        if let Some(node) = &node {
            node.rebind_saved_output(&out, self);
        }
        self.write_result(&out)?;
        if let Some(node) = &node {
            node.rebind_saved_output(self, self);
        }
        Ok(self.with_history_of(&out))
    }

    /// `copy_from(result)` for an in-place op's result made just now: when this tensor and the result each cover
    /// all of a private buffer in the same dense layout, and nothing else holds the result, the two trade buffers (the
    /// result drops the old values): the write costs no pass over the data and no second buffer. A `relu_` that
    /// takes a gradient did two passes, against PyTorch's one.
    fn write_result(&self, result: &Tensor) -> Result<()> {
        let whole = |t: &Tensor| t.is_contiguous() && t.storage_offset() == 0 && t.numel() == t.0.storage.len();
        let alone = Arc::strong_count(&result.0) == 1 && Arc::strong_count(&result.0.storage) == 1;
        let fits = result.dtype() == self.dtype() && result.shape() == self.shape() && whole(self) && whole(result);
        if alone && fits && self.0.storage.trade_buffers(&result.0.storage) {
            self.0.storage.bump_version();
            return Ok(());
        }
        self.copy_from(result)
    }

    /// `view = f(view)` where `view` reads the storage of `base` (a contiguous tensor): the write goes
    /// through the base, which takes a CopySlices history, and the view becomes a view of the new base.
    /// Returns (new base, new view).
    pub fn apply_inplace_via_base(
        base: &Tensor,
        view: &Tensor,
        f: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<(Tensor, Tensor)> {
        if base.is_leaf() && base.requires_grad() && grad_mode::is_enabled() {
            bail!(Runtime, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
        }
        if !base.same_storage(view) || !base.is_contiguous() || view.storage_offset() < base.storage_offset() {
            bail!(
                Runtime,
                "in-place operation on a view of a non-contiguous tensor that is part of the autograd \
                graph is not supported yet: write into a clone() instead"
            );
        }
        let geom = crate::Layout {
            shape: view.shape().to_vec(),
            strides: view.strides().to_vec(),
            offset: view.storage_offset() - base.storage_offset(),
        };
        let view_dtype = view.dtype();
        let new_base = base.apply_inplace(|old| {
            let new_values = f(&old.as_strided_view(&geom)?)?;
            check_can_cast(new_values.dtype(), view_dtype)?;
            old.copy_slices(&geom, &new_values)
        })?;
        let new_view = new_base.as_strided_view(&geom)?;
        Ok((new_base, new_view))
    }

    /// This tensor's data with `src`'s history (or its own, when `src` has none to give).
    fn with_history_of(&self, src: &Tensor) -> Tensor {
        if !src.requires_grad() || !grad_mode::is_enabled() {
            return self.clone();
        }
        let cast = if src.dtype() != self.dtype() { src.to_dtype(self.dtype()).ok() } else { None };
        let src = cast.as_ref().unwrap_or(src);
        let t = Tensor(Arc::new(TensorImpl {
            storage: self.0.storage.clone(),
            layout: self.0.layout.clone(),
            dtype: self.0.dtype,
            grad_fn: src.0.grad_fn.clone(),
            output_nr: src.0.output_nr,
            meta: None,
            grad_only: false,
            wrapped_number: false,
            is_view: self.0.is_view,
            is_inference: self.0.is_inference,
        }));
        crate::compile::note_made(&t);
        t
    }

    /// `fill_(value)` (and `zero_()`): the old values get no gradient.
    pub fn fill_inplace(&self, value: Scalar, zero: bool) -> Result<Tensor> {
        self.check_inplace(false)?;
        if !(self.requires_grad() && grad_mode::is_enabled()) {
            // no history: a node of a running capture (a label tensor refilled inside a compiled step)
            let write = move |t: &Tensor, _: &Tensor| t.copy_from(&Tensor::full(&[], value, t.dtype()));
            self.write_untracked(&Tensor::wrapped_scalar(value), "fill_", write)?;
            return Ok(self.clone());
        }
        self.copy_from(&Tensor::full(&[], value, self.dtype()))?;
        let marker = if zero {
            record(self.detach(), &[self], |_| ZeroBackward0)
        } else {
            record(self.detach(), &[self], |_| FillBackward2)
        };
        Ok(self.with_history_of(&marker))
    }

    /// `fill_(value)` with a 0-dim tensor `value` (cast to this tensor's dtype): the old values get no
    /// gradient, `value` gets the sum of the incoming one.
    pub fn fill_inplace_tensor(&self, value: &Tensor) -> Result<Tensor> {
        check_fill_value(value)?;
        self.check_inplace(value.requires_grad())?;
        self.copy_from(value)?;
        if !((self.requires_grad() || value.requires_grad()) && grad_mode::is_enabled()) {
            return Ok(self.clone());
        }
        let marker = record(self.detach(), &[self, value], |_| FillBackward3);
        Ok(self.with_history_of(&marker))
    }

    /// `torch.fill(self, value)`: a new tensor of this one's shape and dtype holding `value`
    /// (FillBackward0: `self` gets a zero gradient).
    pub fn fill(&self, value: Scalar) -> Result<Tensor> {
        let out = Tensor::try_full(self.shape(), value, self.dtype())?;
        Ok(record(out, &[self], |_| FillBackward0))
    }

    /// `torch.fill(self, value)` with a 0-dim tensor `value`, cast to this tensor's dtype (FillBackward1: `value`
    /// gets the sum of the incoming gradient).
    pub fn fill_tensor(&self, value: &Tensor) -> Result<Tensor> {
        check_fill_value(value)?;
        let out = value.detach().to_dtype(self.dtype())?.expand(self.shape())?.contiguous_copy()?;
        Ok(record(out, &[self, value], |_| FillBackward1))
    }

    /// `copy_(src)`: src broadcast and cast into this tensor; gradient flows to `src`.
    pub fn copy_inplace(&self, src: &Tensor) -> Result<Tensor> {
        self.layout().broadcast_to(self.shape())?;
        src.layout().broadcast_to(self.shape())?;
        self.check_inplace(src.requires_grad())?;
        if !((self.requires_grad() || src.requires_grad()) && grad_mode::is_enabled()) {
            self.write_untracked(src, "copy_", Tensor::copy_from)?;
            return Ok(self.clone());
        }
        self.copy_from(src)?;
        let marker = record(self.detach(), &[self, src], |_| CopyBackwards);
        Ok(self.with_history_of(&marker))
    }
}

/// torch fills with a tensor only when it holds one value as a 0-dim tensor.
pub(crate) fn check_fill_value(value: &Tensor) -> Result<()> {
    if value.ndim() != 0 {
        bail!(Runtime, "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.", value.ndim());
    }
    Ok(())
}

fn scalar_type_name(d: DType) -> &'static str {
    d.scalar_type_name()
}

crate::backward_rule! {
    /// `fill(self, value)`: `self` gets a zero gradient.
    pub struct FillBackward0;
}
impl Backward for FillBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.mul(&c(0.0)))
    }
}

crate::backward_rule! {
    /// `fill(self, value)` with a 0-dim tensor: `self` gets a zero gradient, `value` the sum.
    pub struct FillBackward1;
}
impl Backward for FillBackward1 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        fill_tensor_grads(ctx, g)
    }
}

/// The gradients of a fill with a 0-dim tensor (in place or not): zero for the filled tensor, the sum for `value`.
fn fill_tensor_grads(ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
    Ok(vec![ctx.grad_if(0, || g.mul(&c(0.0)))?, ctx.grad_if(1, || g.sum(None, false))?])
}

crate::backward_rule! {
    /// `fill_(value)`: the old values get a zero gradient.
    pub struct FillBackward2;
}
impl Backward for FillBackward2 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.mul(&c(0.0)))
    }
}

crate::backward_rule! {
    /// `fill_(value)` with a 0-dim tensor: the old values get a zero gradient, `value` the sum.
    pub struct FillBackward3;
}
impl Backward for FillBackward3 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        fill_tensor_grads(ctx, g)
    }
}

crate::backward_rule! {
    /// `zero_()`.
    pub struct ZeroBackward0;
}
impl Backward for ZeroBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.mul(&c(0.0)))
    }
}

crate::backward_rule! {
    /// `copy_(src)`: the gradient goes to `src`; the old values get zero.
    pub struct CopyBackwards;
}
impl Backward for CopyBackwards {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![ctx.grad_if(0, || g.mul(&c(0.0)))?, Some(g.clone())])
    }
}

/// The storage range a tensor's elements fill when they fill one without gaps or repeats, in any order of dims
/// (PyTorch's "non-overlapping and dense"); None otherwise, or when it has no elements.
fn dense_range(t: &Tensor) -> Option<std::ops::Range<usize>> {
    let mut dims: Vec<(usize, usize)> =
        t.strides().iter().zip(t.shape()).filter(|(_, &n)| n != 1).map(|(&s, &n)| (s, n)).collect();
    dims.sort_unstable();
    let mut expected = 1;
    for (stride, size) in dims {
        if stride != expected {
            return None;
        }
        expected *= size;
    }
    let numel = t.numel();
    (numel > 0).then(|| t.storage_offset()..t.storage_offset() + numel)
}
