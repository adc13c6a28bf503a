//! Autograd entry points beyond `Tensor.backward`: `autograd.grad`, hooks and custom functions.
use crate::errors::{call, from_py};
use crate::hooks::{grads_from_py, wrap_all};
use crate::py_tensor::PyTensor;
use ferrograd_core::autograd::{self, CustomBackward, SavedTensor};
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

fn tensors(seq: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Tensor>> {
    seq.try_iter()?
        .map(|o| {
            let o = o?;
            o.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what} must be a sequence of Tensors, got an element of type {}",
                    crate::args::type_name(&o)
                ))
            })
        })
        .collect()
}

/// PyTorch's error for a non-tensor among the `inputs` of `grad`/`backward` (a RuntimeError there).
fn not_a_tensor_input(o: &Bound<'_, PyAny>) -> PyErr {
    PyRuntimeError::new_err(format!(
        "all inputs have to be Tensors or GradientEdges, but got {}",
        crate::args::type_name(o)
    ))
}

fn optional_tensors(seq: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    seq.try_iter()?
        .map(|o| {
            let o = o?;
            if o.is_none() {
                return Ok(None);
            }
            o.cast::<PyTensor>().map(|t| Some(t.get().get())).map_err(|_| {
                PyTypeError::new_err(format!(
                    "gradients can be either Tensors or None, but got {}",
                    crate::args::type_name(&o)
                ))
            })
        })
        .collect()
}

/// `autograd.grad` core: sequences in, a tuple of gradients (or None) out.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused))]
pub fn _grad(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    grad_outputs: &Bound<'_, PyAny>,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Py<PyTuple>> {
    let outputs = tensors(outputs, "outputs")?;
    let inputs: Vec<Tensor> = inputs
        .try_iter()?
        .map(|o| o.and_then(|o| o.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| not_a_tensor_input(&o))))
        .collect::<PyResult<_>>()?;
    let grads = optional_tensors(grad_outputs)?;
    let result =
        py.detach(|| call(|| autograd::grad(&outputs, &grads, &inputs, retain_graph, create_graph, allow_unused)))?;
    wrap_all(py, result)
}

/// The `inputs=` of a backward: one tensor or a sequence. A non-leaf among them starts retaining its
/// gradient (its Python object takes the new record), so the gradient has somewhere to go.
pub fn backward_inputs(inputs: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    let objects: Vec<Bound<'_, PyAny>> = if inputs.cast::<PyTensor>().is_ok() {
        vec![inputs.clone()]
    } else {
        inputs.try_iter()?.collect::<PyResult<_>>()?
    };
    objects
        .iter()
        .map(|o| {
            let py_t = o.cast::<PyTensor>().map_err(|_| not_a_tensor_input(o))?;
            let t = py_t.get().get();
            if t.is_leaf() || t.retains_grad() {
                return Ok(t);
            }
            let retained = call(|| t.retain_grad())?;
            py_t.get().replace(retained.clone());
            Ok(retained)
        })
        .collect()
}

/// `autograd.backward` core, with optional `inputs`.
#[pyfunction]
#[pyo3(signature = (tensors_, grad_tensors, retain_graph, create_graph, inputs=None))]
pub fn _backward(
    py: Python<'_>,
    tensors_: &Bound<'_, PyAny>,
    grad_tensors: &Bound<'_, PyAny>,
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let roots = tensors(tensors_, "tensors")?;
    let grads = optional_tensors(grad_tensors)?;
    let inputs = inputs.filter(|i| !i.is_none()).map(backward_inputs).transpose()?;
    py.detach(|| call(|| autograd::backward(&roots, &grads, retain_graph, create_graph, inputs.as_deref())))
}

/// A Python `autograd.Function`'s backward, called by the engine.
struct PythonBackward {
    name: &'static str,
    backward: Py<PyAny>,
}

impl CustomBackward for PythonBackward {
    fn name(&self) -> &'static str {
        self.name
    }
    fn backward(&self, grads: &[Option<Tensor>], saved: Vec<Tensor>) -> ferrograd_core::Result<Vec<Option<Tensor>>> {
        Python::attach(|py| {
            let g = wrap_all(py, grads.to_vec()).map_err(from_py)?;
            let s = wrap_all(py, saved.into_iter().map(Some).collect()).map_err(from_py)?;
            let r = self.backward.call1(py, (g, s)).map_err(from_py)?;
            grads_from_py(r.bind(py), "backward")
        })
    }
}

fn static_name(name: String) -> &'static str {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    // one leaked string per distinct Function class name: bounded by the program's classes
    names.get_or_insert_with(HashMap::new).entry(name.clone()).or_insert_with(|| Box::leak(name.into_boxed_str()))
}

/// Gives `outputs` one backward node that calls `backward(grads, saved) -> grads per input`.
/// Saved tensors that are among the outputs are stored without history (no cycles).
#[pyfunction]
pub fn _attach_custom(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    backward: Py<PyAny>,
    name: String,
    saved: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTuple>> {
    let outs = tensors(outputs, "outputs")?;
    let ins = tensors(inputs, "inputs")?;
    let saved: Vec<SavedTensor> = tensors(saved, "saved tensors")?
        .iter()
        .map(|s| match outs.iter().position(|o| o.same_storage(s) && o.layout() == s.layout()) {
            // unpacked as that output of the node, so a gradient through it reaches the right place
            Some(nr) => SavedTensor::output_at(s, nr as u32),
            None => SavedTensor::input(s),
        })
        .collect();
    let function = Arc::new(PythonBackward { name: static_name(name), backward });
    let refs: Vec<&Tensor> = ins.iter().collect();
    let result = Tensor::attach_custom(outs, &refs, function, saved);
    wrap_all(py, result.into_iter().map(Some).collect())
}
