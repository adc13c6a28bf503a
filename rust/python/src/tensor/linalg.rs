//! Matrix products, softmax and addmm.
use super::shared::heavy;
use super::{cast_input, wrap, Out, PyTensor};
use crate::args::tensor_arg;
use crate::args::type_name;
use crate::convert::as_scalar;
use crate::errors::{call, call_heavy};
use ferrograd_core::{Scalar, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
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

/// A product scaled by beta and alpha (`baddbmm`, `addbmm`, `addmv`, `addr`): `f(input, a, b)`, the factors
/// `a` and `b` being the arguments named in `names` (function name, then the two argument names).
fn scaled_product(
    py: Python<'_>,
    input: Tensor,
    (a, b, names): (&Bound<'_, PyAny>, &Bound<'_, PyAny>, [&str; 3]),
    f: impl FnOnce(&Tensor, &Tensor, &Tensor) -> ferrograd_core::Result<Tensor> + Send,
) -> Out {
    let (a, b) = (tensor_arg(a, names[0], names[1])?, tensor_arg(b, names[0], names[2])?);
    wrap(py, call_heavy(py, a.numel() + b.numel(), || f(&input, &a, &b))?)
}

#[pymethods]
impl PyTensor {
    /// `bias.addmm(mat1, mat2, beta=, alpha=)` = beta·bias + alpha·(mat1 @ mat2).
    #[pyo3(
        signature = (mat1, mat2, *, beta=None, alpha=None),
        text_signature = "($self, mat1, mat2, *, beta=1, alpha=1)"
    )]
    fn addmm(
        &self,
        py: Python<'_>,
        mat1: &Bound<'_, PyAny>,
        mat2: &Bound<'_, PyAny>,
        beta: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let scale = |v: Option<&Bound<'_, PyAny>>, name: &str| match v {
            None => Ok(Scalar::Int(1)),
            Some(v) => as_scalar(v).ok_or_else(|| {
                PyTypeError::new_err(format!("addmm(): argument '{name}' must be Number, not {}", type_name(v)))
            }),
        };
        let (beta, alpha) = (scale(beta, "beta")?, scale(alpha, "alpha")?);
        let factors = (mat1, mat2, ["addmm", "mat1", "mat2"]);
        scaled_product(py, self.get(), factors, |x, a, b| Tensor::addmm_scaled(x, a, b, beta, alpha))
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
        let factors = (batch1, batch2, ["baddbmm", "batch1", "batch2"]);
        scaled_product(py, self.get(), factors, |x, a, b| x.baddbmm(a, b, beta, alpha))
    }

    /// beta·self + alpha·Σ_b batch1[b] @ batch2[b].
    #[pyo3(signature = (batch1, batch2, *, beta=1.0, alpha=1.0))]
    fn addbmm(
        &self,
        py: Python<'_>,
        batch1: &Bound<'_, PyAny>,
        batch2: &Bound<'_, PyAny>,
        beta: f64,
        alpha: f64,
    ) -> Out {
        let factors = (batch1, batch2, ["addbmm", "batch1", "batch2"]);
        scaled_product(py, self.get(), factors, |x, a, b| x.addbmm(a, b, beta, alpha))
    }

    /// beta·self + alpha·(mat @ vec).
    #[pyo3(signature = (mat, vec, *, beta=1.0, alpha=1.0))]
    fn addmv(&self, py: Python<'_>, mat: &Bound<'_, PyAny>, vec: &Bound<'_, PyAny>, beta: f64, alpha: f64) -> Out {
        scaled_product(py, self.get(), (mat, vec, ["addmv", "mat", "vec"]), |x, m, v| x.addmv(m, v, beta, alpha))
    }

    /// beta·self + alpha·outer(vec1, vec2).
    #[pyo3(signature = (vec1, vec2, *, beta=1.0, alpha=1.0))]
    fn addr(&self, py: Python<'_>, vec1: &Bound<'_, PyAny>, vec2: &Bound<'_, PyAny>, beta: f64, alpha: f64) -> Out {
        scaled_product(py, self.get(), (vec1, vec2, ["addr", "vec1", "vec2"]), |x, a, b| x.addr(a, b, beta, alpha))
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
            // at the user's line, past `ferrograd.cross`'s Python form (torch's warning names the caller)
            py.import("ferrograd._utils")?.call_method1("warn_at_caller", (message,))?;
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

    /// `torch.lu`: (LU, pivots[, info]), deprecated (the Python facade warns and names the tuple).
    #[pyo3(signature = (pivot=true, get_infos=false))]
    fn lu(slf: &Bound<'_, Self>, pivot: bool, get_infos: bool) -> PyResult<Py<PyAny>> {
        let lu = slf.py().import("ferrograd.linalg")?.getattr("_torch_lu")?;
        Ok(lu.call1((slf, pivot, get_infos))?.unbind())
    }

    /// `torch.lu_solve(self, LU_data, LU_pivots)`, deprecated (the Python facade warns).
    #[allow(non_snake_case)]
    fn lu_solve(
        slf: &Bound<'_, Self>,
        LU_data: &Bound<'_, PyAny>,
        LU_pivots: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let lu_solve = slf.py().import("ferrograd.linalg")?.getattr("_torch_lu_solve")?;
        Ok(lu_solve.call1((slf, LU_data, LU_pivots))?.unbind())
    }

    /// `torch.geqrf`'s (a, tau), a named tuple made by the Python facade.
    fn geqrf(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let geqrf = slf.py().import("ferrograd.linalg")?.getattr("_geqrf")?;
        Ok(geqrf.call1((slf,))?.unbind())
    }

    /// `torch.triangular_solve(self, A, ...)`, deprecated (the Python facade warns and names the tuple).
    #[allow(non_snake_case)]
    #[pyo3(signature = (A, upper=true, transpose=false, unitriangular=false))]
    fn triangular_solve(
        slf: &Bound<'_, Self>,
        A: &Bound<'_, PyAny>,
        upper: bool,
        transpose: bool,
        unitriangular: bool,
    ) -> PyResult<Py<PyAny>> {
        let solve = slf.py().import("ferrograd.linalg")?.getattr("_torch_triangular_solve")?;
        Ok(solve.call1((slf, A, upper, transpose, unitriangular))?.unbind())
    }

    /// Removed from PyTorch: raises its RuntimeError (the text lives in the Python facade).
    #[pyo3(signature = (upper=false))]
    fn cholesky(slf: &Bound<'_, Self>, upper: bool) -> PyResult<Py<PyAny>> {
        let removed = slf.py().import("ferrograd.linalg")?.getattr("_removed_cholesky")?;
        Ok(removed.call1((slf, upper))?.unbind())
    }

    /// Removed from PyTorch: raises its RuntimeError (the text lives in the Python facade).
    fn solve(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let removed = slf.py().import("ferrograd.linalg")?.getattr("_removed_solve")?;
        Ok(removed.call1((slf, other))?.unbind())
    }

    /// Removed from PyTorch: raises its RuntimeError (the text lives in the Python facade).
    fn lstsq(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let removed = slf.py().import("ferrograd.linalg")?.getattr("_removed_lstsq")?;
        Ok(removed.call1((slf, other))?.unbind())
    }

    /// Removed from PyTorch: raises its RuntimeError (the text lives in the Python facade).
    #[pyo3(signature = (eigenvectors=false))]
    fn symeig(slf: &Bound<'_, Self>, eigenvectors: bool) -> PyResult<Py<PyAny>> {
        let removed = slf.py().import("ferrograd.linalg")?.getattr("_removed_symeig")?;
        Ok(removed.call1((slf, eigenvectors))?.unbind())
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
