//! Elementwise unary ops. Each op is a small type implementing `UnaryOp` in its family's file
//! (`exp_log.rs`, `trig.rs`, `activation.rs`, `piecewise.rs`, `gamma.rs`, `erf.rs`, `bessel.rs`): its
//! kernel, its gradient, whether that gradient reads the op's input or its output, and how it treats
//! integer inputs. Here: the trait, the one forward path every op shares, the one rule they share
//! (`UnaryBackward`), the registry of the ops that are Tensor methods without arguments
//! (`for_each_unary_op!`), that of the ones with parameters (`for_each_param_unary_op!`) and that of the
//! ones torch has only in torch.special (`for_each_special_unary_op!`).
mod activation;
mod bessel;
mod erf;
mod exp_log;
mod gamma;
mod in_place;
mod piecewise;
mod trig;

pub use activation::*;
pub use bessel::*;
pub use erf::*;
pub use exp_log::*;
pub use gamma::*;
pub use piecewise::*;
pub use trig::*;

use crate::autograd::{one, record, Backward, Ctx, Field, Fields, GradFnNames, Grads, RuleName, SavedTensor};
use crate::compile::{traced_unary, RecordFn, SliceKernel};
use crate::dtype::DType;
use crate::element::Float;
use crate::error::{Error, Result};
use crate::kernels::elementwise::{map1, map1_by};
use crate::kernels::math::{F32SliceKernel, F32ZipKernel};
use crate::kernels::simd::map_into;
use crate::layout::Layout;
use crate::ops::formula::one_pass_grad;
use crate::tensor::Tensor;
use std::sync::Arc;

/// What an op's gradient reads: its input (`_saved_self`), its output (`_saved_result`), or nothing
/// (a gradient that is zero, or `g` itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keeps {
    Input,
    Output,
    Nothing,
}

/// What an integer or bool input does (floats always compute in their own dtype).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntInputs {
    /// Computed in float32, as PyTorch does for `sqrt`, `sin`, ...
    ToFloat,
    /// Kept in int64 by `UnaryOp::int_kernel` (bools are an error).
    KeepInt,
    /// Kept in int64 by `int_kernel`; bools are copied (`sign`).
    KeepIntAndBool,
    /// An error for ints and bools.
    Reject,
}

/// The node torch records for an op's in-place form (`F.elu_`), where it is not the op's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InplaceNode {
    /// The op's own node (`exp_`: `ExpBackward0`).
    Same,
    /// The op's own rule under the second of its `names` (`threshold_`: `ThresholdBackward1`).
    Renamed,
    /// A node under the second of its `names` that keeps the result instead of the input, its gradient
    /// `UnaryOp::grad_from_result` (`elu_`: `EluBackward1`).
    KeepsResult,
}

