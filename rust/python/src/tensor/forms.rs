//! Methods that are another method under torch's other name (`multiply` is `mul`), and in-place forms of
//! methods with arguments (`gt_` is `gt` written into self): one table each, which also makes their stubs and
//! function forms (`_method_forms()`, read by tools/gen_api.py, which copies the original method's stub).
//!
//! Both forward to the original method through Python (one method lookup, ~0.1 µs): these names are not on
//! the per-op hot path, which the originals (and the registry's `exp_`, `add_`, ...) keep.
use super::{inplace_with, PyTensor};
use crate::errors::from_py;
use ferrograd_core::autograd::grad_mode;
use ferrograd_core::DType;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Whether any tensor among the arguments requires grad (an in-place result then records).
fn any_requires_grad(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> bool {
    let requires = |o: Bound<'_, PyAny>| o.cast::<PyTensor>().is_ok_and(|t| t.get().get().requires_grad());
    args.iter().any(requires) || kwargs.is_some_and(|k| k.values().iter().any(requires))
}

/// `slf = slf.<method>(*args, **kwargs)` through the core's in-place machinery (version bump, the leaf
/// error, a view's write recorded on its base).
fn inplace_of(
    slf: &Bound<'_, PyTensor>,
    method: &str,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyTensor>> {
    let py = slf.py();
    inplace_with(slf, any_requires_grad(args, kwargs), |old| {
        let old = Bound::new(py, PyTensor::new(old.clone())).map_err(from_py)?;
        let result = old.call_method(method, args, kwargs).map_err(from_py)?;
        let result = result.cast::<PyTensor>().map_err(|e| from_py(e.into()))?.get().get();
        // a graph tensor taking values with no history would keep the history of the old ones (a wrong
        // gradient); torch fails such a write (floor_divide_) at backward, this at the write
        if grad_mode::is_enabled() && old.get().get().requires_grad() && !result.requires_grad() {
            let message = format!("derivative for aten::{method}_ is not implemented");
            return Err(from_py(PyRuntimeError::new_err(message)));
        }
        Ok(result)
    })
}

macro_rules! method_forms {
    (aliases { $($alias:ident => $original:literal,)* } inplace { $($inplace:ident => $of:literal,)* }) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = concat!("Alias for ``", $original, "()``.")]
                #[pyo3(signature = (*args, **kwargs))]
                fn $alias(
                    slf: &Bound<'_, Self>,
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyAny>> {
                    Ok(slf.call_method($original, args, kwargs)?.unbind())
                }
            )*
            $(
                #[doc = concat!("In-place ``", $of, "()``; returns this tensor.")]
                #[pyo3(signature = (*args, **kwargs))]
                fn $inplace(
                    slf: &Bound<'_, Self>,
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyTensor>> {
                    inplace_of(slf, $of, args, kwargs)
                }
            )*
        }

        /// (name, original method, whether it is the original's in-place form) of each method above.
        const METHOD_FORMS: &[(&str, &str, bool)] =
            &[$((stringify!($alias), $original, false),)* $((stringify!($inplace), $of, true),)*];
    };
}

// torch's aliases of methods that are not in the unary registry (whose aliases are registry lines), and the
// in-place forms torch has of methods with arguments.
method_forms! {
    aliases {
        multiply => "mul",
        multiply_ => "mul_",
        subtract => "sub",
        subtract_ => "sub_",
        divide => "div",
        divide_ => "div_",
        true_divide => "div",
        true_divide_ => "div_",
        greater => "gt",
        greater_ => "gt_",
        greater_equal => "ge",
        greater_equal_ => "ge_",
        less => "lt",
        less_ => "lt_",
        less_equal => "le",
        less_equal_ => "le_",
        not_equal => "ne",
        not_equal_ => "ne_",
        negative => "neg",
        negative_ => "neg_",
        clip_ => "clamp_",
        arctan2_ => "atan2_",
    }
    inplace {
        atan2_ => "atan2",
        hypot_ => "hypot",
        copysign_ => "copysign",
        heaviside_ => "heaviside",
        nextafter_ => "nextafter",
        gcd_ => "gcd",
        lcm_ => "lcm",
        fmod_ => "fmod",
        remainder_ => "remainder",
        floor_divide_ => "floor_divide",
        lerp_ => "lerp",
        addcmul_ => "addcmul",
        addcdiv_ => "addcdiv",
        clamp_min_ => "clamp_min",
        clamp_max_ => "clamp_max",
        tril_ => "tril",
        triu_ => "triu",
        square_ => "square",
        round_ => "round",
        logit_ => "logit",
        index_fill_ => "index_fill",
        index_copy_ => "index_copy",
        scatter_reduce_ => "scatter_reduce",
        index_put_ => "index_put",
        masked_scatter_ => "masked_scatter",
        addmm_ => "addmm",
        baddbmm_ => "baddbmm",
        addbmm_ => "addbmm",
        addmv_ => "addmv",
        addr_ => "addr",
        renorm_ => "renorm",
        nan_to_num_ => "nan_to_num",
        xlogy_ => "xlogy",
        put_ => "put",
        index_reduce_ => "index_reduce",
        mvlgamma_ => "mvlgamma",
    }
}

