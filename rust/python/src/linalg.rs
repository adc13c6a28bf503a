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
fn _linalg_eig<'py>(py: Python<'py>, a: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg_eig", "input")?;
    let (w, v) = call_heavy(py, cost(&a), || a.linalg_eig())?;
    PyTuple::new(py, [wrap(py, w)?, wrap(py, v)?])
}

#[pyfunction]
fn _linalg_eigvals(py: Python<'_>, a: &Bound<'_, PyAny>) -> Out {
    let a = tensor_arg(a, "linalg_eigvals", "input")?;
    wrap(py, call_heavy(py, cost(&a), || a.linalg_eigvals())?)
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

#[pyfunction]
fn _linalg_lu_factor_ex<'py>(
    py: Python<'py>,
    a: &Bound<'_, PyAny>,
    pivot: bool,
    check_errors: bool,
    func: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, func.trim_start_matches("torch."), "A")?;
    let (lu, pivots, info) = call_heavy(py, cost(&a), || a.linalg_lu_factor_ex(pivot, check_errors, func))?;
    PyTuple::new(py, [wrap(py, lu)?, wrap(py, pivots)?, wrap(py, info)?])
}

#[pyfunction]
fn _linalg_lu<'py>(py: Python<'py>, a: &Bound<'_, PyAny>, pivot: bool) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg_lu", "A")?;
    let (p, l, u) = call_heavy(py, cost(&a), || a.linalg_lu(pivot))?;
    PyTuple::new(py, [wrap(py, p)?, wrap(py, l)?, wrap(py, u)?])
}

#[pyfunction]
fn _lu_unpack<'py>(
    py: Python<'py>,
    lu: &Bound<'_, PyAny>,
    pivots: &Bound<'_, PyAny>,
    unpack_data: bool,
    unpack_pivots: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let (lu, pivots) = (tensor_arg(lu, "lu_unpack", "LU_data")?, tensor_arg(pivots, "lu_unpack", "LU_pivots")?);
    let (p, l, u) = call_heavy(py, lu.numel() * lu.shape().first().copied().unwrap_or(1), || {
        lu.lu_unpack(&pivots, unpack_data, unpack_pivots)
    })?;
    PyTuple::new(py, [wrap(py, p)?, wrap(py, l)?, wrap(py, u)?])
}

#[pyfunction]
fn _linalg_lu_solve(
    py: Python<'_>,
    lu: &Bound<'_, PyAny>,
    pivots: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    left: bool,
    adjoint: bool,
) -> Out {
    let lu = tensor_arg(lu, "linalg_lu_solve", "LU")?;
    let (pivots, b) = (tensor_arg(pivots, "linalg_lu_solve", "pivots")?, tensor_arg(b, "linalg_lu_solve", "B")?);
    wrap(py, call_heavy(py, cost(&lu) + b.numel(), || lu.linalg_lu_solve(&pivots, &b, left, adjoint))?)
}

#[pyfunction]
fn _linalg_inv_ex<'py>(
    py: Python<'py>,
    a: &Bound<'_, PyAny>,
    check_errors: bool,
    func: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg_inv_ex", "A")?;
    let (inverse, info) = call_heavy(py, cost(&a), || a.linalg_inv_ex(check_errors, func))?;
    PyTuple::new(py, [wrap(py, inverse)?, wrap(py, info)?])
}

#[pyfunction]
fn _linalg_solve_ex<'py>(
    py: Python<'py>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    check_errors: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let (a, b) = (tensor_arg(a, "linalg_solve_ex", "A")?, tensor_arg(b, "linalg_solve_ex", "B")?);
    let (x, info) =
        call_heavy(py, cost(&a) + b.numel(), || a.linalg_solve_ex(&b, check_errors, "torch.linalg.solve_ex"))?;
    PyTuple::new(py, [wrap(py, x)?, wrap(py, info)?])
}

#[pyfunction]
fn _linalg_cholesky_ex<'py>(
    py: Python<'py>,
    a: &Bound<'_, PyAny>,
    upper: bool,
    check_errors: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "linalg_cholesky_ex", "A")?;
    let (l, info) = call_heavy(py, cost(&a), || a.linalg_cholesky_ex(upper, check_errors, "linalg.cholesky_ex"))?;
    PyTuple::new(py, [wrap(py, l)?, wrap(py, info)?])
}

#[pyfunction]
fn _triangular_solve<'py>(
    py: Python<'py>,
    b: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let (b, a) = (tensor_arg(b, "triangular_solve", "input")?, tensor_arg(a, "triangular_solve", "A")?);
    let (x, copy) = call_heavy(py, cost(&a) + b.numel(), || b.triangular_solve(&a, upper, transpose, unitriangular))?;
    PyTuple::new(py, [wrap(py, x)?, wrap(py, copy)?])
}

#[pyfunction]
fn _geqrf<'py>(py: Python<'py>, a: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let a = tensor_arg(a, "geqrf", "input")?;
    let (reflectors, tau) = call_heavy(py, cost(&a), || a.geqrf())?;
    PyTuple::new(py, [wrap(py, reflectors)?, wrap(py, tau)?])
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
    m.add_function(wrap_pyfunction!(_linalg_eig, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eigvals, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_svd, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cross, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lstsq, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_triangular, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_factor_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_inv_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_triangular_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_geqrf, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cholesky_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu, m)?)?;
    m.add_function(wrap_pyfunction!(_lu_unpack, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_solve, m)?)?;
    Ok(())
}
