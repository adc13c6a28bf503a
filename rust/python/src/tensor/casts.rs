//! dtype conversions: `to` and the named casts.
use super::{wrap, Out, PyTensor};
use crate::args::{dtype_arg, tensor_arg, type_name};
use crate::dtype::PyDType;
use crate::errors::call;
use ferrograd_core::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Whether `converted` has warned of a complex value's imaginary part dropped.
static WARNED_DISCARDING_IMAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A user's conversion of `a` to `dtype`: from complex to real, torch's warning and the real parts (the core's
/// own conversions refuse to drop imaginary parts).
pub(crate) fn converted(py: Python<'_>, a: &ferrograd_core::Tensor, dtype: DType) -> PyResult<ferrograd_core::Tensor> {
    if a.is_complex() && !dtype.is_complex() {
        // once per process, as torch's TORCH_WARN_ONCE
        if !WARNED_DISCARDING_IMAG.swap(true, std::sync::atomic::Ordering::Relaxed) {
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(py, &category, c"Casting complex values to real discards the imaginary part", 1)?;
        }
        return call(|| a.real_part()?.to_dtype(dtype));
    }
    call(|| a.to_dtype(dtype))
}

/// `.float()` and friends: the tensor itself when it already has `dtype`, as in PyTorch.
fn cast_to(slf: &Bound<'_, PyTensor>, dtype: DType) -> Out {
    let a = slf.get().get();
    if a.dtype() == dtype {
        return Ok(slf.clone().unbind());
    }
    wrap(slf.py(), converted(slf.py(), &a, dtype)?)
}

/// `cast_to` with a `memory_format=` (`preserve_format` by default): a result laid out in the format's dim
/// order when one is asked for (`channels_last`).
fn cast_in_format(
    slf: &Bound<'_, PyTensor>,
    dtype: DType,
    memory_format: Option<&Bound<'_, PyAny>>,
    func: &str,
) -> Out {
    let cast = cast_to(slf, dtype)?;
    let t = cast.bind(slf.py()).get().get();
    match crate::args::memory_format_arg(memory_format, t.ndim(), func)? {
        Some(order) => wrap(slf.py(), call(|| t.contiguous_in_order(&order, false))?),
        None => Ok(cast),
    }
}

#[pymethods]
impl PyTensor {
    /// `to(dtype)`, `to(other)`, `to('cpu')`, `to(device=, dtype=, copy=)`: self when nothing changes.
    #[pyo3(signature = (*args, **kwargs))]
    fn to(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Out {
        let py = slf.py();
        let mut dtype = None;
        let mut copy = false;
        let mut memory_format = None;
        // the device asked for, if any: Some(true) for 'meta'; the CPU, or torch's CPU build's error
        let mut to_meta = None;
        // a device string or object (Some(whether it is 'meta')), None (Some(None)), or not a device (None)
        let device_of = |a: &Bound<'_, PyAny>| -> PyResult<Option<Option<bool>>> {
            if a.is_instance_of::<pyo3::types::PyString>() || crate::args::is_device_object(a)? {
                return Ok(Some(Some(crate::args::device_is_meta(Some(a))?)));
            }
            Ok(a.is_none().then_some(None))
        };
        for a in args.iter() {
            if a.cast::<PyDType>().is_ok() {
                dtype = dtype_arg(Some(&a), "to")?;
            } else if let Ok(t) = a.cast::<PyTensor>() {
                let other = t.get().get();
                // to(other): other's dtype and device
                (dtype, to_meta) = (Some(other.dtype()), Some(other.is_meta()));
            } else if a.is_instance_of::<pyo3::types::PyBool>() {
                // positional non_blocking / copy, as in to(dtype, non_blocking, copy)
            } else {
                match device_of(&a)? {
                    Some(meta) => to_meta = meta.or(to_meta),
                    None => {
                        return Err(PyTypeError::new_err(format!(
                            "to() received an invalid combination of arguments - got ({})",
                            type_name(&a)
                        )))
                    }
                }
            }
        }
        if let Some(kw) = kwargs {
            for (key, value) in kw.iter() {
                match key.extract::<String>()?.as_str() {
                    "dtype" => dtype = dtype_arg(Some(&value), "to")?.or(dtype),
                    "device" if value.is_none() => {}
                    "device" => to_meta = Some(crate::args::device_is_meta(Some(&value))?),
                    "copy" => copy = value.is_truthy()?,
                    "memory_format" => memory_format = Some(value),
                    "non_blocking" => {}
                    other => {
                        return Err(PyTypeError::new_err(format!("to() got an unexpected keyword argument '{other}'")))
                    }
                }
            }
        }
        let a = slf.get().get();
        match (a.is_meta(), to_meta) {
            // torch's phrase for a copy to the CPU of what has no data
            (true, Some(false)) => crate::errors::refuse_meta(&a)?,
            (false, Some(true)) => {
                return wrap(py, call(|| a.to_meta_device(dtype.unwrap_or(a.dtype())))?);
            }
            _ => {}
        }
        let converted = match dtype {
            Some(d) if d != a.dtype() => wrap(py, converted(py, &a, d)?)?,
            _ if copy => wrap(py, call(|| a.clone_tensor())?)?,
            _ => slf.clone().unbind(),
        };
        let t = converted.bind(py).get().get();
        match crate::args::memory_format_arg(memory_format.as_ref(), t.ndim(), "to")? {
            Some(order) => wrap(py, call(|| t.contiguous_in_order(&order, false))?),
            None => Ok(converted),
        }
    }

    fn type_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "type_as", "other")?;
        cast_to(slf, o.dtype())
    }
}

shared_signature! {
    #[pyo3(signature = (memory_format=None))]
    fn (slf: &Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> Out;
    float => cast_in_format(slf, DType::F32, memory_format, "float");
    double => cast_in_format(slf, DType::F64, memory_format, "double");
    half => cast_in_format(slf, DType::F16, memory_format, "half");
    bfloat16 => cast_in_format(slf, DType::BF16, memory_format, "bfloat16");
    cfloat => cast_in_format(slf, DType::C64, memory_format, "cfloat");
    cdouble => cast_in_format(slf, DType::C128, memory_format, "cdouble");
    long => cast_in_format(slf, DType::I64, memory_format, "long");
    int => cast_in_format(slf, DType::I32, memory_format, "int");
    short => cast_in_format(slf, DType::I16, memory_format, "short");
    char => cast_in_format(slf, DType::I8, memory_format, "char");
    byte => cast_in_format(slf, DType::U8, memory_format, "byte");
    bool => cast_in_format(slf, DType::Bool, memory_format, "bool");
}
