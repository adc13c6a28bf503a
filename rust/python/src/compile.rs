//! `ferrograd.compile`'s bindings: start and finish a capture on this thread, and run a captured graph
//! (`CompiledGraph`) with the GIL released. The cache of graphs by guards is Python's (`_dynamo/`).
use crate::errors::{call, call_heavy, from_py};
use crate::tensor::{wrap, PyTensor};
use ferrograd_core::compile::{self, Capture, Effect, Graph};
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyReferenceError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyWeakrefMethods, PyWeakrefReference};
use std::sync::Arc;

fn records(tensors: &[PyRef<'_, PyTensor>]) -> Vec<Tensor> {
    tensors.iter().map(|t| t.get()).collect()
}

/// A captured graph: `graph(inputs)` runs it over new inputs of the capture's guards.
#[pyclass(name = "CompiledGraph", module = "ferrograd._core", frozen)]
pub struct PyCompiledGraph {
    graph: Arc<Graph>,
}

impl PyCompiledGraph {
    /// The graph's outputs for `inputs`, run with the GIL released when the inputs are large.
    pub(crate) fn run(&self, py: Python<'_>, inputs: Vec<Tensor>) -> PyResult<Vec<Py<PyTensor>>> {
        let size = inputs.iter().map(Tensor::numel).sum();
        let graph = self.graph.clone();
        let outs = call_heavy(py, size, move || graph.run(&inputs))?;
        outs.into_iter().map(|t| wrap(py, t)).collect()
    }
}

#[pymethods]
impl PyCompiledGraph {
    fn __call__(&self, py: Python<'_>, inputs: Vec<PyRef<'_, PyTensor>>) -> PyResult<Vec<Py<PyTensor>>> {
        self.run(py, records(&inputs))
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

    /// False once a tensor whose data Python read during the capture was written: the cache captures anew.
    #[getter]
    pub(crate) fn is_current(&self) -> bool {
        self.graph.is_current()
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

/// Runs `getattr(owner, method)()` now and, while a capture is on, records it as a node that runs it again at
/// each replay (`effect`: "optimizer.step", "zero_grad"; `targets`: the tensors it changes). The node holds
/// `owner` weakly: a graph never keeps an optimizer or a module alive, nor makes a cycle through one.
#[pyfunction]
pub fn _capture_effect(
    effect: &str,
    targets: Vec<PyRef<'_, PyTensor>>,
    owner: &Bound<'_, PyAny>,
    method: Bound<'_, PyString>,
) -> PyResult<()> {
    let effect = match effect {
        "optimizer.step" => Effect::OptimizerStep,
        "zero_grad" => Effect::ZeroGrad,
        other => return Err(PyValueError::new_err(format!("unknown captured effect {other:?}"))),
    };
    let owner = PyWeakrefReference::new(owner)?.unbind();
    let method = method.unbind();
    let targets = records(&targets);
    let run = move || {
        Python::attach(|py| {
            let Some(owner) = owner.bind(py).upgrade() else {
                return Err(from_py(PyReferenceError::new_err(format!(
                    "the object whose {} a compiled graph replays no longer exists",
                    effect.name()
                ))));
            };
            owner.call_method0(method.bind(py)).map(drop).map_err(from_py)
        })
    };
    call(|| compile::effect(effect, &targets, run))
}

#[pyfunction]
pub fn _is_capturing() -> bool {
    compile::is_capturing()
}
