//! One Python object per leaf and per `.grad`: what the graph hands back (`AccumulateGrad.variable`, a
//! saved leaf, `p.grad`) is the object the user holds while it lives. Both are kept weakly in the
//! leaf's `GradMeta`, so nothing here keeps a tensor alive or forms a cycle.
//!
//! No lock is held while Python may run (allocating can run arbitrary code through the collector).
use super::{wrap, PyTensor};
use ferrograd_core::autograd::GradMeta;
use ferrograd_core::Tensor;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyWeakrefMethods, PyWeakrefReference};
use std::sync::Arc;

#[derive(Default)]
struct LeafObjects {
    leaf: Mutex<Option<Py<PyWeakrefReference>>>,
    grad: Mutex<Option<Py<PyWeakrefReference>>>,
}

fn objects(meta: &GradMeta) -> Option<&LeafObjects> {
    meta.owner(LeafObjects::default)
}

fn live(py: Python<'_>, slot: &Mutex<Option<Py<PyWeakrefReference>>>) -> Option<Py<PyTensor>> {
    let weak = slot.lock().as_ref().map(|w| w.clone_ref(py))?;
    let obj = weak.bind(py).upgrade()?;
    obj.cast_into::<PyTensor>().ok().map(Bound::unbind)
}

fn remember(obj: &Bound<'_, PyTensor>, slot: &Mutex<Option<Py<PyWeakrefReference>>>) -> PyResult<()> {
    let weak = PyWeakrefReference::new(obj)?.unbind();
    let previous = slot.lock().replace(weak);
    drop(previous);
    Ok(())
}

fn same_meta(obj: &Py<PyTensor>, meta: &GradMeta) -> bool {
    obj.get().get().grad_meta().is_some_and(|m| std::ptr::eq(Arc::as_ptr(m), meta))
}

/// Remembers `obj` as its leaf's object, unless the leaf has a live one already.
pub fn register_leaf(obj: &Bound<'_, PyTensor>) -> PyResult<()> {
    let t = obj.get().get();
    let Some(meta) = t.grad_meta().filter(|_| t.is_leaf()) else { return Ok(()) };
    let Some(objects) = objects(meta) else { return Ok(()) };
    if live(obj.py(), &objects.leaf).is_some_and(|o| same_meta(&o, meta)) {
        return Ok(());
    }
    remember(obj, &objects.leaf)
}

/// The leaf's object while it is alive and still that leaf.
pub fn leaf_object(py: Python<'_>, meta: &GradMeta) -> Option<Py<PyTensor>> {
    live(py, &objects(meta)?.leaf).filter(|o| same_meta(o, meta))
}

/// The Python object for `t`: its leaf's own object when it has one, else a new object.
pub fn tensor_object(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    if let Some(meta) = t.grad_meta().filter(|_| t.is_leaf()) {
        if let Some(obj) = leaf_object(py, meta) {
            return Ok(obj);
        }
    }
    wrap(py, t)
}

/// `leaf.grad`: the same object while it lives and is still the gradient (a new object once the
/// gradient is another tensor, as in PyTorch).
pub fn grad_object(py: Python<'_>, meta: &Arc<GradMeta>) -> PyResult<Option<Py<PyTensor>>> {
    let Some(grad) = meta.grad() else { return Ok(None) };
    let Some(objects) = objects(meta) else { return wrap(py, grad).map(Some) };
    if let Some(obj) = live(py, &objects.grad).filter(|o| o.get().get().same_tensor(&grad)) {
        return Ok(Some(obj));
    }
    let obj = Py::new(py, PyTensor::grad_of(grad, meta))?;
    remember(obj.bind(py), &objects.grad)?;
    Ok(Some(obj))
}

/// `leaf.grad = obj`: `obj` is the gradient's object from now on.
pub fn set_grad_object(meta: &GradMeta, obj: &Bound<'_, PyTensor>) -> PyResult<()> {
    match objects(meta) {
        Some(objects) => remember(obj, &objects.grad),
        None => Ok(()),
    }
}

/// The weak references this registry holds to `obj` (as its leaf's object): not the user's, so
/// `torch.utils.swap_tensors`' "no weakrefs" check leaves them out.
pub fn own_weakrefs<'py>(obj: &Bound<'py, PyTensor>) -> Vec<Bound<'py, PyWeakrefReference>> {
    let t = obj.get().get();
    let Some(objects) = t.grad_meta().and_then(|meta| objects(meta)) else { return Vec::new() };
    [&objects.leaf, &objects.grad]
        .into_iter()
        .filter_map(|slot| slot.lock().as_ref().map(|w| w.bind(obj.py()).clone()))
        .filter(|w| w.upgrade().is_some_and(|o| o.is(obj)))
        .collect()
}
