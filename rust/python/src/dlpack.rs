//! DLPack: zero-copy exchange of CPU tensors with numpy, torch and any other DLPack library.
//!
//! The C structs below follow dlpack.h (v1.0). A producer hands out a capsule named "dltensor" (or
//! "dltensor_versioned") holding a managed tensor whose deleter frees the producer's side; the consumer
//! renames the capsule "used_dltensor" and calls the deleter once it no longer needs the memory.
use crate::errors::call;
use ferrograd_core::element::Element;
use ferrograd_core::storage::{Data, Storage};
use ferrograd_core::{with_dtype, DType, Layout, Tensor};
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_void, CStr};
use std::sync::Arc;

const KDL_CPU: i32 = 1;
const KDL_INT: u8 = 0;
const KDL_UINT: u8 = 1;
const KDL_FLOAT: u8 = 2;
const KDL_BFLOAT: u8 = 4;
/// DLPack's kDLComplex: complex64/complex128 as (re, im) pairs, which is how their storage holds them.
const KDL_COMPLEX: u8 = 5;
const KDL_BOOL: u8 = 6;
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 2;

const DLTENSOR: &CStr = c"dltensor";
const USED_DLTENSOR: &CStr = c"used_dltensor";
const DLTENSOR_VERSIONED: &CStr = c"dltensor_versioned";
const USED_DLTENSOR_VERSIONED: &CStr = c"used_dltensor_versioned";

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    /// In elements; NULL means compact row-major.
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

fn dl_dtype(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => KDL_BOOL,
        DType::U8 => KDL_UINT,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => KDL_INT,
        DType::F16 | DType::F32 | DType::F64 => KDL_FLOAT,
        DType::BF16 => KDL_BFLOAT,
        DType::C64 | DType::C128 => KDL_COMPLEX,
    };
    DLDataType { code, bits: (dtype.itemsize() * 8) as u8, lanes: 1 }
}

fn from_dl_dtype(d: DLDataType) -> PyResult<DType> {
    let dtype = match (d.code, d.bits) {
        (KDL_BOOL, 8) => DType::Bool,
        (KDL_UINT, 8) => DType::U8,
        (KDL_INT, 8) => DType::I8,
        (KDL_INT, 16) => DType::I16,
        (KDL_INT, 32) => DType::I32,
        (KDL_INT, 64) => DType::I64,
        (KDL_FLOAT, 16) => DType::F16,
        (KDL_FLOAT, 32) => DType::F32,
        (KDL_FLOAT, 64) => DType::F64,
        (KDL_BFLOAT, 16) => DType::BF16,
        (code, bits) => {
            return Err(PyTypeError::new_err(format!(
                "from_dlpack: unsupported DLPack data type (code {code}, {bits} bits)"
            )))
        }
    };
    if d.lanes != 1 {
        return Err(PyTypeError::new_err(format!("from_dlpack: only lanes 1 is supported (got {})", d.lanes)));
    }
    Ok(dtype)
}

// ---- export ----

/// What a capsule made by `__dlpack__` owns: the managed tensor (first, so a pointer to it is a
/// pointer to the whole export), its shape and strides, and the storage it points into.
#[repr(C)]
struct Export<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _storage: Arc<Storage>,
}

unsafe extern "C" fn delete_export(m: *mut DLManagedTensor) {
    if !m.is_null() {
        drop(Box::from_raw(m as *mut Export<DLManagedTensor>));
    }
}

unsafe extern "C" fn delete_export_versioned(m: *mut DLManagedTensorVersioned) {
    if !m.is_null() {
        drop(Box::from_raw(m as *mut Export<DLManagedTensorVersioned>));
    }
}

/// A capsule nobody consumed still owns its managed tensor: free it through its own deleter.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    if ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) == 1 {
        let m = ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr()) as *mut DLManagedTensor;
        if let Some(deleter) = (*m).deleter {
            deleter(m);
        }
    } else if ffi::PyCapsule_IsValid(capsule, DLTENSOR_VERSIONED.as_ptr()) == 1 {
        let m = ffi::PyCapsule_GetPointer(capsule, DLTENSOR_VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
        if let Some(deleter) = (*m).deleter {
            deleter(m);
        }
    }
    // renamed "used_...": the consumer owns the managed tensor now
}

