//! ferrograd's Python module `ferrograd._core`: argument conversion and error mapping around the core.
mod alloc;
mod args;
mod autocast;

#[global_allocator]
static ALLOCATOR: alloc::SplitAllocator = alloc::SplitAllocator;

mod autograd;
mod chain;
mod compile;
mod convert;
mod dlpack;
mod dtype;
mod errors;
mod generator;
mod grid_sample;
mod hooks;
mod indexing;
mod linalg;
mod nn;
mod node;
mod optim;
mod profiler;
mod rnn;
mod tensor;
mod threads;
/// The name other binding files use for the `Tensor` class's module.
use tensor as py_tensor;
mod serialize;
mod sparse;
mod torch_format;

use args::{dtype_arg, size_list, type_name};
use convert::{as_scalar, from_numpy_shared, tensor_from_data};
use dtype::PyDType;
use errors::call;
use ferrograd_core::autograd::grad_mode;
use ferrograd_core::{random, Scalar, Tensor};
use generator::generator_arg;
use numpy::PyUntypedArray;
use py_tensor::{wrap, PyTensor};
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Out = PyResult<Py<PyTensor>>;

/// Applies `requires_grad=` of a creation function.
fn finish(py: Python<'_>, t: Tensor, requires_grad: bool) -> Out {
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
    args::device_arg(device)?;
    let dtype = dtype_arg(dtype, "tensor")?;
    finish(py, tensor_from_data(data, dtype)?, requires_grad)
}

fn filled(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    func: &str,
    value: Scalar,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> Out {
    let shape = size_list(size, func)?;
    let dtype = dtype_arg(dtype, func)?.unwrap_or(ferrograd_core::dtype::default_float());
    finish(py, errors::call_as(func, || Tensor::try_full(&shape, value, dtype))?, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false))]
fn ones(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
    filled(py, size, "ones", Scalar::Int(1), dtype, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false))]
fn zeros(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
    filled(py, size, "zeros", Scalar::Int(0), dtype, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (size, fill_value, *, dtype=None, device=None, requires_grad=false))]
fn full(
    py: Python<'_>,
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
    let value = as_scalar(fill_value).ok_or_else(|| {
        PyTypeError::new_err(format!("full(): argument 'fill_value' must be Number, not {}", type_name(fill_value)))
    })?;
    let shape = size_list(&PyTuple::new(py, [size])?, "full")?;
    let dtype = dtype_arg(dtype, "full")?.unwrap_or(value.dtype());
    finish(py, call(|| Tensor::try_full(&shape, value, dtype))?, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, dtype=None, device=None, requires_grad=false))]
fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
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
    let dtype = dtype_arg(dtype, "arange")?;
    finish(py, call(|| Tensor::arange(start, end, step, dtype))?, requires_grad)
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
#[pyo3(signature = (*size, generator=None, dtype=None, device=None, requires_grad=false))]
fn rand(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
    let gen = generator_arg(generator, "rand")?;
    let shape = size_list(size, "rand")?;
    let dtype = dtype_arg(dtype, "rand")?.unwrap_or(ferrograd_core::dtype::default_float());
    finish(py, call(|| random::rand(&gen, &shape, dtype))?, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (*size, generator=None, dtype=None, device=None, requires_grad=false))]
fn randn(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
) -> Out {
    args::device_arg(device)?;
    let gen = generator_arg(generator, "randn")?;
    let shape = size_list(size, "randn")?;
    let dtype = dtype_arg(dtype, "randn")?.unwrap_or(ferrograd_core::dtype::default_float());
    finish(py, call(|| random::randn(&gen, &shape, dtype))?, requires_grad)
}

/// Seeds the default generator and returns it (`ferrograd.manual_seed` converts with `int()` first).
#[pyfunction]
fn manual_seed(seed: &Bound<'_, PyAny>) -> PyResult<generator::PyGenerator> {
    let seed = generator::seed_arg(seed)?;
    random::manual_seed(seed);
    Ok(generator::PyGenerator::default_handle())
}

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

#[pyfunction]
fn is_grad_enabled() -> bool {
    grad_mode::is_enabled()
}

/// Sets grad mode for this thread and returns the previous mode (the context managers live in Python).
#[pyfunction]
fn _set_grad_enabled(mode: bool) -> bool {
    grad_mode::set_enabled(mode)
}

/// Sets inference mode for this thread (grad mode is handled by the caller) and returns the previous one.
#[pyfunction]
fn _set_inference_mode(mode: bool) -> bool {
    grad_mode::set_inference(mode)
}