/// `slf` becomes `slf.<method>(*args)`, a view of itself (torch's in-place view ops: `t_`, `squeeze_`, ...).
fn restride_of(
    slf: &Bound<'_, PyTensor>,
    method: &str,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyTensor>> {
    let view = slf.call_method(method, args, kwargs).map_err(|e| {
        // the view op's own check names it; torch's in-place form names itself (`t_() expects ...`)
        let prefix = format!("{method}() expects");
        if e.is_instance_of::<PyRuntimeError>(slf.py()) && e.value(slf.py()).to_string().starts_with(&prefix) {
            let message = e.value(slf.py()).to_string().replacen(&prefix, &format!("{method}_() expects"), 1);
            return PyRuntimeError::new_err(message);
        }
        e
    })?;
    let view = view.cast::<PyTensor>()?.get().get();
    crate::errors::call(|| slf.get().handle.restride_in_place(view))?;
    Ok(slf.clone().unbind())
}

macro_rules! restride_forms {
    ($($inplace:ident => $of:literal,)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = concat!("In-place ``", $of, "()``: this tensor takes the view's shape and strides.")]
                #[pyo3(signature = (*args, **kwargs))]
                fn $inplace(
                    slf: &Bound<'_, Self>,
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyTensor>> {
                    restride_of(slf, $of, args, kwargs)
                }
            )*
        }
    };
}

restride_forms! {
    t_ => "t",
    transpose_ => "transpose",
    swapaxes_ => "swapaxes",
    swapdims_ => "swapdims",
    squeeze_ => "squeeze",
    unsqueeze_ => "unsqueeze",
    as_strided_ => "as_strided",
}

/// An in-place form whose result dtype only some tensors can hold (`holds`): torch's `message` for the others.
fn inplace_of_holding(
    slf: &Bound<'_, PyTensor>,
    method: &str,
    call: (&Bound<'_, PyTuple>, Option<&Bound<'_, PyDict>>),
    holds: fn(DType) -> bool,
    message: fn(&str) -> String,
) -> PyResult<Py<PyTensor>> {
    let dtype = slf.get().get().dtype();
    if !holds(dtype) {
        return Err(PyRuntimeError::new_err(message(dtype.scalar_type_name())));
    }
    inplace_of(slf, method, call.0, call.1)
}

/// `cumsum_`/`cumprod_`: the in-place form, after torch's check that `dtype=` is the tensor's own.
fn cumulative_inplace(
    slf: &Bound<'_, PyTensor>,
    method: &str,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyTensor>> {
    let asked = kwargs.map(|k| k.get_item("dtype")).transpose()?.flatten();
    if let Some(dtype) = crate::args::dtype_arg(asked.as_ref(), method)? {
        let own = slf.get().get().dtype();
        if dtype != own {
            return Err(PyRuntimeError::new_err(format!(
                "Bad in-place call: input tensor dtype {} and output tensor dtype {} should match",
                own.cpp_name(),
                dtype.cpp_name()
            )));
        }
    }
    inplace_of(slf, method, args, kwargs)
}

#[pymethods]
impl PyTensor {
    /// In-place ``float_power()``: only a float64 tensor can hold its result, as in torch.
    #[pyo3(signature = (*args, **kwargs))]
    fn float_power_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyTensor>> {
        inplace_of_holding(
            slf,
            "float_power",
            (args, kwargs),
            |d| d == DType::F64,
            |name| {
                format!(
                    "the base given to float_power_ has dtype {name} but the operation's result requires dtype Double"
                )
            },
        )
    }

    /// In-place ``cumsum()``: a ``dtype=`` other than the tensor's is refused, as in torch.
    #[pyo3(signature = (*args, **kwargs))]
    fn cumsum_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyTensor>> {
        cumulative_inplace(slf, "cumsum", args, kwargs)
    }

    /// In-place ``cumprod()``: a ``dtype=`` other than the tensor's is refused, as in torch.
    #[pyo3(signature = (*args, **kwargs))]
    fn cumprod_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyTensor>> {
        cumulative_inplace(slf, "cumprod", args, kwargs)
    }

    /// In-place ``ldexp()``: its result is a float, which an integer or bool tensor cannot hold.
    #[pyo3(signature = (*args, **kwargs))]
    fn ldexp_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyTensor>> {
        inplace_of_holding(slf, "ldexp", (args, kwargs), DType::is_float, |name| {
            format!("ldexp can't be cast to the desired output type {name}")
        })
    }
}

/// The table above as (name, original, in-place form of it), for tools/gen_api.py.
#[pyfunction]
pub fn _method_forms() -> Vec<(&'static str, &'static str, bool)> {
    METHOD_FORMS.to_vec()
}
