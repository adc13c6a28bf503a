//! `grad_fn` objects: a Python face on a backward-graph node.
use ferrograd_core::autograd::Node;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

#[pyclass(name = "Node", module = "ferrograd.autograd.graph", frozen)]
pub struct PyNode {
    pub node: Arc<Node>,
}

#[pymethods]
impl PyNode {
    fn name(&self) -> &'static str {
        self.node.name()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!("<{} object at {:#x}>", slf.get().node.name(), slf.as_ptr() as usize)
    }

    /// `((node or None, input_nr), ...)`, one pair per input of the op.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Bound<'py, PyTuple>> = self
            .node
            .next_edges()
            .iter()
            .map(|e| match e {
                Some(e) => {
                    let n = Py::new(py, PyNode { node: e.node.clone() })?.into_any();
                    PyTuple::new(py, [n, e.input_nr.into_pyobject(py)?.into_any().unbind()])
                }
                None => PyTuple::new(py, [py.None(), 0u32.into_pyobject(py)?.into_any().unbind()]),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyNode>().map(|o| Arc::ptr_eq(&self.node, &o.get().node)).unwrap_or(false)
    }

    fn __hash__(&self) -> isize {
        Arc::as_ptr(&self.node) as *const () as isize
    }

    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        let id = self.node.add_post_hook(crate::hooks::post_hook(hook));
        crate::hooks::node_handle(py, &self.node, id)
    }

    fn register_prehook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        let id = self.node.add_pre_hook(crate::hooks::pre_hook(hook));
        crate::hooks::node_handle(py, &self.node, id)
    }

    #[getter]
    fn _sequence_nr(&self) -> u64 {
        self.node.sequence_nr()
    }
}
