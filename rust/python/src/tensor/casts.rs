//! dtype conversions: `to` and the named casts.
use super::{wrap, Out, PyTensor};
use crate::args::{dtype_arg, tensor_arg, type_name};
use crate::dtype::PyDType;
use crate::errors::call;
use ferrograd_core::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `.float()` and friends: the tensor itself when it already has `dtype`, as in PyTorch.
fn cast_to(slf: &Bound<'_, PyTensor>, dtype: DType) -> Out {
    let a = slf.get().get();
    if a.dtype() == dtype {
        return Ok(slf.clone().unbind());
    }
    wrap(slf.py(), call(|| a.to_dtype(dtype))?)
}

#[pymethods]
impl PyTensor {
    /// `to(dtype)`, `to(other)`, `to('cpu')`, `to(device=, dtype=, copy=)`: self when nothing changes.
    #[pyo3(signature = (*args, **kwargs))]
    fn to(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Out {
        let py = slf.py();
        let mut dtype = None;
        let mut copy = false;
        // a device string or object: the CPU, or torch's CPU build's error
        let is_device = |a: &Bound<'_, PyAny>| -> PyResult<bool> {
            let named = a.is_instance_of::<pyo3::types::PyString>() || crate::args::is_device_object(a)?;
            if named {
                crate::args::device_arg(Some(a))?;
            }
            Ok(a.is_none() || named)
        };
        for a in args.iter() {
            if a.cast::<PyDType>().is_ok() {
                dtype = dtype_arg(Some(&a), "to")?;
            } else if let Ok(t) = a.cast::<PyTensor>() {
                dtype = Some(t.get().get().dtype());
            } else if a.is_instance_of::<pyo3::types::PyBool>() {
                // positional non_blocking / copy, as in to(dtype, non_blocking, copy)
            } else if !is_device(&a)? {
                return Err(PyTypeError::new_err(format!(
                    "to() received an invalid combination of arguments - got ({})",
                    type_name(&a)
                )));
            }
        }
        if let Some(kw) = kwargs {
            for (key, value) in kw.iter() {
                match key.extract::<String>()?.as_str() {
                    "dtype" => dtype = dtype_arg(Some(&value), "to")?.or(dtype),
                    "device" => crate::args::device_arg(Some(&value))?,
                    "copy" => copy = value.is_truthy()?,
                    "non_blocking" | "memory_format" => {}
                    other => {
                        return Err(PyTypeError::new_err(format!("to() got an unexpected keyword argument '{other}'")))
                    }
                }
            }
        }
        let a = slf.get().get();
        match dtype {
            Some(d) if d != a.dtype() => wrap(py, call(|| a.to_dtype(d))?),
            _ if copy => wrap(py, call(|| a.clone_tensor())?),
            _ => Ok(slf.clone().unbind()),
        }
    }

    fn type_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "type_as", "other")?;
        cast_to(slf, o.dtype())
    }
}

shared_signature! {
    fn (slf: &Bound<'_, Self>) -> Out;
    float => cast_to(slf, DType::F32);
    double => cast_to(slf, DType::F64);
    half => cast_to(slf, DType::F16);
    bfloat16 => cast_to(slf, DType::BF16);
    long => cast_to(slf, DType::I64);
    int => cast_to(slf, DType::I32);
    short => cast_to(slf, DType::I16);
    char => cast_to(slf, DType::I8);
    byte => cast_to(slf, DType::U8);
    bool => cast_to(slf, DType::Bool);
}
