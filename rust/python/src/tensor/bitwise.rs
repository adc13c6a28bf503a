//! `& | ^ << >> ~`: the operators, their method forms and in-place forms, and in-place logic.
use super::arith::{binary_op, method_op};
use super::{inplace_with, wrap, Out, PyTensor};
use crate::args::{operand, operand_arg, tensor_arg, type_name};
use crate::errors::call;
use ferrograd_core::binary::Bitwise;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// `x op= y`: torch's TypeError (Python's own words) for an operand that is not a tensor or a number.
fn inplace_operator(slf: &Bound<'_, PyTensor>, other: &Bound<'_, PyAny>, op: Bitwise, symbol: &str) -> PyResult<()> {
    let Some(b) = operand(other) else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type(s) for {symbol}=: 'Tensor' and '{}'",
            type_name(other)
        )));
    };
    inplace_with(slf, false, |old| old.bitwise_for_inplace(&b, op)).map(|_| ())
}

fn inplace_method(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    op: Bitwise,
    name: &str,
) -> PyResult<Py<PyTensor>> {
    let b = operand_arg(other, name, "other")?;
    inplace_with(slf, false, |old| old.bitwise_for_inplace(&b, op))
}

// The operators: NotImplemented for an operand that is not a tensor or a number. The reflected forms
// of the symmetric ones are the ops themselves (torch's `__rand__` is `bitwise_and(self, other)`).
shared_signature! {
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>>;
    __and__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::And));
    __rand__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::And));
    __or__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::Or));
    __ror__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::Or));
    __xor__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::Xor));
    __rxor__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::Xor));
    __lshift__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::LeftShift));
    __rlshift__ => binary_op(py, &self.get(), other, true, |a, b| a.bitwise(b, Bitwise::LeftShift));
    __rshift__ => binary_op(py, &self.get(), other, false, |a, b| a.bitwise(b, Bitwise::RightShift));
    __rrshift__ => binary_op(py, &self.get(), other, true, |a, b| a.bitwise(b, Bitwise::RightShift));
}

// The method forms: a bad operand is a TypeError naming the argument.
shared_signature! {
    fn (&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out;
    bitwise_and => method_op(py, &self.get(), other, "bitwise_and", |a, b| a.bitwise(b, Bitwise::And));
    bitwise_or => method_op(py, &self.get(), other, "bitwise_or", |a, b| a.bitwise(b, Bitwise::Or));
    bitwise_xor => method_op(py, &self.get(), other, "bitwise_xor", |a, b| a.bitwise(b, Bitwise::Xor));
    bitwise_left_shift =>
        method_op(py, &self.get(), other, "bitwise_left_shift", |a, b| a.bitwise(b, Bitwise::LeftShift));
    bitwise_right_shift =>
        method_op(py, &self.get(), other, "bitwise_right_shift", |a, b| a.bitwise(b, Bitwise::RightShift));
}

shared_signature! {
    fn (slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>>;
    bitwise_and_ => inplace_method(slf, other, Bitwise::And, "bitwise_and_");
    bitwise_or_ => inplace_method(slf, other, Bitwise::Or, "bitwise_or_");
    bitwise_xor_ => inplace_method(slf, other, Bitwise::Xor, "bitwise_xor_");
    bitwise_left_shift_ => inplace_method(slf, other, Bitwise::LeftShift, "bitwise_left_shift_");
    bitwise_right_shift_ => inplace_method(slf, other, Bitwise::RightShift, "bitwise_right_shift_");
    logical_and_ => {
        let b = tensor_arg(other, "logical_and_", "other")?;
        inplace_with(slf, false, |old| old.logical_and(&b))
    };
    logical_or_ => {
        let b = tensor_arg(other, "logical_or_", "other")?;
        inplace_with(slf, false, |old| old.logical_or(&b))
    };
    logical_xor_ => {
        let b = tensor_arg(other, "logical_xor_", "other")?;
        inplace_with(slf, false, |old| old.logical_xor(&b))
    };
}

shared_signature! {
    fn (slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()>;
    __iand__ => inplace_operator(slf, other, Bitwise::And, "&");
    __ior__ => inplace_operator(slf, other, Bitwise::Or, "|");
    __ixor__ => inplace_operator(slf, other, Bitwise::Xor, "^");
    __ilshift__ => inplace_operator(slf, other, Bitwise::LeftShift, "<<");
    __irshift__ => inplace_operator(slf, other, Bitwise::RightShift, ">>");
}

#[pymethods]
impl PyTensor {
    fn __invert__(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().invert())?)
    }

    fn bitwise_not(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().bitwise_not())?)
    }

    fn bitwise_not_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_with(slf, false, |old| old.bitwise_not())
    }

    fn logical_not_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_with(slf, false, |old| old.logical_not())
    }
}
