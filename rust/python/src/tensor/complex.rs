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
        wrap(py, call(|| if t.is_complex() { t.conj_physical() } else { t.clone_tensor() })?)
    }

    /// `angle()` of a complex or float tensor (integers: the Python facade converts them first).
    fn _angle(&self, py: Python<'_>) -> Out {
        let t = self.get();
        wrap(py, call(|| t.angle())?)
    }

    /// torch's `_fft_c2c` over `dims`: forward or inverse (not divided by n), times `scale`.
    fn _fft_c2c(&self, py: Python<'_>, dims: Vec<isize>, forward: bool, scale: f64) -> Out {
        let t = self.get();
        wrap(py, call(|| t.fft_c2c(&dims, forward, scale))?)
    }

    /// torch's `_fft_r2c` over `dims`: the forward transform of a real tensor, times `scale`, the last dim's
    /// non-negative frequencies only when `onesided`.
    fn _fft_r2c(&self, py: Python<'_>, dims: Vec<isize>, scale: f64, onesided: bool) -> Out {
        let t = self.get();
        wrap(py, call(|| t.fft_r2c(&dims, scale, onesided))?)
    }

    /// torch's `_fft_c2r` over `dims`: the real inverse transform, times `scale`, of a Hermitian half-spectrum
    /// (`last_size / 2 + 1` frequencies along the last dim), `last_size` points.
    fn _fft_c2r(&self, py: Python<'_>, dims: Vec<isize>, scale: f64, last_size: usize) -> Out {
        let t = self.get();
        wrap(py, call(|| t.fft_c2r(&dims, scale, last_size))?)
    }
}
