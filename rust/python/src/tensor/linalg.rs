//! Matrix products, softmax and addmm.
use super::{cast_input, wrap, Out, PyTensor};
use crate::args::tensor_arg;
use crate::errors::{call, call_heavy};
use ferrograd_core::Tensor;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = cast_input(a, dtype, "softmax")?;
        wrap(py, call_heavy(py, a.numel(), || a.softmax(dim, false))?)
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = self.get();
        let a = cast_input(a, dtype, "log_softmax")?;
        wrap(py, call_heavy(py, a.numel(), || a.softmax(dim, true))?)
    }

    /// `bias.addmm(mat1, mat2)` = bias + mat1 @ mat2.
    fn addmm(&self, py: Python<'_>, mat1: &Bound<'_, PyAny>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (tensor_arg(mat1, "addmm", "mat1")?, tensor_arg(mat2, "addmm", "mat2")?);
        let bias = self.get();
        wrap(py, call_heavy(py, a.numel() + b.numel(), || Tensor::addmm(&bias, &a, &b))?)
    }

    fn matmul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "matmul", "other")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.matmul(&b))?)
    }

    fn mm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(mat2, "mm", "mat2")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.mm(&b))?)
    }

    fn bmm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(mat2, "bmm", "mat2")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.bmm(&b))?)
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

    fn dot(&self, py: Python<'_>, tensor: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(tensor, "dot", "tensor")?);
        wrap(py, call(|| a.dot(&b))?)
    }
}
