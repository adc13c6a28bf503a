//! Arithmetic and comparisons: the operators and their method forms.
use super::{wrap, Out, PyTensor};
use crate::args::{operand, operand_arg, type_name};
use crate::convert::as_scalar;
use crate::errors::{call, call_heavy};
use ferrograd_core::binary::{Binary, Compare};
use ferrograd_core::{Scalar, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

fn not_implemented(py: Python<'_>) -> PyResult<Py<PyAny>> {
    Ok(py.NotImplemented())
}

/// A dunder operator: NotImplemented for operands that are not tensors or numbers, so Python can try
/// the other side. `reflected` puts the Python-side operand first (`2 - x`).
pub(super) fn binary_op(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    reflected: bool,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyAny>> {
    let Some(b) = operand(other) else { return not_implemented(py) };
    let out = if reflected { call(|| f(&b, a))? } else { call(|| f(a, &b))? };
    Ok(wrap(py, out)?.into_any())
}

/// `alpha=` of add/sub: a number, integral for integral tensors (as torch checks).
fn alpha_arg(a: &Tensor, alpha: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Option<Scalar>> {
    let Some(alpha) = alpha else { return Ok(None) };
    let value = as_scalar(alpha).ok_or_else(|| {
        PyTypeError::new_err(format!("{func}(): argument 'alpha' must be Number, not {}", type_name(alpha)))
    })?;
    if !a.dtype().is_float() && matches!(value, Scalar::Float(_)) {
        return Err(PyRuntimeError::new_err(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    Ok(Some(value))
}

/// `alpha * b` (b itself when alpha is absent or 1); alpha is a weak scalar, so b keeps its dtype.
fn scaled(b: &Tensor, alpha: Option<Scalar>) -> ferrograd_core::Result<Tensor> {
    match alpha {
        None | Some(Scalar::Int(1)) => Ok(b.clone()),
        Some(Scalar::Float(1.0)) => Ok(b.clone()),
        Some(a) => b.mul(&Tensor::wrapped_scalar(a)),
    }
}

/// A method form (`x.add(y)`): a bad operand is a TypeError naming the argument.
pub(super) fn method_op(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    name: &str,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor>,
) -> Out {
    let b = operand_arg(other, name, "other")?;
    wrap(py, call(|| f(a, &b))?)
}

#[pymethods]
impl PyTensor {
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.add(b))
    }

    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.add(b))
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.sub(b))
    }

    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.sub(b))
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.mul(b))
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.mul(b))
    }

    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.div(b))
    }

    /// `n / x` is `x.reciprocal() * n` in PyTorch (so its grad_fn is MulBackward0).
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |n, x| Tensor::scalar(1.0).div(x)?.mul(n))
    }

    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(b) = other.cast::<PyTensor>() else { return not_implemented(py) };
        let (a, b) = (self.get(), b.get().get());
        Ok(wrap(py, call_heavy(py, a.numel() + b.numel(), || a.matmul(&b))?)?.into_any())
    }

    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(b) = other.cast::<PyTensor>() else { return not_implemented(py) };
        let (a, b) = (self.get(), b.get().get());
        Ok(wrap(py, call_heavy(py, a.numel() + b.numel(), || b.matmul(&a))?)?.into_any())
    }

    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(o) = operand(other) else { return not_implemented(py) };
        let a = self.get();
        Ok(wrap(py, call(|| a.pow(&o))?)?.into_any())
    }

    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(o) = operand(other) else { return not_implemented(py) };
        let a = self.get();
        Ok(wrap(py, call(|| o.pow(&a))?)?.into_any())
    }

    fn __neg__(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.neg())?)
    }

    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.clone().unbind()
    }

    /// `self + alpha * other`
    #[pyo3(signature = (other, *, alpha=None))]
    fn add(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> Out {
        let alpha = alpha_arg(&self.get(), alpha, "add")?;
        method_op(py, &self.get(), other, "add", |a, b| a.add(&scaled(b, alpha)?))
    }

    /// `self - alpha * other`
    #[pyo3(signature = (other, *, alpha=None))]
    fn sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> Out {
        let alpha = alpha_arg(&self.get(), alpha, "sub")?;
        method_op(py, &self.get(), other, "sub", |a, b| a.sub(&scaled(b, alpha)?))
    }

    fn mul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "mul", |a, b| a.mul(b))
    }

    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn div(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: Option<&str>) -> Out {
        match rounding_mode {
            None => method_op(py, &self.get(), other, "div", |a, b| a.div(b)),
            Some("floor") => method_op(py, &self.get(), other, "div", |a, b| a.binary(b, Binary::FloorDiv)),
            Some("trunc") => method_op(py, &self.get(), other, "div", |a, b| a.binary(b, Binary::TruncDiv)),
            Some(m) => Err(PyRuntimeError::new_err(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
            ))),
        }
    }

    fn floor_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "floor_divide", |a, b| a.floor_divide(b))
    }

    fn __floordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.floor_divide(b))
    }

    fn __rfloordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.floor_divide(b))
    }

    fn pow(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "pow", |a, b| a.pow(b))
    }

    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "eq", |a, b| a.compare(b, Compare::Eq))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Eq))
    }

    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "ne", |a, b| a.compare(b, Compare::Ne))
    }

    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ne))
    }

    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "lt", |a, b| a.compare(b, Compare::Lt))
    }

    fn __lt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Lt))
    }

    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "le", |a, b| a.compare(b, Compare::Le))
    }

    fn __le__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Le))
    }

    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "gt", |a, b| a.compare(b, Compare::Gt))
    }

    fn __gt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Gt))
    }

    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "ge", |a, b| a.compare(b, Compare::Ge))
    }

    fn __ge__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ge))
    }

    fn neg(&self, py: Python<'_>) -> Out {
        self.__neg__(py)
    }

    fn __mod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, false, |a, b| a.binary(b, Binary::Remainder))
    }

    fn __rmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_op(py, &self.get(), other, true, |a, b| a.binary(b, Binary::Remainder))
    }
}
