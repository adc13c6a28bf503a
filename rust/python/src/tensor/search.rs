//! Distinct values (`unique`, `unique_consecutive`) and sorted-sequence lookups (`searchsorted`,
//! `bucketize`, module functions).
use super::{wrap, PyTensor};
use crate::args::{operand_arg, tensor_arg};
use crate::errors::{call, call_heavy};
use ferrograd_core::search::Unique;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `unique`'s result: the values alone, or a tuple with the inverse and counts asked for.
fn unique_result(py: Python<'_>, u: Unique, return_inverse: bool, return_counts: bool) -> PyResult<Py<PyAny>> {
    if !return_inverse && !return_counts {
        return Ok(wrap(py, u.values)?.into_any());
    }
    let mut items = vec![wrap(py, u.values)?.into_any()];
    if return_inverse {
        items.push(wrap(py, u.inverse)?.into_any());
    }
    if return_counts {
        items.push(wrap(py, u.counts)?.into_any());
    }
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

fn no_dim(dim: Option<isize>, func: &str) -> PyResult<()> {
    match dim {
        None => Ok(()),
        Some(_) => Err(PyNotImplementedError::new_err(format!("{func}(dim=...) is not supported yet; use dim=None"))),
    }
}

#[pymethods]
impl PyTensor {
    /// The distinct elements, ascending (each NaN its own); with `return_inverse` each element's index
    /// among them (shaped as the input), with `return_counts` how often each occurs.
    #[pyo3(signature = (sorted=true, return_inverse=false, return_counts=false, dim=None))]
    fn unique(
        &self,
        py: Python<'_>,
        sorted: bool,
        return_inverse: bool,
        return_counts: bool,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
    ) -> PyResult<Py<PyAny>> {
        let _ = sorted; // PyTorch's CPU kernel sorts either way
        no_dim(dim, "unique")?;
        let a = self.get();
        let u = call_heavy(py, a.numel(), || a.unique())?;
        unique_result(py, u, return_inverse, return_counts)
    }

    /// Each run of equal consecutive elements once (row-major order), with the run index of each element
    /// and the run lengths if asked.
    #[pyo3(signature = (return_inverse=false, return_counts=false, dim=None))]
    fn unique_consecutive(
        &self,
        py: Python<'_>,
        return_inverse: bool,
        return_counts: bool,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
    ) -> PyResult<Py<PyAny>> {
        no_dim(dim, "unique_consecutive")?;
        let a = self.get();
        let u = call_heavy(py, a.numel(), || a.unique_consecutive())?;
        unique_result(py, u, return_inverse, return_counts)
    }
}

/// `right`, or `side` ('left'/'right') when given; they must agree.
fn right_side(right: bool, side: Option<&str>) -> PyResult<bool> {
    match side {
        None => Ok(right),
        Some("right") => Ok(true),
        Some("left") if right => Err(PyRuntimeError::new_err(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True",
        )),
        Some("left") => Ok(false),
        Some(other) => Err(PyRuntimeError::new_err(format!(
            "torch.searchsorted(): side can only be 'left' or 'right' but got {other}"
        ))),
    }
}

/// `searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None)`.
#[pyfunction]
#[pyo3(signature = (sorted_sequence, input, *, out_int32=false, right=false, side=None, sorter=None))]
pub fn searchsorted(
    py: Python<'_>,
    sorted_sequence: &Bound<'_, PyAny>,
    input: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let seq = tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence")?;
    let values = operand_arg(input, "searchsorted", "input")?;
    let right = right_side(right, side)?;
    let sorter: Option<Tensor> =
        sorter.filter(|s| !s.is_none()).map(|s| tensor_arg(s, "searchsorted", "sorter")).transpose()?;
    wrap(py, call_heavy(py, values.numel(), || seq.searchsorted(&values, right, sorter.as_ref(), out_int32))?)
}

/// `bucketize(input, boundaries, *, out_int32=False, right=False)`.
#[pyfunction]
#[pyo3(signature = (input, boundaries, *, out_int32=false, right=false))]
pub fn bucketize(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    boundaries: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
) -> PyResult<Py<PyTensor>> {
    let values = operand_arg(input, "bucketize", "input")?;
    let b = tensor_arg(boundaries, "bucketize", "boundaries")?;
    wrap(py, call(|| values.bucketize(&b, right, out_int32))?)
}