/// One elementwise unary op: a value type (parameters as fields, declared with `backward_rule!` so
/// `grad_fn._saved_<param>` can list them) with its kernel and gradient.
/// Its `grad_fn` name is the one `names = [...]` of its `backward_rule!` declaration.
pub trait UnaryOp: Fields + GradFnNames + Copy + Send + Sync + 'static {
    /// What `grad` receives as `s`.
    const KEEPS: Keeps;
    const INT_INPUTS: IntInputs = IntInputs::ToFloat;
    /// PyTorch's kernel name in "not implemented for" messages.
    const KERNEL_NAME: &'static str = "unary op";
    /// PyTorch's own message for a rejected bool input, where it has one.
    const BOOL_MESSAGE: Option<&'static str> = None;
    /// False for the ops torch gives no derivative: their results do not require grad.
    const DIFFERENTIABLE: bool = true;
    /// The node of the in-place form where torch gives it its own name and no derivative (`asinh_`:
    /// `AsinhBackward1`, which fails in backward).
    const INPLACE_NO_DERIVATIVE: Option<&'static str> = None;
    /// The node of the in-place form (see `InplaceNode`).
    const INPLACE_NODE: InplaceNode = InplaceNode::Same;

    /// The elementwise function.
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy;

    /// The gradient `g · f'(x)`, from the saved input or output `s` (see `KEEPS`; `g` itself for
    /// `Keeps::Nothing`), written with differentiable tensor ops.
    fn grad(self, g: &Tensor, s: &Tensor) -> Result<Tensor>;

    /// The in-place form's gradient from its result, for `InplaceNode::KeepsResult` (torch refuses some
    /// parameters there, at backward: a negative slope cannot be told from the result).
    fn grad_from_result(self, _g: &Tensor, _result: &Tensor) -> Result<Tensor> {
        Err(Error::Runtime(format!("{} keeps no result for its in-place form", Self::NAMES[0])))
    }

    /// The int64 kernel of ops that keep integer dtypes (`IntInputs::KeepInt*`).
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        None::<fn(i64) -> i64>
    }

    /// A hand-vectorized float32 kernel (kernels/math.rs), used for float32 inputs of every layout.
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        None
    }

    /// `grad` as one function of (g, s) for the commonest activations, run in one pass when the
    /// backward pass is not recorded (same values; `grad` stays the definition).
    fn fused_grad<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        None::<fn(T, T) -> T>
    }

    /// `fused_grad` for the in-place form's node, which keeps the result (`InplaceNode::KeepsResult`): (g, result).
    fn fused_grad_from_result<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        None::<fn(T, T) -> T>
    }

    /// `fused_grad` for float32 as a hand-vectorized kernel over (g, s), used where both are contiguous.
    fn f32_fused_grad_kernel(self) -> Option<F32ZipKernel> {
        None
    }

    /// PyTorch's checks of an op's parameters (`hardtanh`'s bounds, `celu`'s alpha; `softshrink`'s range
    /// depends on the input's dtype), run by the methods `for_each_param_unary_op!` makes before the op.
    fn check(self, _input: &Tensor) -> Result<()> {
        Ok(())
    }
}

/// A registry parameter as the op's field: numbers and bools as given, a string parsed into its enum
/// (`gelu`'s `approximate`) with PyTorch's error for a name it does not know.
pub trait FromParam<A>: Sized {
    fn from_param(arg: A) -> Result<Self>;
}
impl FromParam<f64> for f64 {
    fn from_param(arg: f64) -> Result<f64> {
        Ok(arg)
    }
}
impl FromParam<bool> for bool {
    fn from_param(arg: bool) -> Result<bool> {
        Ok(arg)
    }
}

/// The forward kernels of an op, behind a vtable so the dtype dispatch below is compiled once.
trait UnaryKernels {
    fn f64s(&self, l: &Layout, v: &[f64]) -> Vec<f64>;
    fn f32s(&self, l: &Layout, v: &[f32]) -> Vec<f32>;
    fn i64s(&self, l: &Layout, v: &[i64]) -> Option<Vec<i64>>;
    fn f32_slice(&self) -> Option<F32SliceKernel>;
    fn int_inputs(&self) -> IntInputs;
    fn kernel_name(&self) -> &'static str;
    fn bool_message(&self) -> Option<&'static str>;
}

impl<O: UnaryOp> UnaryKernels for O {
    fn f64s(&self, l: &Layout, v: &[f64]) -> Vec<f64> {
        map1(l, v, self.kernel::<f64>())
    }
    fn f32s(&self, l: &Layout, v: &[f32]) -> Vec<f32> {
        map1(l, v, self.kernel::<f32>())
    }
    fn i64s(&self, l: &Layout, v: &[i64]) -> Option<Vec<i64>> {
        self.int_kernel().map(|f| map1(l, v, f))
    }
    fn f32_slice(&self) -> Option<F32SliceKernel> {
        self.f32_slice_kernel()
    }
    fn int_inputs(&self) -> IntInputs {
        O::INT_INPUTS
    }
    fn kernel_name(&self) -> &'static str {
        O::KERNEL_NAME
    }
    fn bool_message(&self) -> Option<&'static str> {
        O::BOOL_MESSAGE
    }
}

