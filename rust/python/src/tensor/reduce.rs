//! Reductions, sorting and the extremes.
use super::shared::heavy;
use super::{cast_input, cast_recorded_input, check_recorded_dtype, wrap, Out, PyTensor};
use crate::args::{dims_arg, dtype_arg, type_name};
use crate::errors::{call, call_as, call_heavy, call_heavy_as};
use ferrograd_core::binary::Binary;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

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
        return Ok(wrap(py, call_heavy_as(py, a.numel(), name, || a.amax_amin(None, false, is_max, true))?)?.into_any());
    };
    if let Ok(other) = dim.cast::<PyTensor>() {
        let b = other.get().get();
        let op = if is_max { Binary::Maximum } else { Binary::Minimum };
        return Ok(wrap(py, call_as(name, || a.binary(&b, op))?)?.into_any());
    }
    let d = crate::args::dim_arg(dim)?;
    let (values, indices) = call_heavy_as(py, a.numel(), name, || a.max_min_dim(d, keepdim, is_max))?;
    values_indices(py, name, values, indices)
}

/// `ferrograd.return_types.<name>(values, indices)` (or its two fields of other names).
pub(super) fn values_indices(py: Python<'_>, name: &str, values: Tensor, indices: Tensor) -> PyResult<Py<PyAny>> {
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
    let dims = opt_dims(dim, name)?;
    let correction = correction.unwrap_or(if unbiased == Some(false) { 0.0 } else { 1.0 });
    wrap(py, call_heavy(py, a.numel(), || a.var_std(dims.as_deref(), correction, keepdim, std))?)
}

/// `torch.var_mean` / `torch.std_mean`: a tuple (var or std, mean), their arguments read as var's.
fn spread_mean(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
    std: bool,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let name = if std { "std_mean" } else { "var_mean" };
    let a = crate::args::tensor_arg(input, name, "input")?;
    let (dim, unbiased) = match dim {
        Some(d) if d.is_instance_of::<pyo3::types::PyBool>() && unbiased.is_none() => {
            (None, Some(d.extract::<bool>()?))
        }
        _ => (dim, unbiased),
    };
    let dims = opt_dims(dim, name)?;
    let correction = correction.unwrap_or(if unbiased == Some(false) { 0.0 } else { 1.0 });
    let (spread, mean) = call_heavy(py, a.numel(), || a.var_std_mean(dims.as_deref(), correction, keepdim, std))?;
    Ok((wrap(py, spread)?, wrap(py, mean)?))
}

#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
pub fn var_mean(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    correction: Option<f64>,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    spread_mean(py, input, dim, unbiased, keepdim, correction, false)
}

#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
pub fn std_mean(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    correction: Option<f64>,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    spread_mean(py, input, dim, unbiased, keepdim, correction, true)
}

/// `dim=` as dims to reduce over (None: all of them).
fn opt_dims(dim: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Option<Vec<isize>>> {
    dim.filter(|d| !d.is_none()).map(|d| dims_arg(d, func)).transpose()
}

/// A reduction over `dim=` (None: all dims) of the input cast to `dtype=` first (when given).
fn reduce_over(
    py: Python<'_>,
    a: Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    func: &str,
    f: impl FnOnce(&Tensor, Option<&[isize]>) -> ferrograd_core::Result<Tensor> + Send,
) -> Out {
    let dims = opt_dims(dim, func)?;
    let a = cast_input(a, dtype, func)?;
    wrap(py, call_heavy(py, a.numel(), || f(&a, dims.as_deref()))?)
}

/// `reduce_over` without a dtype, as a plain object (it shares a signature with max/min, which may return tuples).
fn over_dims(
    py: Python<'_>,
    a: Tensor,
    dim: Option<&Bound<'_, PyAny>>,
    func: &str,
    f: impl FnOnce(&Tensor, Option<&[isize]>) -> ferrograd_core::Result<Tensor> + Send,
) -> PyResult<Py<PyAny>> {
    Ok(reduce_over(py, a, dim, None, func, f)?.into_any())
}

/// `(values, indices)` of `a` sorted along `dim`.
fn sorted(py: Python<'_>, a: Tensor, dim: isize, descending: bool, stable: bool) -> PyResult<(Tensor, Tensor)> {
    call_heavy(py, a.numel(), || a.sort(dim, descending, stable))
}

#[pymethods]
impl PyTensor {
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
        let dims = opt_dims(dim, "norm")?;
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

    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num(&self, py: Python<'_>, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Out {
        heavy(py, self.get(), |a| a.nan_to_num(nan, posinf, neginf))
    }

    /// The `k` largest (or smallest) along `dim`, in order unless not `sorted`.
    #[pyo3(signature = (k, dim=-1, largest=true, sorted=true))]
    #[pyo3(text_signature = "($self, k, dim=-1, largest=True, sorted=True)")]
    fn topk(
        &self,
        py: Python<'_>,
        k: isize,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        largest: bool,
        sorted: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.topk(k, dim, largest, sorted))?;
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
        heavy(py, cast_recorded_input(self.get(), dtype, "prod")?, |a| a.prod(dim, keepdim))
    }

    /// `(min, max)` of every element or along `dim`, in one pass.
    #[pyo3(signature = (*, dim=None, keepdim=false))]
    fn aminmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (min, max) = call_heavy(py, a.numel(), || a.aminmax(dim, keepdim))?;
        values_indices(py, "aminmax", min, max)
    }

    /// `median()`: the lower median; `median(dim, keepdim)`: (values, indices).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn median(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let Some(d) = dim else { return Ok(heavy(py, a, |a| a.median())?.into_any()) };
        let (values, indices) = call_heavy(py, a.numel(), || a.median_dim(d, keepdim))?;
        values_indices(py, "median", values, indices)
    }

    /// The running log(Σ exp) along `dim`.
    fn logcumsumexp(&self, py: Python<'_>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> Out {
        heavy(py, self.get(), |a| a.logcumsumexp(dim))
    }

    /// `(values, indices)` of the running maximum along `dim`; ties take the later index.
    fn cummax(&self, py: Python<'_>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.cum_extreme(dim, true))?;
        values_indices(py, "cummax", values, indices)
    }

    /// `(values, indices)` of the running minimum along `dim`; ties take the later index.
    fn cummin(&self, py: Python<'_>, #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.cum_extreme(dim, false))?;
        values_indices(py, "cummin", values, indices)
    }

    #[pyo3(signature = (dim, keepdim=false))]
    fn logsumexp(
        &self,
        py: Python<'_>,
        dim: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out {
        let dims = dims_arg(dim, "logsumexp")?;
        heavy(py, self.get(), |a| a.logsumexp(&dims, keepdim))
    }
}

