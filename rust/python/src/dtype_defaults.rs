//! `get_default_dtype`/`set_default_dtype` and `promote_types` (kept apart from `dtype.rs`, which the
//! argument helpers and the error mapping import).
use crate::args::dtype_arg;
use crate::dtype::PyDType;
use crate::errors::call;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

#[pyfunction]
fn promote_types(type1: &Bound<'_, PyAny>, type2: &Bound<'_, PyAny>) -> PyResult<PyDType> {
    let a = dtype_arg(Some(type1), "promote_types")?.ok_or_else(|| PyTypeError::new_err("type1 must be a dtype"))?;
    let b = dtype_arg(Some(type2), "promote_types")?.ok_or_else(|| PyTypeError::new_err("type2 must be a dtype"))?;
    Ok(PyDType { dtype: ferrograd_core::promote_types(a, b) })
}

/// `torch.get_default_dtype()`.
#[pyfunction]
fn get_default_dtype() -> PyDType {
    PyDType { dtype: ferrograd_core::dtype::default_float() }
}

/// `torch.set_default_dtype(d)`: the dtype of floats made without one (factories, Python floats).
#[pyfunction]
fn set_default_dtype(d: &Bound<'_, PyAny>) -> PyResult<()> {
    let dtype = dtype_arg(Some(d), "set_default_dtype")?
        .ok_or_else(|| PyTypeError::new_err("set_default_dtype(): argument 'd' must be torch.dtype, not NoneType"))?;
    call(|| ferrograd_core::dtype::set_default_float(dtype))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(get_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(set_default_dtype, m)?)?;
    Ok(())
}
