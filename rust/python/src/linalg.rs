//! `ferrograd.linalg`'s factorizations (the private `_linalg_*` functions `linalg.py` wraps) and
//! `LinAlgError`.
use crate::args::tensor_arg;
use crate::errors::{call_heavy, LinAlgError};
use crate::py_tensor::{wrap, PyTensor};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Out = PyResult<Py<PyTensor>>;

/// A matrix's work grows as n³; the GIL is released from the same element counts as elsewhere.
fn cost(a: &ferrograd_core::Tensor) -> usize {
    a.numel() * a.shape().last().copied().unwrap_or(1)
}

#[pyfunction]
fn _linalg_inv(py: Python<'_>, a: &Bound<'_, PyAny>) -> Out {
    let a = tensor_arg(a, "linalg.inv", "A")?;
    wrap(py, call_heavy(py, cost(&a), || a.linalg_inv())?)
}

#[pyfunction]
fn _linalg_det(py: Python<'_>, a: &Bound<'_, PyAny>) -> Out {
    let a = tensor_arg(a, "linalg.det", "A")?;
    wrap(py, call_heavy(py, cost(&a), || a.linalg_det())?)
}

#[pyfunction]
fn _linalg_slogdet<'py>(py: Python<'py>, a: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg.slogdet", "A")?;
    let (sign, log_abs) = call_heavy(py, cost(&a), || a.linalg_slogdet())?;
    PyTuple::new(py, [wrap(py, sign)?, wrap(py, log_abs)?])
}

#[pyfunction]
fn _logdet(py: Python<'_>, a: &Bound<'_, PyAny>) -> Out {
    let a = tensor_arg(a, "logdet", "input")?;
    wrap(py, call_heavy(py, cost(&a), || a.logdet())?)
}

#[pyfunction]
fn _linalg_solve(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> Out {
    let (a, b) = (tensor_arg(a, "linalg.solve", "A")?, tensor_arg(b, "linalg.solve", "B")?);
    wrap(py, call_heavy(py, cost(&a) + b.numel(), || a.linalg_solve(&b))?)
}

#[pyfunction]
fn _linalg_cholesky(py: Python<'_>, a: &Bound<'_, PyAny>, upper: bool) -> Out {
    let a = tensor_arg(a, "linalg.cholesky", "A")?;
    wrap(py, call_heavy(py, cost(&a), || a.linalg_cholesky(upper))?)
}

#[pyfunction]
fn _linalg_eigh<'py>(py: Python<'py>, a: &Bound<'_, PyAny>, upper: bool) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg.eigh", "A")?;
    let (w, v) = call_heavy(py, cost(&a), || a.linalg_eigh(upper))?;
    PyTuple::new(py, [wrap(py, w)?, wrap(py, v)?])
}

#[pyfunction]
fn _linalg_svd<'py>(py: Python<'py>, a: &Bound<'_, PyAny>, full_matrices: bool) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg.svd", "A")?;
    let (u, s, vh) = call_heavy(py, cost(&a), || a.linalg_svd(full_matrices))?;
    PyTuple::new(py, [wrap(py, u)?, wrap(py, s)?, wrap(py, vh)?])
}

#[pyfunction]
fn _linalg_cross(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, dim: isize) -> Out {
    let (a, b) = (tensor_arg(a, "linalg_cross", "input")?, tensor_arg(b, "linalg_cross", "other")?);
    wrap(py, call_heavy(py, a.numel() + b.numel(), || a.linalg_cross(&b, dim))?)
}

#[pyfunction]
fn _linalg_qr<'py>(py: Python<'py>, a: &Bound<'_, PyAny>, mode: &str) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg_qr", "A")?;
    let (q, r) = call_heavy(py, cost(&a), || a.linalg_qr(mode))?;
    PyTuple::new(py, [wrap(py, q)?, wrap(py, r)?])
}

#[pyfunction]
#[pyo3(signature = (a, b, rcond, driver))]
fn _linalg_lstsq<'py>(
    py: Python<'py>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rcond: Option<f64>,
    driver: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (a, b) = (tensor_arg(a, "linalg_lstsq", "self")?, tensor_arg(b, "linalg_lstsq", "b")?);
    let (x, residuals, rank, s) = call_heavy(py, cost(&a) + b.numel(), || a.linalg_lstsq(&b, rcond, driver))?;
    PyTuple::new(py, [wrap(py, x)?, wrap(py, residuals)?, wrap(py, rank)?, wrap(py, s)?])
}

#[pyfunction]
fn _linalg_solve_triangular(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> Out {
    let (a, b) = (tensor_arg(a, "linalg_solve_triangular", "input")?, tensor_arg(b, "linalg_solve_triangular", "B")?);
    wrap(py, call_heavy(py, cost(&a) + b.numel(), || a.linalg_solve_triangular(&b, upper, left, unitriangular))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LinAlgError", m.py().get_type::<LinAlgError>())?;
    m.add_function(wrap_pyfunction!(_linalg_inv, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_det, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_slogdet, m)?)?;
    m.add_function(wrap_pyfunction!(_logdet, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cholesky, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eigh, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_svd, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cross, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lstsq, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_triangular, m)?)?;
    Ok(())
}
