//! Binding for the sparse COO matrix product (`ferrograd.sparse` keeps the COO tensor itself in Python).
use crate::args::tensor_arg;
use crate::errors::call_heavy;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::sparse::SparseMmCall;
use ferrograd_core::Tensor;
use pyo3::prelude::*;

/// `S @ dense` for the `rows × cols` matrix S with entries `values` at `indices` (int64, `[2, nnz]`);
/// `sparse_grad` names the node as `torch.sparse.mm` does (`SparseAddmmBackward0`), else `MmBackward0`.
#[pyfunction]
#[pyo3(signature = (indices, values, dense, rows, cols, sparse_grad))]
pub fn _sparse_mm(
    py: Python<'_>,
    indices: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    dense: &Bound<'_, PyAny>,
    rows: usize,
    cols: usize,
    sparse_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let func = "sparse_mm";
    let (i, v, d) =
        (tensor_arg(indices, func, "indices")?, tensor_arg(values, func, "values")?, tensor_arg(dense, func, "dense")?);
    let call = if sparse_grad { SparseMmCall::SparseMm } else { SparseMmCall::Mm };
    let work = v.numel() * d.shape().get(1).copied().unwrap_or(1);
    wrap(py, call_heavy(py, work, || Tensor::sparse_mm(&i, &v, &d, rows, cols, call))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sparse_mm, m)?)?;
    Ok(())
}
