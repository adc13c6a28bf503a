//! Creation functions: `tensor`, `ones`/`zeros`/`full`, `arange`, `tril_indices`/`triu_indices`, and tensors
//! over other memory (`from_numpy`, `as_tensor`, `from_dlpack`).
use crate::args::{self, dtype_arg, size_list, type_name};
use crate::convert::{as_scalar, from_numpy_shared, tensor_from_data};
use crate::dlpack;
use crate::errors::{self, call};
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::{compile, DType, Scalar, Tensor};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Out = PyResult<Py<PyTensor>>;

/// Applies `requires_grad=` of a creation function.
pub(crate) fn finish(py: Python<'_>, t: Tensor, requires_grad: bool) -> Out {
    let t = if requires_grad { call(|| t.with_requires_grad(true))? } else { t };
    wrap(py, t)
}

#[pyfunction(name = "tensor")]
#[pyo3(signature = (data, *, dtype=None, device=None, requires_grad=false))]
fn new_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    let meta = args::device_is_meta(device)?;
    let dtype = dtype_arg(dtype, "tensor")?;
    let t = tensor_from_data(data, dtype)?;
    if compile::is_capturing() && is_python_literal(data) {
        // numbers written in the code: a compiled graph reads them as they were at capture, as it reads a
        // Python number argument (a tensor's value among them would be data, which breaks the capture)
        compile::note_literal(&t);
    }
    let t = if meta { call(|| t.to_meta(t.dtype()))? } else { t };
    finish(py, t, requires_grad)
}

/// Whether `data` holds Python numbers only (nested lists and tuples of them).
fn is_python_literal(data: &Bound<'_, PyAny>) -> bool {
    use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList};
    if data.is_instance_of::<PyBool>() || data.is_instance_of::<PyInt>() || data.is_instance_of::<PyFloat>() {
        return true;
    }
    if data.is_instance_of::<PyComplex>() {
        return true;
    }
    if let Ok(list) = data.cast::<PyList>() {
        return list.iter().all(|item| is_python_literal(&item));
    }
    if let Ok(tuple) = data.cast::<PyTuple>() {
        return tuple.iter().all(|item| is_python_literal(&item));
    }
    false
}

/// A factory's dtype under torch's `out=`: `out`'s, unless `dtype=` names another (torch's error); without
/// `out`, `dtype` as given.
pub(crate) fn out_dtype(out: Option<&Bound<'_, PyAny>>, dtype: Option<DType>, func: &str) -> PyResult<Option<DType>> {
    let Some(out) = out.filter(|o| !o.is_none()) else { return Ok(dtype) };
    let have = args::tensor_arg(out, func, "out")?.dtype();
    match dtype {
        Some(asked) if asked != have => Err(PyRuntimeError::new_err(format!(
            "dtype {} does not match dtype of out parameter ({})",
            asked.scalar_type_name(),
            have.scalar_type_name()
        ))),
        _ => Ok(Some(have)),
    }
}

/// What a factory made, given `out=`: written into `out` as torch's factories write it
/// (`_write_out.factory_out`: resized to the made shape, arange keeping an `out` of as many elements), `out`
/// then taking `requires_grad`; without `out`, the made tensor with `requires_grad`.
pub(crate) fn finish_into(
    py: Python<'_>,
    func: &str,
    out: Option<&Bound<'_, PyAny>>,
    made: Tensor,
    requires_grad: bool,
) -> Out {
    match out.filter(|o| !o.is_none()) {
        None => finish(py, made, requires_grad),
        Some(out) => {
            let made = wrap(py, made)?;
            let keep_shape = func == "arange";
            let write = py.import("ferrograd._write_out")?.getattr("factory_out")?;
            let written = write.call1((func, out, made, keep_shape, requires_grad))?;
            Ok(written.cast_into::<PyTensor>()?.unbind())
        }
    }
}

