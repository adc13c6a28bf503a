//! Products: `kron`, `inner`, `vdot`, `block_diag` and the core of `tensordot` (its `dims` argument is read in
//! Python).
use super::{wrap, Out, PyTensor};
use crate::args::tensor_arg;
use crate::errors::{call, call_heavy};
use ferrograd_core::Tensor;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    fn kron(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "kron", "other")?);
        wrap(py, call_heavy(py, a.numel() * b.numel(), || a.kron(&b))?)
    }

    fn inner(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "inner", "other")?);
        wrap(py, call_heavy(py, a.numel() + b.numel(), || a.inner(&b))?)
    }

    fn vdot(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, b) = (self.get(), tensor_arg(other, "vdot", "other")?);
        wrap(py, call(|| a.vdot(&b))?)
    }
}

/// `tensordot(a, b, dims=(dims_a, dims_b))` with both dim lists given.
#[pyfunction]
pub fn _tensordot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    dims_a: Vec<isize>,
    dims_b: Vec<isize>,
) -> Out {
    let (a, b) = (tensor_arg(a, "tensordot", "a")?, tensor_arg(b, "tensordot", "b")?);
    wrap(py, call_heavy(py, a.numel() + b.numel(), || a.tensordot(&b, &dims_a, &dims_b))?)
}

/// `input * other` recorded as ATen's `mul.Scalar` (MulBackward1), for compositions that follow torch's.
#[pyfunction]
pub fn _mul_number(py: Python<'_>, input: &Bound<'_, PyAny>, other: f64) -> Out {
    let a = tensor_arg(input, "mul", "input")?;
    wrap(py, call(|| a.mul_number(other))?)
}

/// `input / other` recorded as ATen's `div.Scalar` (DivBackward1).
#[pyfunction]
pub fn _div_number(py: Python<'_>, input: &Bound<'_, PyAny>, other: f64) -> Out {
    let a = tensor_arg(input, "div", "input")?;
    wrap(py, call(|| a.div_number(other))?)
}

/// `block_diag(*tensors)`.
#[pyfunction]
#[pyo3(signature = (*tensors))]
pub fn block_diag(py: Python<'_>, tensors: &Bound<'_, pyo3::types::PyTuple>) -> Out {
    let tensors: Vec<Tensor> = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| crate::args::tensor_arg_at(&t, "block_diag", "tensors", i + 1))
        .collect::<PyResult<_>>()?;
    wrap(py, call(|| Tensor::block_diag(&tensors))?)
}
