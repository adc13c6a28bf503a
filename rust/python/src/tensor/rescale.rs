//! `frexp` and `renorm`.
use super::{wrap, PyTensor};
use crate::errors::call;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static FREXP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

#[pymethods]
impl PyTensor {
    /// `ferrograd.return_types.frexp(mantissa, exponent)`.
    fn frexp(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let a = self.get();
        let (mantissa, exponent) = call(|| a.frexp())?;
        let cls = FREXP.get_or_try_init(py, || -> PyResult<_> {
            Ok(py.import("ferrograd.return_types")?.getattr("frexp")?.unbind())
        })?;
        Ok(cls.bind(py).call1((wrap(py, mantissa)?, wrap(py, exponent)?))?.unbind())
    }

    fn renorm(
        &self,
        py: Python<'_>,
        p: f64,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        maxnorm: f64,
    ) -> PyResult<Py<PyTensor>> {
        let a = self.get();
        wrap(py, call(|| a.renorm(p, dim, maxnorm))?)
    }
}
