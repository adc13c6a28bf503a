//! Argument parsing shared by methods and functions, with PyTorch's TypeError phrasing.
use crate::convert::as_scalar;
use crate::dtype::PyDType;
use crate::py_tensor::PyTensor;
use ferrograd_core::{DType, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyList, PyTuple};

pub use crate::convert::type_name;

/// A tensor, or a Python number as a wrapped 0-dim operand; None for anything else.
pub fn operand(obj: &Bound<'_, PyAny>) -> Option<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(t.get().get());
    }
    // the common Python numbers first: the complex check below reads the type's name (an allocation), which
    // cost a third of `x + 0.01`
    if obj.is_exact_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
        return as_scalar(obj).map(Tensor::wrapped_scalar);
    }
    if let Some((re, im)) = crate::complex::as_complex(obj) {
        return Some(Tensor::wrapped_complex(re, im));
    }
    as_scalar(obj).map(Tensor::wrapped_scalar)
}

/// Like `operand`, with the TypeError PyTorch raises for a method argument.
pub fn operand_arg(obj: &Bound<'_, PyAny>, func: &str, arg: &str) -> PyResult<Tensor> {
    operand(obj).ok_or_else(|| {
        PyTypeError::new_err(format!("{func}(): argument '{arg}' (position 1) must be Tensor, not {}", type_name(obj)))
    })
}

pub fn tensor_arg(obj: &Bound<'_, PyAny>, func: &str, arg: &str) -> PyResult<Tensor> {
    tensor_arg_at(obj, func, arg, 1)
}

/// `tensor_arg` for the method's argument at `position` (from 1, self not counted), as torch numbers it.
pub fn tensor_arg_at(obj: &Bound<'_, PyAny>, func: &str, arg: &str, position: usize) -> PyResult<Tensor> {
    obj.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| {
        let kind = type_name(obj);
        PyTypeError::new_err(format!("{func}(): argument '{arg}' (position {position}) must be Tensor, not {kind}"))
    })
}

pub fn dtype_arg(obj: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Option<DType>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => o.cast::<PyDType>().map(|d| Some(d.get().dtype)).map_err(|_| {
            PyTypeError::new_err(format!("{func}(): argument 'dtype' must be ferrograd.dtype, not {}", type_name(o)))
        }),
    }
}

fn int_arg(obj: &Bound<'_, PyAny>, func: &str, arg: &str, pos: usize) -> PyResult<isize> {
    if obj.is_instance_of::<pyo3::types::PyBool>() || obj.is_instance_of::<pyo3::types::PyFloat>() {
        return Err(PyTypeError::new_err(format!(
            "{func}(): argument '{arg}' must be tuple of ints, but found element of type {} at pos {pos}",
            type_name(obj)
        )));
    }
    obj.call_method0("__index__").and_then(|i| i.extract::<isize>()).map_err(|_| {
        PyTypeError::new_err(format!(
            "{func}(): argument '{arg}' must be tuple of ints, but found element of type {} at pos {pos}",
            type_name(obj)
        ))
    })
}

/// `f(2, 3)`, `f((2, 3))` and `f([2, 3])` all mean the sizes [2, 3].
pub fn int_list(args: &Bound<'_, PyTuple>, func: &str, arg: &str) -> PyResult<Vec<isize>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if first.is_instance_of::<PyTuple>() || first.is_instance_of::<PyList>() {
            let items: Vec<Bound<'_, PyAny>> = first.try_iter()?.collect::<PyResult<_>>()?;
            return items.iter().enumerate().map(|(i, o)| int_arg(o, func, arg, i)).collect();
        }
    }
    args.iter().enumerate().map(|(i, o)| int_arg(&o, func, arg, i)).collect()
}

/// Sizes for creation functions: non-negative.
pub fn size_list(args: &Bound<'_, PyTuple>, func: &str) -> PyResult<Vec<usize>> {
    let dims = int_list(args, func, "size")?;
    dims.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "Trying to create tensor with negative dimension {d}: {dims:?}"
                ))
            })
        })
        .collect()
}

/// The shape a factory is given as `f(2, 3)`, `f((2, 3))` or `f(size=(2, 3))`: torch takes the keyword too, but
/// not with positional sizes.
pub fn size_or_keyword(args: &Bound<'_, PyTuple>, size: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Vec<usize>> {
    match size.filter(|s| !s.is_none()) {
        None => size_list(args, func),
        Some(_) if !args.is_empty() => {
            Err(pyo3::exceptions::PyTypeError::new_err(format!("{func}() got multiple values for argument 'size'")))
        }
        Some(s) => size_list(&PyTuple::new(args.py(), [s])?, func),
    }
}

/// One int or a tuple/list of ints (`dim=` arguments).
pub fn dims_arg(obj: &Bound<'_, PyAny>, func: &str) -> PyResult<Vec<isize>> {
    if obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>() {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        return items.iter().enumerate().map(|(i, o)| int_arg(o, func, "dim", i)).collect();
    }
    Ok(vec![int_arg(obj, func, "dim", 0)?])
}

/// An int argument at `position` (from 1) of a function, refused as torch refuses it: bools and floats too.
pub fn int_arg_at(obj: &Bound<'_, PyAny>, func: &str, arg: &str, position: usize) -> PyResult<i64> {
    if !obj.is_instance_of::<pyo3::types::PyBool>() && !obj.is_instance_of::<pyo3::types::PyFloat>() {
        if let Ok(i) = obj.call_method0("__index__").and_then(|i| i.extract::<i64>()) {
            return Ok(i);
        }
    }
    let kind = type_name(obj);
    Err(PyTypeError::new_err(format!("{func}(): argument '{arg}' (position {position}) must be int, not {kind}")))
}

