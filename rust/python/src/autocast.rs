//! The CPU autocast state (`torch.autocast("cpu")`), kept by the core per thread and read by its listed ops.
use crate::args::dtype_arg;
use ferrograd_core::autocast;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::dtype::PyDType;

#[pyfunction]
fn _autocast_cpu_is_enabled() -> bool {
    autocast::is_enabled()
}

#[pyfunction]
fn _autocast_cpu_set_enabled(enabled: bool) {
    autocast::set_enabled(enabled);
}

#[pyfunction]
fn _autocast_cpu_get_dtype() -> PyDType {
    PyDType { dtype: autocast::dtype() }
}

/// The region's lower-precision dtype (any dtype, as torch's setter; `autocast` itself only turns on for the halves).
#[pyfunction]
fn _autocast_cpu_set_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    let dtype = dtype_arg(Some(dtype), "set_autocast_dtype")?
        .ok_or_else(|| PyTypeError::new_err("set_autocast_dtype(): argument 'dtype' must be torch.dtype"))?;
    autocast::set_dtype(dtype);
    Ok(())
}

#[pyfunction]
fn _autocast_cache_is_enabled() -> bool {
    autocast::is_cache_enabled()
}

#[pyfunction]
fn _autocast_set_cache_enabled(enabled: bool) {
    autocast::set_cache_enabled(enabled);
}

#[pyfunction]
fn _autocast_increment_nesting() -> i64 {
    autocast::increment_nesting()
}

#[pyfunction]
fn _autocast_decrement_nesting() -> i64 {
    autocast::decrement_nesting()
}

#[pyfunction]
fn _autocast_clear_cache() {
    autocast::clear_cache();
}

#[pyfunction]
fn _autocast_cache_len() -> usize {
    autocast::cache_len()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_autocast_cpu_is_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_cpu_set_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_cpu_get_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_cpu_set_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_cache_is_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_set_cache_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_increment_nesting, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_decrement_nesting, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_clear_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_autocast_cache_len, m)?)?;
    Ok(())
}
