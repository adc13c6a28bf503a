//! torch.special's functions: the argument-free ones of the core's `for_each_special_unary_op!` by name
//! (`_special`), the binary xlogy / xlog1py / zeta with a number in either position, igamma / igammac of
//! two tensors, and the Tensor methods with an integer argument (polygamma, mvlgamma), an operand (xlogy)
//! or a tensor (igamma, igammac and their in-place forms).
use super::{inplace_with, wrap, Out, PyTensor};
use crate::args::{operand, tensor_arg, tensor_arg_at, type_name};
use crate::errors::{call, call_heavy};
use ferrograd_core::binary::Binary;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

macro_rules! special_dispatch {
    ($($name:ident: $op:path;)*) => {
        /// `torch.special.<name>(input)` for the argument-free functions torch has only there.
        #[pyfunction]
        pub fn _special(py: Python<'_>, name: &str, input: &Bound<'_, PyAny>) -> Out {
            let a = tensor_arg(input, &format!("special_{name}"), "input")?;
            match name {
                $(stringify!($name) => wrap(py, call_heavy(py, a.numel(), || a.unary($op))?),)*
                _ => Err(PyValueError::new_err(format!("no special function {name:?}"))),
            }
        }

        /// The names `_special` accepts, for the Python facade.
        #[pyfunction]
        pub fn _special_names() -> Vec<&'static str> {
            vec![$(stringify!($name)),*]
        }
    };
}
ferrograd_core::for_each_special_unary_op!(special_dispatch);

/// `op(input, other)` where either (not both) may be a number, with torch's TypeError otherwise.
fn binary_with_numbers(
    py: Python<'_>,
    name: &str,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    op: Binary,
) -> Out {
    let both_tensors_or_one = input.cast::<PyTensor>().is_ok() || other.cast::<PyTensor>().is_ok();
    match (operand(input), operand(other)) {
        (Some(a), Some(b)) if both_tensors_or_one => {
            wrap(py, call_heavy(py, a.numel().max(b.numel()), || a.binary(&b, op))?)
        }
        _ => Err(PyTypeError::new_err(format!(
            "{name}() received an invalid combination of arguments - got ({}, {}), but expected one of:\n \
             * (Tensor input, Tensor other, *, Tensor out = None)\n \
             * (Number self, Tensor other, *, Tensor out = None)\n \
             * (Tensor input, Number other, *, Tensor out = None)\n",
            type_name(input),
            type_name(other)
        ))),
    }
}

/// `name` is the function torch names in its TypeError (`xlogy` or `special_xlogy`).
#[pyfunction]
#[pyo3(signature = (input, other, name="xlogy"))]
pub fn _xlogy(py: Python<'_>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>, name: &str) -> Out {
    binary_with_numbers(py, name, input, other, Binary::Xlogy)
}

#[pyfunction]
pub fn _xlog1py(py: Python<'_>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> Out {
    binary_with_numbers(py, "special_xlog1py", input, other, Binary::Xlog1py)
}

#[pyfunction]
pub fn _zeta(py: Python<'_>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> Out {
    binary_with_numbers(py, "special_zeta", input, other, Binary::Zeta)
}

/// The regularized incomplete gamma functions of two tensors (torch takes no number in either place);
/// `name` is the function torch names in its TypeError.
fn incomplete_gamma(py: Python<'_>, name: &str, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>, op: Binary) -> Out {
    let a = tensor_arg_at(input, name, "input", 1)?;
    let x = tensor_arg_at(other, name, "other", 2)?;
    wrap(py, call_heavy(py, a.numel().max(x.numel()), || a.binary(&x, op))?)
}

/// `torch.igamma` (`name="special_gammainc"` for torch.special's): P(input, other).
#[pyfunction]
#[pyo3(signature = (input, other, name="igamma"))]
pub fn _igamma(py: Python<'_>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>, name: &str) -> Out {
    incomplete_gamma(py, name, input, other, Binary::Igamma)
}

/// `torch.igammac` (`name="special_gammaincc"` for torch.special's): Q(input, other) = 1 - P.
#[pyfunction]
#[pyo3(signature = (input, other, name="igammac"))]
pub fn _igammac(py: Python<'_>, input: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>, name: &str) -> Out {
    incomplete_gamma(py, name, input, other, Binary::Igammac)
}

/// `self.<name>(other)` in place: `other` a tensor, the result written in self's dtype.
fn incomplete_gamma_(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    name: &str,
    op: Binary,
) -> PyResult<Py<PyTensor>> {
    let x = tensor_arg(other, name, "other")?;
    inplace_with(slf, x.requires_grad(), |old| old.binary(&x, op))
}

#[pymethods]
impl PyTensor {
    /// P(self, other), the regularized lower incomplete gamma function.
    fn igamma(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, x) = (self.get(), tensor_arg(other, "igamma", "other")?);
        wrap(py, call_heavy(py, a.numel().max(x.numel()), || a.binary(&x, Binary::Igamma))?)
    }

    /// Q(self, other) = 1 - P(self, other), the regularized upper incomplete gamma function.
    fn igammac(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let (a, x) = (self.get(), tensor_arg(other, "igammac", "other")?);
        wrap(py, call_heavy(py, a.numel().max(x.numel()), || a.binary(&x, Binary::Igammac))?)
    }

    /// In-place ``igamma()``; returns this tensor.
    fn igamma_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        incomplete_gamma_(slf, other, "igamma_", Binary::Igamma)
    }

    /// In-place ``igammac()``; returns this tensor.
    fn igammac_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        incomplete_gamma_(slf, other, "igammac_", Binary::Igammac)
    }

    fn xlogy(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let a = self.get();
        let b = operand(other).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "xlogy(): argument 'other' (position 1) must be Tensor, not {}",
                type_name(other)
            ))
        })?;
        wrap(py, call(|| a.binary(&b, Binary::Xlogy))?)
    }

    fn polygamma(&self, py: Python<'_>, n: i64) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.polygamma(n))?)
    }

    /// In place under torch's own node for it (PolygammaBackward1).
    fn polygamma_(slf: &Bound<'_, Self>, n: i64) -> PyResult<Py<PyTensor>> {
        inplace_with(slf, false, |a| a.polygamma_inplace_form(n))
    }

    fn mvlgamma(&self, py: Python<'_>, p: i64) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.mvlgamma(p))?)
    }
}
