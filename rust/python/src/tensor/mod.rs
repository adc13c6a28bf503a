//! The Python-visible `Tensor`: this Rust class itself, so no Python code runs on the op path. Its
//! methods are split by concern over this folder's files (PyO3's `multiple-pymethods`); what a tensor
//! object *is* (identity, swappable record, view→base link) lives in the core's `TensorHandle`.
// first: the files below use its macro
#[macro_use]
mod shared;

mod arith;
mod bitwise;
mod casts;
mod complex;
mod distance;
mod forms;
mod grad;
mod index;
pub(crate) use index::nonzero_tuple;
mod index_write;
mod inplace;
mod linalg;
mod memory;
pub(crate) mod objects;
mod pointwise;
mod products;
mod protocols;
mod reduce;
mod rescale;
pub(crate) mod search;
mod special;
mod stats;
mod unary;

pub use distance::{cdist, pdist};
pub use forms::_method_forms;
pub use products::{_div_number, _mul_number, _tensordot, block_diag};
pub use reduce::{std_mean, var_mean};
pub use special::{_igamma, _igammac, _special, _special_names, _xlog1py, _xlogy, _zeta};
pub use stats::isin;
pub use unary::{_param_unary_ops, _unary_ops};
mod views;

use index::{index_tensor, scatter_impl};
use pointwise::clamp_bounds;

use crate::args::dims_arg;
use crate::convert::tensor_from_data;
use crate::errors::call;
use ferrograd_core::handle::Base;
use ferrograd_core::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A tensor object's handle; a view's refers to its base's Python object.
pub type TensorHandle = ferrograd_core::TensorHandle<BaseObject>;

/// A view's base: the Python object of the tensor whose storage it reads.
pub struct BaseObject(Py<PyTensor>);

#[pyclass(name = "Tensor", module = "ferrograd", frozen, weakref, subclass)]
pub struct PyTensor {
    handle: TensorHandle,
}

impl Base for BaseObject {
    fn handle(&self) -> &TensorHandle {
        &self.0.get().handle
    }
    fn another(&self) -> Self {
        BaseObject(Python::attach(|py| self.0.clone_ref(py)))
    }
}

impl PyTensor {
    pub fn new(t: Tensor) -> Self {
        PyTensor { handle: TensorHandle::new(t) }
    }
    /// The current record.
    pub fn get(&self) -> Tensor {
        self.handle.get()
    }
    /// Swaps in a new record (the object keeps its identity).
    pub fn replace(&self, t: Tensor) {
        self.handle.set(t);
    }
    pub fn handle(&self) -> &TensorHandle {
        &self.handle
    }
    /// The object of a leaf's gradient `t` (`meta` is the leaf's).
    pub fn grad_of(t: Tensor, meta: &std::sync::Arc<ferrograd_core::autograd::GradMeta>) -> Self {
        PyTensor { handle: TensorHandle::grad_of(t, meta) }
    }
}

pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    let leaf = t.grad_meta().is_some() && t.is_leaf();
    let obj = Py::new(py, PyTensor::new(t))?;
    if leaf {
        objects::register_leaf(obj.bind(py))?;
    }
    Ok(obj)
}

type Out = PyResult<Py<PyTensor>>;

/// Wraps a view op's result, remembering the base it reads (PyTorch's `._base`) so that in-place
/// writes through the view can update the base's history.
pub(crate) fn view_of(slf: &Bound<'_, PyTensor>, t: Tensor) -> Out {
    let handle = TensorHandle::view(&slf.get().handle, || BaseObject(slf.clone().unbind()), t);
    Py::new(slf.py(), PyTensor { handle })
}

/// Wraps each output of a multi-output view op (split, chunk, unbind) as a view of `slf`.
fn views_of(slf: &Bound<'_, PyTensor>, ts: Vec<Tensor>) -> PyResult<Py<PyTuple>> {
    let objs: Vec<Py<PyTensor>> = ts.into_iter().map(|t| view_of(slf, t)).collect::<PyResult<_>>()?;
    Ok(PyTuple::new(slf.py(), objs)?.unbind())
}

/// Runs an in-place op `self = f(self)` (through a view of a graph tensor, via its base).
pub(crate) fn inplace_with(
    slf: &Bound<'_, PyTensor>,
    other_requires_grad: bool,
    f: impl FnOnce(&Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyTensor>> {
    call(|| slf.get().handle.apply_inplace(other_requires_grad, f))?;
    Ok(slf.clone().unbind())
}

/// `a` in the `dtype=` a reduction or softmax casts its input to first (itself when None).
fn cast_input(a: Tensor, dtype: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Tensor> {
    match crate::args::dtype_arg(dtype, func)? {
        Some(d) => call(|| a.to_dtype(d)),
        None => Ok(a),
    }
}

/// `cast_input` for the ops whose integer results torch still records (sum, prod, cumsum, cumprod): an
/// integer `dtype=` of an input that requires grad is refused, as torch's autograd refuses it.
fn cast_recorded_input(a: Tensor, dtype: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Tensor> {
    check_recorded_dtype(&a, dtype, func)?;
    cast_input(a, dtype, func)
}

fn check_recorded_dtype(a: &Tensor, dtype: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<()> {
    match crate::args::dtype_arg(dtype, func)? {
        Some(d) if !d.is_float() && a.requires_grad() && ferrograd_core::autograd::grad_mode::is_enabled() => {
            Err(PyRuntimeError::new_err(format!("Autograd not support dtype: {}", d.scalar_type_name())))
        }
        _ => Ok(()),
    }
}

/// One int or a sequence of ints (`dims=`, `shifts=`, `source=`).
fn ints(obj: &Bound<'_, PyAny>, func: &str) -> PyResult<Vec<isize>> {
    dims_arg(obj, func)
}

#[pymethods]
impl PyTensor {
    /// `ferrograd.Tensor(data)` (float32) or `ferrograd.Tensor(*sizes)` (zeros).
    #[new]
    #[pyo3(signature = (*args))]
    fn py_new(args: &Bound<'_, PyTuple>) -> PyResult<Self> {
        if args.len() == 1 {
            let first = args.get_item(0)?;
            if !first.is_instance_of::<pyo3::types::PyInt>() {
                return Ok(PyTensor::new(tensor_from_data(&first, Some(ferrograd_core::dtype::default_float()))?));
            }
        }
        let sizes = crate::args::size_list(args, "Tensor")?;
        let zeros =
            call(|| Tensor::try_full(&sizes, ferrograd_core::Scalar::Int(0), ferrograd_core::dtype::default_float()))?;
        Ok(PyTensor::new(zeros))
    }
}
