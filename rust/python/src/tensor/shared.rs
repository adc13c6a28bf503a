//! What many tensor methods share: `shared_signature!` declares methods of one Python signature
//! with the signature written once, and `heavy` runs a one-input op the way they all do.
use super::{wrap, Out};
use crate::errors::call_heavy;
use ferrograd_core::Tensor;
use pyo3::prelude::*;

/// `f(a)` as a new tensor object, with the GIL released when `a` is large.
pub(super) fn heavy(
    py: Python<'_>,
    a: Tensor,
    f: impl FnOnce(&Tensor) -> ferrograd_core::Result<Tensor> + Send,
) -> Out {
    wrap(py, call_heavy(py, a.numel(), || f(&a))?)
}

/// One `#[pymethods]` block of methods that take the same parameters and return the same type:
///
/// ```ignore
/// shared_signature! {
///     #[pyo3(signature = (dim=None, keepdim=false))]   // attributes every method gets
///     fn (&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: bool) -> Out;  // or `fn <'py> (...)`
///     /// a method's own doc comment or attributes come before its name
///     all => body_using(self, py, dim, keepdim);
///     any => another_body(self, py, dim, keepdim);
/// }
/// ```
///
/// (The methods are gathered one by one and then emitted as one block: `#[pymethods]` must see
/// them expanded.)
macro_rules! shared_signature {
    (@each [$($done:tt)*] [$($shared:tt)*] [$($generics:tt)*] [$($signature:tt)*]) => {
        #[pymethods]
        impl PyTensor {
            $($done)*
        }
    };
    (
        @each [$($done:tt)*] [$($shared:tt)*] [$($generics:tt)*] [$($signature:tt)*]
        $(#[$own:meta])* $name:ident => $body:expr; $($rest:tt)*
    ) => {
        shared_signature!(
            @each [$($done)* $(#[$own])* $($shared)* fn $name $($generics)* $($signature)* { $body }]
            [$($shared)*] [$($generics)*] [$($signature)*]
            $($rest)*
        );
    };
    ($(#[$shared:meta])* fn <$life:lifetime> $params:tt -> $ret:ty; $($methods:tt)*) => {
        shared_signature!(@each [] [$(#[$shared])*] [<$life>] [$params -> $ret] $($methods)*);
    };
    ($(#[$shared:meta])* fn $params:tt -> $ret:ty; $($methods:tt)*) => {
        shared_signature!(@each [] [$(#[$shared])*] [] [$params -> $ret] $($methods)*);
    };
}