fn rejected(op: &dyn UnaryKernels, dtype: DType) -> Option<Error> {
    let rejects = match op.int_inputs() {
        IntInputs::ToFloat | IntInputs::KeepIntAndBool => false,
        IntInputs::KeepInt => dtype == DType::Bool,
        IntInputs::Reject => !dtype.is_float(),
    };
    if !rejects {
        return None;
    }
    Some(Error::NotImplemented(match op.bool_message() {
        Some(message) if dtype == DType::Bool => message.to_string(),
        _ => format!("\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name()),
    }))
}

/// The forward pass of any unary op: floats in their dtype (the halves in float32, rounded back),
/// ints in int64 where the op keeps them, else in float32; in the input's memory order.
fn unary_forward(x: &Tensor, op: &dyn UnaryKernels) -> Result<Tensor> {
    let dtype = x.dtype();
    if !dtype.is_float() {
        if let Some(e) = rejected(op, dtype) {
            return Err(e);
        }
    }
    x.map_in_memory_order(|x| {
        let float64 = |x: &Tensor| x.with_data(|l, v: &[f64]| Tensor::from_vec(op.f64s(l, v), x.shape()));
        // ints and bools compute in the default dtype (float32 unless set)
        let float32 = |x: &Tensor| match x.dtype() {
            d if !d.is_float() && d.to_float() == DType::F64 => float64(x),
            _ => x.with_data(|l, v: &[f32]| Tensor::from_vec(op.f32s(l, v), x.shape())),
        };
        Ok(match dtype {
            DType::Bool if op.int_inputs() == IntInputs::KeepIntAndBool => x.contiguous_copy()?,
            // narrow ints compute in int64 and wrap back
            d if d.is_int() => match x.with_data(|l, v: &[i64]| op.i64s(l, v)) {
                Some(v) => Tensor::from_vec(v, x.shape())?.cast_detached(d),
                None => float32(x)?,
            },
            DType::F64 => float64(x)?,
            // the hand-vectorized float32 kernel, for every layout (map1_by)
            DType::F32 if let Some(kernel) = op.f32_slice() => {
                x.with_data(|l, v: &[f32]| Tensor::from_vec(map1_by(l, v, kernel), x.shape()))?
            }
            d => float32(x)?.cast_detached(d.to_float()),
        })
    })
}

/// The slice kernel `unary_forward` runs over a contiguous float32/float64 input, as a handle for fusion:
/// the op's hand-vectorized float32 kernel where it has one, else its scalar function through the same
/// vectorized loop (`map_into` is what `map1` runs on contiguous data).
fn slice_kernel<O: UnaryOp>(op: O, dtype: DType) -> Option<SliceKernel> {
    SliceKernel::map(
        dtype,
        0,
        || match op.f32_slice_kernel() {
            Some(kernel) => std::sync::Arc::new(kernel),
            None => std::sync::Arc::new(move |o, x| map_into(o, x, &op.kernel::<f32>())),
        },
        || std::sync::Arc::new(move |o, x| map_into(o, x, &op.kernel::<f64>())),
    )
}

/// Whether op `O`'s in-place form records a node that keeps its input (so the input's old values must be copied
/// before the write): not for ops whose rule keeps only the result or nothing.
pub fn inplace_reads_input<O: UnaryOp>() -> bool {
    O::INPLACE_NO_DERIVATIVE.is_none() && O::INPLACE_NODE != InplaceNode::KeepsResult && O::KEEPS == Keeps::Input
}

impl Tensor {
    /// Applies a unary op and records its gradient.
    pub fn unary<O: UnaryOp>(&self, op: O) -> Result<Tensor> {
        // the node's name: the rule's stem (`ExpBackward0` → `Exp`)
        let name = O::NAMES[0].strip_suffix("Backward0").unwrap_or(O::NAMES[0]);
        traced_unary(
            name,
            self,
            || self.unary_eager(op),
            || move |x: &[&Tensor]| x[0].unary_eager(op),
            |out| slice_kernel(op, out.dtype()),
            || -> RecordFn { Arc::new(move |input, values| input.record_unary(op, RuleNode::Own, values)) },
        )
    }

    /// The op's values as its in-place form records them (the write is the caller's, `apply_inplace`).
    pub fn unary_inplace_form<O: UnaryOp>(&self, op: O) -> Result<Tensor> {
        let unrecorded = || {
            let _no_grad = crate::autograd::grad_mode::GradModeGuard::new(false);
            self.unary(op)
        };
        if let Some(name) = O::INPLACE_NO_DERIVATIVE {
            return Ok(record(unrecorded()?, &[self], |_| NoInplaceDerivative { name }));
        }
        match O::INPLACE_NODE {
            InplaceNode::Same => self.unary(op),
            InplaceNode::Renamed => self.unary_eager_as(op, RuleNode::Inplace),
            InplaceNode::KeepsResult => {
                Ok(record(unrecorded()?, &[self], |out| InplaceResultBackward { op, result: SavedTensor::output(out) }))
            }
        }
    }

    fn unary_eager<O: UnaryOp>(&self, op: O) -> Result<Tensor> {
        self.unary_eager_as(op, RuleNode::Own)
    }

    fn unary_eager_as<O: UnaryOp>(&self, op: O, node: RuleNode) -> Result<Tensor> {
        let out = if self.is_complex() {
            // the unary ops with complex kernels: abs, reciprocal and the functions of complex/math.rs
            match O::NAMES[0] {
                "AbsBackward0" => self.detach().complex_abs()?,
                "ReciprocalBackward0" => self.complex_reciprocal_values()?,
                rule => match self.complex_function_values(rule) {
                    Some(values) => values?,
                    None => return Err(crate::dtype::complex_refusal(self.dtype())),
                },
            }
        } else {
            unary_forward(self, &op)?
        };
        Ok(self.record_unary(op, node, out))
    }

    /// `out`, the op's values over this tensor, with the op's node when a gradient is wanted.
    fn record_unary<O: UnaryOp>(&self, op: O, node: RuleNode, out: Tensor) -> Tensor {
        if !O::DIFFERENTIABLE {
            return out;
        }
        record(out, &[self], |out| UnaryBackward {
            op,
            node,
            saved: match O::KEEPS {
                Keeps::Input => Some(SavedTensor::input(self)),
                Keeps::Output => Some(SavedTensor::output(out)),
                Keeps::Nothing => None,
            },
        })
    }
}

/// A float64 scalar function as an op's kernel: float32 inputs are computed in float64 and rounded once
/// (the special functions of kernels/special/).
pub(crate) fn via_f64<T: Float>(f: fn(f64) -> f64) -> impl Fn(T) -> T + Sync + Copy {
    move |x: T| T::from_f64(f(x.to_f64()))
}

/// Which of an op's `names` its rule goes by: the op's own, or its in-place form's (`InplaceNode::Renamed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RuleNode {
    Own,
    Inplace,
}

