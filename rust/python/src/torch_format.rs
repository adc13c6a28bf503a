//! The checked byte-level pieces of PyTorch's zip checkpoints (`ferrograd/_torch_format.py` does the zip
//! directory and the pickle): a storage's raw bytes and identity on save; on load, storages made from a byte
//! range of the file (copied, or mapped) and tensors made as views of them, every size checked by the core.
use crate::dtype::PyDType;
use crate::errors::call;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::serialize::{self, ReadMode, RecordFile, Replacement};
use ferrograd_core::storage::Storage;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A whole storage as a flat tensor (what a loaded `archive/data/<key>` record becomes).
fn flat(py: Python<'_>, storage: Arc<Storage>) -> PyResult<Py<PyTensor>> {
    let len = storage.len();
    let t = call(|| serialize::view_of_storage(&storage, &[len], &[1], 0))?;
    wrap(py, t)
}

/// `(key, numel)`: `key` is the same for tensors sharing one storage (for as long as they live), `numel`
/// the storage's length in elements.
#[pyfunction]
pub fn _storage_key(t: &Bound<'_, PyTensor>) -> (usize, usize) {
    let t = t.get().get();
    let storage = t.storage();
    let numel = storage.len();
    (Arc::as_ptr(storage) as usize, numel)
}

/// The bytes of the tensor's whole storage, in memory order (little-endian elements).
#[pyfunction]
pub fn _storage_bytes(py: Python<'_>, t: &Bound<'_, PyTensor>) -> PyResult<Py<PyBytes>> {
    let t = t.get().get();
    crate::errors::refuse_meta(&t)?;
    let buffer = t.storage().read();
    // one copy, straight from the storage (new_with would zero the buffer first)
    Ok(PyBytes::new(py, buffer.as_bytes()).unbind())
}

/// The CRC-32 of the tensor's whole storage (its zip record's checksum).
#[pyfunction]
pub fn _storage_crc32(py: Python<'_>, t: &Bound<'_, PyTensor>) -> PyResult<u32> {
    let t = t.get().get();
    crate::errors::refuse_meta(&t)?;
    let buffer = t.storage().read();
    let bytes = buffer.as_bytes();
    Ok(py.detach(|| serialize::crc32(bytes)))
}

/// Writes the tensor's whole storage to the file descriptor `fd` at its position (no copy through Python).
#[pyfunction]
pub fn _write_storage(py: Python<'_>, t: &Bound<'_, PyTensor>, fd: i32) -> PyResult<()> {
    let t = t.get().get();
    crate::errors::refuse_meta(&t)?;
    let buffer = t.storage().read();
    let bytes = buffer.as_bytes();
    py.detach(|| call(|| serialize::write_all_fd(fd, bytes)))
}

/// `numel` elements of `dtype` copied from `data[offset..]`, as a flat tensor.
#[pyfunction]
#[pyo3(signature = (data, dtype, offset, numel, name="storage"))]
pub fn _storage_from_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    dtype: PyRef<'_, PyDType>,
    offset: u64,
    numel: usize,
    name: &str,
) -> PyResult<Py<PyTensor>> {
    let (bytes, dtype) = (data.as_bytes(), dtype.dtype);
    let storage = py.detach(|| call(|| serialize::storage_from_bytes(bytes, dtype, offset, numel, name)))?;
    flat(py, storage)
}

/// The tensor with `sizes`, `strides` and `storage_offset` over `storage`'s storage (a flat tensor made by
/// `_storage_from_bytes` or `_RecordFile.storage`), refused unless every element it reaches is there.
#[pyfunction]
pub fn _view_of_storage(
    py: Python<'_>,
    storage: &Bound<'_, PyTensor>,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    storage_offset: i64,
) -> PyResult<Py<PyTensor>> {
    let unsigned = |v: &[i64], what: &str| -> PyResult<Vec<usize>> {
        v.iter()
            .map(|&x| {
                usize::try_from(x).map_err(|_| {
                    PyRuntimeError::new_err(format!("invalid checkpoint: a tensor has the negative {what} {x}"))
                })
            })
            .collect()
    };
    let sizes = unsigned(&sizes, "size")?;
    let strides = unsigned(&strides, "stride")?;
    let offset = unsigned(&[storage_offset], "storage offset")?[0];
    let base: Tensor = storage.get().get();
    let t = call(|| serialize::view_of_storage(base.storage(), &sizes, &strides, offset))?;
    wrap(py, t)
}

/// A checkpoint file that storages are read from by byte range (copied, or with `mmap` from one private
/// mapping of the file that every storage shares).
#[pyclass(name = "_RecordFile", module = "ferrograd._core", frozen)]
pub struct PyRecordFile {
    file: RecordFile,
}

#[pymethods]
impl PyRecordFile {
    #[new]
    #[pyo3(signature = (path, mmap=false))]
    fn new(py: Python<'_>, path: PathBuf, mmap: bool) -> PyResult<Self> {
        let mode = if mmap { ReadMode::Map } else { ReadMode::Read };
        let file = py.detach(|| call(|| RecordFile::open(&path, mode)))?;
        Ok(PyRecordFile { file })
    }

    fn __len__(&self) -> usize {
        self.file.len() as usize
    }

    /// `numel` elements of `dtype` at byte `offset` of the file, as a flat tensor.
    #[pyo3(signature = (dtype, offset, numel, name="storage"))]
    fn storage(
        &self,
        py: Python<'_>,
        dtype: PyRef<'_, PyDType>,
        offset: u64,
        numel: usize,
        name: &str,
    ) -> PyResult<Py<PyTensor>> {
        let dtype = dtype.dtype;
        let storage = py.detach(|| call(|| self.file.storage(dtype, offset, numel, name)))?;
        flat(py, storage)
    }
}

/// A file being replaced atomically: Python writes the temporary file through `fileno()` (a duplicate of it),
/// then `commit()` fsyncs it and renames it over the target; `abort()` (or garbage collection without a
/// commit) removes it and leaves the target as it was.
#[pyclass(name = "_AtomicFile", module = "ferrograd._core")]
pub struct PyAtomicFile {
    replacement: Mutex<Option<Replacement>>,
}

impl PyAtomicFile {
    fn take(&self) -> PyResult<Replacement> {
        self.replacement
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the save's temporary file is unusable"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this save was already committed or aborted"))
    }
}

#[pymethods]
impl PyAtomicFile {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let replacement = py.detach(|| call(|| Replacement::begin(&path)))?;
        Ok(PyAtomicFile { replacement: Mutex::new(Some(replacement)) })
    }

    fn fileno(&self) -> PyResult<i32> {
        use std::os::fd::AsRawFd;
        let guard = self.replacement.lock().map_err(|_| PyRuntimeError::new_err("the save's file is unusable"))?;
        guard
            .as_ref()
            .map(|r| r.file.as_raw_fd())
            .ok_or_else(|| PyValueError::new_err("this save was already committed or aborted"))
    }

    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        let replacement = self.take()?;
        py.detach(|| call(|| replacement.commit()))
    }

    fn abort(&self) {
        if let Ok(replacement) = self.take() {
            replacement.abort();
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_storage_key, m)?)?;
    m.add_function(wrap_pyfunction!(_storage_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(_storage_crc32, m)?)?;
    m.add_function(wrap_pyfunction!(_write_storage, m)?)?;
    m.add_function(wrap_pyfunction!(_storage_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(_view_of_storage, m)?)?;
    m.add_class::<PyRecordFile>()?;
    m.add_class::<PyAtomicFile>()?;
    Ok(())
}
