//! Tensors kept for backward, and the named fields of a backward rule.
//!
//! A rule keeps what its gradient needs as named struct fields (`self_`, `other`, `result`, `dim`,
//! ...: PyTorch's names, which its `grad_fn._saved_<name>` attributes use). `backward_rule!` declares
//! such a struct and lists every field for the engine (`Fields`), so a saved tensor can never be
//! missed when the node frees its saved values or takes itself apart.
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A tensor kept for backward, with the storage version it had when saved. Freed (`release`) after
/// a backward without `retain_graph`; unpacking it then fails, as in PyTorch.
pub struct SavedTensor {
    /// None once released.
    tensor: Mutex<Option<Tensor>>,
    version: AtomicU64,
    /// An output of the node that saves it: kept without history (it would point back at the node),
    /// re-attached on unpack as that output (`output_nr`: which of the node's outputs it is).
    is_output: bool,
    output_nr: u32,
}

impl SavedTensor {
    /// One of the op's inputs.
    pub fn input(t: &Tensor) -> SavedTensor {
        let version = AtomicU64::new(t.version());
        SavedTensor { tensor: Mutex::new(Some(t.clone())), version, is_output: false, output_nr: 0 }
    }
    /// The op's own output (its first, or only, one).
    pub fn output(t: &Tensor) -> SavedTensor {
        SavedTensor::output_at(t, 0)
    }
    /// The op's output number `output_nr` (`aminmax`'s max, a custom Function's second output): unpacked as
    /// that output, so a gradient through it reaches the node at its place.
    pub fn output_at(t: &Tensor, output_nr: u32) -> SavedTensor {
        let version = AtomicU64::new(t.version());
        SavedTensor { tensor: Mutex::new(Some(t.detach())), version, is_output: true, output_nr }
    }

    /// Which of the saving node's outputs this is (0 for an input).
    pub fn output_nr(&self) -> u32 {
        self.output_nr
    }

    /// Whether this keeps the op's output (PyTorch's `_saved_result`) rather than an input.
    pub fn is_output(&self) -> bool {
        self.is_output
    }

    /// The tensor, checked against its saved version; a saved output is given back its history by
    /// `attach` (its node, named `owner`, re-attached).
    pub(crate) fn unpack(&self, owner: &str, attach: impl FnOnce(Tensor) -> Tensor) -> Result<Tensor> {
        let Some(t) = self.tensor.lock().clone() else { return Err(freed_error()) };
        let version = self.version.load(Ordering::Acquire);
        if t.version() != version {
            // PyTorch names the node that made the tensor: the saving node for a saved output, else the
            // tensor's current grad_fn; "ExpBackward0" shows as "Exp"
            let maker = if self.is_output {
                Some((self.output_nr, owner.to_owned()))
            } else {
                t.grad_fn().map(|n| (t.output_nr(), n.name().to_owned()))
            };
            return Err(Error::Runtime(format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: \
                [ferrograd.{} {:?}]{} is at version {}; expected version {} instead. Hint: enable anomaly \
                detection to find the operation that failed to compute its gradient, with \
                ferrograd.autograd.set_detect_anomaly(True, check_nan=False).",
                t.dtype().legacy_name(),
                t.shape(),
                maker.map_or(String::new(), |(nr, name)| format!(", which is output {nr} of {},", op_name(&name))),
                t.version(),
                version
            )));
        }
        Ok(if self.is_output {
            let attached = attach(t);
            // the output's new record, which a capture tracing the rules must know as the output's value
            crate::compile::note_alias(&attached);
            attached
        } else {
            t
        })
    }

    /// A saved output of an in-place op now kept as the tensor written into (`target`, at its current
    /// version), so that a later write into that tensor is seen, as in PyTorch; unchanged if released or
    /// not an output.
    pub(crate) fn rebind_output(&self, target: &Tensor) {
        let mut kept = self.tensor.lock();
        if self.is_output && kept.is_some() {
            *kept = Some(target.detach());
            self.version.store(target.version(), Ordering::Release);
        }
    }

    /// Takes the tensor out (None if already released).
    pub(crate) fn release(&self) -> Option<Tensor> {
        self.tensor.lock().take()
    }

    /// The saved tensor as stored (a saved output without its history), None once released.
    pub fn peek(&self) -> Option<Tensor> {
        self.tensor.lock().clone()
    }
}

