//! Elementwise unary ops: the argument-free ones come from the core's registry
//! (`ferrograd_core::for_each_unary_op!`), which also feeds their stubs and function forms
//! (`_unary_ops()`, read by tools/gen_api.py), and their in-place forms (`exp_`); those with parameters from
//! `for_each_param_unary_op!` (private `_elu(alpha)` and `_elu_(alpha)`, `_param_unary_ops()`); the
//! irregular ones follow.
use super::{inplace_with, wrap, Out, PyTensor};
use crate::errors::{call, call_heavy};
use ferrograd_core::unary::{self as u, UnaryOp};
use ferrograd_core::{Scalar, Tensor};
use pyo3::prelude::*;

/// A unary op from the core's `unary` module, with the GIL released for large inputs.
fn unary<O: UnaryOp>(py: Python<'_>, a: Tensor, op: O) -> Out {
    wrap(py, call_heavy(py, a.numel(), || a.unary(op))?)
}

macro_rules! registry_methods {
    ($($name:ident: $op:path, $doc:literal;)*) => {
        // paste! outside the block: pymethods takes no macros among its items
        paste::paste! {
            #[pymethods]
            impl PyTensor {
                $(
                    #[doc = $doc]
                    fn $name(&self, py: Python<'_>) -> Out {
                        unary(py, self.get(), $op)
                    }

                    #[doc = concat!("In-place ``", stringify!($name), "()``; returns this tensor.")]
                    fn [<$name _>](slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
                        let name = concat!(stringify!($name), "_");
                        if !slf.get().get().unary_dense_inplace($op, name) {
                            let old_read = ferrograd_core::unary::inplace_reads_input::<$op>();
                            let f = |a: &Tensor| a.unary_inplace_form($op);
                            call(|| slf.get().handle.apply_unary_inplace(name, old_read, f))?;
                        }
                        Ok(slf.clone().unbind())
                    }
                )*
            }
        }

        /// (name, docstring, whether an integer input keeps its dtype) of each registry method above.
        const UNARY_OPS: &[(&str, &str, bool)] = &[$((
            stringify!($name),
            $doc,
            !matches!(<$op as UnaryOp>::INT_INPUTS, u::IntInputs::ToFloat),
        )),*];
    };
}
ferrograd_core::for_each_unary_op!(registry_methods);

/// The registry's unary ops as (method name, docstring, keeps integer dtypes), for tools/gen_api.py: an op
/// that keeps them takes an `out=` of its result's dtype only (torch's "Found dtype ... but expected ...").
#[pyfunction]
pub fn _unary_ops() -> Vec<(&'static str, &'static str, bool)> {
    UNARY_OPS.to_vec()
}

/// A registry op's parameter as a replay keeps it: by value, `'static` (a `&str` as a `String`).
trait Kept {
    type Owned: Clone + Send + Sync + 'static;
    fn keep(self) -> Self::Owned;
}
impl Kept for f64 {
    type Owned = f64;
    fn keep(self) -> f64 {
        self
    }
}
impl Kept for &str {
    type Owned = String;
    fn keep(self) -> String {
        self.to_owned()
    }
}

/// A kept parameter as the op takes it.
trait AsArg<'a, T> {
    fn arg(&'a self) -> T;
}
impl AsArg<'_, f64> for f64 {
    fn arg(&self) -> f64 {
        *self
    }
}
impl<'a> AsArg<'a, &'a str> for String {
    fn arg(&'a self) -> &'a str {
        self.as_str()
    }
}

