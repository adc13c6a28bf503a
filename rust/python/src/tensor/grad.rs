//! Autograd state: requires_grad, .grad, .data, grad_fn, detach, hooks, retain_grad, backward.
use super::{wrap, Out, PyTensor};
use crate::args::{tensor_arg, type_name};
use crate::errors::call;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.get().requires_grad()
    }

    #[setter]
    fn set_requires_grad(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let flag: bool = value
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("requires_grad must be a bool, not {}", type_name(value))))?;
        call(|| slf.get().handle.set_requires_grad(flag))?;
        super::objects::register_leaf(slf)
    }

    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::requires_grad_arg)] requires_grad: bool,
    ) -> PyResult<Py<PyTensor>> {
        call(|| slf.get().handle.set_requires_grad(requires_grad))?;
        super::objects::register_leaf(slf)?;
        Ok(slf.clone().unbind())
    }

    /// Whether this is a meta tensor (torch's `device='meta'`: shape, dtype and strides, no data).
    #[getter]
    fn is_meta(&self) -> bool {
        self.get().is_meta()
    }

    #[getter]
    fn is_leaf(&self) -> bool {
        self.get().is_leaf()
    }

    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        let t = self.get();
        if !t.is_leaf() && !t.retains_grad() {
            let warnings = py.import("warnings")?;
            let cat = py.import("builtins")?.getattr("UserWarning")?;
            warnings.call_method1(
                "warn",
                (
                    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute \
                    won't be populated during autograd.backward(). If you indeed want the .grad field to be populated \
                    for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf \
                    Tensor by mistake, make sure you access the leaf Tensor instead. See \
                    github.com/pytorch/pytorch/pull/30531 for more informations.",
                    cat,
                    2,
                ),
            )?;
        }
        if ferrograd_core::compile::is_capturing() {
            // a node of the captured graph, so that clipping the gradients is captured too
            crate::errors::call(|| ferrograd_core::autograd::note_grad_read(&t))?;
        }
        match t.grad_meta() {
            Some(meta) => super::objects::grad_object(py, meta),
            None => Ok(None),
        }
    }

    #[setter]
    fn set_grad(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        // a write no captured graph replays, unless `zero_grad()` makes it (a node of its own: `_capture_effect`)
        ferrograd_core::compile::unsupported_outside_ops("setting Tensor.grad");
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) if !v.is_instance_of::<PyTensor>() => {
                return Err(PyTypeError::new_err(format!(
                    "assigned grad expected to be a Tensor or None but got grad of type {}",
                    type_name(v)
                )))
            }
            Some(v) => Some(tensor_arg(v, "grad", "value")?),
        };
        call(|| self.handle.set_grad(g))?;
        let t = self.get();
        match (t.grad_meta(), value.and_then(|v| v.cast::<PyTensor>().ok())) {
            (Some(meta), Some(obj)) => super::objects::set_grad_object(meta, obj),
            _ => Ok(()),
        }
    }

    /// The same data with no history; a `detach` node while a capture runs (an SGD written as
    /// `p.data.add_(p.grad, alpha=-lr)` writes through it at each replay).
    #[getter]
    fn get_data(&self, py: Python<'_>) -> Out {
        let t = self.get();
        wrap(py, call(|| t.detach_op())?)
    }

    #[setter]
    fn set_data(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = tensor_arg(value, "data", "value")?;
        call(|| self.handle.set_data(&data))
    }

    fn detach(&self, py: Python<'_>) -> Out {
        let t = self.get();
        wrap(py, call(|| t.detach_op())?)
    }

    /// Detaches this tensor in place: it becomes a leaf that does not require grad.
    fn detach_(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.get().handle.detach_in_place();
        slf.clone().unbind()
    }

    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        ferrograd_core::compile::unsupported("Tensor.register_hook()");
        let t = self.get();
        if !t.requires_grad() {
            return Err(PyRuntimeError::new_err("cannot register a hook on a tensor that doesn't require gradient"));
        }
        let id = call(|| t.register_hook(crate::hooks::tensor_hook(hook)))?;
        Py::new(py, crate::hooks::RemovableHandle::new(crate::hooks::HookTarget::Tensor(t), id))
    }

    /// `hook(tensor)` after each accumulation into this leaf's `.grad`; it is handed this same object
    /// (held weakly, so the hook keeps nothing alive) and must return None.
    fn register_post_accumulate_grad_hook(
        slf: &Bound<'_, Self>,
        hook: Py<PyAny>,
    ) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        ferrograd_core::compile::unsupported("Tensor.register_post_accumulate_grad_hook()");
        let t = slf.get().get();
        let id = call(|| t.register_post_accumulate_hook(crate::hooks::post_accumulate_hook(slf, hook)?))?;
        Py::new(slf.py(), crate::hooks::RemovableHandle::new(crate::hooks::HookTarget::Tensor(t), id))
    }

    fn retain_grad(&self) -> PyResult<()> {
        call(|| self.handle.retain_grad()).map(|_| ())
    }

    fn is_inference(&self) -> bool {
        self.get().is_inference()
    }

    #[getter]
    fn retains_grad(&self) -> bool {
        self.get().retains_grad()
    }

    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let root = self.get();
        let grad = match gradient {
            Some(g) if !g.is_none() => Some(tensor_arg(g, "backward", "gradient")?),
            _ => None,
        };
        let inputs = inputs.filter(|i| !i.is_none()).map(crate::autograd::backward_inputs).transpose()?;
        let retain = retain_graph.unwrap_or(create_graph);
        py.detach(|| {
            call(|| ferrograd_core::autograd::backward(&[root], &[grad], retain, create_graph, inputs.as_deref()))
        })
    }
}
