//! p-norm distances: `dist` (a method), `cdist` and `pdist` (functions).
use super::{wrap, Out, PyTensor};
use crate::args::tensor_arg;
use crate::errors::{call, call_heavy};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// torch's `compute_mode` values (they choose how, not what, it computes).
const COMPUTE_MODES: [&str; 3] =
    ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"];

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (other, p=2.0))]
    fn dist(&self, py: Python<'_>, other: &Bound<'_, PyAny>, p: f64) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "dist", "other")?);
        wrap(py, call(|| a.dist(&b, p))?)
    }
}

/// `cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary')`.
#[pyfunction]
#[pyo3(signature = (x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"))]
pub fn cdist(py: Python<'_>, x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, p: f64, compute_mode: &str) -> Out {
    if !COMPUTE_MODES.contains(&compute_mode) {
        return Err(PyValueError::new_err(format!("{compute_mode} is not a valid value for compute_mode")));
    }
    let (a, b) = (tensor_arg(x1, "cdist", "x1")?, tensor_arg(x2, "cdist", "x2")?);
    wrap(py, call_heavy(py, a.numel() * b.shape().first().copied().unwrap_or(1), || a.cdist(&b, p))?)
}

/// `pdist(input, p=2)`.
#[pyfunction]
#[pyo3(signature = (input, p=2.0))]
pub fn pdist(py: Python<'_>, input: &Bound<'_, PyAny>, p: f64) -> Out {
    let a = tensor_arg(input, "pdist", "input")?;
    wrap(py, call_heavy(py, a.numel() * a.shape().first().copied().unwrap_or(1), || a.pdist(p))?)
}
