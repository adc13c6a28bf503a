//! Elementwise binary ops beyond arithmetic, clamp, lerp, addcmul/addcdiv, where, logic and float tests.
use super::arith::method_op;
use super::{wrap, Out, PyTensor};
use crate::args::{operand_arg, tensor_arg, tensor_arg_at, type_name};
use crate::convert::as_scalar;
use crate::errors::{call, call_heavy};
use ferrograd_core::binary::{Binary, ClampBound, ClampMethod};
use ferrograd_core::unary::FloatClass;
use ferrograd_core::Tensor;
use ferrograd_core::{DType, Scalar};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;

/// `clamp`'s bounds: numbers or tensors (a number beside a tensor broadcasts as a 0-dim tensor).
/// Returns them with whether a bound requires grad.
pub(super) fn clamp_bounds(
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Option<ClampBound>, Option<ClampBound>, bool)> {
    let (min, max) = (min.filter(|m| !m.is_none()), max.filter(|m| !m.is_none()));
    let is_tensor = |o: &Option<&Bound<'_, PyAny>>| o.is_some_and(|o| o.cast::<PyTensor>().is_ok());
    let tensors = is_tensor(&min) || is_tensor(&max);
    let is_number = |o: &Option<&Bound<'_, PyAny>>| o.is_some_and(|o| o.cast::<PyTensor>().is_err());
    // a number with a tensor matches only PyTorch's clamp(Tensor, Number?, Number?): the tensor must be 0-dim
    // and need no gradient, and its value is taken as a number (so the result's dtype is the input's, or the
    // default float for an integer input and a float bound, never the tensor's float64)
    if (is_tensor(&min) && is_number(&max)) || (is_number(&min) && is_tensor(&max)) {
        let number = |o: &Bound<'_, PyAny>| -> PyResult<ClampBound> {
            let value = match o.cast::<PyTensor>() {
                Ok(t) => {
                    let t = t.get().get();
                    (t.ndim() == 0 && !t.requires_grad()).then(|| t.item().ok()).flatten()
                }
                Err(_) => as_scalar(o),
            };
            value.map(ClampBound::Number).ok_or_else(|| {
                let kind = |o: &Option<&Bound<'_, PyAny>>| match o {
                    Some(o) if is_tensor(&Some(*o)) => "Tensor".to_string(),
                    Some(o) => type_name(o).to_string(),
                    None => "NoneType".to_string(),
                };
                PyTypeError::new_err(format!(
                    "clamp() received an invalid combination of arguments - got (Tensor, {}, {})",
                    kind(&min),
                    kind(&max)
                ))
            })
        };
        let (lo, hi) = (min.map(number).transpose()?, max.map(number).transpose()?);
        return Ok((lo, hi, false));
    }
    let bound = |o: &Bound<'_, PyAny>, name: &str| -> PyResult<ClampBound> {
        if tensors {
            return Ok(ClampBound::Tensor(operand_arg(o, "clamp", name)?));
        }
        as_scalar(o).map(ClampBound::Number).ok_or_else(|| {
            PyTypeError::new_err(format!("clamp(): argument '{name}' must be Number, not {}", type_name(o)))
        })
    };
    let (lo, hi) = (min.map(|m| bound(m, "min")).transpose()?, max.map(|m| bound(m, "max")).transpose()?);
    let requires_grad = [&lo, &hi].iter().any(|b| matches!(b, Some(ClampBound::Tensor(t)) if t.requires_grad()));
    Ok((lo, hi, requires_grad))
}

fn clamp_impl(
    py: Python<'_>,
    a: Tensor,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    method: ClampMethod,
) -> Out {
    let (lo, hi, _) = clamp_bounds(min, max)?;
    wrap(py, call_heavy(py, a.numel(), || a.clamp(lo, hi, method))?)
}

/// The methods taking one tensor `other` into a `Binary` op.
macro_rules! tensor_binary_methods {
    ($($name:ident => $op:ident;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
                    let b = tensor_arg(other, stringify!($name), "other")?;
                    wrap(py, call(|| self.get().binary(&b, Binary::$op))?)
                }
            )*
        }
    };
}
tensor_binary_methods! {
    hypot => Hypot;
    fmax => Fmax;
    fmin => Fmin;
    logaddexp => Logaddexp;
    logaddexp2 => Logaddexp2;
    nextafter => Nextafter;
    ldexp => Ldexp;
    gcd => Gcd;
    lcm => Lcm;
}

