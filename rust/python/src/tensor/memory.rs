//! Where a tensor's elements live: `share_memory_` / `is_shared` (a shared mapping other processes can map) and
//! `resize_` (a new shape over the same storage, grown when too short). The core does the work
//! (`Storage::share_memory`, `TensorHandle::resize`).
use super::PyTensor;
use crate::args::{int_list, memory_format_arg};
use crate::errors::call;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// `resize_`'s `memory_format=` as the order of the dims (None: keep the strides of unchanged sizes).
fn format_order(memory_format: Option<&Bound<'_, PyAny>>, ndim: usize) -> PyResult<Option<Vec<usize>>> {
    let preserve = memory_format
        .filter(|f| !f.is_none())
        .and_then(|f| f.getattr("_name").ok())
        .is_some_and(|n| n.extract::<String>().is_ok_and(|n| n == "preserve_format"));
    if preserve {
        return Err(PyRuntimeError::new_err("Unsupported memory formatPreserve"));
    }
    memory_format_arg(memory_format, ndim, "resize_")
}

#[pymethods]
impl PyTensor {
    /// Moves the storage to shared memory in place (every view sees it); a no-op once shared. Returns self.
    fn share_memory_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        let t = slf.get().get();
        call(|| t.storage().share_memory())?;
        Ok(slf.clone().unbind())
    }

    /// Whether the storage lives in shared memory (`share_memory_`, or received from another process).
    fn is_shared(&self) -> bool {
        let t = self.get();
        !t.storage().is_meta() && t.storage().is_shared()
    }

    /// Resizes in place to ``sizes``: the storage grows (old elements first, zeros after) when too short.
    #[pyo3(signature = (*sizes, size=None, memory_format=None))]
    fn resize_(
        slf: &Bound<'_, Self>,
        sizes: &Bound<'_, PyTuple>,
        size: Option<&Bound<'_, PyAny>>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let keyword;
        let sizes = match size {
            Some(_) if !sizes.is_empty() => {
                return Err(PyTypeError::new_err("resize_() got multiple values for argument 'size'"));
            }
            Some(s) if s.is_instance_of::<PyTuple>() || s.is_instance_of::<PyList>() => {
                keyword = PyTuple::new(slf.py(), [s])?;
                &keyword
            }
            Some(s) => {
                let kind = s.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "resize_(): argument 'size' must be tuple of ints, not {kind}"
                )));
            }
            None if sizes.is_empty() => {
                return Err(PyTypeError::new_err("resize_() missing 1 required positional arguments: \"size\""));
            }
            None => sizes,
        };
        let dims = int_list(sizes, "resize_", "size")?;
        // torch counts a negative size as an overflowing element count
        let shape: Vec<usize> = dims
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<Result<_, _>>()
            .map_err(|_| PyRuntimeError::new_err("numel: integer multiplication overflow"))?;
        let order = match format_order(memory_format, shape.len()) {
            Ok(order) => order,
            Err(e) => {
                // torch checks the format once the sizes are changed
                if e.is_instance_of::<PyRuntimeError>(slf.py()) {
                    call(|| slf.get().handle.resize(&shape, None))?;
                }
                return Err(e);
            }
        };
        call(|| slf.get().handle.resize(&shape, order.as_deref()))?;
        Ok(slf.clone().unbind())
    }
}