#[allow(clippy::too_many_arguments)] // torch's arguments, one each
fn filled(
    py: Python<'_>,
    shape: Vec<usize>,
    func: &'static str,
    value: Scalar,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    meta: bool,
    out: Option<&Bound<'_, PyAny>>,
) -> Out {
    let dtype = out_dtype(out, dtype_arg(dtype, func)?, func)?.unwrap_or(ferrograd_core::dtype::default_float());
    if meta {
        return finish(py, errors::call_as(func, || Tensor::meta(&shape, dtype))?, requires_grad);
    }
    let make = move || Tensor::try_full(&shape, value, dtype);
    finish_into(py, func, out, errors::call_as(func, || compile::factory(func, make))?, requires_grad)
}

/// `ones(*size)` and `zeros(*size)`: the same arguments, one fill value apart.
macro_rules! constant_factory {
    ($name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (*args, size=None, out=None, dtype=None, device=None, requires_grad=false))]
        #[allow(clippy::too_many_arguments)] // torch's arguments, one each
        fn $name(
            py: Python<'_>,
            args: &Bound<'_, PyTuple>,
            size: Option<&Bound<'_, PyAny>>,
            out: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
        ) -> Out {
            let meta = args::device_is_meta(device)?;
            let shape = args::size_or_keyword(args, size, stringify!($name))?;
            filled(py, shape, stringify!($name), $value, dtype, requires_grad, meta, out)
        }
    };
}
constant_factory!(ones, Scalar::Int(1));
constant_factory!(zeros, Scalar::Int(0));

#[pyfunction]
#[pyo3(signature = (size, fill_value, *, out=None, dtype=None, device=None, requires_grad=false))]
fn full(
    py: Python<'_>,
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    let meta = args::device_is_meta(device)?;
    let shape = size_list(&PyTuple::new(py, [size])?, "full")?;
    if let Some((re, im)) = crate::complex::as_complex(fill_value) {
        // a complex fill: the default complex dtype unless one is given
        let dtype = dtype_arg(dtype, "full")?.unwrap_or(ferrograd_core::dtype::default_float().to_complex());
        if !dtype.is_complex() {
            // torch's message for a complex fill of a real dtype
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "value cannot be converted to type {} without overflow",
                dtype.cpp_name()
            )));
        }
        let t = if meta { Tensor::meta(&shape, dtype) } else { Tensor::complex_full(&shape, re, im, dtype) };
        return finish(py, call(|| t)?, requires_grad);
    }
    let value = as_scalar(fill_value).ok_or_else(|| {
        PyTypeError::new_err(format!("full(): argument 'fill_value' must be Number, not {}", type_name(fill_value)))
    })?;
    let dtype = out_dtype(out, dtype_arg(dtype, "full")?, "full")?.unwrap_or(value.dtype());
    if meta {
        return finish(py, call(|| Tensor::meta(&shape, dtype))?, requires_grad);
    }
    let made = compile::factory("full", move || Tensor::try_full(&shape, value, dtype));
    finish_into(py, "full", out, call(|| made)?, requires_grad)
}

/// `linspace`'s values in `dtype` (the Python function checks the arguments and takes the device).
#[pyfunction]
fn _linspace(py: Python<'_>, start: f64, end: f64, steps: usize, dtype: &Bound<'_, PyAny>) -> Out {
    let dtype = dtype_arg(Some(dtype), "linspace")?.unwrap_or_else(ferrograd_core::dtype::default_float);
    wrap(py, call(|| compile::factory("linspace", move || Tensor::linspace(start, end, steps, dtype)))?)
}

#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, out=None, dtype=None, device=None, requires_grad=false))]
#[allow(clippy::too_many_arguments)] // torch's arguments, one each
fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    let meta = args::device_is_meta(device)?;
    let num = |o: &Bound<'_, PyAny>, name: &str| {
        as_scalar(o).ok_or_else(|| {
            PyTypeError::new_err(format!("arange(): argument '{name}' must be Number, not {}", type_name(o)))
        })
    };
    let (start, end) = match end.filter(|e| !e.is_none()) {
        Some(e) => (num(start, "start")?, num(e, "end")?),
        None => (Scalar::Int(0), num(start, "end")?),
    };
    let step = match step.filter(|s| !s.is_none()) {
        Some(s) => num(s, "step")?,
        None => Scalar::Int(1),
    };
    let dtype = out_dtype(out, dtype_arg(dtype, "arange")?, "arange")?;
    if meta {
        let made = || Tensor::arange_len(start, end, step, dtype).and_then(|(n, dtype)| Tensor::meta(&[n], dtype));
        return finish(py, call(made)?, requires_grad);
    }
    let made = call(|| compile::factory("arange", move || Tensor::arange(start, end, step, dtype)))?;
    finish_into(py, "arange", out, made, requires_grad)
}