/// The rule of every `UnaryOp`: the op (with its parameters) and the tensor its gradient reads.
pub struct UnaryBackward<O: UnaryOp> {
    op: O,
    node: RuleNode,
    /// The input or the output, as `O::KEEPS` says.
    saved: Option<SavedTensor>,
}

impl<O: UnaryOp> Fields for UnaryBackward<O> {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>)) {
        match O::KEEPS {
            Keeps::Input => visit("self", Field::Tensor(self.saved.as_ref())),
            Keeps::Output => visit("result", Field::Tensor(self.saved.as_ref())),
            Keeps::Nothing => {}
        }
        self.op.fields(visit);
    }
}

impl<O: UnaryOp> RuleName for UnaryBackward<O> {
    fn rule_name(&self) -> &'static str {
        match self.node {
            RuleNode::Own => O::NAMES[0],
            RuleNode::Inplace => O::NAMES[1],
        }
    }
}

/// The rule of an in-place form that keeps its result (`InplaceNode::KeepsResult`), named by the second of
/// the op's `names`.
pub struct InplaceResultBackward<O: UnaryOp> {
    op: O,
    result: SavedTensor,
}

impl<O: UnaryOp> Fields for InplaceResultBackward<O> {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>)) {
        visit("result", Field::Tensor(Some(&self.result)));
        self.op.fields(visit);
    }
}

impl<O: UnaryOp> RuleName for InplaceResultBackward<O> {
    fn rule_name(&self) -> &'static str {
        O::NAMES[1]
    }
}

impl<O: UnaryOp> Backward for InplaceResultBackward<O> {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let y = ctx.unpack(&self.result)?;
        let (f32, f64) = (self.op.fused_grad_from_result::<f32>(), self.op.fused_grad_from_result::<f64>());
        if let Some(grad) = one_pass_grad(O::NAMES[1], g, &y, f32, f64, None) {
            return one(grad);
        }
        one(self.op.grad_from_result(g, &y))
    }
}