macro_rules! param_registry_methods {
    ($(
        $name:ident($($p:ident: $t:ty $(= $d:literal)?),*) $($flag:ident)?: $op:path
            $({ $($fixed:ident: $value:expr),* $(,)? })?, $doc:literal;
    )*) => {
        paste::paste! {
            #[pymethods]
            impl PyTensor {
                $(
                    #[doc = $doc]
                    fn [<_ $name>](&self, py: Python<'_>, $($p: $t),*) -> Out {
                        let a = self.get();
                        wrap(py, call_heavy(py, a.numel(), || a.$name($($p),*))?)
                    }

                    #[doc = concat!("In-place ``_", stringify!($name), "()``; returns this tensor.")]
                    fn [<_ $name _>](slf: &Bound<'_, Self>, $($p: $t),*) -> PyResult<Py<PyTensor>> {
                        // one traced op outside a view (a LeakyReLU(inplace=True) in a compiled model), its
                        // parameters kept by value for the replay
                        $(let $p = Kept::keep($p);)*
                        let f = move |a: &Tensor| a.[<$name _inplace_form>]($(AsArg::arg(&$p)),*);
                        let name = concat!(stringify!($name), "_");
                        let old_read = ferrograd_core::unary::inplace_reads_input::<$op>();
                        call(|| slf.get().handle.apply_unary_inplace(name, old_read, f))?;
                        Ok(slf.clone().unbind())
                    }
                )*
            }
        }

        /// Each op of the registry above: (name, docstring, its flag: `inplace`, `inplace_arg` or "", its
        /// parameters as (name, Rust type, default or "")).
        type Param = (&'static str, &'static str, &'static str);
        type ParamOp = (&'static str, &'static str, &'static str, &'static [Param]);
        const PARAM_UNARY_OPS: &[ParamOp] = &[$((
            stringify!($name),
            $doc,
            stringify!($($flag)?),
            &[$((stringify!($p), stringify!($t), stringify!($($d)?))),*],
        )),*];
    };
}
ferrograd_core::for_each_param_unary_op!(param_registry_methods);

/// A registry op as `_param_unary_ops()` gives it.
type ParamOpRow = (&'static str, &'static str, &'static str, Vec<(&'static str, String, String)>);

/// The core's `for_each_param_unary_op!` registry, for tools/gen_api.py (stubs of `_<name>`/`_<name>_`, and
/// the `nn.functional` functions): (name, docstring, flag: `inplace`, `inplace_arg` or "", [(parameter, Rust
/// type, default or "")]), a type and a default without `stringify!`'s spaces (`&str`, `-1.0`, not `- 1.0`).
#[pyfunction]
pub fn _param_unary_ops() -> Vec<ParamOpRow> {
    let param = |&(p, t, d): &(&'static str, &'static str, &'static str)| (p, t.replace(' ', ""), d.replace(' ', ""));
    PARAM_UNARY_OPS
        .iter()
        .map(|&(name, doc, inplace, params)| (name, doc, inplace, params.iter().map(param).collect()))
        .collect()
}

#[pymethods]
impl PyTensor {
    fn square(&self, py: Python<'_>) -> Out {
        let a = self.get();
        wrap(py, call(|| a.pow(&Tensor::wrapped_scalar(Scalar::Int(2))))?)
    }

    #[pyo3(signature = (*, decimals=0))]
    fn round(&self, py: Python<'_>, decimals: i32) -> Out {
        let a = self.get();
        wrap(py, call_heavy(py, a.numel(), || a.round(decimals))?)
    }

    #[pyo3(signature = (eps=None))]
    fn logit(&self, py: Python<'_>, eps: Option<f64>) -> Out {
        unary(py, self.get(), u::Logit::new(eps))
    }
}

/// `rrelu`'s two forms: `rrelu_with_noise`'s slopes drawn from `generator` (the default one if None).
#[pymethods]
impl PyTensor {
    #[pyo3(signature = (lower, upper, training, generator=None))]
    fn _rrelu(
        &self,
        py: Python<'_>,
        lower: f64,
        upper: f64,
        training: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        let gen = crate::generator::generator_arg(generator, "rrelu")?;
        let a = self.get();
        wrap(py, call(|| a.rrelu_with_noise(&gen, lower, upper, training))?)
    }

    #[pyo3(signature = (lower, upper, training, generator=None))]
    fn _rrelu_(
        slf: &Bound<'_, Self>,
        lower: f64,
        upper: f64,
        training: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let gen = crate::generator::generator_arg(generator, "rrelu_")?;
        inplace_with(slf, false, |a| a.rrelu_with_noise_inplace_form(&gen, lower, upper, training))
    }
}