fn dl_tensor(t: &Tensor) -> (DLTensor, Vec<i64>, Vec<i64>) {
    let base = t.storage().read().as_ptr();
    // SAFETY: the storage offset lies within the storage (checked when the layout was made)
    let data = unsafe { base.add(t.storage_offset() * t.dtype().itemsize()) } as *mut c_void;
    let shape: Vec<i64> = t.shape().iter().map(|&s| s as i64).collect();
    let strides: Vec<i64> = t.strides().iter().map(|&s| s as i64).collect();
    let tensor = DLTensor {
        data,
        device: DLDevice { device_type: KDL_CPU, device_id: 0 },
        ndim: t.ndim() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    };
    (tensor, shape, strides)
}

/// The two managed-tensor structs (plain and versioned) as far as an export fills them in.
trait Managed {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void);
}
impl Managed for DLManagedTensor {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void) {
        (&mut self.dl_tensor, &mut self.manager_ctx)
    }
}
impl Managed for DLManagedTensorVersioned {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void) {
        (&mut self.dl_tensor, &mut self.manager_ctx)
    }
}

/// Boxes an export and points its DLTensor at the box's own shape and strides (the box stays put
/// while the capsule lives, so the pointers stay valid); the box itself is the manager context.
fn box_export<M: Managed>(export: Export<M>) -> *mut c_void {
    let export = Box::into_raw(Box::new(export));
    // Safety: `export` was just allocated and is not shared yet.
    unsafe {
        let e = &mut *export;
        let (dl, ctx) = e.managed.parts();
        dl.shape = e.shape.as_mut_ptr();
        dl.strides = e.strides.as_mut_ptr();
        *ctx = export as *mut c_void;
    }
    export as *mut c_void
}

/// `Tensor.__dlpack__`: a capsule over the tensor's memory (a copy when `copy=True`).
pub fn to_capsule(py: Python<'_>, t: &Tensor, versioned: bool, copy: bool) -> PyResult<Py<PyAny>> {
    if t.requires_grad() {
        return Err(PyBufferError::new_err("Can't export tensors that require gradient, use tensor.detach()"));
    }
    crate::errors::refuse_meta(t)?;
    let t = if copy { call(|| t.contiguous_copy())? } else { t.clone() };
    t.storage().mark_exported();
    let (tensor, shape, strides) = dl_tensor(&t);
    let storage = t.storage().clone();
    let (ptr, name) = if versioned {
        let managed = DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_export_versioned),
            flags: if copy { FLAG_IS_COPIED } else { 0 },
            dl_tensor: tensor,
        };
        (box_export(Export { managed, shape, strides, _storage: storage }), DLTENSOR_VERSIONED)
    } else {
        let managed =
            DLManagedTensor { dl_tensor: tensor, manager_ctx: std::ptr::null_mut(), deleter: Some(delete_export) };
        (box_export(Export { managed, shape, strides, _storage: storage }), DLTENSOR)
    };
    // Safety: `ptr` is a live export; the destructor frees it unless a consumer takes it over.
    unsafe {
        let capsule = ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor));
        if capsule.is_null() {
            if versioned {
                delete_export_versioned(ptr as *mut _)
            } else {
                delete_export(ptr as *mut _)
            }
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, capsule).unbind())
    }
}

// ---- import ----

/// Keeps a producer's managed tensor alive for as long as a ferrograd storage reads it; calls the
/// producer's deleter once (from whichever thread drops the storage, as the spec allows).
struct Imported {
    managed: *mut c_void,
    versioned: bool,
}

// Safety: the deleter may be called from any thread (DLPack spec); the pointer is only used there.
unsafe impl Send for Imported {}
// SAFETY: shared references never touch the pointer; only Drop (with ownership) does
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // Safety: `managed` came out of a consumed capsule and is deleted exactly once, here.
        unsafe {
            if self.versioned {
                let m = self.managed as *mut DLManagedTensorVersioned;
                if let Some(deleter) = (*m).deleter {
                    deleter(m);
                }
            } else {
                let m = self.managed as *mut DLManagedTensor;
                if let Some(deleter) = (*m).deleter {
                    deleter(m);
                }
            }
        }
    }
}

/// Asks a producer for a capsule: DLPack 1.0 first, then the unversioned protocol of older producers.
fn capsule_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(device) = obj.call_method0("__dlpack_device__") {
        let (device_type, _): (i32, i32) = device.extract()?;
        if device_type != KDL_CPU {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: only CPU tensors are supported (device type {device_type})"
            )));
        }
    }
    let kwargs = pyo3::types::PyDict::new(obj.py());
    kwargs.set_item("max_version", (1, 0))?;
    match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => Ok(c),
        Err(e) if e.is_instance_of::<PyTypeError>(obj.py()) => obj.call_method0("__dlpack__"),
        Err(e) => Err(e),
    }
}

