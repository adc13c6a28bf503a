//! Order statistics (`kthvalue`, `mode`, `nanmedian`, `quantile`, `nanquantile`), counting (`bincount`,
//! `histc`, `isin`), `cov`/`corrcoef` and `diff`.
use super::reduce::values_indices;
use super::{wrap, Out, PyTensor};
use crate::args::{operand, tensor_arg, type_name};
use crate::errors::{call, call_heavy};
use ferrograd_core::quantile::QuantileInterpolation;
use ferrograd_core::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// `quantile`/`nanquantile` with q a Python number or a tensor.
fn quantile_of(
    py: Python<'_>,
    a: Tensor,
    q: &Bound<'_, PyAny>,
    dim: Option<isize>,
    keepdim: bool,
    interpolation: &str,
    ignore_nan: bool,
) -> Out {
    let name = if ignore_nan { "nanquantile" } else { "quantile" };
    let how = call(|| QuantileInterpolation::parse(interpolation))?;
    if let Ok(t) = q.cast::<PyTensor>() {
        let q = t.get().get();
        return wrap(py, call_heavy(py, a.numel(), || a.quantile(&q, dim, keepdim, how, ignore_nan))?);
    }
    let Ok(q) = q.extract::<f64>() else {
        return Err(PyTypeError::new_err(format!(
            "{name}(): argument 'q' (position 1) must be Tensor, not {}",
            type_name(q)
        )));
    };
    wrap(py, call_heavy(py, a.numel(), || a.quantile_scalar(q, dim, keepdim, how, ignore_nan))?)
}

shared_signature! {
    #[pyo3(signature = (q, dim=None, keepdim=false, *, interpolation="linear"))]
    fn (
        &self,
        py: Python<'_>,
        q: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
        interpolation: &str,
    ) -> Out;
    quantile => quantile_of(py, self.get(), q, dim, keepdim, interpolation, false);
    nanquantile => quantile_of(py, self.get(), q, dim, keepdim, interpolation, true);
}

#[pymethods]
impl PyTensor {
    /// `(values, indices)` of the k-th smallest element along `dim`.
    #[pyo3(signature = (k, dim=-1, keepdim=false))]
    #[pyo3(text_signature = "($self, k, dim=-1, keepdim=False)")]
    fn kthvalue(
        &self,
        py: Python<'_>,
        k: i64,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.kthvalue(k, dim, keepdim))?;
        values_indices(py, "kthvalue", values, indices)
    }

    /// `(values, indices)` of the most frequent value along `dim`.
    #[pyo3(signature = (dim=-1, keepdim=false))]
    #[pyo3(text_signature = "($self, dim=-1, keepdim=False)")]
    fn mode(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (values, indices) = call_heavy(py, a.numel(), || a.mode(dim, keepdim))?;
        values_indices(py, "mode", values, indices)
    }

    /// `nanmedian()`: the lower median of the elements that are not NaN; with `dim`, `(values, indices)`.
    #[pyo3(signature = (dim=None, keepdim=false))]
    fn nanmedian(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::opt_dim_arg)] dim: Option<isize>,
        #[pyo3(from_py_with = crate::args::keepdim_arg)] keepdim: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let Some(d) = dim else {
            return Ok(wrap(py, call_heavy(py, a.numel(), || a.nanmedian())?)?.into_any());
        };
        let (values, indices) = call_heavy(py, a.numel(), || a.nanmedian_dim(d, keepdim))?;
        values_indices(py, "nanmedian", values, indices)
    }

    #[pyo3(signature = (weights=None, minlength=0))]
    fn bincount(&self, py: Python<'_>, weights: Option<&Bound<'_, PyAny>>, minlength: i64) -> Out {
        let w = match weights.filter(|w| !w.is_none()) {
            Some(w) => Some(tensor_arg(w, "bincount", "weights")?),
            None => None,
        };
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.bincount(w.as_ref(), minlength))?)
    }

    #[pyo3(signature = (bins=100, min=0.0, max=0.0))]
    #[pyo3(text_signature = "($self, bins=100, min=0, max=0)")]
    fn histc(&self, py: Python<'_>, bins: i64, min: f64, max: f64) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.histc(bins, min, max))?)
    }

    #[pyo3(signature = (*, correction=1, fweights=None, aweights=None))]
    fn cov(
        &self,
        py: Python<'_>,
        correction: i64,
        fweights: Option<&Bound<'_, PyAny>>,
        aweights: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let weights = |t: Option<&Bound<'_, PyAny>>, arg: &str| -> PyResult<Option<Tensor>> {
            t.filter(|t| !t.is_none()).map(|t| tensor_arg(t, "cov", arg)).transpose()
        };
        let (f, w) = (weights(fweights, "fweights")?, weights(aweights, "aweights")?);
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.cov(correction, f.as_ref(), w.as_ref()))?)
    }

    fn corrcoef(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.corrcoef())?)
    }

    #[pyo3(signature = (n=1, dim=-1, prepend=None, append=None))]
    #[pyo3(text_signature = "($self, n=1, dim=-1, prepend=None, append=None)")]
    fn diff(
        &self,
        py: Python<'_>,
        n: i64,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        prepend: Option<&Bound<'_, PyAny>>,
        append: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let extra = |t: Option<&Bound<'_, PyAny>>, arg: &str| -> PyResult<Option<Tensor>> {
            t.filter(|t| !t.is_none()).map(|t| tensor_arg(t, "diff", arg)).transpose()
        };
        let (prepend, append) = (extra(prepend, "prepend")?, extra(append, "append")?);
        let a = self.get();
        wrap(py, call(|| a.diff(n, dim, prepend.as_ref(), append.as_ref()))?)
    }
}

/// `isin(elements, test_elements, *, assume_unique=False, invert=False)`; either may be a number.
#[pyfunction]
#[pyo3(signature = (elements, test_elements, *, assume_unique=false, invert=false))]
pub fn isin(
    py: Python<'_>,
    elements: &Bound<'_, PyAny>,
    test_elements: &Bound<'_, PyAny>,
    assume_unique: bool,
    invert: bool,
) -> Out {
    let _ = assume_unique; // a hint only: the result is the same either way
    let both_tensors_or_one = elements.is_instance_of::<PyTensor>() || test_elements.is_instance_of::<PyTensor>();
    let (Some(a), Some(b), true) = (operand(elements), operand(test_elements), both_tensors_or_one) else {
        return Err(PyTypeError::new_err(format!(
            "isin() received an invalid combination of arguments - got ({}, {}), but expected one of:\n \
             * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out \
             = None)\n * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, \
             Tensor out = None)\n * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert \
             = False, Tensor out = None)\n",
            type_name(elements),
            type_name(test_elements)
        )));
    };
    wrap(py, call_heavy(py, a.numel() + b.numel(), || a.isin(&b, invert))?)
}
