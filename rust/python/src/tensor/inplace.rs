//! In-place ops: the Python object keeps its identity and takes the result's history.
use super::arith::{alpha_arg, scaled};
use super::{clamp_bounds, index_tensor, inplace_with, scatter_impl};
use super::{wrap, PyTensor};
use crate::args::{operand, operand_arg, tensor_arg, type_name};
use crate::errors::{call, call_as};
use ferrograd_core::binary::{AlphaOp, ClampMethod, Compare};
use ferrograd_core::copy::DenseWrite;
use ferrograd_core::random;
use ferrograd_core::{Scalar, Tensor};
use pyo3::exceptions::{PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

fn inplace_binary(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    name: &str,
    op: DenseWrite,
) -> PyResult<Py<PyTensor>> {
    let b = operand_arg(other, name, "other")?;
    inplace_arith(slf, b, op)
}

static DEPRECATED_OVERLOAD_WARNED: AtomicBool = AtomicBool::new(false);

/// `add_`/`sub_` with `alpha=`; two positionals are torch's deprecated `(Number alpha, Tensor other)` overload,
/// accepted with torch's warning.
fn inplace_scaled(
    slf: &Bound<'_, PyTensor>,
    first: &Bound<'_, PyAny>,
    second: Option<&Bound<'_, PyAny>>,
    alpha: Option<&Bound<'_, PyAny>>,
    name: &str,
    op: DenseWrite,
) -> PyResult<Py<PyTensor>> {
    let (other, alpha) = match second {
        None => (first, alpha),
        Some(other) if alpha.is_none() => {
            let message = format!(
                "This overload of {name} is deprecated:\n\t{name}(Number alpha, Tensor other)\n\
                 Consider using one of the following signatures instead:\n\t{name}(Tensor other, *, Number alpha = 1)"
            );
            // once a process, as torch warns of its deprecated overloads
            if !DEPRECATED_OVERLOAD_WARNED.swap(true, Ordering::Relaxed) {
                let py = slf.py();
                PyErr::warn(py, &py.get_type::<PyUserWarning>(), &CString::new(message)?, 1)?;
            }
            (other, Some(first))
        }
        Some(_) => return Err(PyTypeError::new_err(format!("{name}() got multiple values for argument 'alpha'"))),
    };
    let Some(alpha) = alpha else { return inplace_binary(slf, other, name, op) };
    let this = slf.get().get();
    let func = name.trim_end_matches('_');
    let alpha = alpha_arg(Some(alpha), func)?;
    let b = operand_arg(other, name, "other")?;
    let alpha_op = if op == DenseWrite::Sub { AlphaOp::Sub } else { AlphaOp::Add };
    let b = call(|| scaled(&this, &b, alpha, alpha_op))?;
    inplace_arith(slf, b, op)
}

/// An in-place op with a tensor operand (`TensorHandle::apply_arith`).
fn inplace_arith(slf: &Bound<'_, PyTensor>, b: Tensor, op: DenseWrite) -> PyResult<Py<PyTensor>> {
    call_as(op.inplace_name(), || slf.get().handle.apply_arith(&b, op))?;
    Ok(slf.clone().unbind())
}

fn inplace_unary(
    slf: &Bound<'_, PyTensor>,
    f: fn(&Tensor) -> ferrograd_core::Result<Tensor>,
) -> PyResult<Py<PyTensor>> {
    inplace_with(slf, false, f)
}

/// `eq_` and the other in-place comparisons (the core's `compare_for_inplace`).
fn inplace_compare(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    name: &str,
    op: Compare,
) -> PyResult<Py<PyTensor>> {
    let b = operand_arg(other, name, "other")?;
    inplace_with(slf, b.requires_grad(), |old| old.compare_for_inplace(&b, op))
}

/// `fill_` / `zero_`; through a view of a graph tensor the base records the write.
/// Whether `slf` is a meta tensor, which an in-place fill leaves as it is (there is nothing to write, as in torch:
/// `nn.init` on a module built under `with torch.device('meta')`).
fn is_meta(slf: &Bound<'_, PyTensor>) -> bool {
    slf.get().get().is_meta()
}

fn fill(slf: &Bound<'_, PyTensor>, value: Scalar, zero: bool) -> PyResult<Py<PyTensor>> {
    if is_meta(slf) {
        return Ok(slf.clone().unbind());
    }
    call(|| slf.get().handle.fill(value, zero))?;
    Ok(slf.clone().unbind())
}

/// `x += y`: PyO3 returns `x` itself afterwards.
fn inplace_dunder(slf: &Bound<'_, PyTensor>, other: &Bound<'_, PyAny>, op: DenseWrite) -> PyResult<()> {
    let Some(b) = operand(other) else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type for in-place op: 'Tensor' and '{}'",
            type_name(other)
        )));
    };
    inplace_arith(slf, b, op).map(|_| ())
}

