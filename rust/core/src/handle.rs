//! What a Python `Tensor` object is to the core: one identity over a swappable record.
//!
//! A `Tensor` record is immutable: whatever "changes" a tensor (an in-place op's new history,
//! `requires_grad_()`, `.data = ...`, `retain_grad()`) makes a new record, and the handle swaps it in,
//! so the object keeps its identity. A handle made by a view op remembers the handle of the tensor
//! whose storage it reads (its base, the root of a chain of views): an in-place write through a view of
//! a tensor that is part of a graph is recorded on the base (`CopySlices`), and the view becomes a view
//! of the base's new record (`AsStridedBackward0`), as in PyTorch.
//!
//! How a view holds its base is the owner's choice (`Base`): the Python bindings hold the base's
//! Python object (no allocation beyond the object itself), the tests an `Arc`.
use crate::autograd::{grad_mode, GradMeta};
use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::copy::DenseWrite;
use crate::tensor::Tensor;
use parking_lot::RwLock;
use std::sync::{Arc, Weak};

/// A reference from a view to its base's handle.
pub trait Base: Sized + Send + Sync {
    fn handle(&self) -> &TensorHandle<Self>;
    /// Another reference to the same base.
    fn another(&self) -> Self;
}

pub struct TensorHandle<B: Base> {
    /// Swapped (never mutated) when the tensor's identity takes a new record.
    record: RwLock<Tensor>,
    /// For a view: the tensor whose storage it reads (the root of its chain of views).
    base: Option<B>,
    /// For the object of a leaf's `.grad`: that leaf, whose gradient takes every record this handle
    /// swaps in while it still is this handle's (`p.grad.data = x` changes `p.grad`).
    grad_of: Option<Weak<GradMeta>>,
}

impl<B: Base> TensorHandle<B> {
    pub fn new(t: Tensor) -> Self {
        TensorHandle { record: RwLock::new(t), base: None, grad_of: None }
    }

    /// The handle of `meta`'s gradient `t` (see `grad_of`).
    pub fn grad_of(t: Tensor, meta: &Arc<GradMeta>) -> Self {
        TensorHandle { record: RwLock::new(t), base: None, grad_of: Some(Arc::downgrade(meta)) }
    }

    /// The handle of `t`, the result of a view op on `this` (which `this_ref` refers to): a view of
    /// `this`'s base (or of `this`) when `t` reads the same storage, else a handle of its own.
    pub fn view(this: &TensorHandle<B>, this_ref: impl FnOnce() -> B, t: Tensor) -> Self {
        let base = t.same_storage(&this.get()).then(|| this.base.as_ref().map_or_else(this_ref, B::another));
        TensorHandle { record: RwLock::new(t), base, grad_of: None }
    }

    /// The current record.
    pub fn get(&self) -> Tensor {
        self.record.read().clone()
    }

    /// Swaps in a new record (same identity).
    pub fn set(&self, t: Tensor) {
        // the record a capture knows would no longer be this tensor's (`x.add_(1)`, `requires_grad_()`), unless the
        // new one is a captured op's value (`relu_`), or the record stays (a write that takes no history is a node
        // of its own: `Tensor::write_untracked`)
        let kept = || std::sync::Arc::ptr_eq(&t.0, &self.record.read().0) || crate::compile::knows(&t);
        if crate::compile::is_capturing() && !kept() {
            crate::compile::unsupported_outside_ops("an in-place change of a tensor");
        }
        let Some(leaf) = &self.grad_of else {
            *self.record.write() = t;
            return;
        };
        let old = std::mem::replace(&mut *self.record.write(), t.clone());
        if let Some(meta) = leaf.upgrade() {
            meta.replace_grad(&old, t);
        }
    }

    pub fn base(&self) -> Option<&B> {
        self.base.as_ref()
    }

    /// `torch.utils.swap_tensors`' exchange: each handle takes the other's record, so each Python object
    /// becomes what the other was (values, geometry, history, gradient). A view and a leaf's `.grad` object keep
    /// what makes them one outside the record (their base, their leaf), so they are refused.
    pub fn swap_records(&self, other: &Self) -> Result<()> {
        if self.base.is_some() || other.base.is_some() {
            crate::bail!(Runtime, "swap_tensors: ferrograd cannot swap a view (it reads its base's storage)");
        }
        if self.grad_of.is_some() || other.grad_of.is_some() {
            crate::bail!(Runtime, "swap_tensors: ferrograd cannot swap the tensor of a leaf's .grad");
        }
        if crate::compile::is_capturing() {
            crate::compile::unsupported_outside_ops("swap_tensors()");
        }
        if !std::ptr::eq(self, other) {
            std::mem::swap(&mut *self.record.write(), &mut *other.record.write());
        }
        Ok(())
    }

    /// How many holders share this tensor's record (torch's `_use_count`): 1 when only this object has it; a
    /// graph that saved the tensor holds it too.
    pub fn use_count(&self) -> usize {
        std::sync::Arc::strong_count(&self.record.read().0)
    }

