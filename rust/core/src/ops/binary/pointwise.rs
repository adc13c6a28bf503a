//! maximum/minimum, fmax/fmin, atan2, hypot, copysign, logaddexp, nextafter, ldexp, heaviside, gcd/lcm,
//! fmod/remainder and the rounded divisions, and their one backward rule.
use super::scalar_fns;
use super::zip_as;
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::record;
use crate::autograd::{AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::dtype::{result_type, DType};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::math::atan2_f32;
use crate::kernels::special::gamma as special_gamma;
use crate::kernels::special::incomplete_gamma;
use crate::layout::broadcast_shapes;
use crate::ops::formula::{c, tie_weight};
use crate::ops::unary::{Exp, Exp2, FloatClass, Lgamma, Log};
use crate::tensor::Tensor;

/// Broadcasting binary ops beyond arithmetic, each with its own backward rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Binary {
    Maximum,
    Minimum,
    Atan2,
    Fmod,
    Remainder,
    /// `div(rounding_mode='floor')` and `//`
    FloorDiv,
    /// `div(rounding_mode='trunc')`
    TruncDiv,
    /// `x · ln y`, 0 where x == 0 (unless y is NaN)
    Xlogy,
    /// `x · ln(1 + y)`, 0 where x == 0 (unless y is NaN)
    Xlog1py,
    /// the Hurwitz zeta function ζ(x, q)
    Zeta,
    /// the regularized lower incomplete gamma function P(a, x)
    Igamma,
    /// the regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    Igammac,
    /// `sqrt(x² + y²)`
    Hypot,
    /// `|x|` with the sign of y
    Copysign,
    /// the larger of two, ignoring a NaN
    Fmax,
    /// the smaller of two, ignoring a NaN
    Fmin,
    /// `log(exp x + exp y)`
    Logaddexp,
    /// `log2(2^x + 2^y)`
    Logaddexp2,
    /// the next float after x towards y
    Nextafter,
    /// `x · 2^y`
    Ldexp,
    /// 0 below 0, y at 0, 1 above
    Heaviside,
    /// the greatest common divisor of two integers
    Gcd,
    /// the least common multiple of two integers
    Lcm,
}

/// Which inputs an op computes on, beyond torch's type promotion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Domain {
    /// the promoted dtype, bools and integers included
    Any,
    /// the promoted dtype made float (integers compute in the default float dtype)
    ToFloat,
    /// float dtypes only: integers and bools are torch's "not implemented" error
    FloatOnly,
    /// integer dtypes only
    IntOnly,
}

impl Binary {
    /// The name of PyTorch's CPU kernel, for "not implemented for" messages.
    fn kernel_name(self) -> &'static str {
        match self {
            Binary::Maximum => "maximum_cpu",
            Binary::Minimum => "minimum_cpu",
            Binary::Atan2 => "atan2_cpu",
            Binary::Fmod => "fmod_cpu",
            Binary::Remainder => "remainder_cpu",
            Binary::FloorDiv => "div_floor_cpu",
            Binary::TruncDiv => "div_trunc_cpu",
            Binary::Xlogy => "xlogy_cpu",
            Binary::Xlog1py => "xlog1py_cpu",
            Binary::Zeta => "zeta_cpu",
            Binary::Igamma => "igamma_cpu",
            Binary::Igammac => "igammac_cpu",
            Binary::Hypot => "hypot_cpu",
            Binary::Copysign => "copysign_cpu",
            Binary::Fmax => "fmax_cpu",
            Binary::Fmin => "fmin_cpu",
            Binary::Logaddexp => "logaddexp_cpu",
            Binary::Logaddexp2 => "logaddexp2_cpu",
            Binary::Nextafter => "nextafter_cpu",
            Binary::Ldexp => "ldexp_cpu",
            Binary::Heaviside => "heaviside_cpu",
            Binary::Gcd => "gcd_cpu",
            Binary::Lcm => "lcm_cpu",
        }
    }

    fn domain(self) -> Domain {
        match self {
            Binary::Atan2 | Binary::Xlogy | Binary::Xlog1py | Binary::Zeta | Binary::Copysign | Binary::Ldexp => {
                Domain::ToFloat
            }
            Binary::Hypot
            | Binary::Logaddexp
            | Binary::Logaddexp2
            | Binary::Nextafter
            | Binary::Igamma
            | Binary::Igammac => Domain::FloatOnly,
            Binary::Gcd | Binary::Lcm => Domain::IntOnly,
            _ => Domain::Any,
        }
    }

    /// torch's aten name, for "derivative for aten::<name> is not implemented".
    fn aten_name(self) -> &'static str {
        match self {
            Binary::FloorDiv => "floor_divide",
            Binary::Heaviside => "heaviside",
            Binary::Gcd => "gcd",
            Binary::Lcm => "lcm",
            _ => self.kernel_name().trim_end_matches("_cpu"),
        }
    }

    /// Whether torch has a derivative for the op (the others record `NoDerivative`).
    fn is_differentiable(self) -> bool {
        !matches!(self, Binary::Heaviside | Binary::Gcd | Binary::Lcm)
    }
}

