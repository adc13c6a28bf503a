//! Python values in and out: nested sequences, numbers and numpy arrays.
use crate::errors::call;
use crate::py_tensor::PyTensor;
use ferrograd_core::element::Element;
use ferrograd_core::storage::{Data, Storage};
use ferrograd_core::{with_dtype, DType, Layout, Scalar, Tensor};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PySequence, PyString};
use std::sync::Arc;

/// A Python number as a core scalar, or None if it is not one.
pub fn as_scalar(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if obj.is_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(Scalar::Bool);
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    // numpy scalars and other number-likes
    let type_name = obj.get_type().name().ok()?.to_string();
    if type_name == "bool_" || type_name == "bool" {
        return obj.call_method0("__bool__").ok()?.extract::<bool>().ok().map(Scalar::Bool);
    }
    if obj.hasattr("__index__").unwrap_or(false) && !obj.is_instance_of::<PyTensor>() {
        return obj.call_method0("__index__").ok()?.extract::<i64>().ok().map(Scalar::Int);
    }
    if obj.hasattr("__float__").unwrap_or(false) && !obj.is_instance_of::<PyTensor>() {
        return obj.call_method0("__float__").ok()?.extract::<f64>().ok().map(Scalar::Float);
    }
    None
}

/// The name torch's messages give `obj`'s type: CPython's `tp_name`, a class written in Python by its bare
/// name, a type from C with its module (`numpy.ndarray`), a builtin bare. `_arg_errors.type_name` in Python.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    /// Py_TPFLAGS_HEAPTYPE: the class was made at run time (a `class` statement).
    const HEAP_TYPE: u64 = 1 << 9;
    let kind = obj.get_type();
    let name = kind.name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
    let heap = kind.getattr("__flags__").and_then(|f| f.extract::<u64>()).map_or(true, |f| f & HEAP_TYPE != 0);
    match kind.module() {
        Ok(module) if !heap && module != "builtins" => format!("{module}.{name}"),
        _ => name,
    }
}

/// Deeper nesting than any real tensor has; guards the recursion below.
const MAX_NESTING: usize = 64;

struct Collected {
    shape: Vec<usize>,
    values: Vec<Scalar>,
    float: bool,
    int: bool,
    /// The imaginary parts, once a complex number was seen (zeros for the values before it).
    imags: Option<Vec<f64>>,
}

fn collect(obj: &Bound<'_, PyAny>, depth: usize, out: &mut Collected) -> PyResult<()> {
    let complex = crate::complex::as_complex(obj);
    if let Some(s) = complex.map(|(re, _)| Scalar::Float(re)).or_else(|| as_scalar(obj)) {
        if depth < out.shape.len() {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {} (got a scalar)",
                out.shape[depth], depth
            )));
        }
        if depth > out.shape.len() || (!out.values.is_empty() && depth != out.shape.len()) {
            return Err(PyValueError::new_err("setting an array element with a sequence."));
        }
        match s {
            Scalar::Float(_) => out.float = true,
            Scalar::Int(_) => out.int = true,
            Scalar::Bool(_) => {}
        }
        if complex.is_some() {
            out.imags.get_or_insert_with(|| vec![0.0; out.values.len()]);
        }
        if let Some(imags) = &mut out.imags {
            imags.push(complex.map_or(0.0, |(_, im)| im));
        }
        out.values.push(s);
        return Ok(());
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().get();
        if t.is_complex() && t.numel() == 1 && t.ndim() == 0 {
            return collect(&crate::complex::complex_item(obj.py(), &t)?, depth, out);
        }
        if t.numel() != 1 || t.ndim() != 0 {
            return Err(PyValueError::new_err("only one element tensors can be converted to Python scalars"));
        }
        let s = call(|| t.item())?;
        return collect(&s_to_py(obj.py(), s)?, depth, out);
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        let nested = tolist(obj.py(), &from_numpy_copy(arr)?)?;
        return collect(&nested, depth, out);
    }
    // Strings are sequences of strings: never data, and endless to recurse into.
    let is_text = obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>();
    if is_text || obj.cast::<PySequence>().is_err() {
        return Err(PyTypeError::new_err(format!("new(): invalid data type '{}'", type_name(obj))));
    }
    if depth >= MAX_NESTING {
        return Err(PyValueError::new_err(format!("data is nested more than {MAX_NESTING} levels deep")));
    }
    let seq = obj
        .cast::<PySequence>()
        .map_err(|_| PyTypeError::new_err(format!("new(): invalid data type '{}'", type_name(obj))))?;
    let len = seq.len()?;
    if depth == out.shape.len() {
        if !out.values.is_empty() {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {} (got {})",
                0, depth, len
            )));
        }
        out.shape.push(len);
    } else if out.shape[depth] != len {
        return Err(PyValueError::new_err(format!(
            "expected sequence of length {} at dim {} (got {})",
            out.shape[depth], depth, len
        )));
    }
    for i in 0..len {
        collect(&seq.get_item(i)?, depth + 1, out)?;
    }
    Ok(())
}