    /// `self = f(self)` in place. Through a view of a tensor in a graph, the write goes via the base,
    /// which takes a `CopySlices` history.
    pub fn apply_inplace(&self, other_requires_grad: bool, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<()> {
        let t = self.get();
        if let Some(base) = &self.base {
            let base = base.handle();
            let b = base.get();
            if grad_mode::is_enabled() && (b.requires_grad() || t.requires_grad() || other_requires_grad) {
                let (new_base, new_view) = Tensor::apply_inplace_via_base(&b, &t, f)?;
                base.set(new_base);
                self.set(new_view);
                return Ok(());
            }
        }
        // with no gradient to take, `f` records no node that could keep the old values: no copy of them first
        let old_read = t.requires_grad() || other_requires_grad;
        self.set(t.apply_inplace_reading(old_read, f)?);
        Ok(())
    }

    /// `self = f(self)` in place for a unary op (`relu_`): outside a view, one traced op, so that a capture
    /// replays it (with its history, in a training step) and reads the tensor's new record as its value.
    /// `old_read`: whether `f`'s node may keep its input (`unary::inplace_reads_input`).
    pub fn apply_unary_inplace<F>(&self, name: &'static str, old_read: bool, f: F) -> Result<()>
    where
        F: Fn(&Tensor) -> Result<Tensor> + Clone + Send + Sync + 'static,
    {
        if self.base.is_some() {
            return self.apply_inplace(false, f);
        }
        let t = self.get();
        // without a gradient to take, a unary op's result has no node to keep the input
        let old_read = old_read && t.requires_grad();
        self.set(t.apply_inplace_traced(name, old_read, f)?);
        Ok(())
    }

    /// `self op= other`: straight into the tensor's memory when nothing is recorded (dense floats of
    /// one shape), else computed out of place and written back.
    pub fn apply_arith(&self, other: &Tensor, op: DenseWrite) -> Result<()> {
        let t = self.get();
        t.check_no_partial_overlap(other)?;
        if t.dense_in_place(other, op) {
            return Ok(());
        }
        if self.base.is_none() {
            self.set(t.apply_arith_traced(other, op)?);
            return Ok(());
        }
        self.apply_inplace(other.requires_grad(), |old| op.result(old, other))
    }

    /// `fill_(value)` / `zero_()`.
    pub fn fill(&self, value: Scalar, zero: bool) -> Result<()> {
        value.check_fits(self.get().dtype())?;
        if self.base.is_some() {
            return self.apply_inplace(false, |old| Ok(Tensor::full(old.shape(), value, old.dtype())));
        }
        let t = self.get();
        self.set(t.fill_inplace(value, zero)?);
        Ok(())
    }

    /// `fill_(value)` with a 0-dim tensor `value`.
    pub fn fill_tensor(&self, value: &Tensor) -> Result<()> {
        crate::ops::inplace::check_fill_value(value)?;
        if self.base.is_some() {
            return self.apply_inplace(value.requires_grad(), |old| value.to_dtype(old.dtype())?.expand(old.shape()));
        }
        let t = self.get();
        self.set(t.fill_inplace_tensor(value)?);
        Ok(())
    }

    /// `copy_(src)`: `src` broadcast and cast into this tensor.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        if self.base.is_some() {
            return self.apply_inplace(src.requires_grad(), |old| src.to_dtype(old.dtype())?.expand(old.shape()));
        }
        let t = self.get();
        self.set(t.copy_inplace(src)?);
        Ok(())
    }

    /// `.grad = grad`. A leaf that does not require grad takes a record that keeps it (`Tensor::with_grad_only`), as
    /// torch lets any leaf hold a `.grad`.
    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        let t = self.get();
        match grad {
            Some(g) if t.grad_meta().is_none() => self.set(t.with_grad_only(g)?),
            grad => t.set_grad(grad)?,
        }
        Ok(())
    }

    /// `requires_grad_(flag)` / `.requires_grad = flag` (leaves only, as PyTorch).
    pub fn set_requires_grad(&self, flag: bool) -> Result<()> {
        let t = self.get();
        self.set(t.with_requires_grad(flag)?);
        Ok(())
    }

    /// `.data = data`: the same autograd identity over other data.
    pub fn set_data(&self, data: &Tensor) -> Result<()> {
        let t = self.get();
        self.set(t.with_data_of(data)?);
        Ok(())
    }

    /// A view op in place (`t_()`, `squeeze_()`, ...): this tensor takes `view`, a view of its record, with the
    /// view's geometry and history. Like torch, a leaf that requires grad refuses it and the version counter of
    /// the storage is bumped (saved uses of the old geometry then fail their version check).
    pub fn restride_in_place(&self, view: Tensor) -> Result<()> {
        let t = self.get();
        if grad_mode::is_enabled() && t.is_leaf() && t.requires_grad() {
            crate::bail!(Runtime, "a leaf Variable that requires grad is being used in an in-place operation.");
        }
        debug_assert!(view.same_storage(&t), "restride_in_place takes a view of the tensor");
        t.storage().bump_version();
        self.set(view);
        Ok(())
    }

    /// `resize_(shape)`: this tensor takes the shape over its storage, grown if too short (`Tensor::resized`);
    /// the version counter is bumped when the sizes change, as torch's.
    pub fn resize(&self, shape: &[usize], order: Option<&[usize]>) -> Result<()> {
        let t = self.get();
        let (resized, sizes_change) = t.resized(shape, order)?;
        if sizes_change {
            t.storage().bump_version();
        }
        if let Some(resized) = resized {
            self.set(resized);
        }
        Ok(())
    }

    /// `detach_()`: this tensor becomes a leaf that does not require grad.
    pub fn detach_in_place(&self) {
        let t = self.get();
        self.set(t.detach());
    }

    /// `retain_grad()`: a non-leaf keeps its gradient in `.grad` from now on.
    pub fn retain_grad(&self) -> Result<Tensor> {
        let t = self.get();
        let retained = t.retain_grad()?;
        self.set(retained.clone());
        Ok(retained)
    }
}

