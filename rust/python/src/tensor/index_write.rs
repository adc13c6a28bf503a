//! Ops that write into a copy at computed positions: index_fill, index_copy, scatter_reduce, index_put,
//! masked_scatter (their in-place forms are lines of `forms.rs`).
use super::{index_tensor, wrap, Out, PyTensor};
use crate::args::{operand_arg, tensor_arg, tensor_arg_at, type_name};
use crate::errors::call;
use ferrograd_core::index_build::Repeats;
use ferrograd_core::index_write::ScatterReduce;
use ferrograd_core::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// index_put's `indices`: a tuple (or list) of tensors, as torch's argument parser takes them.
fn indices_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    if !obj.is_instance_of::<PyTuple>() && !obj.is_instance_of::<PyList>() {
        return Err(PyTypeError::new_err(format!(
            "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not {}",
            type_name(obj)
        )));
    }
    let mut out = Vec::new();
    for (k, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        let t = item.cast::<PyTensor>().map_err(|_| {
            PyTypeError::new_err(format!("expected Tensor as element {k} in argument 0, but got {}", type_name(&item)))
        })?;
        out.push(t.get().get());
    }
    Ok(out)
}

#[pymethods]
impl PyTensor {
    fn index_fill(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> Out {
        let i = index_tensor(index, "index_fill", "index")?;
        let v = operand_arg(value, "index_fill", "value")?;
        let a = self.get();
        wrap(py, call(|| a.index_fill(dim, &i, &v))?)
    }

    fn index_copy(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
    ) -> Out {
        let i = index_tensor(index, "index_copy", "index")?;
        let s = tensor_arg_at(source, "index_copy", "source", 3)?;
        let a = self.get();
        wrap(py, call(|| a.index_copy(dim, &i, &s))?)
    }

    #[pyo3(signature = (dim, index, src, reduce, *, include_self=true))]
    fn scatter_reduce(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
        reduce: &str,
        include_self: bool,
    ) -> Out {
        let i = index_tensor(index, "scatter_reduce", "index")?;
        let s = tensor_arg_at(src, "scatter_reduce", "src", 3)?;
        let a = self.get();
        wrap(py, call(|| a.scatter_reduce(dim, &i, &s, ScatterReduce::parse(reduce)?, include_self))?)
    }

    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        accumulate: bool,
    ) -> Out {
        let indices = indices_arg(indices)?;
        let v = tensor_arg_at(values, "index_put", "values", 2)?;
        let a = self.get();
        wrap(py, call(|| a.index_put(&indices, &v, accumulate))?)
    }

    fn masked_scatter(&self, py: Python<'_>, mask: &Bound<'_, PyAny>, source: &Bound<'_, PyAny>) -> Out {
        let m = tensor_arg(mask, "masked_scatter", "mask")?;
        let s = tensor_arg_at(source, "masked_scatter", "source", 2)?;
        let a = self.get();
        wrap(py, call(|| a.masked_scatter(&m, &s))?)
    }

    fn select_scatter(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: isize,
    ) -> Out {
        let s = tensor_arg(src, "select_scatter", "src")?;
        let a = self.get();
        wrap(py, call(|| a.select_scatter(&s, dim, index))?)
    }

    #[pyo3(signature = (src, dim=0, start=None, end=None, step=1))]
    fn slice_scatter(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Out {
        let s = tensor_arg(src, "slice_scatter", "src")?;
        let a = self.get();
        wrap(py, call(|| a.slice_scatter(&s, dim, start, end, step))?)
    }

    #[pyo3(signature = (src, offset=0, dim1=0, dim2=1))]
    fn diagonal_scatter(&self, py: Python<'_>, src: &Bound<'_, PyAny>, offset: isize, dim1: isize, dim2: isize) -> Out {
        let s = tensor_arg(src, "diagonal_scatter", "src")?;
        let a = self.get();
        wrap(py, call(|| a.diagonal_scatter(&s, offset, dim1, dim2))?)
    }

    /// The indices of the nonzero elements, one row each: ``nonzero()``.
    fn argwhere(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.nonzero())?)
    }

    /// Each element (slice of ``dim``) repeated; with no ``repeats``, this tensor is the repeats and the
    /// result their indices (``ferrograd.repeat_interleave(repeats)``).
    #[pyo3(signature = (repeats=None, dim=None, *, output_size=None))]
    fn repeat_interleave(
        &self,
        py: Python<'_>,
        repeats: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
        output_size: Option<i64>,
    ) -> Out {
        let a = self.get();
        let repeats = match repeats {
            None => return wrap(py, call(|| a.repeat_interleave_indices())?),
            Some(r) => match r.cast::<PyTensor>() {
                Ok(t) => Repeats::PerElement(t.get().get()),
                Err(_) => Repeats::Each(r.extract::<i64>()?),
            },
        };
        wrap(py, call(|| a.repeat_interleave(&repeats, dim, output_size))?)
    }
}