#[pymethods]
impl PyTensor {
    fn maximum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "maximum", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Maximum))?)
    }

    fn minimum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "minimum", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Minimum))?)
    }

    fn atan2(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "atan2", "other")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Atan2))?)
    }

    fn arctan2(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        self.atan2(py, other)
    }

    fn copysign(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "copysign", |a, b| a.binary(b, Binary::Copysign))
    }

    fn heaviside(&self, py: Python<'_>, values: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(values, "heaviside", "values")?;
        wrap(py, call(|| self.get().binary(&b, Binary::Heaviside))?)
    }

    fn float_power(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> Out {
        let b = operand_arg(exponent, "float_power", "exponent")?;
        wrap(py, call(|| self.get().float_power(&b))?)
    }

    fn fmod(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "fmod", |a, b| a.binary(b, Binary::Fmod))
    }

    fn remainder(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        method_op(py, &self.get(), other, "remainder", |a, b| a.binary(b, Binary::Remainder))
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clamp(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> Out {
        clamp_impl(py, self.get(), min, max, ClampMethod::Clamp)
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clip(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> Out {
        clamp_impl(py, self.get(), min, max, ClampMethod::Clamp)
    }

    fn clamp_min(&self, py: Python<'_>, min: &Bound<'_, PyAny>) -> Out {
        clamp_impl(py, self.get(), Some(min), None, ClampMethod::ClampMin)
    }

    fn clamp_max(&self, py: Python<'_>, max: &Bound<'_, PyAny>) -> Out {
        clamp_impl(py, self.get(), None, Some(max), ClampMethod::ClampMax)
    }

    fn lerp(&self, py: Python<'_>, end: &Bound<'_, PyAny>, weight: &Bound<'_, PyAny>) -> Out {
        let e = tensor_arg(end, "lerp", "end")?;
        let w = operand_arg(weight, "lerp", "weight")?;
        wrap(py, call(|| self.get().lerp(&e, &w))?)
    }

    /// self + value * tensor1 * tensor2.
    #[pyo3(signature = (tensor1, tensor2, *, value=None), text_signature = "($self, tensor1, tensor2, *, value=1)")]
    fn addcmul(
        &self,
        py: Python<'_>,
        tensor1: &Bound<'_, PyAny>,
        tensor2: &Bound<'_, PyAny>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = tensor_arg_at(tensor1, "addcmul", "tensor1", 1)?;
        let b = tensor_arg_at(tensor2, "addcmul", "tensor2", 2)?;
        let value = value_arg(value, "addcmul")?;
        wrap(py, call_heavy(py, a.numel(), || self.get().addcmul(&a, &b, value))?)
    }

    /// self + value * tensor1 / tensor2.
    #[pyo3(signature = (tensor1, tensor2, *, value=None), text_signature = "($self, tensor1, tensor2, *, value=1)")]
    fn addcdiv(
        &self,
        py: Python<'_>,
        tensor1: &Bound<'_, PyAny>,
        tensor2: &Bound<'_, PyAny>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let a = tensor_arg_at(tensor1, "addcdiv", "tensor1", 1)?;
        let b = tensor_arg_at(tensor2, "addcdiv", "tensor2", 2)?;
        let value = value_arg(value, "addcdiv")?;
        wrap(py, call_heavy(py, a.numel(), || self.get().addcdiv(&a, &b, value))?)
    }

    /// `x.where(condition, y)` is `where(condition, x, y)`.
    #[pyo3(name = "where")]
    fn where_method(&self, py: Python<'_>, condition: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> Out {
        let c = tensor_arg(condition, "where", "condition")?;
        let o = operand_arg(other, "where", "other")?;
        wrap(py, call(|| Tensor::where_(&c, &self.get(), &o))?)
    }

    fn logical_and(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_and", "other")?;
        wrap(py, call(|| self.get().logical_and(&b))?)
    }

    fn logical_or(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_or", "other")?;
        wrap(py, call(|| self.get().logical_or(&b))?)
    }

    fn logical_xor(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Out {
        let b = tensor_arg(other, "logical_xor", "other")?;
        wrap(py, call(|| self.get().logical_xor(&b))?)
    }

    fn logical_not(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().logical_not())?)
    }

    fn isnan(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::Nan))?)
    }

    fn isinf(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::Infinite))?)
    }

    fn isfinite(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::Finite))?)
    }

    /// `self` itself (torch's `positive`, the unary `+`); torch refuses it for bools.
    fn positive(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        if slf.get().get().dtype() == DType::Bool {
            return Err(PyNotImplementedError::new_err("The `+` operator, on a bool tensor is not supported."));
        }
        Ok(slf.clone().unbind())
    }

    fn isposinf(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::PosInf))?)
    }

    fn isneginf(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::NegInf))?)
    }

    fn signbit(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().float_class(FloatClass::SignBit))?)
    }

    /// Elementwise |self - other| <= atol + rtol·|other| (a bool tensor).
    #[pyo3(signature = (other, rtol=1e-5, atol=1e-8, equal_nan=false))]
    fn isclose(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> Out {
        let b = tensor_arg(other, "isclose", "other")?;
        wrap(py, call(|| self.get().isclose(&b, rtol, atol, equal_nan))?)
    }

    #[pyo3(signature = (other, rtol=1e-5, atol=1e-8, equal_nan=false))]
    fn allclose(&self, other: &Bound<'_, PyAny>, rtol: f64, atol: f64, equal_nan: bool) -> PyResult<bool> {
        let b = tensor_arg(other, "allclose", "other")?;
        call(|| self.get().allclose(&b, rtol, atol, equal_nan))
    }

    fn equal(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let b = tensor_arg(other, "equal", "other")?;
        call(|| self.get().equal(&b))
    }
}

/// `value=` of addcmul/addcdiv: a number, or a one-element tensor taken as one (as torch's Scalar); 1 if absent.
fn value_arg(value: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Scalar> {
    let Some(value) = value else { return Ok(Scalar::Int(1)) };
    let number = match value.cast::<PyTensor>() {
        Ok(t) => t.get().get().item().ok(),
        Err(_) => as_scalar(value),
    };
    number.ok_or_else(|| {
        PyTypeError::new_err(format!("{func}(): argument 'value' must be Number, not {}", type_name(value)))
    })
}