#[cfg(test)]
mod tests {
    use super::{Base, TensorHandle};
    use crate::ops::copy::DenseWrite;
    use crate::{autograd, DType, Tensor};
    use std::sync::Arc;

    /// Views holding their base through an `Arc`.
    #[derive(Clone)]
    struct Shared(Arc<TensorHandle<Shared>>);

    impl Base for Shared {
        fn handle(&self) -> &TensorHandle<Shared> {
            &self.0
        }
        fn another(&self) -> Shared {
            self.clone()
        }
    }

    impl Shared {
        fn new(t: Tensor) -> Shared {
            Shared(Arc::new(TensorHandle::new(t)))
        }
        fn view(&self, t: Tensor) -> Shared {
            Shared(Arc::new(TensorHandle::view(&self.0, || self.clone(), t)))
        }
    }

    impl std::ops::Deref for Shared {
        type Target = TensorHandle<Shared>;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }

    fn handle(values: Vec<f64>, shape: &[usize]) -> Shared {
        Shared::new(Tensor::from_vec(values, shape).unwrap())
    }

    #[test]
    fn a_view_remembers_the_root_of_its_chain() {
        let x = handle((0..6).map(f64::from).collect(), &[2, 3]);
        let row = x.view(x.get().select(0, 1).unwrap());
        let elem = row.view(row.get().select(0, 2).unwrap());
        assert!(Arc::ptr_eq(&elem.base().unwrap().0, &x.0));
        let copy = x.view(x.get().contiguous_copy().unwrap());
        assert!(copy.base().is_none(), "a result with storage of its own is no view");
    }

    #[test]
    fn writing_through_a_view_of_a_graph_tensor_records_on_the_base() {
        // y = w * 1; y[1] += 10 * w  ->  d(sum y)/dw = 3 + 10
        let w = Tensor::from_vec(vec![2.0f64], &[1]).unwrap().with_requires_grad(true).unwrap();
        let y = Shared::new(w.mul(&Tensor::ones(&[3], DType::F64)).unwrap());
        let view = y.view(y.get().select(0, 1).unwrap());
        let other = w.mul(&Tensor::scalar(10.0)).unwrap().reshape(&[]).unwrap();
        view.apply_arith(&other, DenseWrite::Add).unwrap();
        assert_eq!(y.get().to_vec::<f64>(), vec![2.0, 22.0, 2.0]);
        assert_eq!(y.get().grad_fn().unwrap().name(), "CopySlices");
        assert_eq!(view.get().grad_fn().unwrap().name(), "AsStridedBackward0");
        assert_eq!(view.get().to_vec::<f64>(), vec![22.0]);
        autograd::backward(&[y.get().sum(None, false).unwrap()], &[None], false, false, None).unwrap();
        assert_eq!(w.grad().unwrap().to_vec::<f64>(), vec![13.0]);
    }

    #[test]
    fn writing_through_a_view_without_a_graph_writes_the_memory() {
        let x = handle(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let col = x.view(x.get().select(1, 0).unwrap());
        col.fill(crate::Scalar::Float(0.0), false).unwrap();
        col.apply_arith(&Tensor::scalar(5.0), DenseWrite::Add).unwrap();
        assert_eq!(x.get().to_vec::<f64>(), vec![5.0, 2.0, 5.0, 4.0]);
        assert!(x.get().grad_fn().is_none());
    }

    #[test]
    fn a_leaf_that_requires_grad_refuses_in_place_writes_and_stays_unchanged() {
        let x = Shared::new(Tensor::ones(&[2], DType::F32).with_requires_grad(true).unwrap());
        let err = x.apply_arith(&Tensor::scalar(1.0), DenseWrite::Add).unwrap_err();
        assert!(err.to_string().contains("a leaf Variable that requires grad is being used in an in-place operation"));
        assert_eq!(x.get().to_vec::<f32>(), vec![1.0, 1.0]);
    }
}