#[pyfunction]
fn is_inference_mode_enabled() -> bool {
    grad_mode::is_inference()
}

#[pyfunction]
#[pyo3(signature = (mode, check_nan=true))]
fn _set_anomaly_enabled(mode: bool, check_nan: bool) {
    grad_mode::set_anomaly_enabled(mode, check_nan);
}

#[pyfunction]
fn is_anomaly_enabled() -> bool {
    grad_mode::is_anomaly_enabled()
}

#[pyfunction]
fn is_anomaly_check_nan_enabled() -> bool {
    grad_mode::is_anomaly_check_nan_enabled()
}

/// The Python stack where a node is created, for anomaly mode's error messages.
fn python_stack() -> Option<String> {
    Python::attach(|py| {
        let lines = py.import("traceback").ok()?.call_method0("format_stack").ok()?;
        let lines: Vec<String> = lines.extract().ok()?;
        Some(lines.concat())
    })
}

/// Every `grad_fn` name the core's backward rules can produce (for the README's op list).
#[pyfunction]
fn _grad_fn_names() -> Vec<&'static str> {
    ferrograd_core::autograd::grad_fn_names()
}

/// Returns the large buffers waiting for reuse to the system.
#[pyfunction]
fn _empty_pool() {
    ferrograd_core::pool::clear();
}

#[pyfunction]
fn promote_types(type1: &Bound<'_, PyAny>, type2: &Bound<'_, PyAny>) -> PyResult<PyDType> {
    let a = dtype_arg(Some(type1), "promote_types")?.ok_or_else(|| PyTypeError::new_err("type1 must be a dtype"))?;
    let b = dtype_arg(Some(type2), "promote_types")?.ok_or_else(|| PyTypeError::new_err("type2 must be a dtype"))?;
    Ok(PyDType { dtype: ferrograd_core::promote_types(a, b) })
}

/// `torch.get_default_dtype()`.
#[pyfunction]
fn get_default_dtype() -> PyDType {
    PyDType { dtype: ferrograd_core::dtype::default_float() }
}

/// `torch.set_default_dtype(d)`: the dtype of floats made without one (factories, Python floats).
#[pyfunction]
fn set_default_dtype(d: &Bound<'_, PyAny>) -> PyResult<()> {
    let dtype = dtype_arg(Some(d), "set_default_dtype")?
        .ok_or_else(|| PyTypeError::new_err("set_default_dtype(): argument 'd' must be torch.dtype, not NoneType"))?;
    call(|| ferrograd_core::dtype::set_default_float(dtype))
}

/// `where(condition, input, other)`; input and other may be numbers.
#[pyfunction(name = "where")]
fn where_fn(py: Python<'_>, condition: &Bound<'_, PyAny>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> Out {
    let c = args::tensor_arg(condition, "where", "condition")?;
    let a = args::operand_arg(input, "where", "input")?;
    let b = args::operand_arg(other, "where", "other")?;
    wrap(py, call(|| Tensor::where_(&c, &a, &b))?)
}

fn reduction_arg(reduction: &str) -> PyResult<ferrograd_core::nn::Reduction> {
    use ferrograd_core::nn::Reduction;
    match reduction {
        "mean" => Ok(Reduction::Mean),
        "sum" => Ok(Reduction::Sum),
        "none" => Ok(Reduction::None),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!("{reduction} is not a valid value for reduction"))),
    }
}

/// The kernel of `nn.functional.nll_loss` (argument handling lives in Python).
#[pyfunction]
fn _nll_loss(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    weight: Option<&Bound<'_, PyAny>>,
    ignore_index: i64,
    reduction: &str,
) -> Out {
    let x = args::tensor_arg(input, "nll_loss", "input")?;
    let t = args::tensor_arg(target, "nll_loss", "target")?;
    let w = weight.filter(|w| !w.is_none()).map(|w| args::tensor_arg(w, "nll_loss", "weight")).transpose()?;
    let r = reduction_arg(reduction)?;
    wrap(py, call(|| x.nll_loss(&t, w.as_ref(), ignore_index, r))?)
}

#[pyfunction]
fn _mse_loss(py: Python<'_>, input: &Bound<'_, PyAny>, target: &Bound<'_, PyAny>, reduction: &str) -> Out {
    let x = args::tensor_arg(input, "mse_loss", "input")?;
    let t = args::tensor_arg(target, "mse_loss", "target")?;
    let r = reduction_arg(reduction)?;
    wrap(py, call(|| x.mse_loss(&t, r))?)
}