fn s_to_py<'py>(py: Python<'py>, s: Scalar) -> PyResult<Bound<'py, PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any(),
    })
}

pub fn scalar_to_py<'py>(py: Python<'py>, s: Scalar) -> PyResult<Bound<'py, PyAny>> {
    s_to_py(py, s)
}

/// `ferrograd.tensor(data)`: copies nested sequences, numbers, numpy arrays or tensors.
pub fn tensor_from_data(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().get();
        let copy = call(|| t.contiguous_copy())?;
        return match dtype {
            Some(d) => call(|| copy.to_dtype(d)),
            None => Ok(copy),
        };
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        let t = from_numpy_copy(arr)?;
        return match dtype {
            Some(d) => call(|| t.to_dtype(d)),
            None => Ok(t),
        };
    }
    let mut c = Collected { shape: vec![], values: vec![], float: false, int: false, imags: None };
    collect(obj, 0, &mut c)?;
    if c.imags.is_some() || dtype.is_some_and(|d| d.is_complex()) {
        let dtype = dtype.unwrap_or(ferrograd_core::dtype::default_float().to_complex());
        if !dtype.is_complex() {
            return Err(PyTypeError::new_err("must be real number, not complex"));
        }
        let reals: Vec<f64> = c.values.iter().map(|s| s.to_f64()).collect();
        let imags = c.imags.unwrap_or_else(|| vec![0.0; reals.len()]);
        return crate::complex::complex_tensor(reals, imags, &c.shape, dtype);
    }
    let inferred = if c.float {
        ferrograd_core::dtype::default_float()
    } else if c.int {
        DType::I64
    } else if c.values.is_empty() {
        ferrograd_core::dtype::default_float()
    } else {
        DType::Bool
    };
    let dtype = dtype.unwrap_or(inferred);
    let v = &c.values;
    call(|| {
        with_dtype!(dtype, T => {
            let values: Vec<T> = v
                .iter()
                .map(|s| match *s {
                    Scalar::Int(i) => T::from_i64(i),
                    Scalar::Bool(b) => T::from_i64(b as i64),
                    Scalar::Float(f) => T::from_f64(f),
                })
                .collect();
            Tensor::from_vec(values, &c.shape)
        })
    })
}

/// Element dtype of a numpy array, for the dtypes ferrograd stores (native byte order only).
fn numpy_dtype(arr: &Bound<'_, PyUntypedArray>) -> Option<DType> {
    let d = arr.dtype();
    if d.is_native_byteorder() == Some(false) {
        return None;
    }
    Some(match (d.kind(), d.itemsize()) {
        (b'b', 1) => DType::Bool,
        (b'u', 1) => DType::U8,
        (b'i', 1) => DType::I8,
        (b'i', 2) => DType::I16,
        (b'i', 4) => DType::I32,
        (b'i', 8) => DType::I64,
        (b'f', 2) => DType::F16,
        (b'f', 4) => DType::F32,
        (b'f', 8) => DType::F64,
        (b'c', 8) => DType::C64,
        (b'c', 16) => DType::C128,
        _ => return None,
    })
}

/// Copies any numeric numpy array (other integer and float widths are widened).
fn from_numpy_copy(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let py = arr.py();
    let np = py.import("numpy")?;
    let target = match numpy_dtype(arr) {
        Some(d) => d,
        None => {
            let kind = arr.dtype().kind();
            match kind {
                b'f' => DType::F64,
                b'i' | b'u' => DType::I64,
                b'b' => DType::Bool,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "can't convert np.ndarray of type {}. The only supported types are: float64, float32, int64, \
                            int32, int16, int8, uint8, and bool.",
                        arr.dtype()
                    )))
                }
            }
        }
    };
    let np_name = target.name();
    // np.array, not np.ascontiguousarray: the latter turns 0-d arrays into 1-d ones
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", np_name)?;
    kwargs.set_item("order", "C")?;
    let copy = np.call_method("array", (arr,), Some(&kwargs))?;
    let copy = copy.cast::<PyUntypedArray>()?;
    let shared = from_numpy_shared(copy)?;
    call(|| shared.contiguous_copy())
}