/// `tril_indices` (`upper = false`) or `triu_indices`, in `dtype` (int64 by default; integers only, as torch).
fn tri_indices(row: i64, col: i64, offset: i64, dtype: Option<&Bound<'_, PyAny>>, upper: bool) -> PyResult<Tensor> {
    let name = if upper { "triu_indices" } else { "tril_indices" };
    let dtype = dtype_arg(dtype, name)?.unwrap_or(ferrograd_core::DType::I64);
    if dtype.is_float() || dtype == ferrograd_core::DType::Bool {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "\"{name}\" not implemented for '{}'",
            dtype.scalar_type_name()
        )));
    }
    call(|| Tensor::tri_indices(row, col, offset, upper)?.to_dtype(dtype))
}

/// torch's `tril_indices` and `triu_indices`: the same arguments, one flag apart.
macro_rules! tri_indices_function {
    ($name:ident, $upper:expr) => {
        #[pyfunction]
        #[pyo3(signature = (row, col, offset=0, *, dtype=None, device=None))]
        fn $name(
            py: Python<'_>,
            row: i64,
            col: i64,
            offset: i64,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
        ) -> Out {
            args::device_arg(device)?;
            wrap(py, tri_indices(row, col, offset, dtype, $upper)?)
        }
    };
}
tri_indices_function!(tril_indices, false);
tri_indices_function!(triu_indices, true);

#[pyfunction]
fn from_numpy(py: Python<'_>, ndarray: &Bound<'_, PyAny>) -> Out {
    let arr = ndarray
        .cast::<PyUntypedArray>()
        .map_err(|_| PyTypeError::new_err(format!("expected np.ndarray (got {})", type_name(ndarray))))?;
    wrap(py, from_numpy_shared(arr)?)
}

/// `ferrograd.as_tensor`: no copy when it can be helped (the tensor itself, or a numpy array's memory
/// when the dtype matches); otherwise like `ferrograd.tensor`.
#[pyfunction]
#[pyo3(signature = (data, dtype=None, device=None))]
fn as_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    args::device_arg(device)?;
    let dtype = dtype_arg(dtype, "as_tensor")?;
    if let Ok(t) = data.cast::<PyTensor>() {
        let inner = t.get().get();
        return match dtype {
            Some(d) if d != inner.dtype() => Ok(wrap(py, call(|| inner.to_dtype(d))?)?.into_any()),
            _ => Ok(data.clone().unbind()),
        };
    }
    if let Ok(arr) = data.cast::<PyUntypedArray>() {
        // a shared view when ferrograd stores the array's dtype (negative strides raise, as in PyTorch)
        match from_numpy_shared(arr) {
            Ok(t) => {
                return match dtype {
                    Some(d) if d != t.dtype() => Ok(wrap(py, call(|| t.to_dtype(d))?)?.into_any()),
                    _ => Ok(wrap(py, t)?.into_any()),
                }
            }
            Err(e) if !e.is_instance_of::<PyTypeError>(py) => return Err(e),
            Err(_) => {}
        }
    }
    Ok(wrap(py, tensor_from_data(data, dtype)?)?.into_any())
}

/// `ferrograd.from_dlpack`: a tensor sharing memory with any DLPack producer (or a capsule).
#[pyfunction]
fn from_dlpack(py: Python<'_>, ext: &Bound<'_, PyAny>) -> Out {
    wrap(py, dlpack::from_dlpack(ext)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(new_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(_linspace, m)?)?;
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(tril_indices, m)?)?;
    m.add_function(wrap_pyfunction!(triu_indices, m)?)?;
    Ok(())
}