shared_signature! {
    #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
    fn (
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out;
    sum => {
        check_recorded_dtype(&self.get(), dtype, "sum")?;
        reduce_over(py, self.get(), dim, dtype, "sum", |a, dims| a.sum(dims, keepdim))
    };
    mean => {
        match dtype_arg(dtype, "mean")? {
            Some(d) if !d.is_float() => Err(PyNotImplementedError::new_err(format!(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex \
                 dtype. Got: {}",
                d.scalar_type_name()
            ))),
            _ => reduce_over(py, self.get(), dim, dtype, "mean", |a, dims| a.mean(dims, keepdim)),
        }
    };
    nansum => {
        check_recorded_dtype(&self.get(), dtype, "nansum")?;
        reduce_over(py, self.get(), dim, dtype, "nansum", |a, dims| a.nansum(dims, keepdim))
    };
    nanmean => reduce_over(py, self.get(), dim, dtype, "nanmean", |a, dims| a.nanmean(dims, keepdim));
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim=None))]
    fn count_nonzero(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>) -> Out {
        let dims = opt_dims(dim, "count_nonzero")?;
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.count_nonzero(dims.as_deref()))?)
    }
}

shared_signature! {
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn (
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>>;
    all => over_dims(py, self.get(), dim, "all", |a, dims| a.all_any(dims, keepdim, true));
    any => over_dims(py, self.get(), dim, "any", |a, dims| a.all_any(dims, keepdim, false));
    amax => over_dims(py, self.get(), dim, "amax", |a, dims| a.amax_amin(dims, keepdim, true, false));
    amin => over_dims(py, self.get(), dim, "amin", |a, dims| a.amax_amin(dims, keepdim, false, false));
    /// `max()`: the largest value; `max(dim, keepdim)`: (values, indices); `max(other)`: `maximum`.
    max => extreme(py, self.get(), dim, keepdim, true);
    min => extreme(py, self.get(), dim, keepdim, false);
}

shared_signature! {
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn (
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> Out;
    argmax => heavy(py, self.get(), |a| a.argmax_argmin(dim, keepdim, true));
    argmin => heavy(py, self.get(), |a| a.argmax_argmin(dim, keepdim, false));
}

shared_signature! {
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn (
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        correction: Option<f64>,
    ) -> Out;
    var => var_std(py, self.get(), dim, unbiased, keepdim, correction, false);
    std => var_std(py, self.get(), dim, unbiased, keepdim, correction, true);
}

shared_signature! {
    #[pyo3(signature = (dim, *, dtype=None))]
    fn (
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out;
    cumsum => heavy(py, cast_recorded_input(self.get(), dtype, "cumsum")?, |a| a.cumsum(dim, false));
    cumprod => heavy(py, cast_recorded_input(self.get(), dtype, "cumprod")?, |a| a.cumprod(dim));
}

shared_signature! {
    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    #[pyo3(text_signature = "($self, dim=-1, descending=False, *, stable=False)")]
    fn (
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        descending: bool,
        stable: bool,
    ) -> PyResult<Py<PyAny>>;
    /// `(values, indices)` sorted along `dim`; NaN sorts as the largest value. Ties stay in order when `stable`.
    sort => {
        let (values, indices) = sorted(py, self.get(), dim, descending, stable)?;
        values_indices(py, "sort", values, indices)
    };
    argsort => Ok(wrap(py, sorted(py, self.get().detach(), dim, descending, stable)?.1)?.into_any());
}
