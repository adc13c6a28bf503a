//! Binding for `torch.special`'s orthogonal polynomials (the Python functions promote the arguments first).
use crate::args::tensor_arg;
use crate::errors::call_heavy;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::orthogonal_polynomial::{orthogonal_polynomial, Polynomial};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `special.<name>(x, n)` for `x` and `n` of one floating dtype, broadcast together.
#[pyfunction]
#[pyo3(signature = (name, x, n))]
pub fn _orthogonal_polynomial(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    n: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTensor>> {
    let kind = Polynomial::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("no orthogonal polynomial named {name:?}")))?;
    let (x, n) = (tensor_arg(x, name, "input")?, tensor_arg(n, name, "n")?);
    let work = x.numel().max(n.numel()) * 16;
    wrap(py, call_heavy(py, work, || orthogonal_polynomial(kind, &x, &n))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_orthogonal_polynomial, m)?)?;
    Ok(())
}
