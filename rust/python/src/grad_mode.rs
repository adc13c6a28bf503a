//! Grad mode, inference mode and anomaly mode for this thread (the context managers live in Python).
use ferrograd_core::autograd::grad_mode;
use pyo3::prelude::*;

#[pyfunction]
fn is_grad_enabled() -> bool {
    grad_mode::is_enabled()
}

/// Sets grad mode for this thread and returns the previous mode (the context managers live in Python).
#[pyfunction]
fn _set_grad_enabled(mode: bool) -> bool {
    grad_mode::set_enabled(mode)
}

/// Sets inference mode for this thread (grad mode is handled by the caller) and returns the previous one.
#[pyfunction]
fn _set_inference_mode(mode: bool) -> bool {
    grad_mode::set_inference(mode)
}

#[pyfunction]
fn is_inference_mode_enabled() -> bool {
    grad_mode::is_inference()
}

#[pyfunction]
#[pyo3(signature = (mode, check_nan=true))]
fn _set_anomaly_enabled(mode: bool, check_nan: bool) {
    grad_mode::set_anomaly_enabled(mode, check_nan);
}

#[pyfunction]
fn is_anomaly_enabled() -> bool {
    grad_mode::is_anomaly_enabled()
}

#[pyfunction]
fn is_anomaly_check_nan_enabled() -> bool {
    grad_mode::is_anomaly_check_nan_enabled()
}

/// The Python stack where a node is created, for anomaly mode's error messages.
fn python_stack() -> Option<String> {
    Python::attach(|py| {
        let lines = py.import("traceback").ok()?.call_method0("format_stack").ok()?;
        let lines: Vec<String> = lines.extract().ok()?;
        Some(lines.concat())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    grad_mode::set_trace_provider(python_stack);
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_anomaly_check_nan_enabled, m)?)?;
    Ok(())
}
