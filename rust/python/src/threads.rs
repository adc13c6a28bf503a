//! `torch.get_num_threads` / `torch.set_num_threads` over the kernels' thread pool.
use crate::args::type_name;
use ferrograd_core::kernels::threads;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use std::num::NonZeroUsize;

/// Threads the parallel kernels use.
#[pyfunction]
pub fn get_num_threads() -> usize {
    threads::threads()
}

/// Sets the threads the parallel kernels use, with torch's errors (RuntimeError, as its C++ check).
#[pyfunction]
pub fn set_num_threads(num: &Bound<'_, PyAny>) -> PyResult<()> {
    if !num.is_instance_of::<PyInt>() || num.is_instance_of::<PyBool>() {
        return Err(PyRuntimeError::new_err(format!("set_num_threads expects an int, but got {}", type_name(num))));
    }
    let n = num.extract::<i64>().map_err(|_| PyValueError::new_err("Overflow when unpacking long long"))?;
    let Some(n) = usize::try_from(n).ok().and_then(NonZeroUsize::new) else {
        return Err(PyRuntimeError::new_err("set_num_threads expects a positive integer"));
    };
    threads::set_threads(n);
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    Ok(())
}
