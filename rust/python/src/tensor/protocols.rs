//! Python protocols (repr, len, iteration, numbers, indexing, numpy, DLPack) and data accessors.
use super::{view_of, wrap, Out, PyTensor};
use crate::convert::{scalar_to_py, to_numpy, tolist};
use crate::dtype::PyDType;
use crate::errors::call;
use crate::indexing::{apply_index, assign_index};
use ferrograd_core::Scalar;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use pyo3::types::PyType;
use pyo3::IntoPyObjectExt;

static SIZE_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();

static REPR_FN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn size_object<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let cls = SIZE_CLASS.get_or_try_init(py, || -> PyResult<_> {
        Ok(py.import("ferrograd._size")?.getattr("Size")?.cast_into::<PyType>()?.unbind())
    })?;
    cls.bind(py).call1((PyTuple::new(py, shape)?,))
}

/// `size()` / `stride()`: `whole(per_dim)`, or with `dim` its entry (a 0-dim tensor has none: PyTorch's
/// IndexError).
fn whole_or_entry<'py, T>(
    py: Python<'py>,
    per_dim: &[T],
    dim: Option<isize>,
    whole: impl FnOnce(&[T]) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Copy + IntoPyObject<'py>,
{
    let Some(dim) = dim else { return whole(per_dim) };
    if per_dim.is_empty() {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        )));
    }
    let d = call(|| ferrograd_core::layout::wrap_dim(dim, per_dim.len()))?;
    per_dim[d].into_bound_py_any(py)
}