#[pymethods]
impl PyTensor {
    /// `self += alpha * other`; also torch's deprecated `add_(alpha, other)` (hand-written SGD loops use it).
    #[pyo3(signature = (other, deprecated_other=None, *, alpha=None))]
    fn add_(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        deprecated_other: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        inplace_scaled(slf, other, deprecated_other, alpha, "add_", DenseWrite::Add)
    }

    /// `self -= alpha * other`; also the deprecated `sub_(alpha, other)`.
    #[pyo3(signature = (other, deprecated_other=None, *, alpha=None))]
    fn sub_(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        deprecated_other: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        inplace_scaled(slf, other, deprecated_other, alpha, "sub_", DenseWrite::Sub)
    }

    fn mul_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "mul_", DenseWrite::Mul)
    }

    fn div_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_binary(slf, other, "div_", DenseWrite::Div)
    }

    fn pow_(slf: &Bound<'_, Self>, exponent: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let b = operand_arg(exponent, "pow_", "other")?;
        inplace_with(slf, b.requires_grad(), |old| old.pow(&b))
    }

    fn eq_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "eq_", Compare::Eq)
    }

    fn ne_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "ne_", Compare::Ne)
    }

    fn lt_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "lt_", Compare::Lt)
    }

    fn le_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "le_", Compare::Le)
    }

    fn gt_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "gt_", Compare::Gt)
    }

    fn ge_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        inplace_compare(slf, other, "ge_", Compare::Ge)
    }

    fn neg_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        inplace_unary(slf, |a| a.neg())
    }

    fn zero_(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        fill(slf, Scalar::Int(0), true)
    }

    fn fill_(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        if let Ok(t) = value.cast::<PyTensor>() {
            let v = t.get().get();
            call(|| slf.get().handle.fill_tensor(&v))?;
            return Ok(slf.clone().unbind());
        }
        let v = crate::convert::as_scalar(value).ok_or_else(|| {
            PyTypeError::new_err(format!("fill_(): argument 'value' must be Number, not {}", type_name(value)))
        })?;
        fill(slf, v, false)
    }

    /// `torch.fill(self, value)`: a new tensor holding `value` (a number or a 0-dim tensor).
    fn _fill(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let a = self.get();
        if let Ok(t) = value.cast::<PyTensor>() {
            let v = t.get().get();
            return wrap(py, call(|| a.fill_tensor(&v))?);
        }
        let v = crate::convert::as_scalar(value).ok_or_else(|| {
            PyTypeError::new_err(format!("fill(): argument 'value' must be Number, not {}", type_name(value)))
        })?;
        wrap(py, call(|| a.fill(v))?)
    }

    fn copy_(slf: &Bound<'_, Self>, src: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let s = tensor_arg(src, "copy_", "src")?;
        if is_meta(slf) {
            return Ok(slf.clone().unbind());
        }
        crate::errors::refuse_meta(&s)?;
        call(|| slf.get().handle.copy_from(&s))?;
        Ok(slf.clone().unbind())
    }

    fn __iadd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Add)
    }

    fn __isub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Sub)
    }

    fn __imul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Mul)
    }

    fn __itruediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace_dunder(slf, other, DenseWrite::Div)
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clamp_(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let (lo, hi, bounds_require_grad) = clamp_bounds(min, max)?;
        inplace_with(slf, bounds_require_grad, move |a| a.clamp(lo, hi, ClampMethod::Clamp))
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<Py<PyTensor>> {
        let s = src.and_then(|s| s.cast::<PyTensor>().ok()).map(|s| s.get().get().requires_grad()).unwrap_or(false);
        let (index, src, value) = (index.clone(), src.cloned(), value.cloned());
        crate::py_tensor::inplace_with(slf, s, |old| {
            scatter_impl(old, dim, &index, src.as_ref(), value.as_ref(), reduce).map_err(crate::errors::from_py)
        })
    }

    fn scatter_add_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let (i, s) = (index_tensor(index, "scatter_add_", "index")?, tensor_arg(src, "scatter_add_", "src")?);
        inplace_with(slf, s.requires_grad(), |old| old.scatter(dim, &i, &s, true, false))
    }

    #[pyo3(signature = (dim, index, source, *, alpha=1.0))]
    fn index_add_(
        slf: &Bound<'_, Self>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        alpha: f64,
    ) -> PyResult<Py<PyTensor>> {
        let (i, s) = (index_tensor(index, "index_add_", "index")?, tensor_arg(source, "index_add_", "source")?);
        inplace_with(slf, s.requires_grad(), |old| old.index_add(dim, &i, &s, alpha))
    }

    fn masked_fill_(
        slf: &Bound<'_, Self>,
        mask: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let (m, v) = (tensor_arg(mask, "masked_fill_", "mask")?, operand_arg(value, "masked_fill_", "value")?);
        inplace_with(slf, v.requires_grad(), |old| old.masked_fill(&m, &v))
    }

    #[pyo3(signature = (from_=0.0, to=1.0, *, generator=None))]
    fn uniform_(
        slf: &Bound<'_, Self>,
        from_: f64,
        to: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "uniform_")?;
        if is_meta(slf) {
            return Ok(slf.clone().unbind());
        }
        inplace_with(slf, false, |old| random::uniform(&gen, old.shape(), old.dtype(), from_, to))
    }

    /// `bernoulli_(p)`: 1 with probability p (a number, or a tensor of this shape), else 0, in place.
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli_(
        slf: &Bound<'_, Self>,
        p: Option<&Bound<'_, PyAny>>,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "bernoulli_")?;
        match p.filter(|p| !p.is_none()) {
            Some(t) if t.cast::<PyTensor>().is_ok() => {
                let probs = tensor_arg(t, "bernoulli_", "p")?;
                inplace_with(slf, false, |old| {
                    let probs = probs.expand(old.shape())?;
                    random::bernoulli(&gen, &probs)?.to_dtype(old.dtype())
                })
            }
            p => {
                let p: f64 = p.map(|p| p.extract()).transpose()?.unwrap_or(0.5);
                inplace_with(slf, false, |old| random::bernoulli_scalar(&gen, old.shape(), old.dtype(), p, 1.0))
            }
        }
    }

    #[pyo3(signature = (lambd=1.0, *, generator=None))]
    fn exponential_(slf: &Bound<'_, Self>, lambd: f64, generator: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "exponential_")?;
        inplace_with(slf, false, |old| random::exponential(&gen, old.shape(), old.dtype(), lambd))
    }

    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    fn normal_(
        slf: &Bound<'_, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "normal_")?;
        if is_meta(slf) {
            return Ok(slf.clone().unbind());
        }
        inplace_with(slf, false, |old| random::normal(&gen, old.shape(), old.dtype(), mean, std))
    }
}