/// A node's name as PyTorch's messages show the op: without the `Backward<n>` suffix.
fn op_name(node_name: &str) -> &str {
    let digits = node_name.trim_end_matches(|c: char| c.is_ascii_digit());
    digits.strip_suffix("Backward").unwrap_or(node_name)
}

pub(crate) fn freed_error() -> Error {
    Error::Runtime(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have \
        already been freed). Saved intermediate values of the graph are freed when you call .backward() or \
        autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or \
        if you need to access saved tensors after calling backward."
            .into(),
    )
}

/// One field of a rule, as `grad_fn._saved_<name>` would show it.
pub enum Field<'a> {
    /// A saved tensor; None for an optional one that was not given.
    Tensor(Option<&'a SavedTensor>),
    Tensors(&'a [SavedTensor]),
    /// An int64 argument (torch's getter shows it unsigned: -1 as 2**64 - 1).
    Int(i64),
    Ints(Vec<i64>),
    /// An integer held as a Scalar (`alpha`), shown signed.
    ScalarInt(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
    /// An optional argument that was not given.
    None,
    /// Internal bookkeeping with no Python value (a layout, a list of element positions).
    Opaque,
}

/// How a field's type shows itself (implemented for every type a rule may keep).
pub trait AsField {
    fn as_field(&self) -> Field<'_>;
}

/// Every field of a rule, in declaration order; written by `backward_rule!`.
pub trait Fields {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>));
}

/// `self_` → `self`: Rust spells PyTorch's `self` with a trailing underscore.
pub fn field_name(rust_name: &'static str) -> &'static str {
    rust_name.strip_suffix('_').unwrap_or(rust_name)
}

/// The `grad_fn` names a rule type (or a unary op type) can produce.
pub trait GradFnNames {
    const NAMES: &'static [&'static str];
}