fn nan_max<T: Element>(x: T, y: T) -> T {
    #[allow(clippy::eq_op)]
    if x != x {
        x
    } else if y != y {
        y
    } else if x > y {
        x
    } else {
        y
    }
}
fn nan_min<T: Element>(x: T, y: T) -> T {
    #[allow(clippy::eq_op)]
    if x != x {
        x
    } else if y != y {
        y
    } else if x < y {
        x
    } else {
        y
    }
}
/// Python's `%`: the remainder takes the divisor's sign.
fn py_mod_f<T: Float>(x: T, y: T) -> T {
    let r = fmod_f(x, y);
    if r != T::ZERO && ((r < T::ZERO) != (y < T::ZERO)) {
        r + y
    } else {
        r
    }
}
fn fmod_f<T: Float>(x: T, y: T) -> T {
    // C fmod
    let r = x.to_f64() % y.to_f64();
    T::from_f64(r)
}

/// Python's float `//` (as torch's div_floor): the quotient of the exact remainder, so
/// `1.0 // 0.1` is 9 (0.1 is a little above one tenth), and x/0 keeps IEEE's inf/nan.
fn floor_div_f(x: f64, y: f64) -> f64 {
    if y == 0.0 {
        return x / y;
    }
    let r = x % y;
    let mut q = (x - r) / y;
    if r != 0.0 && ((y < 0.0) != (r < 0.0)) {
        q -= 1.0;
    }
    if q == 0.0 {
        return 0.0f64.copysign(x / y);
    }
    let f = q.floor();
    if q - f > 0.5 {
        f + 1.0
    } else {
        f
    }
}
fn floor_div_i(x: i64, y: i64) -> i64 {
    let q = x.wrapping_div(y);
    if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    }
}

/// `x · log(y)` (`log` is ln or ln_1p), with the limit 0 where x == 0, as torch: NaN in y still propagates.
fn x_log<T: Float>(x: T, y: T, log: impl Fn(T) -> T) -> T {
    if y.is_nan() {
        y
    } else if x == T::ZERO {
        T::ZERO
    } else {
        x * log(y)
    }
}

/// `f` on the two values as f64 (float32 computes in float64 and rounds once).
fn via_f64<T: Float>(f: impl Fn(f64, f64) -> f64 + Sync) -> impl Fn(T, T) -> T + Sync {
    move |x: T, y: T| T::from_f64(f(x.to_f64(), y.to_f64()))
}

/// `f32_fn` for float32 (torch's float kernels compute in float32), `f64_fn` for float64.
fn in_own_precision<T: Float>(
    f32_fn: impl Fn(f32, f32) -> f32 + Sync,
    f64_fn: impl Fn(f64, f64) -> f64 + Sync,
) -> impl Fn(T, T) -> T + Sync {
    move |x: T, y: T| {
        if T::DTYPE == DType::F32 {
            T::from_f64(f64::from(f32_fn(x.to_f64() as f32, y.to_f64() as f32)))
        } else {
            T::from_f64(f64_fn(x.to_f64(), y.to_f64()))
        }
    }
}

