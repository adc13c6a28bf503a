//! Complex numbers in and out of Python: `complex` values, numpy complex arrays, `item()` and `tolist()`.
use crate::errors::call;
use crate::py_tensor::PyTensor;
use ferrograd_core::storage::{Data, Storage};
use ferrograd_core::{DType, Layout, Tensor};
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyList};
use std::sync::Arc;

/// A Python `complex` (or numpy complex scalar) as (re, im); None for anything else.
pub fn as_complex(obj: &Bound<'_, PyAny>) -> Option<(f64, f64)> {
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Some((c.real(), c.imag()));
    }
    // numpy's complex64 is no subclass of Python's complex (complex128 is)
    let type_name = obj.get_type().name().ok()?.to_string();
    if type_name == "complex64" || type_name == "complex128" {
        let c = obj.call_method0("__complex__").ok()?;
        let c = c.cast::<PyComplex>().ok()?;
        return Some((c.real(), c.imag()));
    }
    None
}

/// `item()` of a one-element complex tensor: a Python complex.
pub fn complex_item<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    if t.numel() != 1 {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "a Tensor with {} elements cannot be converted to Scalar",
            t.numel()
        )));
    }
    let (re, im) = call(|| t.complex_values())?[0];
    Ok(PyComplex::from_doubles(py, re, im).into_any())
}

/// `tolist()` of a complex tensor: nested lists of Python complex numbers.
pub fn complex_tolist<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    fn build<'py>(py: Python<'py>, shape: &[usize], values: &[(f64, f64)]) -> PyResult<Bound<'py, PyAny>> {
        let Some((&len, inner)) = shape.split_first() else {
            return Ok(PyComplex::from_doubles(py, values[0].0, values[0].1).into_any());
        };
        let step = inner.iter().product::<usize>();
        let items: Vec<Bound<'py, PyAny>> =
            (0..len).map(|i| build(py, inner, &values[i * step..(i + 1) * step])).collect::<PyResult<_>>()?;
        Ok(PyList::new(py, items)?.into_any())
    }
    let values = call(|| t.complex_values())?;
    build(py, t.shape(), &values)
}

/// `from_numpy` of a complex64/complex128 array: a tensor over its memory (pairs of float32/float64).
pub fn complex_from_external(
    ptr: *mut u8,
    layout: Layout,
    dtype: DType,
    owner: Box<dyn std::any::Any + Send + Sync>,
) -> PyResult<Tensor> {
    let reals = layout.as_pairs().storage_extent();
    let buffer = match dtype {
        // SAFETY: the caller's array holds `layout`'s complex64 elements from `ptr`, each two float32 parts, and
        // `owner` keeps it alive
        DType::C64 => unsafe { ferrograd_core::storage::Buffer::F32(Data::from_external(ptr.cast(), reals, owner)) },
        // SAFETY: as above, complex128 elements of two float64 parts
        _ => unsafe { ferrograd_core::storage::Buffer::F64(Data::from_external(ptr.cast(), reals, owner)) },
    };
    call(|| Tensor::from_complex_storage(Arc::new(Storage::new(buffer)), layout, dtype))
}

/// A Python complex number as a tensor operand (`x * 2j`), or a complex tensor from nested data.
pub fn complex_tensor(reals: Vec<f64>, imags: Vec<f64>, shape: &[usize], dtype: DType) -> PyResult<Tensor> {
    call(|| {
        let re = Tensor::from_vec(reals, shape)?;
        let im = Tensor::from_vec(imags, shape)?;
        Tensor::complex(&re, &im)?.detach().to_dtype(dtype)
    })
}

/// `torch.view_as_real(input)`: a complex tensor's (re, im) pairs, a view.
#[pyfunction]
fn view_as_real(input: &Bound<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    let t = input.get().get();
    crate::tensor::view_of(input, call(|| t.view_as_real())?)
}

/// `torch.view_as_complex(input)`: a float tensor's last dim of (re, im) pairs as complex numbers, a view.
#[pyfunction]
fn view_as_complex(input: &Bound<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    let t = input.get().get();
    crate::tensor::view_of(input, call(|| t.view_as_complex())?)
}

/// `torch.complex(real, imag)`.
#[pyfunction]
fn complex(py: Python<'_>, real: &Bound<'_, PyTensor>, imag: &Bound<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    let (real, imag) = (real.get().get(), imag.get().get());
    crate::tensor::wrap(py, call(|| Tensor::complex(&real, &imag))?)
}

/// `torch.polar(abs, angle)`: `abs * (cos(angle) + i sin(angle))`.
#[pyfunction]
fn polar(py: Python<'_>, abs: &Bound<'_, PyTensor>, angle: &Bound<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    let (abs, angle) = (abs.get().get(), angle.get().get());
    crate::tensor::wrap(py, call(|| Tensor::polar(&abs, &angle))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(view_as_real, m)?)?;
    m.add_function(wrap_pyfunction!(view_as_complex, m)?)?;
    m.add_function(wrap_pyfunction!(complex, m)?)?;
    m.add_function(wrap_pyfunction!(polar, m)?)?;
    Ok(())
}
