//! The one place where core errors and panics become Python exceptions, and where the GIL is released.
use ferrograd_core::Error;
use pyo3::exceptions::{PyIndexError, PyNotImplementedError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    ferrograd,
    LinAlgError,
    PyRuntimeError,
    "A matrix a linear-algebra routine cannot factor (singular, not positive-definite)."
);

pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::External(ext) => match ext.0.downcast_ref::<PyErr>() {
            Some(err) => Python::attach(|py| err.clone_ref(py)),
            None => PyRuntimeError::new_err("error raised in a callback"),
        },
        Error::Runtime(m) => PyRuntimeError::new_err(m),
        Error::Index(m) => PyIndexError::new_err(m),
        Error::Type(m) => PyTypeError::new_err(m),
        Error::Value(m) => PyValueError::new_err(m),
        Error::NotImplemented(m) => PyNotImplementedError::new_err(m),
        Error::LinAlg(m) => LinAlgError::new_err(m),
        // OSError(errno, strerror, filename) becomes FileNotFoundError, IsADirectoryError, ... by errno
        Error::Io(e) => match (e.errno, &e.path) {
            (Some(errno), Some(path)) => PyOSError::new_err((errno, e.message, path.clone().into_os_string())),
            (Some(errno), None) => PyOSError::new_err((errno, e.message)),
            (None, _) => PyOSError::new_err(Error::Io(e).to_string()),
        },
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    PyRuntimeError::new_err(format!("ferrograd internal error (please report): {msg}"))
}

/// The name a binding's op has in messages: its aten name without `aten::` (`profiler::op_name`).
type OpName = Option<Cow<'static, str>>;

/// Runs a core call, turning its error or a panic into a Python exception. While the profiler is on, the
/// call is one timed op, named after the binding that wrote `f` (`profiler::op_name`).
pub fn call<T, F: FnOnce() -> ferrograd_core::Result<T>>(f: F) -> PyResult<T> {
    if ferrograd_core::profiler::is_enabled() {
        if let Some(name) = crate::profiler::op_name::<F>() {
            return ferrograd_core::profiler::run_op(name, || run(f, crate::profiler::op_name::<F>));
        }
    }
    run(f, crate::profiler::op_name::<F>)
}

/// `call` from a helper shared by several ops, which knows only at run time which one it runs (`op`, PyTorch's
/// name without `aten::`).
pub fn call_as<T>(op: &str, f: impl FnOnce() -> ferrograd_core::Result<T>) -> PyResult<T> {
    if ferrograd_core::profiler::is_enabled() {
        return ferrograd_core::profiler::run_op(format!("aten::{op}").into(), || run(f, || named(op)));
    }
    run(f, || named(op))
}

fn named(op: &str) -> OpName {
    Some(Cow::Owned(format!("aten::{op}")))
}

/// The error of a call: an allocation the core could not make, or a complex tensor a real-only kernel refused,
/// unwinds with its `Error` (`ferrograd_core::pool::take`, `ferrograd_core::dtype::refuse_complex`).
fn run<T>(f: impl FnOnce() -> ferrograd_core::Result<T>, op: impl FnOnce() -> OpName) -> PyResult<T> {
    run_core(f)?.map_err(|e| to_py(name_refusing_op(e, op)))
}

/// A call's result, or the Python error of a panic that carried no `Error`.
fn run_core<T>(f: impl FnOnce() -> ferrograd_core::Result<T>) -> PyResult<ferrograd_core::Result<T>> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(p) => match p.downcast::<Error>() {
            Ok(e) => Ok(Err(*e)),
            Err(p) => Err(panic_message(p)),
        },
    }
}

/// A complex refusal names the op as torch's does (`"lt" not implemented for 'ComplexFloat'`): the binding's
/// aten name, found only on this error path.
fn name_refusing_op(e: Error, op: impl FnOnce() -> OpName) -> Error {
    use ferrograd_core::dtype::REFUSING_OP;
    match e {
        Error::NotImplemented(m) if m.contains(REFUSING_OP) => {
            let name = op();
            let name = name.as_deref().map_or("this op", |n| n.strip_prefix("aten::").unwrap_or(n));
            Error::NotImplemented(m.replace(REFUSING_OP, name))
        }
        e => e,
    }
}

/// Elements above which a kernel runs with the GIL released (below it, releasing costs more than it saves).
const RELEASE_GIL_ABOVE: usize = 1 << 15;

/// Like `call`, releasing the GIL when the work (`size` elements) is large enough to matter.
pub fn call_heavy<T: Send, F: FnOnce() -> ferrograd_core::Result<T> + Send>(
    py: Python<'_>,
    size: usize,
    f: F,
) -> PyResult<T> {
    if ferrograd_core::profiler::is_enabled() {
        if let Some(name) = crate::profiler::op_name::<F>() {
            return ferrograd_core::profiler::run_op(name, || run_heavy(py, size, f, crate::profiler::op_name::<F>));
        }
    }
    run_heavy(py, size, f, crate::profiler::op_name::<F>)
}

/// `call_heavy` from a helper shared by several ops (see `call_as`).
pub fn call_heavy_as<T: Send>(
    py: Python<'_>,
    size: usize,
    op: &str,
    f: impl FnOnce() -> ferrograd_core::Result<T> + Send,
) -> PyResult<T> {
    if ferrograd_core::profiler::is_enabled() {
        return ferrograd_core::profiler::run_op(format!("aten::{op}").into(), || run_heavy(py, size, f, || named(op)));
    }
    run_heavy(py, size, f, || named(op))
}

fn run_heavy<T: Send>(
    py: Python<'_>,
    size: usize,
    f: impl FnOnce() -> ferrograd_core::Result<T> + Send,
    op: impl FnOnce() -> OpName,
) -> PyResult<T> {
    if size < RELEASE_GIL_ABOVE {
        return run(f, op);
    }
    // the op's name is looked up (it takes a lock) with the GIL held again
    py.detach(|| run_core(f))?.map_err(|e| to_py(name_refusing_op(e, op)))
}

/// torch's error for reading the values of a meta tensor (it has none), for the bindings that would read its storage
/// outside `call` (export to numpy, DLPack, lists, files).
pub fn refuse_meta(t: &ferrograd_core::Tensor) -> PyResult<()> {
    if t.is_meta() {
        return Err(PyNotImplementedError::new_err("Cannot copy out of meta tensor; no data!"));
    }
    Ok(())
}

/// A Python exception raised inside a callback (a hook, a custom backward), carried through the core.
pub fn from_py(err: PyErr) -> Error {
    Error::External(ferrograd_core::error::External(std::sync::Arc::new(err)))
}

/// Test hook (not public API): a panic, or an allocation the machine cannot make, inside `call`, to show
/// that either reaches Python as RuntimeError and not as pyo3's PanicException (a BaseException).
#[pyfunction]
pub fn _panic_for_tests(kind: &str) -> PyResult<()> {
    call(|| match kind {
        "allocation" => {
            let _never = ferrograd_core::pool::take::<f32>(1 << 50);
            Ok(())
        }
        _ => panic!("deliberate panic for tests"),
    })
}

/// Raises the RuntimeError a new tensor of `shape` and `dtype` would get if the machine cannot hold it, before
/// Python-level code loops over its elements (adaptive pooling's windows).
#[pyfunction]
pub fn _check_new_shape(shape: Vec<usize>, dtype: PyRef<'_, crate::dtype::PyDType>) -> PyResult<()> {
    call(|| ferrograd_core::alloc::check_new_shape(&shape, dtype.dtype.itemsize()).map(|_| ()))
}