/// The float kernels: `dtype` is the result's storage dtype (nextafter steps in its spacing) and
/// `int_exponent` whether ldexp's exponent is an integer tensor (C's exact ldexp, not `x * 2^y`).
fn binary_float<T: Float>(
    op: Binary,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    dtype: DType,
    int_exponent: bool,
) -> Result<Vec<T>> {
    match op {
        Binary::Maximum => zip_as(a, b, shape, nan_max::<T>),
        Binary::Minimum => zip_as(a, b, shape, nan_min::<T>),
        Binary::Atan2 if T::DTYPE == DType::F32 => {
            zip_as(a, b, shape, |y: T, x: T| T::from_f64(f64::from(atan2_f32(y.to_f64() as f32, x.to_f64() as f32))))
        }
        Binary::Atan2 => zip_as(a, b, shape, |x: T, y: T| x.atan2(y)),
        Binary::Fmod => zip_as(a, b, shape, fmod_f::<T>),
        Binary::Remainder => zip_as(a, b, shape, py_mod_f::<T>),
        Binary::FloorDiv => zip_as(a, b, shape, |x: T, y: T| T::from_f64(floor_div_f(x.to_f64(), y.to_f64()))),
        Binary::TruncDiv => zip_as(a, b, shape, |x: T, y: T| (x / y).trunc()),
        Binary::Xlogy => zip_as(a, b, shape, |x: T, y: T| x_log(x, y, T::ln)),
        Binary::Xlog1py => zip_as(a, b, shape, |x: T, y: T| x_log(x, y, T::ln_1p)),
        Binary::Zeta => zip_as(a, b, shape, via_f64(special_gamma::zeta)),
        Binary::Igamma => {
            zip_as(a, b, shape, in_own_precision(incomplete_gamma::igamma::<f32>, incomplete_gamma::igamma))
        }
        Binary::Igammac => {
            zip_as(a, b, shape, in_own_precision(incomplete_gamma::igammac::<f32>, incomplete_gamma::igammac))
        }
        Binary::Hypot => zip_as(a, b, shape, via_f64(f64::hypot)),
        Binary::Copysign => zip_as(a, b, shape, via_f64(f64::copysign)),
        Binary::Fmax => zip_as(a, b, shape, scalar_fns::fmax::<T>),
        Binary::Fmin => zip_as(a, b, shape, scalar_fns::fmin::<T>),
        Binary::Logaddexp => zip_as(a, b, shape, |x: T, y: T| scalar_fns::logaddexp(x, y, false)),
        Binary::Logaddexp2 => zip_as(a, b, shape, |x: T, y: T| scalar_fns::logaddexp(x, y, true)),
        Binary::Nextafter => zip_as(a, b, shape, via_f64(|x, y| scalar_fns::nextafter(x, y, dtype))),
        Binary::Ldexp if int_exponent => zip_as(a, b, shape, via_f64(scalar_fns::ldexp_int)),
        Binary::Ldexp => zip_as(a, b, shape, |x: T, y: T| x * y.exp2()),
        Binary::Heaviside => zip_as(a, b, shape, scalar_fns::heaviside::<T>),
        Binary::Gcd | Binary::Lcm => unreachable!("gcd and lcm take integers only"),
    }
}