/// `ferrograd.from_dlpack`: a tensor over the producer's memory (no copy), from an object with
/// `__dlpack__` or from a capsule.
pub fn from_dlpack(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    // SAFETY: a type check on a live object (the GIL is held through `obj`)
    let is_capsule = unsafe { ffi::PyCapsule_CheckExact(obj.as_ptr()) } == 1;
    let capsule = if is_capsule {
        obj.clone()
    } else if obj.hasattr("__dlpack__")? {
        capsule_of(obj)?
    } else {
        // RuntimeError, as torch (which takes any such object for a capsule)
        return Err(PyRuntimeError::new_err(format!(
            "from_dlpack: expected an object with __dlpack__ or a DLPack capsule (got {})",
            crate::args::type_name(obj)
        )));
    };
    let cap = capsule.as_ptr();
    // Safety: the capsule names say which struct the pointer holds.
    let (managed, versioned, tensor, read_only) = unsafe {
        if ffi::PyCapsule_IsValid(cap, DLTENSOR_VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, DLTENSOR_VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if (*m).version.major > 1 {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: unsupported DLPack version {}.{}",
                    (*m).version.major,
                    (*m).version.minor
                )));
            }
            (m as *mut c_void, true, &(*m).dl_tensor, (*m).flags & FLAG_READ_ONLY != 0)
        } else if ffi::PyCapsule_IsValid(cap, DLTENSOR.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, DLTENSOR.as_ptr()) as *mut DLManagedTensor;
            (m as *mut c_void, false, &(*m).dl_tensor, false)
        } else {
            return Err(PyRuntimeError::new_err(
                "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so \
                    you might have already constructed a tensor from it once.",
            ));
        }
    };
    let layout = layout_of(tensor)?;
    let dtype = from_dl_dtype(tensor.dtype)?;
    if tensor.device.device_type != KDL_CPU {
        return Err(PyBufferError::new_err(format!(
            "from_dlpack: only CPU tensors are supported (device type {})",
            tensor.device.device_type
        )));
    }
    let data = (tensor.data as usize + tensor.byte_offset as usize) as *mut u8;
    if layout.numel() > 0 && !(data as usize).is_multiple_of(dtype.itemsize()) {
        return Err(PyBufferError::new_err("from_dlpack: the data pointer is not aligned to the element size"));
    }
    // Consume: from here on the managed tensor is ours, and its deleter runs when the storage goes.
    let used = if versioned { USED_DLTENSOR_VERSIONED } else { USED_DLTENSOR };
    // SAFETY: `cap` is the live capsule checked above; `used` is a static C string
    if unsafe { ffi::PyCapsule_SetName(cap, used.as_ptr()) } != 0 {
        return Err(PyErr::fetch(capsule.py()));
    }
    let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(Imported { managed, versioned });
    let len = layout.storage_extent();
    let data = if layout.numel() == 0 { std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut u8 } else { data };
    // Safety: the producer guarantees `len` elements from `data` along the layout, kept alive until its
    // deleter runs (when `owner` drops).
    let buffer = with_dtype!(dtype, T => unsafe { T::buffer(Data::from_external(data as *mut T, len, owner)) });
    let t = call(|| Tensor::from_storage(Arc::new(Storage::new(buffer)), layout))?;
    // A read-only producer can't be written through: take a copy (its memory is released with `t`).
    if read_only {
        call(|| t.contiguous_copy())
    } else {
        Ok(t)
    }
}

fn layout_of(t: &DLTensor) -> PyResult<Layout> {
    if t.ndim < 0 {
        return Err(PyBufferError::new_err("from_dlpack: negative ndim"));
    }
    let ndim = t.ndim as usize;
    // SAFETY: DLPack's contract: `shape` points to ndim sizes while the managed tensor lives
    let shape: &[i64] = if ndim == 0 { &[] } else { unsafe { std::slice::from_raw_parts(t.shape, ndim) } };
    if shape.iter().any(|&s| s < 0) {
        return Err(PyBufferError::new_err("from_dlpack: negative size in shape"));
    }
    let shape: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
    let strides = if t.strides.is_null() || ndim == 0 {
        Layout::contiguous(&shape).strides
    } else {
        // SAFETY: non-null strides point to ndim values (DLPack's contract)
        let s = unsafe { std::slice::from_raw_parts(t.strides, ndim) };
        if s.iter().zip(&shape).any(|(&st, &n)| st < 0 && n > 1) {
            return Err(PyBufferError::new_err("from_dlpack: negative strides are not supported"));
        }
        s.iter().map(|&st| st.max(0) as usize).collect()
    };
    Ok(Layout { shape, strides, offset: 0 })
}
