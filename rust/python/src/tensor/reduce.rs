//! Reductions, sorting and the extremes.
use super::{cast_input, wrap, Out, PyTensor};
use crate::args::{dims_arg, dtype_arg, type_name};
use crate::errors::{call, call_heavy};
use ferrograd_core::binary::Binary;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
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

#[pymethods]
impl PyTensor {
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
        let a = cast_input(a, dtype, "sum")?;
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
        let a = cast_input(a, dtype, "mean")?;
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
        let a = cast_input(a, dtype, "cumprod")?;
        wrap(py, call_heavy(py, a.numel(), || a.cumprod(dim))?)
    }

    /// `(values, indices)` sorted along `dim`; NaN sorts as the largest value. Always stable.
    #[pyo3(signature = (dim=-1, descending=false, *, stable=false))]
    #[pyo3(text_signature = "($self, dim=-1, descending=False, *, stable=False)")]
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
    #[pyo3(text_signature = "($self, dim=-1, descending=False, *, stable=False)")]
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
    #[pyo3(text_signature = "($self, k, dim=-1, largest=True, sorted=True)")]
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
        let a = cast_input(a, dtype, "prod")?;
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

    /// `median()`: the lower median; `median(dim, keepdim)`: (values, indices).
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn median(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let Some(d) = dim else { return Ok(wrap(py, call_heavy(py, a.numel(), || a.median())?)?.into_any()) };
        let (values, indices) = call_heavy(py, a.numel(), || a.median_dim(d, keepdim))?;
        values_indices(py, "median", values, indices)
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
        let a = cast_input(a, dtype, "cumsum")?;
        wrap(py, call_heavy(py, a.numel(), || a.cumsum(dim, false))?)
    }
}
