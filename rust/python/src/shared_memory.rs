//! What `ferrograd.multiprocessing`'s reducers need to send a tensor to another process over its shared memory:
//! the storage's descriptor and size (`_shared_fd`), and a tensor over a received descriptor (`_from_shared_fd`).
use crate::args::dtype_arg;
use crate::errors::call;
use crate::tensor::{wrap, PyTensor};
use ferrograd_core::layout::Layout;
use ferrograd_core::storage::Storage;
use ferrograd_core::{DType, Tensor};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// ``(fd, nbytes)`` of the tensor's storage, moved to shared memory first if it is not there yet: the descriptor
/// stays the storage's (a sender duplicates it), ``nbytes`` is the whole storage's size in bytes.
#[pyfunction]
fn _shared_fd(t: &Bound<'_, PyTensor>) -> PyResult<(i32, usize)> {
    let t = t.get().get();
    call(|| t.storage().share_memory())?;
    Ok(t.storage().shared_fd().expect("shared just above"))
}

/// A tensor of ``dtype`` over the shared file ``fd`` (duplicated here; the caller keeps its own descriptor):
/// ``nbytes`` bytes of storage, read through ``size``, ``stride`` and ``storage_offset``. Every size is checked
/// against the file before anything is mapped, and the layout against the storage.
#[pyfunction]
fn _from_shared_fd(
    py: Python<'_>,
    fd: i32,
    nbytes: usize,
    dtype: &Bound<'_, PyAny>,
    size: Vec<usize>,
    stride: Vec<usize>,
    storage_offset: usize,
) -> PyResult<Py<PyTensor>> {
    let dtype: DType = dtype_arg(Some(dtype), "_from_shared_fd")?
        .ok_or_else(|| PyValueError::new_err("_from_shared_fd: dtype must not be None"))?;
    if size.len() != stride.len() {
        return Err(PyValueError::new_err("_from_shared_fd: size and stride differ in length"));
    }
    let owned = ferrograd_core::shared_memory::duplicate(fd)
        .map_err(|e| PyOSError::new_err(format!("_from_shared_fd: {e}")))?;
    let layout = Layout { shape: size, strides: stride, offset: storage_offset };
    if layout.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).is_none() {
        return Err(PyValueError::new_err("_from_shared_fd: the size overflows"));
    }
    let storage = call(|| Storage::from_shared_fd(owned, nbytes, dtype))?;
    let fits = layout.shape.iter().zip(&layout.strides).try_fold(storage_offset, |end, (&d, &s)| {
        d.checked_sub(1).map_or(Some(end), |d| end.checked_add(d.checked_mul(s)?))
    });
    let per_element = dtype.itemsize() / dtype.component().itemsize();
    let elements = storage.len() / per_element;
    let within = layout.shape.contains(&0) || fits.is_some_and(|last| last < elements);
    if !within {
        return Err(PyValueError::new_err("_from_shared_fd: the layout reaches past the end of the shared storage"));
    }
    let t = if dtype.is_complex() {
        call(|| Tensor::from_complex_storage(storage, layout, dtype))?
    } else {
        call(|| Tensor::from_storage(storage, layout))?
    };
    wrap(py, t)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_shared_fd, m)?)?;
    m.add_function(wrap_pyfunction!(_from_shared_fd, m)?)?;
    Ok(())
}