/// The int64 kernels (narrow integers compute here and wrap back).
fn binary_int(op: Binary, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<i64>> {
    if matches!(op, Binary::Fmod | Binary::Remainder | Binary::FloorDiv | Binary::TruncDiv)
        && b.to_vec::<i64>().contains(&0)
    {
        bail!(Runtime, "ZeroDivisionError");
    }
    match op {
        Binary::Maximum => zip_as(a, b, shape, nan_max::<i64>),
        Binary::Minimum => zip_as(a, b, shape, nan_min::<i64>),
        Binary::Fmax => zip_as(a, b, shape, scalar_fns::fmax::<i64>),
        Binary::Fmin => zip_as(a, b, shape, scalar_fns::fmin::<i64>),
        Binary::Fmod => zip_as(a, b, shape, |x: i64, y: i64| x.wrapping_rem(y)),
        Binary::FloorDiv => zip_as(a, b, shape, floor_div_i),
        Binary::TruncDiv => zip_as(a, b, shape, |x: i64, y: i64| x.wrapping_div(y)),
        Binary::Remainder => zip_as(a, b, shape, |x: i64, y: i64| {
            let r = x.wrapping_rem(y);
            if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            }
        }),
        Binary::Heaviside => zip_as(a, b, shape, scalar_fns::heaviside::<i64>),
        Binary::Gcd => zip_as(a, b, shape, scalar_fns::gcd),
        Binary::Lcm => zip_as(a, b, shape, scalar_fns::lcm),
        _ => unreachable!("{op:?} computes in float dtypes"),
    }
}

/// The bool kernels: `false < true`, so the extremes are `|` and `&`.
fn binary_bool(op: Binary, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<bool>> {
    match op {
        Binary::Maximum | Binary::Fmax => zip_as(a, b, shape, |x: bool, y: bool| x | y),
        Binary::Minimum | Binary::Fmin => zip_as(a, b, shape, |x: bool, y: bool| x & y),
        // true above 0, the value at 0 (false)
        Binary::Heaviside => zip_as(a, b, shape, |x: bool, y: bool| x | y),
        _ => bail!(NotImplemented, "\"{}\" not implemented for 'Bool'", op.kernel_name()),
    }
}

impl Tensor {
    pub fn binary(&self, other: &Tensor, op: Binary) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].binary_eager(x[1], op);
        traced(op.kernel_name(), NodeKind::Elementwise, &[self, other], || eager(&[self, other]), || eager)
    }

    fn binary_eager(&self, other: &Tensor, op: Binary) -> Result<Tensor> {
        let (a, b) = (self, other);
        let shape = broadcast_shapes(a.shape(), b.shape())?;
        let mut dtype = result_type(a.promotion_key(), b.promotion_key());
        match op.domain() {
            Domain::Any => {}
            Domain::ToFloat => dtype = dtype.to_float(),
            Domain::FloatOnly if !dtype.is_float() => {
                bail!(NotImplemented, "\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name())
            }
            Domain::IntOnly if !dtype.is_int() => {
                bail!(NotImplemented, "\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name())
            }
            Domain::FloatOnly | Domain::IntOnly => {}
        }
        if dtype.is_complex() {
            bail!(NotImplemented, "\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name())
        }
        if op == Binary::Heaviside && a.dtype() != b.dtype() {
            bail!(Runtime, "heaviside is not yet implemented for tensors with different dtypes.");
        }
        let int_exponent = !b.dtype().is_float();
        let out = Tensor::in_memory_order(&[self, other], &shape, |x, shape| {
            let (l, r) = (x[0], x[1]);
            Ok(match dtype.compute() {
                DType::F64 => Tensor::from_vec(binary_float::<f64>(op, l, r, shape, dtype, int_exponent)?, shape)?,
                DType::F32 => Tensor::from_vec(binary_float::<f32>(op, l, r, shape, dtype, int_exponent)?, shape)?,
                DType::I64 => Tensor::from_vec(binary_int(op, l, r, shape)?, shape)?,
                DType::Bool => Tensor::from_vec(binary_bool(op, l, r, shape)?, shape)?,
                _ => unreachable!("compute dtypes are bool, int64, float32 and float64"),
            }
            .cast_detached(dtype))
        })?;
        // number % tensor: torch has no derivative for remainder's (Scalar, Tensor) overload
        if !op.is_differentiable() || (op == Binary::Remainder && a.0.wrapped_number) {
            return Ok(record(out, &[a, b], |_| NoDerivative { op }));
        }
        let saved = |_: &Tensor| BinaryBackward {
            op,
            self_is_number: a.0.wrapped_number,
            other_is_number: b.0.wrapped_number,
            self_: SavedTensor::input(a),
            other: SavedTensor::input(b),
        };
        Ok(record(out, &[a, b], saved))
    }
    /// `floor_divide` and `//`: the values of `div(rounding_mode='floor')` but, as in torch, no derivative.
    pub fn floor_divide(&self, other: &Tensor) -> Result<Tensor> {
        let out = {
            let _no_grad = GradModeGuard::new(false);
            self.binary(other, Binary::FloorDiv)?
        };
        Ok(record(out, &[self, other], |_| NoDerivative { op: Binary::FloorDiv }))
    }
    pub fn maximum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Maximum)
    }
    pub fn minimum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Minimum)
    }
    /// `float_power`: `pow` in float64, as torch composes it (so its nodes are pow's: `PowBackward0` for a
    /// number exponent, `PowBackward2` for a number base); a Python number stays one.
    pub fn float_power(&self, exponent: &Tensor) -> Result<Tensor> {
        let in_f64 = |t: &Tensor| if t.0.wrapped_number { Ok(t.clone()) } else { t.to_dtype(DType::F64) };
        in_f64(self)?.pow(&in_f64(exponent)?)
    }
}