// Typed extractors whose TypeError names the argument (PyO3 only attaches the name as a note).
fn strict_bool(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<bool> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return obj.extract();
    }
    if type_name(obj) == "bool_" {
        return obj.call_method0("__bool__")?.extract();
    }
    Err(PyTypeError::new_err(format!("argument '{arg}' must be bool, not {}", type_name(obj))))
}

fn strict_int(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<isize> {
    if !obj.is_instance_of::<pyo3::types::PyBool>() && !obj.is_instance_of::<pyo3::types::PyFloat>() {
        if let Ok(i) = obj.call_method0("__index__").and_then(|i| i.extract::<isize>()) {
            return Ok(i);
        }
    }
    Err(PyTypeError::new_err(format!("argument '{arg}' must be int, not {}", type_name(obj))))
}

pub fn requires_grad_arg(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    strict_bool(obj, "requires_grad")
}
pub fn keepdim_arg(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    strict_bool(obj, "keepdim")
}
pub fn dim_arg(obj: &Bound<'_, PyAny>) -> PyResult<isize> {
    strict_int(obj, "dim")
}
pub fn dim0_arg(obj: &Bound<'_, PyAny>) -> PyResult<isize> {
    strict_int(obj, "dim0")
}
pub fn dim1_arg(obj: &Bound<'_, PyAny>) -> PyResult<isize> {
    strict_int(obj, "dim1")
}
pub fn opt_dim_arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<isize>> {
    if obj.is_none() {
        Ok(None)
    } else {
        strict_int(obj, "dim").map(Some)
    }
}

static CHECK_DEVICE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
static RESOLVE_DEVICE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
/// Whether the default device (`set_default_device`, `with torch.device(...)`) is 'meta': read by every factory
/// call without `device=`, so kept here rather than asked of Python.
static DEFAULT_META: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by `ferrograd._device` when the default device changes.
#[pyfunction]
pub fn _set_default_meta(meta: bool) {
    DEFAULT_META.store(meta, std::sync::atomic::Ordering::Relaxed);
}
static DEVICE_CLASS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// Whether `obj` is a `ferrograd.device`.
pub fn is_device_object(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let cls = DEVICE_CLASS
        .get_or_try_init(py, || -> PyResult<_> { Ok(py.import("ferrograd._device")?.getattr("device")?.unbind()) })?;
    obj.is_instance(cls.bind(py))
}

static MEMORY_FORMAT_ORDER: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// `func`'s `memory_format=` for a tensor of `ndim` dims: None to keep the op's usual layout (None,
/// `preserve_format`), else the order of the dims, outermost first, that it asks for (`contiguous_format`:
/// 0, 1, ...; `channels_last`: N, H, W, C); bad formats raise torch's errors (`_memory_format.dim_order`).
pub fn memory_format_arg(format: Option<&Bound<'_, PyAny>>, ndim: usize, func: &str) -> PyResult<Option<Vec<usize>>> {
    dim_order(format, ndim, func, true)
}

/// `is_contiguous(memory_format=)`: as `memory_format_arg`, but a channels-last format of another rank gives
/// an empty order (no tensor of that rank is laid out so) instead of raising.
pub fn contiguity_format_arg(format: Option<&Bound<'_, PyAny>>, ndim: usize) -> PyResult<Option<Vec<usize>>> {
    dim_order(format, ndim, "is_contiguous", false)
}

fn dim_order(format: Option<&Bound<'_, PyAny>>, ndim: usize, func: &str, strict: bool) -> PyResult<Option<Vec<usize>>> {
    let Some(f) = format.filter(|f| !f.is_none()) else { return Ok(None) };
    let py = f.py();
    let order = MEMORY_FORMAT_ORDER.get_or_try_init(py, || -> PyResult<_> {
        Ok(py.import("ferrograd._memory_format")?.getattr("dim_order")?.unbind())
    })?;
    order.bind(py).call1((f, ndim, func, strict))?.extract()
}

/// A factory's `device=`: None or the CPU (a string, `ferrograd.device` or index); anything else raises what
/// torch's CPU build raises (`ferrograd._device.check`).
pub fn device_arg(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(d) = device.filter(|d| !d.is_none()) else { return Ok(()) };
    let py = d.py();
    let check = CHECK_DEVICE
        .get_or_try_init(py, || -> PyResult<_> { Ok(py.import("ferrograd._device")?.getattr("check")?.unbind()) })?;
    check.bind(py).call1((d,))?;
    Ok(())
}

/// A meta-capable factory's `device=`: whether it asks for a meta tensor (None: whether the default device is
/// 'meta'); a device ferrograd cannot hold tensors on raises as in `device_arg` (`ferrograd._device.resolve`).
pub fn device_is_meta(device: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    let Some(d) = device.filter(|d| !d.is_none()) else {
        return Ok(DEFAULT_META.load(std::sync::atomic::Ordering::Relaxed));
    };
    let py = d.py();
    let resolve = RESOLVE_DEVICE
        .get_or_try_init(py, || -> PyResult<_> { Ok(py.import("ferrograd._device")?.getattr("resolve")?.unbind()) })?;
    resolve.bind(py).call1((d,))?.getattr("type")?.eq("meta")
}