#[pymethods]
impl PyTensor {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let f = REPR_FN.get_or_try_init(py, || -> PyResult<_> {
            Ok(py.import("ferrograd._tensor_str")?.getattr("tensor_repr")?.unbind())
        })?;
        f.bind(py).call1((slf,))?.extract()
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Self::__repr__(slf)
    }

    /// The address of this tensor's first element (0 for a meta tensor or an empty storage, which have no
    /// memory, as in torch); views of one storage differ by their offsets in bytes.
    fn data_ptr(&self) -> usize {
        let t = self.get();
        // no memory: torch's null pointer
        if t.storage().is_meta() || t.storage().is_empty() {
            return 0;
        }
        let base = t.storage().read().as_ptr() as usize;
        base + t.storage_offset() * t.dtype().itemsize()
    }

    /// `data_ptr()`, read-only (torch's pair of names).
    fn const_data_ptr(&self) -> usize {
        self.data_ptr()
    }

    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let t = slf.get().get();
        if t.ndim() == 0 {
            let item = scalar_to_py(slf.py(), call(|| t.item())?)?;
            return item.call_method1("__format__", (spec,))?.extract();
        }
        Self::__repr__(slf)
    }

    fn __len__(&self) -> PyResult<usize> {
        let t = self.get();
        if t.ndim() == 0 {
            return Err(PyTypeError::new_err("len() of a 0-d tensor"));
        }
        Ok(t.shape()[0])
    }

    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let t = slf.get().get();
        if t.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
        }
        let rows: Vec<Py<PyTensor>> =
            (0..t.shape()[0] as isize).map(|i| wrap(py, call(|| t.select(0, i))?)).collect::<PyResult<_>>()?;
        Ok(pyo3::types::PyList::new(py, rows)?.try_iter()?.into_any().unbind())
    }

    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

    fn __bool__(&self) -> PyResult<bool> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.__bool__() (data-dependent control flow)");
        let t = self.get();
        if t.numel() == 0 {
            return Err(PyRuntimeError::new_err("Boolean value of Tensor with no values is ambiguous"));
        }
        if t.numel() != 1 {
            return Err(PyRuntimeError::new_err("Boolean value of Tensor with more than one value is ambiguous"));
        }
        Ok(call(|| t.item())?.to_f64() != 0.0)
    }

    /// `complex(t)` of a one-element tensor.
    fn __complex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get();
        if t.is_complex() && !t.is_meta() {
            return crate::complex::complex_item(py, &t);
        }
        let value = call(|| t.item())?.to_f64();
        Ok(pyo3::types::PyComplex::from_doubles(py, value, 0.0).into_any())
    }

    fn __float__(&self) -> PyResult<f64> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.__float__()");
        let t = self.get();
        Ok(call(|| t.item())?.to_f64())
    }

    fn __int__(&self) -> PyResult<i64> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.__int__()");
        let t = self.get();
        Ok(match call(|| t.item())? {
            Scalar::Float(f) => f.trunc() as i64,
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
        })
    }

    fn __index__(&self) -> PyResult<i64> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.__index__()");
        let t = self.get();
        match call(|| t.item())? {
            Scalar::Int(i) => Ok(i),
            Scalar::Bool(b) => Ok(b as i64),
            Scalar::Float(_) => {
                Err(PyTypeError::new_err("only integer tensors of a single element can be converted to an index"))
            }
        }
    }

    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> Out {
        let t = slf.get().get();
        view_of(slf, apply_index(&t, key)?)
    }

    fn __setitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        assign_index(slf, key, value)
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ferrograd_core::compile::unsupported("Tensor.__array__()");
        let arr = to_numpy(py, &self.get().detach())?;
        let arr = match dtype {
            Some(d) if !d.is_none() => arr.call_method1("astype", (d,))?,
            _ => arr,
        };
        if copy == Some(true) {
            arr.call_method0("copy")
        } else {
            Ok(arr)
        }
    }

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.get().shape())
    }

    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType { dtype: self.get().dtype() }
    }

    #[getter]
    fn device(&self) -> &'static str {
        "cpu"
    }

    fn is_floating_point(&self) -> bool {
        self.get().dtype().is_float()
    }

    #[pyo3(signature = (memory_format=None))]
    fn is_contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let t = self.get();
        Ok(match crate::args::contiguity_format_arg(memory_format, t.ndim())? {
            Some(order) => order.len() == t.ndim() && t.is_contiguous_in_order(&order),
            None => t.is_contiguous(),
        })
    }

    #[getter]
    fn _version(&self) -> u64 {
        self.get().version()
    }

    /// Which output of its `grad_fn` this tensor is (0 for a leaf or a single-output op).
    #[getter]
    fn output_nr(&self) -> u32 {
        self.get().output_nr()
    }

    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.tolist()");
        tolist(py, &self.get())
    }

    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ferrograd_core::compile::unsupported_read(&self.get(), "Tensor.item()");
        let t = self.get();
        if t.is_complex() && !t.is_meta() {
            return crate::complex::complex_item(py, &t);
        }
        scalar_to_py(py, call(|| t.item())?)
    }

    #[pyo3(signature = (*, force=false))]
    fn numpy<'py>(&self, py: Python<'py>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        ferrograd_core::compile::unsupported("Tensor.numpy()");
        let t = self.get();
        // as PyTorch: under no_grad (or inference_mode) the array cannot take part in a graph anyway
        if t.requires_grad() && ferrograd_core::autograd::grad_mode::is_enabled() && !force {
            return Err(PyRuntimeError::new_err(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            ));
        }
        let arr = to_numpy(py, &t)?;
        if force {
            arr.call_method0("copy")
        } else {
            Ok(arr)
        }
    }

    #[pyo3(signature = (stream=None, *, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<&Bound<'_, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = stream; // CPU memory: nothing to synchronise
        if let Some((device_type, _)) = dl_device {
            if device_type != 1 {
                return Err(pyo3::exceptions::PyBufferError::new_err(format!(
                    "Unsupported device type {device_type} \
                    for export (ferrograd tensors live on the CPU, device type 1)"
                )));
            }
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        crate::dlpack::to_capsule(py, &self.get(), versioned, copy == Some(true))
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }
}

shared_signature! {
    fn (&self) -> usize;
    storage_offset => self.get().storage_offset();
    dim => self.get().ndim();
    ndimension => self.get().ndim();
    #[getter]
    ndim => self.get().ndim();
    numel => self.get().numel();
    nelement => self.get().numel();
    element_size => self.get().dtype().itemsize();
}

shared_signature! {
    #[pyo3(signature = (dim=None))]
    fn <'py> (
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
    ) -> PyResult<Bound<'py, PyAny>>;
    size => whole_or_entry(py, self.get().shape(), dim, |shape| size_object(py, shape));
    stride => whole_or_entry(py, self.get().strides(), dim, |strides| Ok(PyTuple::new(py, strides)?.into_any()));
}