impl AsField for Binary {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    names = [
        "MaximumBackward0", "MinimumBackward0", "Atan2Backward0", "FmodBackward0", "FmodBackward1",
        "RemainderBackward0", "RemainderBackward1", "DivBackward2", "XlogyBackward0", "XlogyBackward1",
        "XlogyBackward2", "SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1", "SpecialXlog1PyBackward2",
        "SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2", "IgammaBackward0",
        "IgammacBackward0", "HypotBackward0",
        "CopysignBackward0", "CopysignBackward1", "FmaxBackward0", "FminBackward0", "LogaddexpBackward0",
        "Logaddexp2Backward0", "NextafterBackward0", "LdexpBackward0",
    ];
    /// The ops of `Binary`, named after the op and (for the remainders, xlogy, xlog1py and zeta) whether
    /// `self` or `other` is a number.
    pub struct BinaryBackward {
        op: Binary,
        self_is_number: bool,
        other_is_number: bool,
        self_: SavedTensor,
        other: SavedTensor,
    }
}
impl BinaryBackward {
    /// Which of torch's overloads recorded the op: (Tensor, Tensor), (Scalar, Tensor), (Tensor, Scalar).
    fn overload(&self) -> usize {
        match (self.self_is_number, self.other_is_number) {
            (true, _) => 1,
            (false, true) => 2,
            (false, false) => 0,
        }
    }
}
impl Backward for BinaryBackward {
    fn name(&self) -> &'static str {
        match (self.op, self.other_is_number) {
            (Binary::Maximum, _) => "MaximumBackward0",
            (Binary::Minimum, _) => "MinimumBackward0",
            (Binary::Atan2, _) => "Atan2Backward0",
            (Binary::Fmod, true) => "FmodBackward0",
            (Binary::Fmod, false) => "FmodBackward1",
            (Binary::Remainder, true) => "RemainderBackward0",
            (Binary::Remainder, false) => "RemainderBackward1",
            (Binary::FloorDiv | Binary::TruncDiv, _) => "DivBackward2",
            // torch's overloads: 0 for two tensors, 1 for a number `self`, 2 for a number `other`
            (Binary::Xlogy, _) => ["XlogyBackward0", "XlogyBackward1", "XlogyBackward2"][self.overload()],
            (Binary::Xlog1py, _) => {
                ["SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1", "SpecialXlog1PyBackward2"][self.overload()]
            }
            (Binary::Zeta, _) => {
                ["SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2"][self.overload()]
            }
            (Binary::Igamma, _) => "IgammaBackward0",
            (Binary::Igammac, _) => "IgammacBackward0",
            (Binary::Hypot, _) => "HypotBackward0",
            (Binary::Copysign, false) => "CopysignBackward0",
            (Binary::Copysign, true) => "CopysignBackward1",
            (Binary::Fmax, _) => "FmaxBackward0",
            (Binary::Fmin, _) => "FminBackward0",
            (Binary::Logaddexp, _) => "LogaddexpBackward0",
            (Binary::Logaddexp2, _) => "Logaddexp2Backward0",
            (Binary::Nextafter, _) => "NextafterBackward0",
            (Binary::Ldexp, _) => "LdexpBackward0",
            // recorded as NoDerivative
            (Binary::Heaviside | Binary::Gcd | Binary::Lcm, _) => "NotImplemented",
        }
    }
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.other)?);
        binary_grad(ctx, self.op, g, &a, &b)
    }
}