/// One registered `grad_fn` name (every `backward_rule!` registers its names).
pub struct GradFnName(pub &'static str);
inventory::collect!(GradFnName);

/// Every `grad_fn` name a rule of this crate can produce, sorted (custom functions name themselves).
pub fn grad_fn_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = inventory::iter::<GradFnName>.into_iter().map(|n| n.0).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Declares a struct and its `Fields` listing in one place. Every field must be a type that
/// implements `AsField`; a plain `Tensor` does not (keep it as a `SavedTensor`).
#[macro_export]
macro_rules! rule_fields {
    ($(#[$meta:meta])* $vis:vis struct $name:ident;) => {
        $(#[$meta])*
        $vis struct $name;
        impl $crate::autograd::Fields for $name {
            fn fields(&self, _: &mut dyn FnMut(&'static str, $crate::autograd::Field<'_>)) {}
        }
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        $vis struct $name { $($(#[$fmeta])* pub(crate) $field: $ty,)* }
        impl $crate::autograd::Fields for $name {
            #[allow(unused_variables)]
            fn fields(&self, visit: &mut dyn FnMut(&'static str, $crate::autograd::Field<'_>)) {
                $(visit(
                    $crate::autograd::field_name(stringify!($field)),
                    $crate::autograd::AsField::as_field(&self.$field),
                );)*
            }
        }
    };
}

/// A rule's `grad_fn` name, written once: `backward_rule!` implements it (the first of `names = [...]`, else
/// the struct's own name), and it is `Backward::name` unless a rule that names itself by its state (sum over
/// all dims or some, a custom function) overrides that.
pub trait RuleName {
    fn rule_name(&self) -> &'static str;
}

/// Declares a backward rule: its struct with `Fields` (`rule_fields!`), and the `grad_fn` names it
/// produces, registered for listings: the struct's own name; or `names = [...];`, the first of which is its
/// name; or, for a rule that serves several of torch's ops, `name_by = |rule| match (<expr>) { <pat> =>
/// "Name", ... };`, which picks the name from the rule's fields (each name written once, here).
#[macro_export]
macro_rules! backward_rule {
    (
        name_by = |$this:ident| match ($scrutinee:expr) { $($pat:pat => $n:literal),+ $(,)? };
        $(#[$meta:meta])* $vis:vis struct $name:ident $($body:tt)*
    ) => {
        $crate::rule_fields! { $(#[$meta])* $vis struct $name $($body)* }
        impl $crate::autograd::GradFnNames for $name {
            const NAMES: &'static [&'static str] = &[$($n),+];
        }
        impl $crate::autograd::RuleName for $name {
            fn rule_name(&self) -> &'static str {
                let $this = self;
                match $scrutinee {
                    $($pat => $n),+
                }
            }
        }
        $($crate::autograd::inventory::submit! { $crate::autograd::GradFnName($n) })+
    };
    (names = [$($n:expr),* $(,)?]; $(#[$meta:meta])* $vis:vis struct $name:ident $($body:tt)*) => {
        $crate::rule_fields! { $(#[$meta])* $vis struct $name $($body)* }
        impl $crate::autograd::GradFnNames for $name {
            const NAMES: &'static [&'static str] = &[$($n),*];
        }
        impl $crate::autograd::RuleName for $name {
            fn rule_name(&self) -> &'static str {
                <Self as $crate::autograd::GradFnNames>::NAMES[0]
            }
        }
        $($crate::autograd::inventory::submit! { $crate::autograd::GradFnName($n) })*
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident $($body:tt)*) => {
        $crate::backward_rule! { names = [stringify!($name)]; $(#[$meta])* $vis struct $name $($body)* }
    };
}

impl AsField for SavedTensor {
    fn as_field(&self) -> Field<'_> {
        Field::Tensor(Some(self))
    }
}
impl AsField for Option<SavedTensor> {
    fn as_field(&self) -> Field<'_> {
        Field::Tensor(self.as_ref())
    }
}
impl AsField for Vec<SavedTensor> {
    fn as_field(&self) -> Field<'_> {
        Field::Tensors(self)
    }
}
impl AsField for bool {
    fn as_field(&self) -> Field<'_> {
        Field::Bool(*self)
    }
}
impl AsField for f64 {
    fn as_field(&self) -> Field<'_> {
        Field::Float(*self)
    }
}
impl AsField for &'static str {
    fn as_field(&self) -> Field<'_> {
        Field::Str(self)
    }
}
impl AsField for crate::dtype::Scalar {
    fn as_field(&self) -> Field<'_> {
        match *self {
            crate::dtype::Scalar::Bool(v) => Field::Bool(v),
            crate::dtype::Scalar::Int(v) => Field::ScalarInt(v),
            crate::dtype::Scalar::Float(v) => Field::Float(v),
        }
    }
}
/// A matrix's strides, kept only when its gradient is needed (PyTorch shows `()` otherwise).
pub type MatrixStrides = Option<[usize; 2]>;
impl AsField for MatrixStrides {
    fn as_field(&self) -> Field<'_> {
        Field::Ints(self.map_or_else(Vec::new, |s| s.iter().map(|&v| v as i64).collect()))
    }
}
impl AsField for crate::dtype::DType {
    fn as_field(&self) -> Field<'_> {
        Field::Str(self.scalar_type_name())
    }
}
impl AsField for crate::layout::Layout {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}
macro_rules! int_fields {
    ($($t:ty),*) => {$(
        impl AsField for $t {
            fn as_field(&self) -> Field<'_> {
                Field::Int(*self as i64)
            }
        }
        impl AsField for Vec<$t> {
            fn as_field(&self) -> Field<'_> {
                Field::Ints(self.iter().map(|&v| v as i64).collect())
            }
        }
        impl<const N: usize> AsField for [$t; N] {
            fn as_field(&self) -> Field<'_> {
                Field::Ints(self.iter().map(|&v| v as i64).collect())
            }
        }
        impl AsField for Option<$t> {
            fn as_field(&self) -> Field<'_> {
                self.map_or(Field::None, |v| Field::Int(v as i64))
            }
        }
    )*};
}
int_fields!(usize, isize, i64, u32, i32);

