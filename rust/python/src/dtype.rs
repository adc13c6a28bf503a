//! `ferrograd.float32` and friends.
use ferrograd_core::DType;
use pyo3::prelude::*;

#[pyclass(name = "dtype", module = "ferrograd", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub dtype: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("ferrograd.{}", self.dtype.name())
    }
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.dtype.is_float()
    }
    #[getter]
    fn is_complex(&self) -> bool {
        self.dtype.is_complex()
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }
    #[getter]
    fn is_signed(&self) -> bool {
        self.dtype.is_signed()
    }
    /// torch's legacy tensor-type name ("FloatTensor"): `Tensor.type()`, `torch.typename` and the messages
    /// name tensors by it; the core's table is the one source.
    #[getter]
    fn _legacy_name(&self) -> &'static str {
        self.dtype.legacy_name()
    }
    /// torch's C++ scalar-type name ("Long"), as its "not implemented for 'Long'" messages spell it.
    #[getter]
    fn _scalar_type_name(&self) -> &'static str {
        self.dtype.scalar_type_name()
    }
    /// Pickles as the module attribute of the same name (`ferrograd.float32`).
    fn __reduce__(&self) -> String {
        self.dtype.name().to_string()
    }
}

pub fn all_dtypes() -> [(&'static str, DType); 10] {
    DType::ALL.map(|d| (d.name(), d))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for (name, dtype) in all_dtypes() {
        m.add(name, PyDType { dtype })?;
    }
    for dtype in DType::COMPLEX {
        m.add(dtype.name(), PyDType { dtype })?;
    }
    Ok(())
}
