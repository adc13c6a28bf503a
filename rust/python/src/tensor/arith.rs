//! Arithmetic and comparisons: the operators and their method forms.
use super::{wrap, Out, PyTensor};
use crate::args::{operand, operand_arg, type_name};
use crate::convert::as_scalar;
use crate::errors::{call, call_heavy};
use ferrograd_core::binary::{AlphaOp, Binary, Compare};
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

/// `alpha=` of add/sub: a number (the core checks it against the result dtype).
pub(super) fn alpha_arg(alpha: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Option<Scalar>> {
    let Some(alpha) = alpha else { return Ok(None) };
    let value = as_scalar(alpha).ok_or_else(|| {
        PyTypeError::new_err(format!("{func}(): argument 'alpha' must be Number, not {}", type_name(alpha)))
    })?;
    Ok(Some(value))
}

/// `alpha * b` as `a + alpha * b` reads it (b itself when alpha is absent or 1): `Tensor::alpha_scaled`.
pub(super) fn scaled(a: &Tensor, b: &Tensor, alpha: Option<Scalar>, op: AlphaOp) -> ferrograd_core::Result<Tensor> {
    match alpha {
        None => Ok(b.clone()),
        Some(alpha) => a.alpha_scaled(b, alpha, op),
    }
}

/// `a @ b` (`reflected`: `b @ a`); NotImplemented for a non-tensor `other`.
fn matmul_op(py: Python<'_>, a: Tensor, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<Py<PyAny>> {
    let Ok(b) = other.cast::<PyTensor>() else { return not_implemented(py) };
    let b = b.get().get();
    let (x, y) = if reflected { (&b, &a) } else { (&a, &b) };
    Ok(wrap(py, call_heavy(py, a.numel() + b.numel(), || x.matmul(y))?)?.into_any())
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

/// `add`/`sub` with `alpha=`: `f(self, alpha * other)`.
fn alpha_method(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    op: AlphaOp,
    f: impl FnOnce(&Tensor, &Tensor) -> ferrograd_core::Result<Tensor>,
) -> Out {
    let name = match op {
        AlphaOp::Add => "add",
        AlphaOp::Sub => "sub",
    };
    let alpha = alpha_arg(alpha, name)?;
    method_op(py, a, other, name, |a, b| f(a, &scaled(a, b, alpha, op)?))
}

#[pymethods]
impl PyTensor {
    fn __neg__(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.neg())?)
    }

    /// `abs(t)`.
    fn __abs__(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.abs())?)
    }

    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.clone().unbind()
    }

    fn neg(&self, py: Python<'_>) -> Out {
        self.__neg__(py)
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
}

// The operators: NotImplemented for an operand that is not a tensor or a number.
shared_signature! {
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>>;
    __add__ => binary_op(py, &self.get(), other, false, |a, b| a.add(b));
    /// `n + x` is `x.__radd__(n)`: torch records it as `x.add(n)`, so x's edge comes first.
    __radd__ => binary_op(py, &self.get(), other, false, |a, b| a.add(b));
    __sub__ => binary_op(py, &self.get(), other, false, |a, b| a.sub(b));
    __rsub__ => binary_op(py, &self.get(), other, true, |a, b| a.sub(b));
    __mul__ => binary_op(py, &self.get(), other, false, |a, b| a.mul(b));
    /// `n * x` is `x.__rmul__(n)`: torch records it as `x.mul(n)`, so x's edge comes first.
    __rmul__ => binary_op(py, &self.get(), other, false, |a, b| a.mul(b));
    __truediv__ => binary_op(py, &self.get(), other, false, |a, b| a.div(b));
    /// `n / x` is `x.reciprocal() * n` in PyTorch (so its grad_fn is MulBackward0).
    __rtruediv__ => binary_op(py, &self.get(), other, true, |n, x| x.reciprocal()?.mul(n));
    __floordiv__ => binary_op(py, &self.get(), other, false, |a, b| a.floor_divide(b));
    __rfloordiv__ => binary_op(py, &self.get(), other, true, |a, b| a.floor_divide(b));
    __mod__ => binary_op(py, &self.get(), other, false, |a, b| a.binary(b, Binary::Remainder));
    __rmod__ => binary_op(py, &self.get(), other, true, |a, b| a.binary(b, Binary::Remainder));
    __eq__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Eq));
    __ne__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ne));
    __lt__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Lt));
    __le__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Le));
    __gt__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Gt));
    __ge__ => binary_op(py, &self.get(), other, false, |a, b| a.compare(b, Compare::Ge));
    __matmul__ => matmul_op(py, self.get(), other, false);
    __rmatmul__ => matmul_op(py, self.get(), other, true);
}

// `modulo` (of the three-argument `pow`) is not supported and ignored, as before.
shared_signature! {
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>>;
    __pow__ => binary_op(py, &self.get(), other, false, |a, b| a.pow(b));
    __rpow__ => binary_op(py, &self.get(), other, true, |a, b| a.pow(b));
}

// The method forms: a bad operand is a TypeError naming the argument.
shared_signature! {
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out;
    mul => method_op(py, &self.get(), other, "mul", |a, b| a.mul(b));
    floor_divide => method_op(py, &self.get(), other, "floor_divide", |a, b| a.floor_divide(b));
    pow => method_op(py, &self.get(), other, "pow", |a, b| a.pow(b));
    eq => method_op(py, &self.get(), other, "eq", |a, b| a.compare(b, Compare::Eq));
    ne => method_op(py, &self.get(), other, "ne", |a, b| a.compare(b, Compare::Ne));
    lt => method_op(py, &self.get(), other, "lt", |a, b| a.compare(b, Compare::Lt));
    le => method_op(py, &self.get(), other, "le", |a, b| a.compare(b, Compare::Le));
    gt => method_op(py, &self.get(), other, "gt", |a, b| a.compare(b, Compare::Gt));
    ge => method_op(py, &self.get(), other, "ge", |a, b| a.compare(b, Compare::Ge));
}

shared_signature! {
    #[pyo3(signature = (other, *, alpha=None))]
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> Out;
    /// `self + alpha * other`
    add => alpha_method(py, &self.get(), other, alpha, AlphaOp::Add, |a, b| a.add(b));
    /// `self - alpha * other`
    sub => alpha_method(py, &self.get(), other, alpha, AlphaOp::Sub, |a, b| a.sub(b));
}
