//! The Python-visible `Tensor`: this Rust class itself, so no Python code runs on the op path.
use crate::args::{dims_arg, dtype_arg, int_list, operand, operand_arg, tensor_arg, type_name};
use crate::convert::{as_scalar, scalar_to_py, tensor_from_data, to_numpy, tolist};
use crate::dtype::PyDType;
use crate::errors::{call, call_heavy};
use crate::indexing::{apply_index, assign_index};
use crate::node::PyNode;
use ferrograd_core::binary::{Binary, Compare};
use ferrograd_core::unary::Unary;
use ferrograd_core::view::DenseWrite;
use ferrograd_core::{DType, Scalar, Tensor};
use parking_lot::RwLock;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};

#[pyclass(name = "Tensor", module = "ferrograd", frozen, weakref, subclass)]
pub struct PyTensor {
    /// Swapped (never mutated) when the tensor's identity changes: `requires_grad_`, `.data = `.
    inner: RwLock<Tensor>,
    /// For a view: the tensor whose storage it reads (the root of a chain of views).
    base: Option<Py<PyTensor>>,
}

impl PyTensor {
    pub fn new(t: Tensor) -> Self {
        PyTensor { inner: RwLock::new(t), base: None }
    }
    pub fn get(&self) -> Tensor {
        self.inner.read().clone()
    }
    fn set(&self, t: Tensor) {
        *self.inner.write() = t;
    }
    pub fn replace(&self, t: Tensor) {
        self.set(t);
    }
}

pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    Py::new(py, PyTensor::new(t))
}

type Out = PyResult<Py<PyTensor>>;

static SIZE_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static REPR_FN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn size_object<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let cls = SIZE_CLASS.get_or_try_init(py, || -> PyResult<_> {
        Ok(py.import("ferrograd._size")?.getattr("Size")?.cast_into::<PyType>()?.unbind())
    })?;
    cls.bind(py).call1((PyTuple::new(py, shape)?,))
}

fn not_implemented(py: Python<'_>) -> PyResult<Py<PyAny>> {
    Ok(py.NotImplemented())
}

/// A dunder operator: NotImplemented for operands that are not tensors or numbers, so Python can try
/// the other side. `reflected` puts the Python-side operand first (`2 - x`).
fn binary_op(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    reflected: bool,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyAny>> {
    let Some(b) = operand(other) else { return not_implemented(py) };
    let out = if reflected { call(|| f(&b, a))? } else { call(|| f(a, &b))? };
    Ok(wrap(py, out)?.into_any())
}

/// `alpha=` of add/sub: a number, integral for integral tensors (as torch checks).
fn alpha_arg(a: &Tensor, alpha: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Option<Scalar>> {
    let Some(alpha) = alpha else { return Ok(None) };
    let value = as_scalar(alpha).ok_or_else(|| {
        PyTypeError::new_err(format!("{func}(): argument 'alpha' must be Number, not {}", type_name(alpha)))
    })?;
    if !a.dtype().is_float() && matches!(value, Scalar::Float(_)) {
        return Err(PyRuntimeError::new_err(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    Ok(Some(value))
}

/// `alpha * b` (b itself when alpha is absent or 1); alpha is a weak scalar, so b keeps its dtype.
fn scaled(b: &Tensor, alpha: Option<Scalar>) -> ferrograd_core::Result<Tensor> {
    match alpha {
        None | Some(Scalar::Int(1)) => Ok(b.clone()),
        Some(Scalar::Float(1.0)) => Ok(b.clone()),
        Some(a) => b.mul(&Tensor::wrapped_scalar(a)),
    }
}

/// A unary op from core's `Unary` table.
fn unary(py: Python<'_>, a: Tensor, op: Unary) -> Out {
    wrap(py, call_heavy(py, a.numel(), || a.unary(op))?)
}

/// `clamp`'s bounds parsed once: number bounds (ClampBackward1) or tensor bounds (ClampBackward0);
/// `kind` picks the clamp_min/clamp_max names. Returns the op and whether a bound requires grad.
fn clamp_op(
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    kind: u8,
) -> PyResult<(impl Fn(&Tensor) -> ferrograd_core::Result<Tensor>, bool)> {
    let (min, max) = (min.filter(|m| !m.is_none()), max.filter(|m| !m.is_none()));
    let is_tensor = |o: &Option<&Bound<'_, PyAny>>| o.is_some_and(|o| o.cast::<PyTensor>().is_ok());
    enum Bounds {
        Tensors(Option<Tensor>, Option<Tensor>),
        Numbers(Option<Scalar>, Option<Scalar>),
    }
    let bounds = if is_tensor(&min) || is_tensor(&max) {
        let lo = min.map(|m| operand_arg(m, "clamp", "min")).transpose()?;
        let hi = max.map(|m| operand_arg(m, "clamp", "max")).transpose()?;
        Bounds::Tensors(lo, hi)
    } else {
        let number = |o: &Bound<'_, PyAny>, name: &str| {
            as_scalar(o).ok_or_else(|| {
                PyTypeError::new_err(format!("clamp(): argument '{name}' must be Number, not {}", type_name(o)))
            })
        };
        Bounds::Numbers(min.map(|m| number(m, "min")).transpose()?, max.map(|m| number(m, "max")).transpose()?)
    };
    let bounds_require_grad = match &bounds {
        Bounds::Tensors(lo, hi) => lo.iter().chain(hi.iter()).any(|t| t.requires_grad()),
        Bounds::Numbers(..) => false,
    };
    let op = move |a: &Tensor| match &bounds {
        Bounds::Tensors(lo, hi) => a.clamp_tensor(lo.as_ref(), hi.as_ref()),
        Bounds::Numbers(lo, hi) => a.clamp_scalar(*lo, *hi, kind),
    };
    Ok((op, bounds_require_grad))
}

fn clamp_impl(
    py: Python<'_>,
    a: Tensor,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    kind: u8,
) -> Out {
    let (op, _) = clamp_op(min, max, kind)?;
    wrap(py, call_heavy(py, a.numel(), || op(&a))?)
}

static RETURN_TYPES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// max/min in their three forms (see `PyTensor::max`).
fn extreme(
    py: Python<'_>,
    a: Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    is_max: bool,
) -> PyResult<Py<PyAny>> {
    let name = if is_max { "max" } else { "min" };
    let Some(dim) = dim.filter(|d| !d.is_none()) else {
        return Ok(wrap(py, call_heavy(py, a.numel(), || a.amax_amin(None, false, is_max, true))?)?.into_any());
    };
    if let Ok(other) = dim.cast::<PyTensor>() {
        let b = other.get().get();
        let op = if is_max { Binary::Maximum } else { Binary::Minimum };
        return Ok(wrap(py, call(|| a.binary(&b, op))?)?.into_any());
    }
    let d = crate::args::dim_arg(dim)?;
    let (values, indices) = call_heavy(py, a.numel(), || a.max_min_dim(d, keepdim, is_max))?;
    values_indices(py, name, values, indices)
}

/// `ferrograd.return_types.<name>(values, indices)`.
fn values_indices(py: Python<'_>, name: &str, values: Tensor, indices: Tensor) -> PyResult<Py<PyAny>> {
    let module = RETURN_TYPES
        .get_or_try_init(py, || -> PyResult<_> { Ok(py.import("ferrograd.return_types")?.into_any().unbind()) })?;
    let cls = module.bind(py).getattr(name)?;
    Ok(cls.call1((wrap(py, values)?, wrap(py, indices)?))?.unbind())
}

/// `norm`'s `p`: None and 'fro' are 2; numbers are any order.
fn norm_order(p: Option<&Bound<'_, PyAny>>) -> PyResult<ferrograd_core::norm::NormOrder> {
    use ferrograd_core::norm::NormOrder;
    let Some(p) = p.filter(|p| !p.is_none()) else { return Ok(NormOrder::Two) };
    if let Ok(s) = p.extract::<String>() {
        return match s.as_str() {
            "fro" => Ok(NormOrder::Two),
            "nuc" => Err(pyo3::exceptions::PyNotImplementedError::new_err(
                "norm(): the nuclear norm ('nuc') is not supported",
            )),
            _ => Err(PyRuntimeError::new_err(format!("linalg.matrix_norm: Order {s} not supported."))),
        };
    }
    if p.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err("norm(): argument 'p' must be Number or str, not bool"));
    }
    p.extract::<f64>()
        .map(NormOrder::from_p)
        .map_err(|_| PyTypeError::new_err(format!("norm(): argument 'p' must be Number or str, not {}", type_name(p))))
}

/// var/std: `correction` wins over `unbiased` (default: correction 1).
fn var_std(
    py: Python<'_>,
    a: Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
    std: bool,
) -> Out {
    let name = if std { "std" } else { "var" };
    // `x.var(False)`: a lone bool positional is `unbiased`
    let (dim, unbiased) = match dim {
        Some(d) if d.is_instance_of::<pyo3::types::PyBool>() && unbiased.is_none() => {
            (None, Some(d.extract::<bool>()?))
        }
        _ => (dim, unbiased),
    };
    let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, name)).transpose()?;
    let correction = correction.unwrap_or(if unbiased == Some(false) { 0.0 } else { 1.0 });
    wrap(py, call_heavy(py, a.numel(), || a.var_std(dims.as_deref(), correction, keepdim, std))?)
}