/// `ferrograd.from_numpy`: a tensor over the array's own memory (the array is kept alive).
pub fn from_numpy_shared(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let Some(dtype) = numpy_dtype(arr) else {
        return Err(PyTypeError::new_err(format!(
            "can't convert np.ndarray of type {}. The only supported types are: float64, float32, float16, int64, \
                int32, int16, int8, uint8, and bool.",
            arr.dtype()
        )));
    };
    let item = dtype.itemsize() as isize;
    let mut strides = Vec::with_capacity(arr.ndim());
    for &s in arr.strides() {
        if s < 0 {
            return Err(PyValueError::new_err(
                "At least one stride in the given numpy array is negative, and tensors \
                with negative strides are not currently supported. (You can probably work around this by making a \
                copy of your array with array.copy().) ",
            ));
        }
        if s % item != 0 {
            return Err(PyValueError::new_err(
                "given numpy array strides not a multiple of the element byte size. Copy \
                the numpy array to reallocate the memory.",
            ));
        }
        strides.push((s / item) as usize);
    }
    let layout = Layout { shape: arr.shape().to_vec(), strides, offset: 0 };
    let len = layout.storage_extent();
    // SAFETY: `arr` is a live numpy array object, so its struct (and data pointer field) can be read
    let ptr = unsafe { (*arr.as_array_ptr()).fields.data };
    let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(arr.clone().unbind());
    if dtype.is_complex() {
        return crate::complex::complex_from_external(ptr.cast(), layout, dtype, owner);
    }
    // Safety: the array owns `len` elements from `ptr` (strides are non-negative) and `owner` keeps it alive.
    let buffer = with_dtype!(dtype, T => unsafe { T::buffer(Data::from_external(ptr as *mut T, len, owner)) });
    call(|| Tensor::from_storage(Arc::new(Storage::new(buffer)), layout))
}

/// Keeps a tensor's storage alive for numpy arrays that view it.
#[pyclass(frozen)]
pub struct StorageOwner {
    #[allow(dead_code)]
    storage: Arc<Storage>,
}

/// `tensor.numpy()`: a numpy array over the tensor's memory, no copy.
pub fn to_numpy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    if t.is_meta() {
        return Err(PyTypeError::new_err(
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        ));
    }
    fn view<'py, T: numpy::Element>(
        _py: Python<'py>,
        t: &Tensor,
        owner: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let buf = t.storage().read();
        let base = buf.as_ptr() as *const T;
        drop(buf);
        let shape = numpy::ndarray::IxDyn(t.shape());
        let strides = numpy::ndarray::IxDyn(t.strides());
        use numpy::ndarray::ShapeBuilder;
        // Safety: the layout lies within the storage (checked at construction); `owner` keeps it alive.
        let view =
            unsafe { numpy::ndarray::ArrayView::from_shape_ptr(shape.strides(strides), base.add(t.storage_offset())) };
        // SAFETY: `owner` holds the storage, so the view's memory outlives the array borrowing it
        let arr = unsafe { numpy::PyArray::borrow_from_array(&view, owner) };
        Ok(arr.into_any())
    }
    if t.dtype() == DType::BF16 {
        return Err(PyTypeError::new_err("Got unsupported ScalarType BFloat16"));
    }
    t.storage().mark_exported();
    let owner = Bound::new(py, StorageOwner { storage: t.storage().clone() })?.into_any();
    match t.dtype() {
        DType::Bool => view::<bool>(py, t, owner),
        DType::U8 => view::<u8>(py, t, owner),
        DType::I8 => view::<i8>(py, t, owner),
        DType::I16 => view::<i16>(py, t, owner),
        DType::I32 => view::<i32>(py, t, owner),
        DType::I64 => view::<i64>(py, t, owner),
        DType::F16 => view::<ferrograd_core::half::f16>(py, t, owner),
        // numpy has no bfloat16
        DType::BF16 => unreachable!("rejected above"),
        DType::F32 => view::<f32>(py, t, owner),
        DType::F64 => view::<f64>(py, t, owner),
        DType::C64 => view::<numpy::Complex32>(py, t, owner),
        DType::C128 => view::<numpy::Complex64>(py, t, owner),
    }
}

/// `tensor.tolist()`: nested lists of Python numbers.
pub fn tolist<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    fn build<'py, T: Copy + IntoPyObject<'py>>(
        py: Python<'py>,
        shape: &[usize],
        values: &[T],
    ) -> PyResult<Bound<'py, PyAny>> {
        if shape.is_empty() {
            return Ok(pyo3::BoundObject::into_bound(pyo3::BoundObject::into_any(
                values[0].into_pyobject(py).map_err(Into::into)?,
            )));
        }
        let step = shape[1..].iter().product::<usize>();
        let items: Vec<Bound<'py, PyAny>> = (0..shape[0])
            .map(|i| build(py, &shape[1..], &values[i * step..(i + 1) * step]))
            .collect::<PyResult<_>>()?;
        Ok(PyList::new(py, items)?.into_any())
    }
    crate::errors::refuse_meta(t)?;
    // the values are copied out first (8 bytes each), then one Python object each: refuse what cannot fit
    crate::errors::call(|| ferrograd_core::alloc::checked_bytes(t.numel(), 8 + std::mem::size_of::<usize>()))?;
    match t.dtype() {
        d if d.is_complex() => crate::complex::complex_tolist(py, t),
        DType::Bool => build(py, t.shape(), &t.to_vec::<bool>()),
        d if d.is_int() => build(py, t.shape(), &t.to_vec::<i64>()),
        _ => build(py, t.shape(), &t.to_vec::<f64>()),
    }
}