impl<O: UnaryOp> Backward for UnaryBackward<O> {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let s = ctx.unpack_opt(&self.saved)?.unwrap_or_else(|| g.clone());
        let (f32, f64) = (self.op.fused_grad::<f32>(), self.op.fused_grad::<f64>());
        if let Some(grad) = one_pass_grad(O::NAMES[0], g, &s, f32, f64, self.op.f32_fused_grad_kernel()) {
            return one(grad);
        }
        one(self.op.grad(g, &s))
    }
}

crate::backward_rule! {
    names = ["AsinhBackward1", "AtanhBackward1", "AcoshBackward1"];
    /// The node of an in-place form torch has no derivative for (`UnaryOp::INPLACE_NO_DERIVATIVE`).
    pub struct NoInplaceDerivative {
        name: &'static str,
    }
}
impl Backward for NoInplaceDerivative {
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        let op = self.name.trim_end_matches("Backward1").to_lowercase();
        Err(Error::NotImplemented(format!("the derivative for 'inplace version of {op}' is not implemented.")))
    }
}

/// The unary ops that are Tensor methods without arguments, and `ferrograd.<name>(input)` functions:
/// `python_name: Op, "docstring";`. `callback!` receives the list; the core makes `Tensor::<name>`
/// from it (below), the bindings make the Python methods, their stubs and the function forms.
/// Each also gets its in-place form (`exp_`) in the bindings. Adding an op: its type in a family file, and
/// one line here; an alias of an op is one line naming the same type.
#[macro_export]
macro_rules! for_each_unary_op {
    ($callback:ident) => {
        $callback! {
            abs: $crate::unary::Abs, "Elementwise absolute value.";
            absolute: $crate::unary::Abs, "Alias for ``abs()``.";
            sign: $crate::unary::Sign, "Elementwise sign: -1, 0 or 1.";
            sgn: $crate::unary::Sgn, "Elementwise sign: -1, 0 or 1 (``sign()`` for real tensors).";
            sqrt: $crate::unary::Sqrt, "Elementwise square root (integer inputs give float32).";
            rsqrt: $crate::unary::Rsqrt, "Elementwise reciprocal of the square root.";
            reciprocal: $crate::unary::Reciprocal, "Elementwise ``1 / self``.";
            exp: $crate::unary::Exp, "Elementwise exponential.";
            exp2: $crate::unary::Exp2, "Elementwise ``2 ** self``.";
            expm1: $crate::unary::Expm1, "Elementwise ``exp(self) - 1``, accurate near 0.";
            log: $crate::unary::Log, "Elementwise natural logarithm.";
            log2: $crate::unary::Log2, "Elementwise base-2 logarithm.";
            log10: $crate::unary::Log10, "Elementwise base-10 logarithm.";
            log1p: $crate::unary::Log1p, "Elementwise ``log(1 + self)``, accurate near 0.";
            sin: $crate::unary::Sin, "Elementwise sine.";
            cos: $crate::unary::Cos, "Elementwise cosine.";
            tan: $crate::unary::Tan, "Elementwise tangent.";
            asin: $crate::unary::Asin, "Elementwise arcsine.";
            arcsin: $crate::unary::Asin, "Alias for ``asin()``.";
            acos: $crate::unary::Acos, "Elementwise arccosine.";
            arccos: $crate::unary::Acos, "Alias for ``acos()``.";
            atan: $crate::unary::Atan, "Elementwise arctangent.";
            arctan: $crate::unary::Atan, "Alias for ``atan()``.";
            asinh: $crate::unary::Asinh, "Elementwise inverse hyperbolic sine.";
            arcsinh: $crate::unary::Asinh, "Alias for ``asinh()``.";
            acosh: $crate::unary::Acosh, "Elementwise inverse hyperbolic cosine.";
            arccosh: $crate::unary::Acosh, "Alias for ``acosh()``.";
            atanh: $crate::unary::Atanh, "Elementwise inverse hyperbolic tangent.";
            arctanh: $crate::unary::Atanh, "Alias for ``atanh()``.";
            deg2rad: $crate::unary::Deg2Rad, "Elementwise degrees to radians, ``self * pi / 180``.";
            rad2deg: $crate::unary::Rad2Deg, "Elementwise radians to degrees, ``self * 180 / pi``.";
            sinh: $crate::unary::Sinh, "Elementwise hyperbolic sine.";
            cosh: $crate::unary::Cosh, "Elementwise hyperbolic cosine.";
            tanh: $crate::unary::Tanh, "Elementwise hyperbolic tangent.";
            sigmoid: $crate::unary::Sigmoid, "Elementwise logistic sigmoid ``1 / (1 + exp(-self))``.";
            relu: $crate::unary::Relu, "Elementwise ``max(self, 0)``.";
            erf: $crate::unary::Erf, "Elementwise Gauss error function.";
            erfc: $crate::unary::Erfc, "Elementwise complementary error function ``1 - erf(self)``.";
            erfinv: $crate::unary::Erfinv, "Elementwise inverse of the error function.";
            lgamma: $crate::unary::Lgamma, "Elementwise ``log(|gamma(self)|)``.";
            digamma: $crate::unary::Digamma, "Elementwise digamma function, the derivative of ``lgamma``.";
            i0: $crate::unary::I0, "Elementwise modified Bessel function of the first kind of order 0.";
            sinc: $crate::unary::Sinc, "Elementwise normalized sinc ``sin(pi x) / (pi x)``, 1 at 0.";
            floor: $crate::unary::Floor, "Elementwise floor (zero gradient).";
            ceil: $crate::unary::Ceil, "Elementwise ceiling (zero gradient).";
            trunc: $crate::unary::Trunc, "Elementwise rounding towards zero (zero gradient).";
            fix: $crate::unary::Trunc, "Alias for ``trunc()``.";
            frac: $crate::unary::Frac, "Elementwise fractional part ``self - trunc(self)``.";
        }
    };
}