/// A method form (`x.add(y)`): a bad operand is a TypeError naming the argument.
fn method_op(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    name: &str,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor>,
) -> Out {
    let b = operand_arg(other, name, "other")?;
    wrap(py, call(|| f(a, &b))?)
}

/// Wraps a view op's result, remembering the base it reads (PyTorch's `._base`) so that in-place
/// writes through the view can update the base's history.
/// `.float()` and friends: the tensor itself when it already has `dtype`, as in PyTorch.
fn cast_to(slf: &Bound<'_, PyTensor>, dtype: DType) -> Out {
    let a = slf.get().get();
    if a.dtype() == dtype {
        return Ok(slf.clone().unbind());
    }
    wrap(slf.py(), call(|| a.to_dtype(dtype))?)
}

fn view_of(slf: &Bound<'_, PyTensor>, t: Tensor) -> Out {
    let py = slf.py();
    let src = slf.get();
    let base = if !t.same_storage(&src.get()) {
        None
    } else {
        Some(src.base.as_ref().map(|b| b.clone_ref(py)).unwrap_or_else(|| slf.clone().unbind()))
    };
    Py::new(py, PyTensor { inner: RwLock::new(t), base })
}

/// Runs an in-place op `self = f(self)`. Through a view of a tensor in a graph, the write goes via the
/// view's base (which takes a CopySlices history), as in PyTorch.
pub(crate) fn inplace_with(
    slf: &Bound<'_, PyTensor>,
    other_requires_grad: bool,
    f: impl FnOnce(&Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyTensor>> {
    let this = slf.get();
    let t = this.get();
    if let Some(base_obj) = &this.base {
        let base_obj = base_obj.bind(slf.py()).get();
        let base = base_obj.get();
        let recording = ferrograd_core::autograd::grad_mode::is_enabled()
            && (base.requires_grad() || t.requires_grad() || other_requires_grad);
        if recording {
            let (new_base, new_view) = call(|| Tensor::apply_inplace_via_base(&base, &t, f))?;
            base_obj.set(new_base);
            this.set(new_view);
            return Ok(slf.clone().unbind());
        }
    }
    this.set(call(|| t.apply_inplace(f))?);
    Ok(slf.clone().unbind())
}

fn inplace_binary(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    name: &str,
    op: DenseWrite,
) -> PyResult<Py<PyTensor>> {
    let b = operand_arg(other, name, "other")?;
    inplace_arith(slf, b, op)
}

/// An in-place op with a tensor operand: straight into the tensor's memory when core can (nothing
/// recorded, dense floats of one shape), else computed out of place and written back.
fn inplace_arith(slf: &Bound<'_, PyTensor>, b: Tensor, op: DenseWrite) -> PyResult<Py<PyTensor>> {
    if slf.get().get().dense_in_place(&b, op) {
        return Ok(slf.clone().unbind());
    }
    inplace_with(slf, b.requires_grad(), |old| op.result(old, &b))
}

fn inplace_unary(
    slf: &Bound<'_, PyTensor>,
    f: fn(&Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyTensor>> {
    inplace_with(slf, false, f)
}

/// `fill_` / `zero_`; through a view of a graph tensor the base records the write.
fn fill(slf: &Bound<'_, PyTensor>, value: Scalar, zero: bool) -> PyResult<Py<PyTensor>> {
    if slf.get().base.is_some() {
        return inplace_with(slf, false, |old| Ok(Tensor::full(old.shape(), value, old.dtype())));
    }
    let t = slf.get().get();
    slf.get().set(call(|| t.fill_inplace(value, zero))?);
    Ok(slf.clone().unbind())
}

/// `x += y`: PyO3 returns `x` itself afterwards.
fn inplace_dunder(slf: &Bound<'_, PyTensor>, other: &Bound<'_, PyAny>, op: DenseWrite) -> PyResult<()> {
    let Some(b) = operand(other) else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type for in-place op: 'Tensor' and '{}'",
            type_name(other)
        )));
    };
    inplace_arith(slf, b, op).map(|_| ())
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
                return Ok(PyTensor::new(tensor_from_data(&first, Some(DType::F32))?));
            }
        }
        let sizes = crate::args::size_list(args, "Tensor")?;
        Ok(PyTensor::new(Tensor::zeros(&sizes, DType::F32)))
    }

    // ---- printing and Python protocols ----

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
        let t = self.get();
        if t.numel() == 0 {
            return Err(PyRuntimeError::new_err("Boolean value of Tensor with no values is ambiguous"));
        }
        if t.numel() != 1 {
            return Err(PyRuntimeError::new_err("Boolean value of Tensor with more than one value is ambiguous"));
        }
        Ok(call(|| t.item())?.to_f64() != 0.0)
    }

    fn __float__(&self) -> PyResult<f64> {
        let t = self.get();
        Ok(call(|| t.item())?.to_f64())
    }

    fn __int__(&self) -> PyResult<i64> {
        let t = self.get();
        Ok(match call(|| t.item())? {
            Scalar::Float(f) => f.trunc() as i64,
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
        })
    }

    fn __index__(&self) -> PyResult<i64> {
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

    // ---- data ----

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.get().shape())
    }

    #[pyo3(signature = (dim=None))]
    fn size<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get();
        match dim {
            None => size_object(py, t.shape()),
            Some(d) => {
                let d = call(|| ferrograd_core::layout::wrap_dim(d, t.ndim()))?;
                Ok(t.shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    #[pyo3(signature = (dim=None))]
    fn stride<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get();
        match dim {
            None => Ok(PyTuple::new(py, t.strides())?.into_any()),
            Some(d) => {
                let d = call(|| ferrograd_core::layout::wrap_dim(d, t.ndim()))?;
                Ok(t.strides()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    fn storage_offset(&self) -> usize {
        self.get().storage_offset()
    }
    fn dim(&self) -> usize {
        self.get().ndim()
    }
    fn ndimension(&self) -> usize {
        self.get().ndim()
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.get().ndim()
    }
    fn numel(&self) -> usize {
        self.get().numel()
    }
    fn nelement(&self) -> usize {
        self.get().numel()
    }
    fn element_size(&self) -> usize {
        self.get().dtype().itemsize()
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
    fn is_contiguous(&self) -> bool {
        self.get().is_contiguous()
    }
    #[getter]
    fn _version(&self) -> u64 {
        self.get().version()
    }

    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tolist(py, &self.get())
    }

    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get();
        scalar_to_py(py, call(|| t.item())?)
    }

    #[pyo3(signature = (*, force=false))]
    fn numpy<'py>(&self, py: Python<'py>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        let t = self.get();
        if t.requires_grad() && !force {
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

    // ---- DLPack (dlpack.rs) ----

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
                return Err(pyo3::exceptions::PyBufferError::new_err(format!("Unsupported device type {device_type} for export (ferrograd tensors live on the CPU, device type 1)")));
            }
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        crate::dlpack::to_capsule(py, &self.get(), versioned, copy == Some(true))
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    // ---- autograd ----

    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.get().requires_grad()
    }

    #[setter]
    fn set_requires_grad(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let flag: bool = value
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("requires_grad must be a bool, not {}", type_name(value))))?;
        let t = self.get();
        self.set(call(|| t.with_requires_grad(flag))?);
        Ok(())
    }

    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::requires_grad_arg)] requires_grad: bool,
    ) -> PyResult<Py<PyTensor>> {
        let t = slf.get().get();
        slf.get().set(call(|| t.with_requires_grad(requires_grad))?);
        Ok(slf.clone().unbind())
    }

    #[getter]
    fn is_leaf(&self) -> bool {
        self.get().is_leaf()
    }

    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyNode>>> {
        self.get().grad_fn().map(|n| Py::new(py, PyNode { node: n.clone() })).transpose()
    }

    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        let t = self.get();
        if !t.is_leaf() && !t.retains_grad() {
            let warnings = py.import("warnings")?;
            let cat = py.import("builtins")?.getattr("UserWarning")?;
            warnings.call_method1(
                "warn",
                ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations.", cat, 2),
            )?;
        }
        t.grad().map(|g| wrap(py, g)).transpose()
    }

    #[setter]
    fn set_grad(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let t = self.get();
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => Some(tensor_arg(v, "grad", "value")?),
        };
        call(|| t.set_grad(g))
    }

    #[getter]
    fn get_data(&self, py: Python<'_>) -> Out {
        wrap(py, self.get().detach())
    }

    #[setter]
    fn set_data(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = tensor_arg(value, "data", "value")?;
        let t = self.get();
        self.set(call(|| t.with_data_of(&data))?);
        Ok(())
    }

    /// Deprecated name of `grad_fn` from the old Variable API.
    #[getter]
    fn creator(&self, py: Python<'_>) -> PyResult<Option<Py<PyNode>>> {
        let warnings = py.import("warnings")?;
        let cat = py.import("builtins")?.getattr("DeprecationWarning")?;
        warnings.call_method1("warn", (".creator is deprecated, use .grad_fn instead", cat, 2))?;
        self.grad_fn(py)
    }

    fn detach(&self, py: Python<'_>) -> Out {
        wrap(py, self.get().detach())
    }

    /// Detaches this tensor in place: it becomes a leaf that does not require grad.
    fn detach_(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        let t = slf.get().get();
        slf.get().set(t.detach());
        slf.clone().unbind()
    }

    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::autograd::RemovableHandle>> {
        let t = self.get();
        if !t.requires_grad() {
            return Err(PyRuntimeError::new_err("cannot register a hook on a tensor that doesn't require gradient"));
        }
        let id = call(|| t.register_hook(crate::autograd::tensor_hook(hook)))?;
        Py::new(py, crate::autograd::RemovableHandle::new(crate::autograd::HookTarget::Tensor(t), id))
    }

    fn retain_grad(&self) -> PyResult<()> {
        let t = self.get();
        self.set(call(|| t.retain_grad())?);
        Ok(())
    }

    fn is_inference(&self) -> bool {
        self.get().is_inference()
    }

    #[getter]
    fn retains_grad(&self) -> bool {
        self.get().retains_grad()
    }

    // ---- in place: the Python object keeps its identity and takes the result's history ----

    fn add_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "add_", DenseWrite::Add)
    }
    fn sub_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "sub_", DenseWrite::Sub)
    }
    fn mul_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "mul_", DenseWrite::Mul)
    }
    fn div_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "div_", DenseWrite::Div)
    }
    fn pow_(slf: &Bound<'_, Self>, exponent: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let b = operand_arg(exponent, "pow_", "other")?;
        inplace_with(slf, b.requires_grad(), |old| old.pow(&b))
    }
    fn neg_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_unary(slf, |a| a.neg())
    }
    fn exp_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_unary(slf, |a| a.exp())
    }
    fn log_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_unary(slf, |a| a.log())
    }
    fn zero_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        fill(slf, Scalar::Int(0), true)
    }
    fn fill_(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let v = crate::convert::as_scalar(value).ok_or_else(|| {
            PyTypeError::new_err(format!("fill_(): argument 'value' must be Number, not {}", type_name(value)))
        })?;
        fill(slf, v, false)
    }
    fn copy_(slf: &Bound<'_, Self>, src: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let s = tensor_arg(src, "copy_", "src")?;
        if slf.get().base.is_some() {
            return inplace_with(slf, s.requires_grad(), |old| s.to_dtype(old.dtype())?.expand(old.shape()));
        }
        let t = slf.get().get();
        slf.get().set(call(|| t.copy_inplace(&s))?);
        Ok(slf.clone().unbind())
    }
    fn __iadd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Add)
    }
    fn __isub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Sub)
    }
    fn __imul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Mul)
    }
    fn __itruediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Div)
    }

    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let root = self.get();
        let grad = match gradient {
            Some(g) if !g.is_none() => Some(tensor_arg(g, "backward", "gradient")?),
            _ => None,
        };
        let inputs = inputs.filter(|i| !i.is_none()).map(crate::autograd::backward_inputs).transpose()?;
        let retain = retain_graph.unwrap_or(create_graph);
        py.detach(|| {
            call(|| ferrograd_core::autograd::backward(&[root], &[grad], retain, create_graph, inputs.as_deref()))
        })
    }

    // ---- arithmetic ----

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.add(b))
    }
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.add(b))
    }
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.sub(b))
    }
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.sub(b))
    }
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.mul(b))
    }
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.mul(b))
    }
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.div(b))
    }
    /// `n / x` is `x.reciprocal() * n` in PyTorch (so its grad_fn is MulBackward0).
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |n, x| Tensor::scalar(1.0).div(x)?.mul(n))
    }
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(b) = other.cast::<PyTensor>() else { return not_implemented(py) };
        let (a, b) = (self.get(), b.get().get());
        Ok(wrap(py, call_heavy(py, a.numel() + b.numel(), || a.matmul(&b))?)?.into_any())
    }
    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(b) = other.cast::<PyTensor>() else { return not_implemented(py) };
        let (a, b) = (self.get(), b.get().get());
        Ok(wrap(py, call_heavy(py, a.numel() + b.numel(), || b.matmul(&a))?)?.into_any())
    }

    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(o) = operand(other) else { return not_implemented(py) };
        let a = self.get();
        Ok(wrap(py, call(|| a.pow(&o))?)?.into_any())
    }

    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(o) = operand(other) else { return not_implemented(py) };
        let a = self.get();
        Ok(wrap(py, call(|| o.pow(&a))?)?.into_any())
    }

    fn __neg__(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.neg())?)
    }

    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.clone().unbind()
    }

    /// `self + alpha * other`
    #[pyo3(signature = (other, *, alpha=None))]
    fn add(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> Out {
        let alpha = alpha_arg(&self.get(), alpha, "add")?;
        method_op(py, &self.get(), other, "add", |a, b| a.add(&scaled(b, alpha)?))
    }
    /// `self - alpha * other`
    #[pyo3(signature = (other, *, alpha=None))]
    fn sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> Out {
        let alpha = alpha_arg(&self.get(), alpha, "sub")?;
        method_op(py, &self.get(), other, "sub", |a, b| a.sub(&scaled(b, alpha)?))
    }
    fn mul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "mul", |a, b| a.mul(b))
    }
    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn div(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: Option<&str>) -> Out {
        match rounding_mode {
            None => method_op(py, &self.get(), other, "div", |a, b| a.div(b)),
            Some("floor") => method_op(py, &self.get(), other, "div", |a, b| a.binary(b, Binary::FloorDiv)),
            Some("trunc") => method_op(py, &self.get(), other, "div", |a, b| a.binary(b, Binary::TruncDiv)),
            Some(m) => Err(PyRuntimeError::new_err(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
            ))),
        }
    }
    fn floor_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "floor_divide", |a, b| a.binary(b, Binary::FloorDiv))
    }
    fn __floordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.binary(b, Binary::FloorDiv))
    }
    fn __rfloordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.binary(b, Binary::FloorDiv))
    }
    fn pow(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "pow", |a, b| a.pow(b))
    }

    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "eq", |a, b| a.compare(b, Compare::Eq))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Eq))
    }
    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "ne", |a, b| a.compare(b, Compare::Ne))
    }
    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ne))
    }
    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "lt", |a, b| a.compare(b, Compare::Lt))
    }
    fn __lt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Lt))
    }
    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "le", |a, b| a.compare(b, Compare::Le))
    }
    fn __le__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Le))
    }
    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "gt", |a, b| a.compare(b, Compare::Gt))
    }
    fn __gt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Gt))
    }
    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "ge", |a, b| a.compare(b, Compare::Ge))
    }
    fn __ge__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ge))
    }

    fn neg(&self, py: Python<'_>) -> Out {
        self.__neg__(py)
    }
    fn exp(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.exp())?)
    }
    fn log(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.log())?)
    }

    // ---- elementwise unary ops (table in core's ops/unary.rs) ----

    fn abs(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Abs)
    }
    fn sign(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Sign)
    }
    fn sqrt(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Sqrt)
    }
    fn rsqrt(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Rsqrt)
    }
    fn reciprocal(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Reciprocal)
    }
    fn exp2(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Exp2)
    }
    fn expm1(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Expm1)
    }
    fn log2(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Log2)
    }
    fn log10(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Log10)
    }
    fn log1p(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Log1p)
    }
    fn sin(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Sin)
    }
    fn cos(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Cos)
    }
    fn tan(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Tan)
    }
    fn asin(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Asin)
    }
    fn acos(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Acos)
    }
    fn atan(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Atan)
    }
    fn sinh(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Sinh)
    }
    fn cosh(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Cosh)
    }
    fn tanh(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Tanh)
    }
    fn sigmoid(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Sigmoid)
    }
    fn relu(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Relu)
    }
    fn erf(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Erf)
    }
    fn floor(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Floor)
    }
    fn ceil(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Ceil)
    }
    fn trunc(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Trunc)
    }
    fn frac(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Frac)
    }
    fn absolute(&self, py: Python<'_>) -> Out {
        unary(py, self.get(), Unary::Abs)
    }
    fn square(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.pow(&Tensor::wrapped_scalar(Scalar::Int(2))))?)
    }
    #[pyo3(signature = (*, decimals=0))]
    fn round(&self, py: Python<'_>, decimals: i32) -> Out {
        let op = if decimals == 0 { Unary::Round } else { Unary::RoundDecimals { decimals } };
        unary(py, self.get(), op)
    }
    #[pyo3(signature = (eps=None))]
    fn logit(&self, py: Python<'_>, eps: Option<f64>) -> Out {
        unary(py, self.get(), Unary::Logit { eps })
    }
    /// Activations that torch has only as functions (`fg.nn.functional`): `name` picks the op.
    #[pyo3(signature = (name, p0=0.0, p1=0.0))]
    fn _activation(&self, py: Python<'_>, name: &str, p0: f64, p1: f64) -> Out {
        let op = match name {
            "silu" => Unary::Silu,
            "gelu" => Unary::Gelu { tanh: false },
            "gelu_tanh" => Unary::Gelu { tanh: true },
            "softplus" => Unary::Softplus { beta: p0, threshold: p1 },
            "elu" => Unary::Elu { alpha: p0 },
            "leaky_relu" => Unary::LeakyRelu { slope: p0 },
            "hardtanh" => Unary::Hardtanh { min: p0, max: p1 },
            _ => return Err(PyValueError::new_err(format!("unknown activation {name}"))),
        };
        unary(py, self.get(), op)
    }

    // ---- elementwise binary ops, clamp, lerp, logic ----

    fn maximum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "maximum", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Maximum))?)
    }
    fn minimum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "minimum", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Minimum))?)
    }
    fn atan2(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "atan2", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Atan2))?)
    }
    fn arctan2(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        self.atan2(py, other)
    }
    fn fmod(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "fmod", |a, b| a.binary(b, Binary::Fmod))
    }
    fn remainder(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "remainder", |a, b| a.binary(b, Binary::Remainder))
    }
    fn __mod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.binary(b, Binary::Remainder))
    }
    fn __rmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.binary(b, Binary::Remainder))
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clamp(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> Out {
        clamp_impl(py, self.get(), min, max, 0)
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clip(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> Out {
        clamp_impl(py, self.get(), min, max, 0)
    }
    #[pyo3(signature = (min=None, max=None))]
    fn clamp_(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let (op, bounds_require_grad) = clamp_op(min, max, 0)?;
        inplace_with(slf, bounds_require_grad, op)
    }
    fn clamp_min(&self, py: Python<'_>, min: &Bound<'_, PyAny>) -> Out {
        clamp_impl(py, self.get(), Some(min), None, 1)
    }
    fn clamp_max(&self, py: Python<'_>, max: &Bound<'_, PyAny>) -> Out {
        clamp_impl(py, self.get(), None, Some(max), 2)
    }

    fn lerp(&self, py: Python<'_>, end: &Bound<'_, PyAny>, weight: &Bound<'_, PyAny>) -> Out {
        let e = tensor_arg(end, "lerp", "end")?;
        let w = operand_arg(weight, "lerp", "weight")?;
        wrap(py, call(|| self.get().lerp(&e, &w))?)
    }

    /// `x.where(condition, y)` is `where(condition, x, y)`.
    #[pyo3(name = "where")]
    fn where_method(&self, py: Python<'_>, condition: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> Out {
        let c = tensor_arg(condition, "where", "condition")?;
        let o = operand_arg(other, "where", "other")?;
        wrap(py, call(|| Tensor::where_(&c, &self.get(), &o))?)
    }

    fn logical_and(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_and", "other")?;
        wrap(py, call(|| self.get().logical_and(&b))?)
    }
    fn logical_or(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_or", "other")?;
        wrap(py, call(|| self.get().logical_or(&b))?)
    }
    fn logical_xor(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_xor", "other")?;
        wrap(py, call(|| self.get().logical_xor(&b))?)
    }
    fn logical_not(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().logical_not())?)
    }
    fn isnan(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(0))?)
    }
    fn isinf(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(1))?)
    }
    fn isfinite(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(2))?)
    }
    #[pyo3(signature = (other, rtol=1e-5, atol=1e-8, equal_nan=false))]
    fn allclose(&self, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> PyResult<bool> {
        let b = tensor_arg(other, "allclose", "other")?;
        call(|| self.get().allclose(&b, rtol, atol, equal_nan))
    }
    fn equal(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let b = tensor_arg(other, "equal", "other")?;
        call(|| self.get().equal(&b))
    }

    // ---- reductions ----

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn sum(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "sum")).transpose()?;
        let dtype = dtype_arg(dtype, "sum")?;
        let a = match dtype {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.sum(dims.as_deref(), keepdim))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn mean(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "mean")).transpose()?;
        let dtype = dtype_arg(dtype, "mean")?;
        let a = match dtype {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.mean(dims.as_deref(), keepdim))?)
    }

    #[pyo3(signature = (p=None, dim=None, keepdim=false, dtype=None))]
    fn norm(
        &self,
        py: Python<'_>,
        p: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let ord = norm_order(p)?;
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "norm")).transpose()?;
        let a = self.get();
        let a = match dtype_arg(dtype, "norm")? {
            Some(d) if !d.is_float() => {
                return Err(PyRuntimeError::new_err(format!(
                    "linalg.vector_norm: dtype should be floating point or complex, but got {}",
                    d.scalar_type_name()
                )));
            }
            Some(d) if a.dtype().is_float() => call(|| a.to_dtype(d))?,
            _ => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.vector_norm(ord, dims.as_deref(), keepdim))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn all(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "all")).transpose()?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.all_any(dims.as_deref(), keepdim, true))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn any(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "any")).transpose()?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.all_any(dims.as_deref(), keepdim, false))?)
    }

    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num(&self, py: Python<'_>, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.nan_to_num(nan, posinf, neginf))?)
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = match dtype_arg(dtype, "cumprod")? {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.cumprod(dim))?)
    }

    /// `(values, indices)` sorted along `dim`; NaN sorts as the largest value. Always stable.
    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    fn sort(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        descending: bool,
        stable: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = stable;
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.sort(dim, descending))?;
        values_indices(py, "sort", values, indices)
    }

    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    fn argsort(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        descending: bool,
        stable: bool,
    ) -> Out {
        let _ = stable;
        let a = self.get().detach();
        wrap(py, call_heavy(py, a.numel(), || a.sort(dim, descending))?.1)
    }

    /// The `k` largest (or smallest) along `dim`, always in sorted order.
    #[pyo3(signature = (k, dim=-1, largest=true, sorted=true))]
    fn topk(
        &self,
        py: Python<'_>,
        k: isize,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        largest: bool,
        sorted: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = sorted;
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.topk(k, dim, largest))?;
        values_indices(py, "topk", values, indices)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn prod(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = match dtype_arg(dtype, "prod")? {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.prod(dim, keepdim))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amax(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "amax")).transpose()?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.amax_amin(dims.as_deref(), keepdim, true, false))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn amin(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, "amin")).transpose()?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.amax_amin(dims.as_deref(), keepdim, false, false))?)
    }

    /// `max()`: the largest value; `max(dim, keepdim)`: (values, indices); `max(other)`: `maximum`.
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn max(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        extreme(py, self.get(), dim, keepdim, true)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn min(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        extreme(py, self.get(), dim, keepdim, false)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.argmax_argmin(dim, keepdim, true))?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmin(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.argmax_argmin(dim, keepdim, false))?)
    }

    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn var(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        correction: Option<f64>,
    ) -> Out {
        var_std(py, self.get(), dim, unbiased, keepdim, correction, false)
    }

    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn std(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        correction: Option<f64>,
    ) -> Out {
        var_std(py, self.get(), dim, unbiased, keepdim, correction, true)
    }

    #[pyo3(signature = (dim, keepdim=false))]
    fn logsumexp(
        &self,
        py: Python<'_>,
        dim: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dims_arg(dim, "logsumexp")?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.logsumexp(&dims, keepdim))?)
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = match dtype_arg(dtype, "cumsum")? {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.cumsum(dim, false))?)
    }

    // ---- nn ----

    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = match dtype_arg(dtype, "softmax")? {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.softmax(dim, false))?)
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = match dtype_arg(dtype, "log_softmax")? {
            Some(d) => call(|| a.to_dtype(d))?,
            None => a,
        };
        wrap(py, call_heavy(py, a.numel(), || a.softmax(dim, true))?)
    }

    /// `bias.addmm(mat1, mat2)` = bias + mat1 @ mat2.
    fn addmm(&self, py: Python<'_>, mat1: &Bound<'_, PyAny>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (tensor_arg(mat1, "addmm", "mat1")?, tensor_arg(mat2, "addmm", "mat2")?);
        let bias = self.get();
        wrap(py, call_heavy(py, a.numel() + b.numel(), || Tensor::addmm(&bias, &a, &b))?)
    }

    // ---- linear algebra ----

    fn matmul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "matmul", "other")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.matmul(&b))?)
    }
    fn mm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(mat2, "mm", "mat2")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.mm(&b))?)
    }
    fn bmm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(mat2, "bmm", "mat2")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.bmm(&b))?)
    }
    fn mv(&self, py: Python<'_>, vec: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(vec, "mv", "vec")?);
        wrap(py, call_heavy(py, a.numel(), || a.mv(&b))?)
    }
    fn outer(&self, py: Python<'_>, vec2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(vec2, "outer", "vec2")?);
        wrap(py, call_heavy(py, a.numel() * b.numel(), || a.outer(&b))?)
    }
    fn ger(&self, py: Python<'_>, vec2: &Bound<'_, PyAny>) -> Out {
        self.outer(py, vec2)
    }
    fn trace(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.trace())?)
    }
    /// beta·self + alpha·(batch1 @ batch2).
    #[pyo3(signature = (batch1, batch2, *, beta=1.0, alpha=1.0))]
    fn baddbmm(
        &self,
        py: Python<'_>,
        batch1: &Bound<'_, PyAny>,
        batch2: &Bound<'_, PyAny>,
        beta: f64,
        alpha: f64,
    ) -> Out {
        let (a, b) = (tensor_arg(batch1, "baddbmm", "batch1")?, tensor_arg(batch2, "baddbmm", "batch2")?);
        let input = self.get();
        wrap(py, call_heavy(py, a.numel() + b.numel(), || input.baddbmm(&a, &b, beta, alpha))?)
    }
    fn dot(&self, py: Python<'_>, tensor: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(tensor, "dot", "tensor")?);
        wrap(py, call(|| a.dot(&b))?)
    }

    // ---- shape and views ----

    #[pyo3(signature = (*shape))]
    fn reshape(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> Out {
        let shape = int_list(shape, "reshape", "shape")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.reshape_infer(&shape))?)
    }

    #[pyo3(signature = (*shape))]
    fn view(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> Out {
        if shape.len() == 1 {
            if let Ok(d) = shape.get_item(0)?.cast::<PyDType>() {
                let _ = d;
                return Err(PyValueError::new_err("view(dtype) is not supported yet"));
            }
        }
        let shape = int_list(shape, "view", "size")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.view(&shape))?)
    }

    fn view_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "view_as", "other")?;
        let shape: Vec<isize> = o.shape().iter().map(|&d| d as isize).collect();
        let a = slf.get().get();
        view_of(slf, call(|| a.view(&shape))?)
    }

    fn transpose(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim0_arg)] dim0: isize,
        #[pyo3(from_py_with = crate::args::dim1_arg)] dim1: isize,
    ) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(dim0, dim1))?)
    }

    fn t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.t())?)
    }

    #[getter(T)]
    fn big_t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        let perm: Vec<isize> = (0..a.ndim() as isize).rev().collect();
        view_of(slf, call(|| a.permute(&perm))?)
    }

    #[pyo3(signature = (*dims))]
    fn permute(slf: &Bound<'_, Self>, dims: &Bound<'_, PyTuple>) -> Out {
        let dims = int_list(dims, "permute", "dims")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.permute(&dims))?)
    }

    fn unsqueeze(slf: &Bound<'_, Self>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.unsqueeze(dim))?)
    }

    #[pyo3(signature = (dim=None))]
    fn squeeze(slf: &Bound<'_, Self>, dim: Option<&Bound<'_, PyAny>>) -> Out {
        let a = slf.get().get();
        match dim.filter(|d| !d.is_none()) {
            None => view_of(slf, call(|| a.squeeze())?),
            Some(d) => {
                let dims = dims_arg(d, "squeeze")?;
                let mut dims_sorted = dims.clone();
                for d in dims_sorted.iter_mut() {
                    *d = call(|| ferrograd_core::layout::wrap_dim(*d, a.ndim()))? as isize;
                }
                dims_sorted.sort_unstable();
                let mut out = a.clone();
                for &d in dims_sorted.iter().rev() {
                    out = call(|| out.squeeze_dim(d))?;
                }
                view_of(slf, out)
            }
        }
    }

    #[pyo3(signature = (*sizes))]
    fn expand(slf: &Bound<'_, Self>, sizes: &Bound<'_, PyTuple>) -> Out {
        let sizes = int_list(sizes, "expand", "size")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.expand_infer(&sizes))?)
    }

    /// `expand(size)` under NumPy's name.
    fn broadcast_to(slf: &Bound<'_, Self>, size: &Bound<'_, PyAny>) -> Out {
        let sizes = crate::args::int_list(&PyTuple::new(slf.py(), [size])?, "broadcast_to", "size")?;
        let t = call(|| slf.get().get().expand_infer(&sizes))?;
        view_of(slf, t)
    }

    /// Windows of `size` along `dimension`, `step` apart, as a new last dim: a view.
    fn unfold(slf: &Bound<'_, Self>, dimension: isize, size: isize, step: isize) -> Out {
        if size < 0 {
            return Err(PyRuntimeError::new_err(format!("size is {size} but must be >= 0")));
        }
        let t = call(|| slf.get().get().unfold(dimension, size as usize, step))?;
        view_of(slf, t)
    }

    fn expand_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "expand_as", "other")?;
        let a = slf.get().get();
        view_of(slf, call(|| a.expand(o.shape()))?)
    }

    fn contiguous(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.contiguous())?)
    }

    fn clone(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.clone_tensor())?)
    }

    // ---- dtype conversion ----

    /// `to(dtype)`, `to(other)`, `to('cpu')`, `to(device=, dtype=, copy=)`: self when nothing changes.
    #[pyo3(signature = (*args, **kwargs))]
    fn to(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> Out {
        let py = slf.py();
        let mut dtype = None;
        let mut copy = false;
        let is_device =
            |a: &Bound<'_, PyAny>| a.is_none() || a.extract::<String>().map(|s| s == "cpu").unwrap_or(false);
        for a in args.iter() {
            if a.cast::<PyDType>().is_ok() {
                dtype = dtype_arg(Some(&a), "to")?;
            } else if let Ok(t) = a.cast::<PyTensor>() {
                dtype = Some(t.get().get().dtype());
            } else if a.is_instance_of::<pyo3::types::PyBool>() {
                // positional non_blocking / copy, as in to(dtype, non_blocking, copy)
            } else if !is_device(&a) {
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
                    "device" if is_device(&value) => {}
                    "device" => {
                        return Err(PyRuntimeError::new_err(format!(
                            "Expected one of cpu device type at start of device string: {}",
                            value.str()?
                        )))
                    }
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

    fn float(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::F32)
    }
    fn double(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::F64)
    }
    fn half(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::F16)
    }
    fn bfloat16(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::BF16)
    }
    fn long(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::I64)
    }
    fn int(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::I32)
    }
    fn short(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::I16)
    }
    fn char(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::I8)
    }
    fn byte(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::U8)
    }
    fn bool(slf: &Bound<'_, Self>) -> Out {
        cast_to(slf, DType::Bool)
    }

    // ---- shape ops (ops/shape.rs, ops/index.rs) ----

    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    fn flatten(slf: &Bound<'_, Self>, start_dim: isize, end_dim: isize) -> PyResult<Py<PyTensor>> {
        let a = slf.get().get();
        if a.ndim() == 0 {
            return view_of(slf, call(|| a.reshape(&[1]))?);
        }
        let s = call(|| ferrograd_core::layout::wrap_dim(start_dim, a.ndim()))?;
        let e = call(|| ferrograd_core::layout::wrap_dim(end_dim, a.ndim()))?;
        if s > e {
            return Err(PyRuntimeError::new_err("flatten() has invalid args: start_dim cannot come after end_dim"));
        }
        if s == e {
            return Ok(slf.clone().unbind());
        }
        let sh = a.shape();
        let mut shape: Vec<usize> = sh[..s].to_vec();
        shape.push(sh[s..=e].iter().product());
        shape.extend_from_slice(&sh[e + 1..]);
        view_of(slf, call(|| a.reshape(&shape))?)
    }

    fn unflatten(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        sizes: &Bound<'_, PyAny>,
    ) -> Out {
        let a = slf.get().get();
        let d = call(|| ferrograd_core::layout::wrap_dim(dim, a.ndim()))?;
        let sizes = ints(sizes, "unflatten")?;
        if sizes.is_empty() {
            return Err(PyRuntimeError::new_err("unflatten: sizes must be non-empty"));
        }
        let n = a.shape()[d];
        let inferred = call(|| ferrograd_core::view::infer_shape(&sizes, n)).map_err(|_| {
            PyRuntimeError::new_err(format!("unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {dim} ({n}) in the input tensor"))
        })?;
        let mut shape: Vec<isize> = a.shape()[..d].iter().map(|&x| x as isize).collect();
        shape.extend(inferred.iter().map(|&x| x as isize));
        shape.extend(a.shape()[d + 1..].iter().map(|&x| x as isize));
        view_of(slf, call(|| a.view(&shape))?)
    }

    fn movedim(slf: &Bound<'_, Self>, source: &Bound<'_, PyAny>, destination: &Bound<'_, PyAny>) -> Out {
        let a = slf.get().get();
        let n = a.ndim();
        let src = ints(source, "movedim")?;
        let dst = ints(destination, "movedim")?;
        if src.len() != dst.len() {
            return Err(PyRuntimeError::new_err(format!(
                "movedim: Invalid source or destination dims: source ({src:?} dims) should contain the same number of dims as destination ({dst:?} dims)"
            )));
        }
        let wrap = |v: &[isize], what: &str| -> PyResult<Vec<usize>> {
            let w: Vec<usize> =
                v.iter().map(|&d| call(|| ferrograd_core::layout::wrap_dim(d, n))).collect::<PyResult<_>>()?;
            for (i, x) in w.iter().enumerate() {
                if w[..i].contains(x) {
                    return Err(PyRuntimeError::new_err(format!("movedim: repeated dim in `{what}` ({v:?})")));
                }
            }
            Ok(w)
        };
        let (src, dst) = (wrap(&src, "source")?, wrap(&dst, "destination")?);
        let mut perm = vec![usize::MAX; n];
        for (&s, &d) in src.iter().zip(&dst) {
            perm[d] = s;
        }
        let mut rest = (0..n).filter(|d| !src.contains(d));
        for p in perm.iter_mut() {
            if *p == usize::MAX {
                *p = rest.next().expect("dims left");
            }
        }
        let perm: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
        view_of(slf, call(|| a.permute(&perm))?)
    }

    fn moveaxis(slf: &Bound<'_, Self>, source: &Bound<'_, PyAny>, destination: &Bound<'_, PyAny>) -> Out {
        Self::movedim(slf, source, destination)
    }

    fn swapaxes(slf: &Bound<'_, Self>, axis0: isize, axis1: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(axis0, axis1))?)
    }

    fn swapdims(slf: &Bound<'_, Self>, dim0: isize, dim1: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.transpose(dim0, dim1))?)
    }

    #[getter(mT)]
    fn m_t(slf: &Bound<'_, Self>) -> Out {
        let a = slf.get().get();
        if a.ndim() < 2 {
            return Err(PyRuntimeError::new_err(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                a.ndim()
            )));
        }
        view_of(slf, call(|| a.transpose(-2, -1))?)
    }

    fn narrow(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        start: &Bound<'_, PyAny>,
        length: isize,
    ) -> Out {
        let a = slf.get().get();
        if a.ndim() == 0 {
            return Err(PyRuntimeError::new_err("narrow() cannot be applied to a 0-dim tensor."));
        }
        let start: isize = match start.cast::<PyTensor>() {
            Ok(t) => call(|| t.get().get().item())?.to_f64() as isize,
            Err(_) => start.extract()?,
        };
        let d = call(|| ferrograd_core::layout::wrap_dim(dim, a.ndim()))?;
        let n = a.shape()[d] as isize;
        if start < -n || start > n {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "start out of range (expected to be in range of [{}, {n}], but got {start})",
                -n
            )));
        }
        let s = if start < 0 { start + n } else { start };
        if length < 0 {
            return Err(PyRuntimeError::new_err("narrow(): length must be non-negative."));
        }
        if s + length > n {
            return Err(PyRuntimeError::new_err(format!(
                "start ({s}) + length ({length}) exceeds dimension size ({n})."
            )));
        }
        view_of(slf, call(|| a.slice(d, s as usize, (s + length) as usize, 1))?)
    }

    #[pyo3(signature = (*dims))]
    fn flip(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> Out {
        let dims = int_list(dims, "flip", "dims")?;
        let a = self.get();
        wrap(py, call(|| a.flip(&dims))?)
    }

    fn fliplr(&self, py: Python<'_>) -> Out {
        let a = self.get();
        if a.ndim() < 2 {
            return Err(PyRuntimeError::new_err("Input must be >= 2-d."));
        }
        wrap(py, call(|| a.flip(&[1]))?)
    }

    fn flipud(&self, py: Python<'_>) -> Out {
        let a = self.get();
        if a.ndim() < 1 {
            return Err(PyRuntimeError::new_err("Input must be >= 1-d."));
        }
        wrap(py, call(|| a.flip(&[0]))?)
    }

    #[pyo3(signature = (shifts, dims=None))]
    fn roll(&self, py: Python<'_>, shifts: &Bound<'_, PyAny>, dims: Option<&Bound<'_, PyAny>>) -> Out {
        let shifts = ints(shifts, "roll")?;
        let dims = match dims.filter(|d| !d.is_none()) {
            Some(d) => ints(d, "roll")?,
            None => vec![],
        };
        let a = self.get();
        wrap(py, call(|| a.roll(&shifts, &dims))?)
    }

    #[pyo3(signature = (*sizes))]
    fn repeat(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> Out {
        let sizes = int_list(sizes, "repeat", "repeats")?;
        let a = self.get();
        wrap(py, call(|| a.repeat(&sizes))?)
    }

    #[pyo3(signature = (*dims))]
    fn tile(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> Out {
        let mut dims = int_list(dims, "tile", "dims")?;
        let a = self.get();
        while dims.len() < a.ndim() {
            dims.insert(0, 1);
        }
        wrap(py, call(|| a.repeat(&dims))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn tril(&self, py: Python<'_>, diagonal: isize) -> Out {
        let a = self.get();
        wrap(py, call(|| a.tri(diagonal, false))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn triu(&self, py: Python<'_>, diagonal: isize) -> Out {
        let a = self.get();
        wrap(py, call(|| a.tri(diagonal, true))?)
    }

    #[pyo3(signature = (offset=0, dim1=0, dim2=1))]
    fn diagonal(slf: &Bound<'_, Self>, offset: isize, dim1: isize, dim2: isize) -> Out {
        let a = slf.get().get();
        view_of(slf, call(|| a.diagonal(offset, dim1, dim2))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn diag(&self, py: Python<'_>, diagonal: isize) -> Out {
        let a = self.get();
        match a.ndim() {
            1 => wrap(py, call(|| a.diag_embed_1d(diagonal))?),
            2 => wrap(py, call(|| a.diagonal_copy(diagonal))?),
            n => Err(PyRuntimeError::new_err(format!("diag(): Supports 1D or 2D tensors. Got {n}D"))),
        }
    }

    #[pyo3(signature = (split_size_or_sections, dim=0))]
    fn split(
        slf: &Bound<'_, Self>,
        split_size_or_sections: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
    ) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        let s = split_size_or_sections;
        if s.is_instance_of::<PyTuple>() || s.is_instance_of::<pyo3::types::PyList>() {
            let sizes = ints(s, "split")?;
            let d = call(|| ferrograd_core::layout::wrap_dim(dim, a.ndim()))?;
            if sizes.iter().any(|&x| x < 0) {
                return Err(PyRuntimeError::new_err(format!("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes:?}")));
            }
            let sizes: Vec<usize> = sizes.iter().map(|&x| x as usize).collect();
            if sizes.iter().sum::<usize>() != a.shape().get(d).copied().unwrap_or(0) {
                return Err(PyRuntimeError::new_err(format!(
                    "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {d}), but got split_sizes={sizes:?}",
                    a.shape().get(d).copied().unwrap_or(0)
                )));
            }
            return views_of(slf, call(|| a.split_views(&sizes, d, ferrograd_core::shape::SplitKind::SplitWithSizes))?);
        }
        let size: isize = s.extract()?;
        views_of(slf, call(|| a.split_size(size, dim))?)
    }

    #[pyo3(signature = (chunks, dim=0))]
    fn chunk(
        slf: &Bound<'_, Self>,
        chunks: isize,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
    ) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        if a.ndim() == 0 {
            return Err(PyRuntimeError::new_err("chunk expects at least a 1-dimensional tensor"));
        }
        if chunks <= 0 {
            return Err(PyRuntimeError::new_err(format!("chunk expects `chunks` to be greater than 0, got: {chunks}")));
        }
        let d = call(|| ferrograd_core::layout::wrap_dim(dim, a.ndim()))?;
        let n = a.shape()[d] as isize;
        let size = (n + chunks - 1) / chunks;
        views_of(slf, call(|| a.split_size(size.max(if n == 0 { 0 } else { 1 }), dim))?)
    }

    #[pyo3(signature = (dim=0))]
    fn unbind(slf: &Bound<'_, Self>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> PyResult<Py<PyTuple>> {
        let a = slf.get().get();
        views_of(slf, call(|| a.unbind(dim))?)
    }

    // ---- indexing ops ----

    fn index_select(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
    ) -> Out {
        let (a, i) = (self.get(), index_tensor(index, "index_select", "index")?);
        wrap(py, call(|| a.index_select(dim, &i))?)
    }

    fn gather(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
    ) -> Out {
        let (a, i) = (self.get(), index_tensor(index, "gather", "index")?);
        wrap(py, call(|| a.gather(dim, &i))?)
    }

    #[pyo3(signature = (indices, dim=None))]
    fn take_along_dim(&self, py: Python<'_>, indices: &Bound<'_, PyAny>, dim: Option<isize>) -> Out {
        let (a, i) = (self.get(), index_tensor(indices, "take_along_dim", "indices")?);
        let out = call(|| match dim {
            None => a.reshape(&[a.numel()])?.gather(0, &i.reshape(&[i.numel()])?),
            Some(dim) => {
                let d = ferrograd_core::layout::wrap_dim(dim, a.ndim())?;
                if a.ndim() != i.ndim() {
                    return Err(ferrograd_core::Error::Runtime(format!("torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices", a.ndim(), i.ndim())));
                }
                let (mut sa, mut si) = (a.shape().to_vec(), i.shape().to_vec());
                sa[d] = 1;
                si[d] = 1;
                let b = ferrograd_core::layout::broadcast_shapes(&sa, &si)?;
                let (mut ta, mut ti) = (b.clone(), b);
                ta[d] = a.shape()[d];
                ti[d] = i.shape()[d];
                let ae = if a.shape() == ta.as_slice() { a.clone() } else { a.expand(&ta)? };
                let ie = if i.shape() == ti.as_slice() { i.clone() } else { i.expand(&ti)? };
                ae.gather(d as isize, &ie)
            }
        })?;
        wrap(py, out)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> Out {
        let out = scatter_impl(&self.get(), dim, index, src, value, reduce)?;
        wrap(py, out)
    }

    fn scatter_add(&self, py: Python<'_>, dim: isize, index: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> Out {
        let (a, i, s) =
            (self.get(), index_tensor(index, "scatter_add", "index")?, tensor_arg(src, "scatter_add", "src")?);
        wrap(py, call(|| a.scatter(dim, &i, &s, true, false))?)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=1.0))]
    fn index_add(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        alpha: f64,
    ) -> Out {
        let (a, i, s) =
            (self.get(), index_tensor(index, "index_add", "index")?, tensor_arg(source, "index_add", "source")?);
        wrap(py, call(|| a.index_add(dim, &i, &s, alpha))?)
    }

    fn masked_fill(&self, py: Python<'_>, mask: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> Out {
        let (a, m, v) =
            (self.get(), tensor_arg(mask, "masked_fill", "mask")?, operand_arg(value, "masked_fill", "value")?);
        wrap(py, call(|| a.masked_fill(&m, &v))?)
    }

    fn masked_select(&self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> Out {
        let (a, m) = (self.get(), tensor_arg(mask, "masked_select", "mask")?);
        wrap(py, call(|| a.masked_select(&m))?)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<Py<PyTensor>> {
        let s = src.and_then(|s| s.cast::<PyTensor>().ok()).map(|s| s.get().get().requires_grad()).unwrap_or(false);
        let (index, src, value) = (index.clone(), src.cloned(), value.cloned());
        crate::py_tensor::inplace_with(slf, s, |old| {
            scatter_impl(old, dim, &index, src.as_ref(), value.as_ref(), reduce).map_err(crate::errors::from_py)
        })
    }

    fn scatter_add_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let (i, s) = (index_tensor(index, "scatter_add_", "index")?, tensor_arg(src, "scatter_add_", "src")?);
        inplace_with(slf, s.requires_grad(), |old| old.scatter(dim, &i, &s, true, false))
    }

    #[pyo3(signature = (dim, index, source, *, alpha=1.0))]
    fn index_add_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        alpha: f64,
    ) -> PyResult<Py<PyTensor>> {
        let (i, s) = (index_tensor(index, "index_add_", "index")?, tensor_arg(source, "index_add_", "source")?);
        inplace_with(slf, s.requires_grad(), |old| old.index_add(dim, &i, &s, alpha))
    }

    fn masked_fill_(
        slf: &Bound<'_, Self>,
        mask: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let (m, v) = (tensor_arg(mask, "masked_fill_", "mask")?, operand_arg(value, "masked_fill_", "value")?);
        inplace_with(slf, v.requires_grad(), |old| old.masked_fill(&m, &v))
    }

    // ---- random fills, in place ----

    /// Draws 0/1 with probability `p` (or each element's value when `p` is None).
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli(&self, py: Python<'_>, p: Option<f64>, generator: Option<&Bound<'_, PyAny>>) -> Out {
        let gen = crate::generator::generator_arg(generator, "bernoulli")?;
        let a = self.get();
        let Some(p) = p else { return wrap(py, call(|| ferrograd_core::random::bernoulli(&gen, &a))?) };
        // samples in this tensor's dtype (as torch: an int tensor gets int 0/1)
        wrap(py, call(|| ferrograd_core::random::bernoulli_scalar(&gen, a.shape(), a.dtype(), p, 1.0))?)
    }

    #[pyo3(signature = (num_samples, replacement=false, *, generator=None))]
    fn multinomial(
        slf: &Bound<'_, Self>,
        num_samples: i64,
        replacement: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        crate::_multinomial(slf.py(), slf.as_any(), num_samples, replacement, generator)
    }

    #[pyo3(signature = (from_=0.0, to=1.0, *, generator=None))]
    fn uniform_(
        slf: &Bound<'_, Self>,
        from_: f64,
        to: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "uniform_")?;
        if from_ > to {
            return Err(PyRuntimeError::new_err(format!(
                "uniform_ expects to return a [from, to) range, but found from={from_} > to={to}"
            )));
        }
        inplace_with(slf, false, |old| {
            ferrograd_core::random::rand(&gen, old.shape(), old.dtype())?
                .mul(&Tensor::scalar(to - from_))?
                .add(&Tensor::scalar(from_))
        })
    }

    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    fn normal_(
        slf: &Bound<'_, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "normal_")?;
        if std < 0.0 {
            return Err(PyRuntimeError::new_err(format!("normal expects std >= 0.0, but found std {std}")));
        }
        inplace_with(slf, false, |old| {
            ferrograd_core::random::randn(&gen, old.shape(), old.dtype())?
                .mul(&Tensor::scalar(std))?
                .add(&Tensor::scalar(mean))
        })
    }

    fn type_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> Out {
        let o = tensor_arg(other, "type_as", "other")?;
        cast_to(slf, o.dtype())
    }

    #[pyo3(signature = (*, as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let nz = call(|| a.nonzero())?;
        if !as_tuple {
            return Ok(wrap(py, nz)?.into_any());
        }
        let cols: Vec<Py<PyTensor>> = if a.ndim() == 0 {
            vec![wrap(py, call(|| nz.reshape(&[nz.shape()[0]]))?)?]
        } else {
            (0..a.ndim())
                .map(|d| wrap(py, call(|| nz.select(1, d as isize)?.contiguous_copy())?))
                .collect::<PyResult<_>>()?
        };
        Ok(PyTuple::new(py, cols)?.into_any().unbind())
    }
}

/// Wraps each output of a multi-output view op (split, chunk, unbind) as a view of `slf`.
fn views_of(slf: &Bound<'_, PyTensor>, ts: Vec<Tensor>) -> PyResult<Py<PyTuple>> {
    let py = slf.py();
    let objs: Vec<Py<PyTensor>> = ts.into_iter().map(|t| view_of(slf, t)).collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, objs)?.unbind())
}

/// One int or a sequence of ints (`dims=`, `shifts=`, `source=`).
fn ints(obj: &Bound<'_, PyAny>, func: &str) -> PyResult<Vec<isize>> {
    dims_arg(obj, func)
}

fn index_tensor(obj: &Bound<'_, PyAny>, func: &str, arg: &str) -> PyResult<Tensor> {
    tensor_arg(obj, func, arg)
}

fn scatter_impl(
    a: &Tensor,
    dim: isize,
    index: &Bound<'_, PyAny>,
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
    reduce: Option<&str>,
) -> PyResult<Tensor> {
    if reduce.is_some() {
        return Err(PyValueError::new_err(
            "scatter(): reduce= is not supported yet; use scatter_add or scatter_reduce",
        ));
    }
    let i = index_tensor(index, "scatter", "index")?;
    let src =
        src.or(value).ok_or_else(|| PyTypeError::new_err("scatter() missing required argument 'src' or 'value'"))?;
    if let Ok(t) = src.cast::<PyTensor>() {
        let s = t.get().get();
        return call(|| a.scatter(dim, &i, &s, false, false));
    }
    let v = operand_arg(src, "scatter", "value")?;
    call(|| a.scatter(dim, &i, &v, false, true))
}
