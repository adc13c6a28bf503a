//! `ferrograd.compile`'s bindings: start and finish a capture on this thread, and run a captured graph
//! (`CompiledGraph`) with the GIL released. The cache of graphs by guards is Python's (`_dynamo/`).
use crate::errors::{call, call_heavy};
use crate::tensor::{wrap, PyTensor};
use ferrograd_core::compile::{self, Capture, Graph};
use ferrograd_core::Tensor;
use pyo3::prelude::*;
use std::sync::Arc;

fn records(tensors: &[PyRef<'_, PyTensor>]) -> Vec<Tensor> {
    tensors.iter().map(|t| t.get()).collect()
}

/// A captured graph: `graph(inputs)` runs it over new inputs of the capture's guards.
#[pyclass(name = "CompiledGraph", module = "ferrograd._core", frozen)]
pub struct PyCompiledGraph {
    graph: Arc<Graph>,
}

#[pymethods]
impl PyCompiledGraph {
    fn __call__(&self, py: Python<'_>, inputs: Vec<PyRef<'_, PyTensor>>) -> PyResult<Vec<Py<PyTensor>>> {
        let inputs = records(&inputs);
        let size = inputs.iter().map(Tensor::numel).sum();
        let graph = self.graph.clone();
        let outs = call_heavy(py, size, move || graph.run(&inputs))?;
        outs.into_iter().map(|t| wrap(py, t)).collect()
    }

    /// One line per node, then the outputs.
    fn describe(&self) -> String {
        self.graph.describe()
    }

    /// The ops in the order they run (a multi-output op once).
    #[getter]
    fn ops(&self) -> Vec<&'static str> {
        self.graph.op_names()
    }

    #[getter]
    fn num_nodes(&self) -> usize {
        self.graph.nodes.len()
    }

    #[getter]
    fn fused_groups(&self) -> usize {
        self.graph.fused_groups()
    }
}

/// Starts capturing the ops this thread runs; `inputs` are the graph's inputs.
#[pyfunction]
pub fn _capture_begin(inputs: Vec<PyRef<'_, PyTensor>>) -> PyResult<()> {
    let inputs = records(&inputs);
    call(|| compile::begin(&inputs))
}

/// Finishes the capture: a `CompiledGraph` with these outputs, or the reason (a string) it cannot be replayed.
#[pyfunction]
pub fn _capture_finish(py: Python<'_>, outputs: Vec<PyRef<'_, PyTensor>>) -> PyResult<Py<PyAny>> {
    let outputs = records(&outputs);
    Ok(match call(|| compile::finish(&outputs))? {
        Capture::Graph(graph) => Py::new(py, PyCompiledGraph { graph: Arc::new(graph) })?.into_any(),
        Capture::Break(reason) => reason.into_pyobject(py)?.into_any().unbind(),
    })
}

/// Forgets a capture that did not finish (the function raised, or returned something not capturable).
#[pyfunction]
pub fn _capture_abort() {
    compile::abort();
}

/// Marks the running capture as not replayable because of `what` (a Python-level event: a module hook).
#[pyfunction]
pub fn _capture_unsupported(what: &str) {
    compile::unsupported(what);
}

#[pyfunction]
pub fn _is_capturing() -> bool {
    compile::is_capturing()
}

/// The guards of a call's tensors in one bytes object (each tensor's shape, dtype, requires_grad, contiguity,
/// and the first position holding the same object), so a call's cache key costs one call, not four
/// attribute reads a tensor in Python.
#[pyfunction]
pub fn _guard_signature<'py>(py: Python<'py>, tensors: Vec<PyRef<'py, PyTensor>>) -> Bound<'py, pyo3::types::PyBytes> {
    let mut out = Vec::with_capacity(tensors.len() * 24);
    let mut seen: Vec<*mut pyo3::ffi::PyObject> = Vec::with_capacity(tensors.len());
    for t in &tensors {
        let ptr = t.as_ptr();
        let first = seen.iter().position(|&p| p == ptr).unwrap_or(seen.len());
        seen.push(ptr);
        let record = t.get();
        out.extend_from_slice(&(record.ndim() as u32).to_le_bytes());
        for &d in record.shape() {
            out.extend_from_slice(&(d as u64).to_le_bytes());
        }
        out.extend_from_slice(&[record.dtype() as u8, record.requires_grad() as u8, record.is_contiguous() as u8]);
        out.extend_from_slice(&(first as u32).to_le_bytes());
    }
    pyo3::types::PyBytes::new(py, &out)
}

/// A module tree's parameters and buffers (each tensor once: every module's parameters, then every module's
/// buffers, modules in pre-order) and each module's training flag: the inputs and guards of a compiled
/// module's call, read on every call (in Python this walk was most of a small model's compiled call).
#[pyfunction]
pub fn _module_state<'py>(
    py: Python<'py>,
    module: &Bound<'py, PyAny>,
) -> PyResult<(Vec<Bound<'py, PyAny>>, Bound<'py, pyo3::types::PyTuple>)> {
    use pyo3::intern;
    use pyo3::types::{PyDict, PyDictMethods};
    // each module's registries are read from its `__dict__` (attribute lookups would walk the class's MRO)
    let registry =
        |state: &Bound<'py, PyDict>, name: &Bound<'py, pyo3::types::PyString>| -> PyResult<Bound<'py, PyDict>> {
            match state.get_item(name)? {
                Some(d) => Ok(d.cast_into::<PyDict>()?),
                None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                    "a module in the tree has no {name} (Module.__init__() was not called)"
                ))),
            }
        };
    let mut states: Vec<(Bound<'py, PyAny>, Bound<'py, PyDict>)> = Vec::new();
    let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut stack = vec![module.clone()];
    while let Some(current) = stack.pop() {
        if !seen.insert(current.as_ptr() as usize) {
            continue;
        }
        let state = current.getattr(intern!(py, "__dict__"))?.cast_into::<PyDict>()?;
        let children = registry(&state, intern!(py, "_modules"))?;
        // pushed last-first, so that the first child is walked next (pre-order, as `modules()`)
        let at = stack.len();
        stack.extend(children.iter().map(|(_, c)| c).filter(|c| !c.is_none()));
        stack[at..].reverse();
        states.push((current, state));
    }
    let mut tensors: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut ids: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for name in [intern!(py, "_parameters"), intern!(py, "_buffers")] {
        for (_, state) in &states {
            for (_, t) in registry(state, name)?.iter() {
                if !t.is_none() && ids.insert(t.as_ptr() as usize) {
                    tensors.push(t);
                }
            }
        }
    }
    let mut training: Vec<Bound<'py, PyAny>> = Vec::with_capacity(states.len());
    for (module, state) in &states {
        training.push(match state.get_item(intern!(py, "training"))? {
            Some(flag) => flag,
            None => module.getattr(intern!(py, "training"))?, // a property (OptimizedModule's)
        });
    }
    Ok((tensors, pyo3::types::PyTuple::new(py, training)?))
}