#[pyfunction]
#[pyo3(signature = (input, weight, bias=None))]
fn _linear(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Option<&Bound<'_, PyAny>>,
) -> Out {
    let x = args::tensor_arg(input, "linear", "input")?;
    let w = args::tensor_arg(weight, "linear", "weight")?;
    let b = bias.filter(|b| !b.is_none()).map(|b| args::tensor_arg(b, "linear", "bias")).transpose()?;
    wrap(py, errors::call_heavy(py, x.numel() + w.numel(), || Tensor::linear(&x, &w, b.as_ref()))?)
}

/// A sequence of tensors (`cat`, `stack`), with PyTorch's TypeError.
fn tensor_seq(tensors: &Bound<'_, PyAny>, func: &str) -> PyResult<Vec<Tensor>> {
    if tensors.cast::<PyTensor>().is_ok()
        || !(tensors.is_instance_of::<PyTuple>() || tensors.is_instance_of::<pyo3::types::PyList>())
    {
        return Err(PyTypeError::new_err(format!(
            "{func}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            type_name(tensors)
        )));
    }
    tensors
        .try_iter()?
        .enumerate()
        .map(|(i, t)| {
            let t = t?;
            t.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{func}(): argument 'tensors' (position 1) must be tuple of Tensors, not {} (element {i})",
                    type_name(&t)
                ))
            })
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn cat(py: Python<'_>, tensors: &Bound<'_, PyAny>, #[pyo3(from_py_with = args::dim_arg)] dim: isize) -> Out {
    let ts = tensor_seq(tensors, "cat")?;
    wrap(py, call(|| Tensor::cat(&ts, dim))?)
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn stack(py: Python<'_>, tensors: &Bound<'_, PyAny>, #[pyo3(from_py_with = args::dim_arg)] dim: isize) -> Out {
    let ts = tensor_seq(tensors, "stack")?;
    wrap(py, call(|| Tensor::stack(&ts, dim))?)
}

/// `einsum(equation, *operands)`, or with the operands in one list or tuple.
#[pyfunction]
#[pyo3(signature = (equation, *operands))]
fn einsum(py: Python<'_>, equation: &Bound<'_, PyAny>, operands: &Bound<'_, PyTuple>) -> Out {
    let eq: String = equation.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "einsum(): argument 'equation' (position 1) must be str, not {}",
            type_name(equation)
        ))
    })?;
    if operands.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "einsum(): must specify the equation string and at least \
            one operand, or at least one operand and its subscripts list",
        ));
    }
    let ts = match operands.len() {
        1 if operands.get_item(0)?.cast::<PyTensor>().is_err() => tensor_seq(&operands.get_item(0)?, "einsum")?,
        _ => tensor_seq(operands.as_any(), "einsum")?,
    };
    let work: usize = ts.iter().map(|t| t.numel()).sum();
    wrap(py, errors::call_heavy(py, work, || ferrograd_core::einsum::einsum(&eq, &ts))?)
}

#[pyfunction]
#[pyo3(signature = (low, high, size, generator=None))]
fn _randint(
    py: Python<'_>,
    low: i64,
    high: i128,
    size: &Bound<'_, PyTuple>,
    generator: Option<&Bound<'_, PyAny>>,
) -> Out {
    let gen = generator_arg(generator, "randint")?;
    let shape = size_list(size, "randint")?;
    // high may be 2^63, one past i64::MAX: int64's `random_()` range, which the samplers' seeds use
    if high == 1i128 << 63 && low >= 0 {
        let span = (1u64 << 63) - low as u64;
        return wrap(py, call(|| random::randint_span(&gen, low, span, &shape))?);
    }
    let high = i64::try_from(high).map_err(|_| PyOverflowError::new_err("Overflow when unpacking long"))?;
    wrap(py, call(|| random::randint(&gen, low, high, &shape))?)
}

#[pyfunction]
#[pyo3(signature = (n, generator=None))]
fn _randperm(py: Python<'_>, n: i64, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "randperm")?;
    if n < 0 {
        return Err(PyRuntimeError::new_err(format!("n must be non-negative, got{n}")));
    }
    wrap(py, call(|| random::randperm(&gen, n as usize))?)
}