crate::backward_rule! {
    names = ["NotImplemented"];
    /// torch's node for the ops without a derivative formula (floor_divide, heaviside, gcd, lcm, number %
    /// tensor): backward
    /// through it fails.
    pub struct NoDerivative {
        op: Binary,
    }
}
impl Backward for NoDerivative {
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        bail!(Runtime, "derivative for aten::{} is not implemented", self.op.aten_name())
    }
}

/// The gradients of `op(a, b)` for inputs 0 and 1 (shared with clamp's tensor bounds).
pub(crate) fn binary_grad(ctx: &Ctx<'_>, op: Binary, g: &Tensor, a: &Tensor, b: &Tensor) -> Result<Grads> {
    Ok(match op {
        Binary::Maximum | Binary::Minimum => {
            // minimum(a, b) gives each side the share maximum(b, a) would
            let (x, y) = if op == Binary::Maximum { (a, b) } else { (b, a) };
            vec![ctx.grad_if(0, || g.mul(&tie_weight(x, y)?))?, ctx.grad_if(1, || g.mul(&tie_weight(y, x)?))?]
        }
        Binary::Atan2 => {
            let r2 = a.mul(a)?.add(&b.mul(b)?)?;
            // at the origin torch gives 0, not 0 / 0
            let origin = r2.eq(&c(0.0))?;
            let r2 = Tensor::where_(&origin, &c(1.0), &r2)?;
            let d = |num: Tensor| Tensor::where_(&origin, &c(0.0), &g.mul(&num)?.div(&r2)?);
            vec![ctx.grad_if(0, || d(b.clone()))?, ctx.grad_if(1, || d(a.neg()?))?]
        }
        // torch's -g · div(x, y, rounding_mode): the exact quotient (-1 // inf is -1, where floor(-1 / inf) is -0)
        Binary::Fmod | Binary::Remainder => {
            let rounding = if op == Binary::Fmod { Binary::TruncDiv } else { Binary::FloorDiv };
            vec![ctx.grad_if(0, || Ok(g.clone()))?, ctx.grad_if(1, || g.mul(&a.binary(b, rounding)?.neg()?))?]
        }
        // piecewise constant: zero almost everywhere, as torch
        Binary::FloorDiv | Binary::TruncDiv => {
            vec![ctx.grad_if(0, || zeros_like(g))?, ctx.grad_if(1, || zeros_like(g))?]
        }
        // torch's rules: x's gradient is xlogy(g, y) (xlog1py(g, y)), 0 where x == 0 and y <= 0 (y <= -1), so
        // log(y) where x == 0 < y; y's is x / y (or x / (1 + y))
        Binary::Xlogy | Binary::Xlog1py => {
            let pole = if op == Binary::Xlogy { 0.0 } else { -1.0 };
            let x_grad = || {
                let masked = a.eq(&c(0.0))?.logical_and(&b.le(&c(pole))?)?;
                Tensor::where_(&masked, &c(0.0), &g.binary(b, op)?)
            };
            let denominator = || if op == Binary::Xlogy { Ok(b.clone()) } else { b.add(&c(1.0)) };
            vec![ctx.grad_if(0, x_grad)?, ctx.grad_if(1, || g.mul(&a.div(&denominator()?)?))?]
        }
        // ∂ζ(x, q)/∂q = -x ζ(x + 1, q); torch has no derivative in x
        Binary::Zeta => vec![
            ctx.grad_if(0, || bail!(NotImplemented, "the derivative for 'zeta' is not implemented."))?,
            ctx.grad_if(1, || g.mul(&a.add(&c(1.0))?.binary(b, Binary::Zeta)?.mul(&a.neg()?)?))?,
        ],
        // ∂P(a, x)/∂x = x^{a-1} e^{-x} / Γ(a), written as torch's exp((a-1) ln x - x - lnΓ(a)) (Q's is its
        // negative); torch has no derivative in a
        Binary::Igamma | Binary::Igammac => {
            let name = if op == Binary::Igamma { "igamma" } else { "igammac" };
            let density = || a.sub(&c(1.0))?.mul(&b.unary(Log)?)?.sub(b)?.sub(&a.unary(Lgamma)?)?.unary(Exp);
            vec![
                ctx.grad_if(0, || bail!(NotImplemented, "the derivative for '{name}: input' is not implemented."))?,
                ctx.grad_if(1, || if op == Binary::Igamma { g.mul(&density()?) } else { g.neg()?.mul(&density()?) })?,
            ]
        }
        // torch's `grad * self / result`: NaN at the origin, as torch
        Binary::Hypot => {
            let out = a.binary(b, Binary::Hypot)?;
            vec![ctx.grad_if(0, || g.mul(a)?.div(&out))?, ctx.grad_if(1, || g.mul(b)?.div(&out))?]
        }
        // ±1 (result / self), 0 where self is ±0; the sign's source gets 0
        Binary::Copysign => {
            let ratio = || Tensor::where_(&a.eq(&c(0.0))?, &c(0.0), &a.binary(b, Binary::Copysign)?.div(a)?);
            vec![ctx.grad_if(0, || g.mul(&ratio()?))?, ctx.grad_if(1, || zeros_like(g))?]
        }
        // the picked side's share: halves on ties, everything to self when other is NaN (self's NaN loses)
        Binary::Fmax | Binary::Fmin => {
            let picks_self = if op == Binary::Fmax { a.gt(b)? } else { a.lt(b)? };
            let picks_self = picks_self.logical_or(&b.float_class(FloatClass::Nan)?)?;
            let share = Tensor::where_(&a.eq(b)?, &c(0.5), &Tensor::where_(&picks_self, &c(1.0), &c(0.0))?)?;
            vec![ctx.grad_if(0, || g.mul(&share))?, ctx.grad_if(1, || g.mul(&c(1.0).sub(&share)?))?]
        }
        // g / (1 + exp(other - self)) and its mirror (exp2 for logaddexp2): 0 and 1 at ±inf, NaN at inf - inf
        Binary::Logaddexp | Binary::Logaddexp2 => {
            let weight = |x: &Tensor, y: &Tensor| {
                let d = y.sub(x)?;
                let e = if op == Binary::Logaddexp { d.unary(Exp)? } else { d.unary(Exp2)? };
                g.div(&e.add(&c(1.0))?)
            };
            vec![ctx.grad_if(0, || weight(a, b))?, ctx.grad_if(1, || weight(b, a))?]
        }
        // the identity where the step is taken, 0 where self == other; none for the direction
        Binary::Nextafter => {
            vec![ctx.grad_if(0, || Tensor::where_(&a.eq(b)?, &c(0.0), g))?, ctx.grad_if(1, || zeros_like(g))?]
        }
        // torch's grad * 2^other and grad * result * ln 2
        Binary::Ldexp => vec![
            ctx.grad_if(0, || g.mul(&b.unary(Exp2)?))?,
            ctx.grad_if(1, || g.mul(&a.binary(b, Binary::Ldexp)?)?.mul(&c(std::f64::consts::LN_2)))?,
        ],
        Binary::Heaviside | Binary::Gcd | Binary::Lcm => unreachable!("recorded as NoDerivative"),
    })
}

fn zeros_like(g: &Tensor) -> Result<Tensor> {
    Ok(Tensor::zeros(g.shape(), g.dtype()))
}
