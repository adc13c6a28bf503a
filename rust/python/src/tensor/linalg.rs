//! Matrix products, softmax and addmm.
use super::shared::heavy;
use super::{cast_input, wrap, Out, PyTensor};
use crate::args::tensor_arg;
use crate::errors::{call, call_heavy};
use ferrograd_core::Tensor;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

/// `torch.cross` without `dim` warns once a process, as PyTorch's `TORCH_WARN_ONCE`.
static CROSS_DEFAULT_DIM_WARNED: AtomicBool = AtomicBool::new(false);

/// `f(a, b)` of two matrices (or batches), `b` being argument `arg` of `func`.
fn product(
    py: Python<'_>,
    a: Tensor,
    b: &Bound<'_, PyAny>,
    func: &str,
    arg: &str,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor> + Send,
) -> Out {
    let b = tensor_arg(b, func, arg)?;
    wrap(py, call_heavy(py, a.numel() + b.numel(), || f(&a, &b))?)
}

#[pymethods]
impl PyTensor {
    /// `bias.addmm(mat1, mat2)` = bias + mat1 @ mat2.
    fn addmm(&self, py: Python<'_>, mat1: &Bound<'_, PyAny>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (tensor_arg(mat1, "addmm", "mat1")?, tensor_arg(mat2, "addmm", "mat2")?);
        let bias = self.get();
        wrap(py, call_heavy(py, a.numel() + b.numel(), || Tensor::addmm(&bias, &a, &b))?)
    }

    fn matmul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        product(py, self.get(), other, "matmul", "other", |a, b| a.matmul(b))
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

    fn det(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.linalg_det())?)
    }

    fn inverse(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.linalg_inv())?)
    }

    fn logdet(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.logdet())?)
    }

    /// (sign, logabsdet), a named tuple made by the Python facade (`ferrograd.linalg.slogdet`).
    fn slogdet(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let slogdet = slf.py().import("ferrograd.linalg")?.getattr("slogdet")?;
        Ok(slogdet.call1((slf,))?.unbind())
    }

    /// `torch.cross(input, other, dim=None)`: without `dim`, the first dimension of length 3.
    #[pyo3(signature = (other, dim=None))]
    fn cross(&self, py: Python<'_>, other: &Bound<'_, PyAny>, dim: Option<isize>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "cross", "other")?);
        if dim.is_none() && !CROSS_DEFAULT_DIM_WARNED.swap(true, Ordering::Relaxed) {
            let message = "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the \
                           dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to \
                           agree with that of linalg.cross in a future release.";
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &CString::new(message)?, 1)?;
        }
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.cross(&b, dim))?)
    }

    /// `torch.svd`'s (U, S, V), a named tuple made by the Python facade.
    #[pyo3(signature = (some=true, compute_uv=true))]
    fn svd(slf: &Bound<'_, Self>, some: bool, compute_uv: bool) -> PyResult<Py<PyAny>> {
        let svd = slf.py().import("ferrograd.linalg")?.getattr("_torch_svd")?;
        Ok(svd.call1((slf, some, compute_uv))?.unbind())
    }

    /// Removed from PyTorch: raises its RuntimeError (the text lives in the Python facade).
    #[pyo3(signature = (some=true))]
    fn qr(slf: &Bound<'_, Self>, some: bool) -> PyResult<Py<PyAny>> {
        let removed = slf.py().import("ferrograd.linalg")?.getattr("_removed_qr")?;
        Ok(removed.call1((some,))?.unbind())
    }

    /// `linalg.matrix_power`: A^n of each square matrix (negative n through the inverse).
    fn matrix_power(&self, py: Python<'_>, n: i64) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel() * a.shape().last().copied().unwrap_or(1), || a.matrix_power(n))?)
    }

    fn matrix_exp(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel() * a.shape().last().copied().unwrap_or(1), || a.matrix_exp())?)
    }

    /// X with (L Lᵀ) X = self, for the Cholesky factor `input2` (`upper`: U with A = Uᵀ U).
    #[pyo3(signature = (input2, upper=false))]
    fn cholesky_solve(&self, py: Python<'_>, input2: &Bound<'_, PyAny>, upper: bool) -> Out {
        let (b, u) = (self.get(), tensor_arg(input2, "cholesky_solve", "input2")?);
        wrap(py, call_heavy(py, u.numel() * b.numel(), || b.cholesky_solve(&u, upper))?)
    }

    #[pyo3(signature = (upper=false))]
    fn cholesky_inverse(&self, py: Python<'_>, upper: bool) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel() * a.shape().last().copied().unwrap_or(1), || a.cholesky_inverse(upper))?)
    }

    fn dot(&self, py: Python<'_>, tensor: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(tensor, "dot", "tensor")?);
        wrap(py, call(|| a.dot(&b))?)
    }
}

shared_signature! {
    fn (&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> Out;
    mm => product(py, self.get(), mat2, "mm", "mat2", |a, b| a.mm(b));
    bmm => product(py, self.get(), mat2, "bmm", "mat2", |a, b| a.bmm(b));
}

shared_signature! {
    #[pyo3(signature = (dim, dtype=None))]
    fn (
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out;
    softmax => heavy(py, cast_input(self.get(), dtype, "softmax")?, |a| a.softmax(dim, false));
    log_softmax => heavy(py, cast_input(self.get(), dtype, "log_softmax")?, |a| a.softmax(dim, true));
}
