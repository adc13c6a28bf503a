//! Python callables as the engine's hooks, and the handles that remove them.
use crate::errors::from_py;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::autograd::{self, Node};
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyWeakrefMethods, PyWeakrefReference};
use std::sync::Arc;

/// A tuple of tensors and Nones, as hooks and custom backward functions receive gradients.
pub fn wrap_all(py: Python<'_>, ts: Vec<Option<Tensor>>) -> PyResult<Py<PyTuple>> {
    let items: Vec<Py<PyAny>> = ts
        .into_iter()
        .map(|t| match t {
            Some(t) => wrap(py, t).map(|p| p.into_any()),
            None => Ok(py.None()),
        })
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.unbind())
}

/// A Python callable as a tensor hook: its return value (a Tensor or None) replaces the gradient.
pub fn tensor_hook(f: Py<PyAny>) -> autograd::TensorHook {
    Arc::new(move |g: &Tensor| {
        Python::attach(|py| {
            let r = f.call1(py, (wrap(py, g.clone()).map_err(from_py)?,)).map_err(from_py)?;
            let r = r.bind(py);
            if r.is_none() {
                return Ok(None);
            }
            r.cast::<PyTensor>().map(|t| Some(t.get().get())).map_err(|_| {
                from_py(PyTypeError::new_err(format!(
                    "hook returned an object of type {}; expected a Tensor or None",
                    crate::args::type_name(r)
                )))
            })
        })
    })
}

/// A Python callable as a post-accumulate-grad hook of the leaf `obj`: called with `obj` itself (so a
/// dict keyed by parameters finds it), which it holds weakly.
pub fn post_accumulate_hook(
    obj: &Bound<'_, PyTensor>,
    f: Py<PyAny>,
) -> ferrograd_core::Result<autograd::PostAccumulateHook> {
    let leaf = PyWeakrefReference::new(obj).map_err(from_py)?.unbind();
    Ok(Arc::new(move || {
        Python::attach(|py| {
            let Some(obj) = leaf.bind(py).upgrade() else { return Ok(()) };
            let r = f.call1(py, (obj,)).map_err(from_py)?;
            let r = r.bind(py);
            if r.is_none() {
                return Ok(());
            }
            // torch's two refusals: a Tensor is not a replacement here, anything else is not even a Tensor
            Err(from_py(if r.is_instance_of::<PyTensor>() {
                PyRuntimeError::new_err("Tensor post accumulate grad hooks should return None.")
            } else {
                PyTypeError::new_err(format!("expected Variable, but hook returned '{}'", crate::args::type_name(r)))
            }))
        })
    }))
}

pub fn grads_from_py(r: &Bound<'_, PyAny>, what: &str) -> ferrograd_core::Result<Vec<Option<Tensor>>> {
    let items: Vec<Bound<'_, PyAny>> = if r.is_instance_of::<PyTuple>() || r.is_instance_of::<PyList>() {
        r.try_iter().map_err(from_py)?.collect::<PyResult<_>>().map_err(from_py)?
    } else {
        vec![r.clone()]
    };
    items
        .iter()
        .map(|o| {
            if o.is_none() {
                Ok(None)
            } else {
                o.cast::<PyTensor>().map(|t| Some(t.get().get())).map_err(|_| {
                    from_py(PyTypeError::new_err(format!(
                        "{what} returned an object of type {}; expected Tensors or None",
                        crate::args::type_name(o)
                    )))
                })
            }
        })
        .collect()
}

/// `grad_fn.register_prehook(fn(grad_outputs))`.
pub fn pre_hook(f: Py<PyAny>) -> autograd::PreHook {
    Arc::new(move |grads: &[Option<Tensor>]| {
        Python::attach(|py| {
            let args = wrap_all(py, grads.to_vec()).map_err(from_py)?;
            let r = f.call1(py, (args,)).map_err(from_py)?;
            let r = r.bind(py);
            if r.is_none() {
                Ok(None)
            } else {
                grads_from_py(r, "pre-hook").map(Some)
            }
        })
    })
}

/// `grad_fn.register_hook(fn(grad_inputs, grad_outputs))`.
pub fn post_hook(f: Py<PyAny>) -> autograd::PostHook {
    Arc::new(move |grad_inputs: &[Option<Tensor>], grad_outputs: &[Option<Tensor>]| {
        Python::attach(|py| {
            let gi = wrap_all(py, grad_inputs.to_vec()).map_err(from_py)?;
            let go = wrap_all(py, grad_outputs.to_vec()).map_err(from_py)?;
            let r = f.call1(py, (gi, go)).map_err(from_py)?;
            let r = r.bind(py);
            if r.is_none() {
                Ok(None)
            } else {
                grads_from_py(r, "hook").map(Some)
            }
        })
    })
}

/// Removes a hook registered on a tensor or a node.
#[pyclass(module = "ferrograd.utils.hooks", frozen)]
pub struct RemovableHandle {
    target: HookTarget,
    id: u64,
}

pub enum HookTarget {
    Tensor(Tensor),
    Node(Arc<Node>),
}

impl RemovableHandle {
    pub fn new(target: HookTarget, id: u64) -> Self {
        RemovableHandle { target, id }
    }
}

#[pymethods]
impl RemovableHandle {
    fn remove(&self) {
        match &self.target {
            HookTarget::Tensor(t) => {
                t.remove_hook(self.id);
            }
            HookTarget::Node(n) => {
                n.remove_hook(self.id);
            }
        }
    }
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __exit__(&self, _a: &Bound<'_, PyAny>, _b: &Bound<'_, PyAny>, _c: &Bound<'_, PyAny>) {
        self.remove()
    }
}

/// The handle of a hook registered on `node`.
pub fn node_handle(py: Python<'_>, node: &Arc<Node>, id: u64) -> PyResult<Py<RemovableHandle>> {
    Py::new(py, RemovableHandle::new(HookTarget::Node(node.clone()), id))
}
