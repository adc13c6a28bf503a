//! The complex-number methods: `is_complex`, `.real`/`.imag` (views), `conj`, `angle`.
use super::{view_of, wrap, Out, PyTensor};
use crate::errors::call;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    fn is_complex(&self) -> bool {
        self.get().is_complex()
    }

    /// Always False: `conj()` here computes the conjugate instead of marking a lazy view.
    fn is_conj(&self) -> bool {
        false
    }

    /// The tensor itself: no conjugation is ever pending (see `is_conj`).
    fn resolve_conj(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.clone().unbind()
    }

    /// `.real`: the real parts of a complex tensor, a view that writes through; a real tensor itself.
    #[getter]
    fn real(slf: &Bound<'_, Self>) -> Out {
        let t = slf.get().get();
        if !t.is_complex() {
            return Ok(slf.clone().unbind());
        }
        view_of(slf, call(|| t.real_part())?)
    }

    /// `.imag`: the imaginary parts of a complex tensor, a view that writes through.
    #[getter]
    fn imag(slf: &Bound<'_, Self>) -> Out {
        let t = slf.get().get();
        view_of(slf, call(|| t.imag_part())?)
    }

    /// `conj()`: the complex conjugate (computed; a real tensor is its own).
    fn conj(slf: &Bound<'_, Self>) -> Out {
        let t = slf.get().get();
        if !t.is_complex() {
            return Ok(slf.clone().unbind());
        }
        wrap(slf.py(), call(|| t.conj())?)
    }

    /// `conj_physical()`: the conjugate as a new tensor (a copy for a real tensor too, as torch's).
    fn conj_physical(&self, py: Python<'_>) -> Out {
        let t = self.get();
        wrap(py, call(|| if t.is_complex() { t.conj() } else { t.clone_tensor() })?)
    }

    /// `angle()` of a complex tensor: `atan2(imag, real)` (real inputs: the Python facade).
    fn _complex_angle(&self, py: Python<'_>) -> Out {
        let t = self.get();
        wrap(py, call(|| t.complex_angle())?)
    }

    /// One dim's complex transform (`torch.fft`'s primitive): forward or inverse (not divided by n), times
    /// `scale`.
    fn _fft_c2c(&self, py: Python<'_>, dim: isize, forward: bool, scale: f64) -> Out {
        let t = self.get();
        wrap(py, call(|| t.fft_c2c(dim, forward, scale))?)
    }
}
