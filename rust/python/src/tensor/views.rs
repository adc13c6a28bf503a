//! Views and shape ops (the results share storage with `self` and remember it as their base).
use super::{ints, views_of};
use super::{view_of, wrap, Out, PyTensor};
use crate::args::{dims_arg, int_list, tensor_arg};
use crate::dtype::PyDType;
use crate::errors::call;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

#[pymethods]
impl PyTensor {
    /// Whether this tensor reads another tensor's storage through a view op.
    fn _is_view(&self) -> bool {
        self.handle.base().is_some()
    }

    /// How many holders share this tensor's record (`torch.utils.swap_tensors` asks for 1).
    fn _use_count(&self) -> usize {
        self.handle.use_count()
    }

    /// Exchanges what this tensor and `other` are, keeping each Python object (`torch.utils.swap_tensors`); each
    /// becomes its new leaf's object.
    fn _swap_tensor_impl(slf: &Bound<'_, Self>, other: &Bound<'_, PyTensor>) -> PyResult<()> {
        call(|| slf.get().handle.swap_records(&other.get().handle))?;
        super::objects::register_leaf(slf)?;
        super::objects::register_leaf(other)
    }

    /// The weak references ferrograd itself holds to this tensor (its leaf's registry), which
    /// `utils.swap_tensors` does not count as the user's.
    fn _own_weakrefs<'py>(slf: &Bound<'py, Self>) -> Vec<Bound<'py, pyo3::types::PyWeakrefReference>> {
        super::objects::own_weakrefs(slf)
    }

    /// The tensor a view reads (the root of its chain of views), None for a tensor that is no view.
    #[getter]
    fn _base(&self, py: Python<'_>) -> Option<Py<PyTensor>> {
        self.handle.base().map(|b| b.0.clone_ref(py))
    }

    #[pyo3(signature = (*shape))]
    fn reshape(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> Out {
        let shape = int_list(shape, "reshape", "shape")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.reshape_infer(&shape))?)
    }

    #[pyo3(signature = (*shape))]
    fn view(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> Out {
        if shape.len() == 1 {
            if let Ok(d) = shape.get_item(0)?.cast::<PyDType>() {
                let _ = d;
                return Err(PyValueError::new_err("view(dtype) is not supported yet"));
            }
        }
        let shape = int_list(shape, "view", "size")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.view(&shape))?)
    }

    fn view_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "view_as", "other")?;
        let shape: Vec<isize> = o.shape().iter().map(|&d| d as isize).collect();
        let a = slf.get().get();
        view_of(slf, call(|| a.view(&shape))?)
    }

    fn transpose(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim0_arg)] dim0: isize,
        #[pyo3(from_py_with = crate::args::dim1_arg)] dim1: isize,
    ) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(dim0, dim1))?)
    }

    fn t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.t())?)
    }

    #[getter(T)]
    fn big_t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.reversed_dims())?)
    }

    #[pyo3(signature = (*dims, **kwargs))]
    fn permute(slf: &Bound<'_, Self>, dims: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> Out {
        // torch's `dims` is required (also of a 0-dim tensor, whose only order is `()`), by position or name
        let named = match kwargs.filter(|kw| !kw.is_empty()) {
            Some(kw) => match (kw.len(), kw.get_item("dims")?) {
                (1, Some(d)) if dims.is_empty() => Some(d),
                _ => {
                    let key = kw.keys().iter().find(|k| k.extract::<String>().is_ok_and(|k| k != "dims"));
                    return Err(match key {
                        Some(k) => PyTypeError::new_err(format!("permute() got an unexpected keyword argument '{k}'")),
                        None => PyTypeError::new_err("permute() got multiple values for argument 'dims'"),
                    });
                }
            },
            None => None,
        };
        let dims = match named {
            Some(d) => int_list(&PyTuple::new(slf.py(), [d])?, "permute", "dims")?,
            None if dims.is_empty() => {
                return Err(PyTypeError::new_err("permute() missing 1 required positional arguments: \"dims\""))
            }
            None => int_list(dims, "permute", "dims")?,
        };
        let a = slf.get().get();
        view_of(slf, call(|| a.permute(&dims))?)
    }

    fn unsqueeze(slf: &Bound<'_, Self>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.unsqueeze(dim))?)
    }

    #[pyo3(signature = (dim=None))]
    fn squeeze(slf: &Bound<'_, Self>, dim: Option<&Bound<'_, PyAny>>) -> Out {
        let a = slf.get().get();
        let out = match dim.filter(|d| !d.is_none()) {
            None => call(|| a.squeeze())?,
            Some(d) => {
                let dims = dims_arg(d, "squeeze")?;
                if d.is_instance_of::<PyTuple>() || d.is_instance_of::<PyList>() {
                    call(|| a.squeeze_dims(&dims))?
                } else {
                    call(|| a.squeeze_dim(dims[0]))?
                }
            }
        };
        view_of(slf, out)
    }

    #[pyo3(signature = (*sizes))]
    fn expand(slf: &Bound<'_, Self>, sizes: &Bound<'_, PyTuple>) -> Out {
        let sizes = int_list(sizes, "expand", "size")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.expand_infer(&sizes))?)
    }

    /// `expand(size)` under NumPy's name.
    fn broadcast_to(slf: &Bound<'_, Self>, size: &Bound<'_, PyAny>) -> Out {
        let sizes = crate::args::int_list(&PyTuple::new(slf.py(), [size])?, "broadcast_to", "size")?;
        let t = call(|| slf.get().get().expand_infer(&sizes))?;
        view_of(slf, t)
    }

    /// The elements of this tensor's storage at `stride` from `storage_offset`, as a view of `size`.
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided(
        slf: &Bound<'_, Self>,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        storage_offset: Option<isize>,
    ) -> Out {
        let sizes = ints(size, "as_strided")?;
        let strides = ints(stride, "as_strided")?;
        if let Some(&bad) = sizes.iter().find(|&&d| d < 0) {
            return Err(PyRuntimeError::new_err(format!(
                "Trying to create tensor with negative dimension {bad}: {sizes:?}"
            )));
        }
        if let Some(offset) = storage_offset.filter(|&o| o < 0) {
            return Err(PyRuntimeError::new_err(format!("Tensor: invalid storage offset {offset}")));
        }
        let shape: Vec<usize> = sizes.iter().map(|&d| d as usize).collect();
        let a = slf.get().get();
        view_of(slf, call(|| a.as_strided(&shape, &strides, storage_offset.map(|o| o as usize)))?)
    }

    /// Windows of `size` along `dimension`, `step` apart, as a new last dim: a view.
    fn unfold(slf: &Bound<'_, Self>, dimension: isize, size: isize, step: isize) -> Out {
        if size < 0 {
            return Err(PyRuntimeError::new_err(format!("size is {size} but must be >= 0")));
        }
        let t = call(|| slf.get().get().unfold(dimension, size as usize, step))?;
        view_of(slf, t)
    }

    fn expand_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "expand_as", "other")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.expand(o.shape()))?)
    }

    #[pyo3(signature = (memory_format=None))]
    fn contiguous(slf: &Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> Out {
        let a = slf.get().get();
        match crate::args::memory_format_arg(memory_format, a.ndim(), "contiguous")? {
            Some(order) => wrap(slf.py(), call(|| a.contiguous_in_order(&order, false))?),
            None => wrap(slf.py(), call(|| a.contiguous())?),
        }
    }

    #[pyo3(signature = (*, memory_format=None))]
    fn clone(slf: &Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> Out {
        let a = slf.get().get();
        match crate::args::memory_format_arg(memory_format, a.ndim(), "clone")? {
            Some(order) => wrap(slf.py(), call(|| a.contiguous_in_order(&order, true))?),
            None => wrap(slf.py(), call(|| a.clone_tensor())?),
        }
    }

    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    #[pyo3(text_signature = "($self, start_dim=0, end_dim=-1)")]
    fn flatten(slf: &Bound<'_, Self>, start_dim: isize, end_dim: isize) -> Out {
        let a = slf.get().get();
        let out = call(|| a.flatten(start_dim, end_dim))?;
        if out.same_tensor(&a) {
            return Ok(slf.clone().unbind());
        }
        view_of(slf, out)
    }

    fn unflatten(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        sizes: &Bound<'_, PyAny>,
    ) -> Out {
        let sizes = ints(sizes, "unflatten")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.unflatten(dim, &sizes))?)
    }

    fn movedim(slf: &Bound<'_, Self>, source: &Bound<'_, PyAny>, destination: &Bound<'_, PyAny>) -> Out {
        let (src, dst) = (ints(source, "movedim")?, ints(destination, "movedim")?);
        let a = slf.get().get();
        view_of(slf, call(|| a.movedim(&src, &dst))?)
    }

    fn moveaxis(slf: &Bound<'_, Self>, source: &Bound<'_, PyAny>, destination: &Bound<'_, PyAny>) -> Out {
        Self::movedim(slf, source, destination)
    }

    fn swapaxes(slf: &Bound<'_, Self>, axis0: isize, axis1: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(axis0, axis1))?)
    }

    fn swapdims(slf: &Bound<'_, Self>, dim0: isize, dim1: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(dim0, dim1))?)
    }

    #[getter(mT)]
    fn m_t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.matrix_transpose())?)
    }

    fn narrow(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        start: &Bound<'_, PyAny>,
        length: isize,
    ) -> Out {
        let start: isize = match start.cast::<PyTensor>() {
            Ok(t) => call(|| t.get().get().item())?.to_f64() as isize,
            Err(_) => start.extract()?,
        };
        let a = slf.get().get();
        view_of(slf, call(|| a.narrow(dim, start, length))?)
    }

    #[pyo3(signature = (offset=0, dim1=0, dim2=1))]
    fn diagonal(slf: &Bound<'_, Self>, offset: isize, dim1: isize, dim2: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.diagonal(offset, dim1, dim2))?)
    }

    #[pyo3(signature = (split_size_or_sections, dim=0))]
    fn split(
        slf: &Bound<'_, Self>,
        split_size_or_sections: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
    ) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        let s = split_size_or_sections;
        if s.is_instance_of::<PyTuple>() || s.is_instance_of::<PyList>() {
            let sizes = ints(s, "split")?;
            return views_of(slf, call(|| a.split_with_sizes(&sizes, dim))?);
        }
        let size: isize = s.extract()?;
        views_of(slf, call(|| a.split_size(size, dim))?)
    }

    #[pyo3(signature = (chunks, dim=0))]
    fn chunk(
        slf: &Bound<'_, Self>,
        chunks: isize,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
    ) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        views_of(slf, call(|| a.chunk(chunks, dim))?)
    }

    /// `views` (the results of one view op on this tensor) as fresh contiguous tensors (with `alias`, the views'
    /// storage untracked) whose node runs the view's rule under torch's name (`grad_fn`): the `*_copy` functions
    /// and the `unsafe_` splits.
    fn _copy_views(
        &self,
        py: Python<'_>,
        views: Vec<PyRef<'_, PyTensor>>,
        grad_fn: &str,
        alias: bool,
    ) -> PyResult<Vec<Py<PyTensor>>> {
        let a = self.get();
        let views: Vec<_> = views.iter().map(|v| v.get()).collect();
        call(|| a.copy_views(&views, grad_fn, alias))?.into_iter().map(|t| wrap(py, t)).collect()
    }

    #[pyo3(signature = (dim=0))]
    fn unbind(slf: &Bound<'_, Self>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        views_of(slf, call(|| a.unbind(dim))?)
    }
}
