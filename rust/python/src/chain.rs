//! `Sequential`'s forward over its leading `Linear` and `ReLU` layers without a Python frame per layer:
//! at batch 1 a layer's Python calls cost more than its arithmetic.
use crate::errors::call_heavy_as;
use crate::tensor::{wrap, PyTensor};
use ferrograd_core::unary::Relu;
use ferrograd_core::Tensor;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

/// The classes whose `forward` runs here, with the functions it stands for (checked on every call, so that
/// a patched class or instance goes through Python again).
struct Layers {
    linear: Py<PyAny>,
    linear_forward: Py<PyAny>,
    relu: Py<PyAny>,
    relu_forward: Py<PyAny>,
    module_call: Py<PyAny>,
}

static LAYERS: PyOnceLock<Layers> = PyOnceLock::new();

/// Registers the layer classes (nn/modules/container.py, at import).
#[pyfunction]
pub fn _register_chain_layers(
    py: Python<'_>,
    linear: Py<PyAny>,
    linear_forward: Py<PyAny>,
    relu: Py<PyAny>,
    relu_forward: Py<PyAny>,
    module_call: Py<PyAny>,
) {
    let _ = LAYERS.set(py, Layers { linear, linear_forward, relu, relu_forward, module_call });
}

/// Feeds `input` through the leading modules of `modules` (an ordered dict) that are a plain `Linear` or
/// `ReLU(inplace=False)` called on a tensor, and returns how many it ran and the result. It stops at the
/// first other module, and at one whose computation fails (that one is left for Python, which raises).
#[pyfunction]
pub fn _chain_layers<'py>(
    modules: &Bound<'py, PyAny>,
    input: Bound<'py, PyAny>,
) -> PyResult<(usize, Bound<'py, PyAny>)> {
    let py = modules.py();
    let Some(layers) = LAYERS.get(py) else { return Ok((0, input)) };
    let Ok(first) = input.cast::<PyTensor>() else { return Ok((0, input)) };
    // the tensors between layers stay in the core: only the last one becomes a Python object
    let mut x = first.get().get();
    let mut done = 0;
    let mut classes = Plain::default();
    for module in modules.call_method0(intern!(py, "values"))?.try_iter()? {
        match step(layers, &mut classes, &module?, &x)? {
            Some(next) => x = next,
            None => break,
        }
        done += 1;
    }
    if done == 0 {
        return Ok((0, input));
    }
    Ok((done, wrap(py, x)?.into_bound(py).into_any()))
}

/// Whether each class still has its own `forward` and Module's `__call__`, found once per chain.
#[derive(Default)]
struct Plain {
    linear: Option<bool>,
    relu: Option<bool>,
}

fn step(layers: &Layers, classes: &mut Plain, module: &Bound<'_, PyAny>, x: &Tensor) -> PyResult<Option<Tensor>> {
    let py = module.py();
    let ty = module.get_type();
    let linear = ty.is(layers.linear.bind(py));
    if !linear && !ty.is(layers.relu.bind(py)) {
        return Ok(None);
    }
    let plain = if linear { &mut classes.linear } else { &mut classes.relu };
    let plain = match *plain {
        Some(known) => known,
        None => {
            let forward = if linear { &layers.linear_forward } else { &layers.relu_forward };
            let known = ty.getattr(intern!(py, "forward"))?.is(forward.bind(py))
                && ty.getattr(intern!(py, "__call__"))?.is(layers.module_call.bind(py));
            *plain = Some(known);
            known
        }
    };
    if !plain {
        return Ok(None);
    }
    let Ok(state) = module.getattr(intern!(py, "__dict__"))?.cast_into::<PyDict>() else { return Ok(None) };
    if state.contains(intern!(py, "forward"))? {
        return Ok(None);
    }
    let out = if linear {
        let Some(params) = state.get_item(intern!(py, "_parameters"))? else { return Ok(None) };
        let Ok(params) = params.cast_into::<PyDict>() else { return Ok(None) };
        let (Some(weight), Some(bias)) =
            (params.get_item(intern!(py, "weight"))?, params.get_item(intern!(py, "bias"))?)
        else {
            return Ok(None);
        };
        let Ok(weight) = weight.cast::<PyTensor>() else { return Ok(None) };
        let bias = match bias.cast::<PyTensor>() {
            Ok(b) => Some(b.get().get()),
            Err(_) if bias.is_none() => None,
            Err(_) => return Ok(None),
        };
        let w = weight.get().get();
        call_heavy_as(py, x.numel() + w.numel(), "linear", || Tensor::linear(x, &w, bias.as_ref()))
    } else {
        match state.get_item(intern!(py, "inplace"))? {
            Some(inplace) if !inplace.is_truthy()? => call_heavy_as(py, x.numel(), "relu", || x.unary(Relu)),
            _ => return Ok(None),
        }
    };
    // on an error Python runs the layer again, and raises it
    Ok(out.ok())
}