/// The argument-free functions torch has only in `torch.special` (`special_<name>`, no Tensor method):
/// `name: Op;`. The bindings expose them as `_core._special(name, input)`.
#[macro_export]
macro_rules! for_each_special_unary_op {
    ($callback:ident) => {
        $callback! {
            entr: $crate::unary::Entr;
            erfcx: $crate::unary::Erfcx;
            log_ndtr: $crate::unary::LogNdtr;
            ndtri: $crate::unary::Ndtri;
            i0e: $crate::unary::I0e;
            i1: $crate::unary::I1;
            i1e: $crate::unary::I1e;
            bessel_j0: $crate::unary::BesselJ0;
            bessel_j1: $crate::unary::BesselJ1;
            bessel_y0: $crate::unary::BesselY0;
            bessel_y1: $crate::unary::BesselY1;
            modified_bessel_i0: $crate::unary::ModifiedBesselI0;
            modified_bessel_i1: $crate::unary::ModifiedBesselI1;
            modified_bessel_k0: $crate::unary::ModifiedBesselK0;
            modified_bessel_k1: $crate::unary::ModifiedBesselK1;
            scaled_modified_bessel_k0: $crate::unary::ScaledModifiedBesselK0;
            scaled_modified_bessel_k1: $crate::unary::ScaledModifiedBesselK1;
            spherical_bessel_j0: $crate::unary::SphericalBesselJ0;
            airy_ai: $crate::unary::AiryAi;
        }
    };
}