#[pyfunction]
#[pyo3(signature = (probs, num_samples, replacement, generator=None))]
pub(crate) fn _multinomial(
    py: Python<'_>,
    probs: &Bound<'_, PyAny>,
    num_samples: i64,
    replacement: bool,
    generator: Option<&Bound<'_, PyAny>>,
) -> Out {
    let gen = generator_arg(generator, "multinomial")?;
    let p = args::tensor_arg(probs, "multinomial", "input")?;
    if num_samples <= 0 {
        return Err(PyRuntimeError::new_err("cannot sample n_sample <= 0 samples"));
    }
    wrap(py, call(|| random::multinomial(&gen, &p, num_samples as usize, replacement))?)
}

/// Dropout's mask for `input`: 1 / (1 - p) with probability 1 - p, else 0, in `input`'s shape and dtype
/// (one pass; `dropout` multiplies by it).
#[pyfunction]
#[pyo3(signature = (input, p, generator=None))]
fn _dropout_mask(py: Python<'_>, input: &Bound<'_, PyAny>, p: f64, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "dropout")?;
    let x = args::tensor_arg(input, "dropout", "input")?;
    // PyTorch divides the 0/1 noise by 1 - p in the input's dtype: 1 / (1 - p) rounded as that division
    let keep = 1.0 - p;
    let value = match x.dtype() {
        _ if p >= 1.0 => 0.0,
        ferrograd_core::DType::F64 => 1.0 / keep,
        _ => (1.0f32 / keep as f32) as f64,
    };
    wrap(py, call(|| random::bernoulli_scalar(&gen, x.shape(), x.dtype(), 1.0 - p, value))?)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    alloc::tune_system_allocator();
    m.add_class::<PyTensor>()?;
    m.add_class::<PyDType>()?;
    m.add_class::<generator::PyGenerator>()?;
    m.add("default_generator", generator::PyGenerator::default_handle())?;
    m.add_class::<node::PyNode>()?;
    m.add_class::<hooks::RemovableHandle>()?;
    m.add_class::<compile::PyCompiledGraph>()?;
    m.add_function(wrap_pyfunction!(compile::_capture_begin, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_finish, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_abort, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_unsupported, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_is_capturing, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_grad, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_allocator_round_trip, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_check_new_shape, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_backward, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_attach_custom, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_special, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_special_names, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_xlogy, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_xlog1py, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_zeta, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::var_mean, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::std_mean, m)?)?;
    for (name, dtype) in dtype::all_dtypes() {
        m.add(name, PyDType { dtype })?;
    }
    m.add_function(wrap_pyfunction!(new_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(tril_indices, m)?)?;
    m.add_function(wrap_pyfunction!(triu_indices, m)?)?;
    m.add_function(wrap_pyfunction!(rand, m)?)?;
    m.add_function(wrap_pyfunction!(randn, m)?)?;
    m.add_function(wrap_pyfunction!(manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(_empty_pool, m)?)?;
    m.add_function(wrap_pyfunction!(_grad_fn_names, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_unary_ops, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_param_unary_ops, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_method_forms, m)?)?;
    m.add_function(wrap_pyfunction!(_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_anomaly_check_nan_enabled, m)?)?;
    grad_mode::set_trace_provider(python_stack);
    m.add_function(wrap_pyfunction!(where_fn, m)?)?;
    m.add_function(wrap_pyfunction!(_nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_mse_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_linear, m)?)?;
    m.add_function(wrap_pyfunction!(chain::_chain_layers, m)?)?;
    m.add_function(wrap_pyfunction!(chain::_register_chain_layers, m)?)?;
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::search::searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::search::bucketize, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::isin, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::block_diag, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_mul_number, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_div_number, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::cdist, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::pdist, m)?)?;
    m.add_function(wrap_pyfunction!(einsum, m)?)?;
    m.add_function(wrap_pyfunction!(_randint, m)?)?;
    m.add_function(wrap_pyfunction!(_randperm, m)?)?;
    m.add_function(wrap_pyfunction!(_multinomial, m)?)?;
    m.add_function(wrap_pyfunction!(_dropout_mask, m)?)?;
    m.add_function(wrap_pyfunction!(optim::_optimizer_step, m)?)?;
    m.add_function(wrap_pyfunction!(get_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(set_default_dtype, m)?)?;
    nn::register(m)?;
    grid_sample::register(m)?;
    linalg::register(m)?;
    rnn::register(m)?;
    sparse::register(m)?;
    threads::register(m)?;
    autocast::register(m)?;
    serialize::register(m)?;
    profiler::register(m)?;
    Ok(())
}
