//! `ferrograd.Generator`: a handle on a core random generator (the default one, or a private one),
//! and the `generator=` argument of the sampling functions.
use crate::args::type_name;
use crate::errors::call;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::random::{self, Generator, SharedGenerator};
use ferrograd_core::{DType, Tensor};
use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;

/// `get_state`'s length: PyTorch's `CPUGeneratorImplState`.
const STATE_BYTES: usize = random::STATE_BYTES;

#[pyclass(name = "Generator", module = "ferrograd", frozen)]
pub struct PyGenerator {
    inner: SharedGenerator,
}

impl PyGenerator {
    pub fn default_handle() -> PyGenerator {
        PyGenerator { inner: random::default_generator().clone() }
    }
}

/// A seed as PyTorch takes it: an int (not a bool) in [-2⁶³, 2⁶⁴), negative ones wrapping to u64.
pub fn seed_arg(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let not_int = || PyRuntimeError::new_err(format!("manual_seed expected a long, but got {}", type_name(seed)));
    if seed.is_instance_of::<pyo3::types::PyBool>() || !seed.is_instance_of::<pyo3::types::PyInt>() {
        return Err(not_int());
    }
    let v: i128 = seed.extract().map_err(|_| PyValueError::new_err("Overflow when unpacking long long"))?;
    if v < i64::MIN as i128 || v > u64::MAX as i128 {
        return Err(PyValueError::new_err("Overflow when unpacking long long"));
    }
    Ok(v as u64)
}

/// The generator to draw from: the given `ferrograd.Generator`, or the default one.
pub fn generator_arg(obj: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<SharedGenerator> {
    match obj {
        None => Ok(random::default_generator().clone()),
        Some(o) if o.is_none() => Ok(random::default_generator().clone()),
        Some(o) => o.cast::<PyGenerator>().map(|g| g.get().inner.clone()).map_err(|_| {
            PyTypeError::new_err(format!(
                "{func}(): argument 'generator' must be ferrograd.Generator, not {}",
                type_name(o)
            ))
        }),
    }
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        if let Some(d) = device.filter(|d| !d.is_none()) {
            let name = d.str()?.to_string();
            if name != "cpu" {
                return Err(PyRuntimeError::new_err(format!(
                    "Generator: device '{name}' is not supported (only 'cpu')"
                )));
            }
        }
        Ok(PyGenerator { inner: Arc::new(Mutex::new(Generator::seeded(random::DEFAULT_SEED))) })
    }

    /// Seeds the generator; returns it.
    fn manual_seed(slf: &Bound<'_, Self>, seed: &Bound<'_, PyAny>) -> PyResult<Py<Self>> {
        let seed = seed_arg(seed)?;
        slf.get().inner.lock().seed(seed);
        Ok(slf.clone().unbind())
    }

    /// Seeds the generator from a nondeterministic source; returns the seed.
    fn seed(&self) -> u64 {
        let seed = random::nondeterministic_seed();
        self.inner.lock().seed(seed);
        seed
    }

    fn initial_seed(&self) -> u64 {
        self.inner.lock().initial_seed()
    }

    /// The generator's state as a uint8 tensor (a ByteTensor, as PyTorch's), for `set_state`.
    fn get_state(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        let bytes = self.inner.lock().state_bytes();
        wrap(py, call(|| Tensor::from_vec(bytes, &[STATE_BYTES]))?)
    }

    fn set_state(slf: &Bound<'_, Self>, new_state: &Bound<'_, PyAny>) -> PyResult<Py<Self>> {
        let t = new_state.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| {
            PyTypeError::new_err(format!("expected a torch.ByteTensor, but got {}", type_name(new_state)))
        })?;
        if t.dtype() != DType::U8 {
            return Err(PyTypeError::new_err("RNG state must be a torch.ByteTensor"));
        }
        crate::errors::refuse_meta(&t)?;
        if t.shape() != [STATE_BYTES] {
            return Err(PyRuntimeError::new_err(format!(
                "Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG state size to be {}",
                t.numel()
            )));
        }
        let bytes = t.to_vec::<u8>();
        call(|| slf.get().inner.lock().set_state_bytes(&bytes))?;
        Ok(slf.clone().unbind())
    }

    #[getter]
    fn device(&self) -> &'static str {
        "cpu"
    }

    fn __repr__(&self) -> String {
        format!("<ferrograd.Generator object at {:#x}>", Arc::as_ptr(&self.inner) as usize)
    }
}