impl AsField for Option<f64> {
    fn as_field(&self) -> Field<'_> {
        self.map_or(Field::None, Field::Float)
    }
}

#[cfg(test)]
mod tests {
    use super::Field;
    use crate::{DType, Tensor};

    fn leaf(values: Vec<f64>) -> Tensor {
        let n = values.len();
        Tensor::from_vec(values, &[n]).unwrap().with_requires_grad(true).unwrap()
    }

    /// (name, is a saved tensor still held) of each field of `t`'s grad_fn.
    fn fields(t: &Tensor) -> Vec<(&'static str, Option<bool>)> {
        let mut out = Vec::new();
        t.grad_fn().unwrap().rule().fields(&mut |name, f| {
            out.push((name, if let Field::Tensor(s) = f { Some(s.is_some_and(|s| s.peek().is_some())) } else { None }))
        });
        out
    }

    #[test]
    fn rules_name_their_fields_as_pytorch_does() {
        let (x, y) = (leaf(vec![1.0, 2.0]), leaf(vec![3.0, 4.0]));
        assert_eq!(fields(&x.mul(&y).unwrap()), [("self", Some(true)), ("other", Some(true))]);
        assert_eq!(fields(&x.exp().unwrap()), [("result", Some(true))]);
        assert_eq!(fields(&x.sin().unwrap()), [("self", Some(true))]);
        assert_eq!(fields(&x.floor().unwrap()), []);
        let s = x.sum(Some(&[0]), true).unwrap();
        assert_eq!(fields(&s), [("self_sym_sizes", None), ("dim", None), ("keepdim", None)]);
    }

    #[test]
    fn a_saved_output_keeps_no_history_until_unpacked() {
        let x = leaf(vec![1.0, 2.0]);
        let y = x.exp().unwrap();
        let mut saved = None;
        y.grad_fn().unwrap().rule().fields(&mut |_, f| {
            if let Field::Tensor(Some(s)) = f {
                saved = s.peek();
            }
        });
        assert!(saved.unwrap().grad_fn().is_none(), "a saved output holding its node would be a cycle");
    }

    #[test]
    fn backward_frees_every_saved_field_and_a_second_one_fails() {
        let (x, y) = (leaf(vec![1.0, 2.0]), leaf(vec![3.0, 4.0]));
        let z = x.mul(&y).unwrap();
        let loss = z.sum(None, false).unwrap();
        crate::autograd::backward(std::slice::from_ref(&loss), &[None], false, false, None).unwrap();
        assert_eq!(fields(&z), [("self", Some(false)), ("other", Some(false))]);
        let err = crate::autograd::backward(&[loss], &[None], false, false, None).unwrap_err();
        assert!(err.to_string().starts_with("Trying to backward through the graph a second time"));
        let kept = Tensor::ones(&[2], DType::F64).with_requires_grad(true).unwrap().mul(&y).unwrap();
        let loss = kept.sum(None, false).unwrap();
        crate::autograd::backward(&[loss], &[None], true, false, None).unwrap();
        assert_eq!(fields(&kept), [("self", Some(true)), ("other", Some(true))], "retain_graph keeps them");
    }
}