/// The unary ops with parameters (floats, bools or strings naming an enum; PyTorch's names and defaults), and
/// the argument-free ones torch has only in `nn.functional`: its activations. A line is
/// `name(param: type = default, ...) flag: Op { fixed: value, ... }, "docstring";`, with `flag` `inplace` where
/// torch's `F.<name>` takes `inplace=` and has `F.<name>_`, `inplace_arg` where it takes `inplace=` only, none
/// where neither. The op is built from the parameters as its fields (`Op { alpha }`, a `&str` parsed by
/// `FromParam`) plus the fixed ones, if any (selu is elu with fixed constants), checked by `UnaryOp::check`.
/// The core makes `Tensor::<name>(params)` from it (below); the bindings make the private methods
/// `_<name>(params)` and `_<name>_(params)` (in place), and `_param_unary_ops()`, from which tools/gen_api.py
/// writes their stubs and the `F.` functions (`nn/functional/_param_ops.py`).
/// Adding one: its type in a family file, and one line here.
#[macro_export]
macro_rules! for_each_param_unary_op {
    ($callback:ident) => {
        $callback! {
            softplus(beta: f64 = 1.0, threshold: f64 = 20.0): $crate::unary::Softplus,
                "``log(1 + exp(beta * x)) / beta``, and ``x`` where ``beta * x > threshold``.";
            elu(alpha: f64 = 1.0) inplace: $crate::unary::Elu { scale: 1.0, input_scale: 1.0 },
                "``x`` above 0, ``alpha * (exp(x) - 1)`` else.";
            selu() inplace: $crate::unary::Elu {
                alpha: $crate::unary::Elu::SELU_ALPHA, scale: $crate::unary::Elu::SELU_SCALE, input_scale: 1.0
            }, "``scale * elu(x, alpha)`` with SELU's fixed ``alpha`` and ``scale``.";
            celu(alpha: f64 = 1.0) inplace: $crate::unary::Celu,
                "``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.";
            leaky_relu(negative_slope: f64 = 0.01) inplace: $crate::unary::LeakyRelu,
                "``x`` above 0, ``negative_slope * x`` else.";
            hardtanh(min_val: f64 = -1.0, max_val: f64 = 1.0) inplace: $crate::unary::Hardtanh,
                "``x`` clamped to ``[min_val, max_val]`` (integer inputs stay integers).";
            threshold(threshold: f64, value: f64) inplace: $crate::unary::Threshold,
                "``value`` where ``x <= threshold``, else ``x`` (NaN stays NaN).";
            gelu(approximate: &str = "none"): $crate::unary::Gelu,
                "``x * Phi(x)``, or its tanh approximation (``approximate='tanh'``).";
            silu() inplace_arg: $crate::unary::Silu, "``x * sigmoid(x)``.";
            hardsigmoid() inplace_arg: $crate::unary::Hardsigmoid,
                "``min(max(x + 3, 0), 6) / 6``; gradient 1/6 rounded to float32 inside.";
            hardswish() inplace_arg: $crate::unary::Hardswish,
                "``x * min(max(x + 3, 0), 6) / 6``; gradient 0 at -3, 1 at 3.";
            mish() inplace_arg: $crate::unary::Mish, "``x * tanh(softplus(x))``.";
            logsigmoid(): $crate::unary::LogSigmoid, "``log(sigmoid(x))``, computed without overflow.";
            hardshrink(lambd: f64 = 0.5): $crate::unary::Hardshrink,
                "0 where ``-lambd <= x <= lambd``, else ``x`` (NaN stays NaN).";
            softshrink(lambd: f64 = 0.5): $crate::unary::Softshrink,
                "``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.";
        }
    };
}

macro_rules! core_param_methods {
    ($(
        $name:ident($($p:ident: $t:ty $(= $d:literal)?),*) $($flag:ident)?: $op:path
            $({ $($fixed:ident: $value:expr),* $(,)? })?, $doc:literal;
    )*) => {
        paste::paste! { impl Tensor {
            $(
                #[doc = $doc]
                pub fn $name(&self, $($p: $t),*) -> Result<Tensor> {
                    type Op = $op; // a path fragment cannot start a struct expression
                    let op = Op { $($p: FromParam::from_param($p)?,)* $($($fixed: $value),*)? };
                    op.check(self)?;
                    self.unary(op)
                }

                #[doc = concat!("`", stringify!($name), "`'s values as its in-place form records them (its node: ")]
                #[doc = "`UnaryOp::INPLACE_NODE`); the write is the caller's."]
                pub fn [<$name _inplace_form>](&self, $($p: $t),*) -> Result<Tensor> {
                    type Op = $op;
                    let op = Op { $($p: FromParam::from_param($p)?,)* $($($fixed: $value),*)? };
                    op.check(self)?;
                    self.unary_inplace_form(op)
                }
            )*
        } }
    };
}
for_each_param_unary_op!(core_param_methods);

macro_rules! core_methods {
    ($($name:ident: $op:path, $doc:literal;)*) => {
        impl Tensor {
            $(
                #[doc = $doc]
                pub fn $name(&self) -> Result<Tensor> {
                    self.unary($op)
                }
            )*
        }
    };
}
for_each_unary_op!(core_methods);
