//! maximum/minimum, atan2, fmod/remainder and the rounded divisions, and their one backward rule.
use super::zip_as;
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::record;
use crate::autograd::{AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::dtype::{result_type, DType};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::special::gamma as special_gamma;
use crate::layout::broadcast_shapes;
use crate::ops::formula::{c, tie_weight};
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
        }
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

fn binary_float<T: Float>(op: Binary, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<T>> {
    match op {
        Binary::Maximum => zip_as(a, b, shape, nan_max::<T>),
        Binary::Minimum => zip_as(a, b, shape, nan_min::<T>),
        Binary::Atan2 => zip_as(a, b, shape, |x: T, y: T| x.atan2(y)),
        Binary::Fmod => zip_as(a, b, shape, fmod_f::<T>),
        Binary::Remainder => zip_as(a, b, shape, py_mod_f::<T>),
        Binary::FloorDiv => zip_as(a, b, shape, |x: T, y: T| T::from_f64(floor_div_f(x.to_f64(), y.to_f64()))),
        Binary::TruncDiv => zip_as(a, b, shape, |x: T, y: T| (x / y).trunc()),
        Binary::Xlogy => zip_as(a, b, shape, |x: T, y: T| x_log(x, y, T::ln)),
        Binary::Xlog1py => zip_as(a, b, shape, |x: T, y: T| x_log(x, y, T::ln_1p)),
        Binary::Zeta => zip_as(a, b, shape, |x: T, q: T| T::from_f64(special_gamma::zeta(x.to_f64(), q.to_f64()))),
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
        if matches!(op, Binary::Atan2 | Binary::Xlogy | Binary::Xlog1py | Binary::Zeta) {
            dtype = dtype.to_float();
        }
        let out = Tensor::in_memory_order(&[self, other], &shape, |x, shape| {
            Ok(match dtype.compute() {
                DType::F64 => Tensor::from_vec(binary_float::<f64>(op, x[0], x[1], shape)?, shape)?,
                DType::F32 => Tensor::from_vec(binary_float::<f32>(op, x[0], x[1], shape)?, shape)?,
                DType::I64 => {
                    if matches!(op, Binary::Fmod | Binary::Remainder | Binary::FloorDiv | Binary::TruncDiv)
                        && x[1].to_vec::<i64>().contains(&0)
                    {
                        bail!(Runtime, "ZeroDivisionError");
                    }
                    let v = match op {
                        Binary::Maximum => zip_as(x[0], x[1], shape, nan_max::<i64>)?,
                        Binary::Minimum => zip_as(x[0], x[1], shape, nan_min::<i64>)?,
                        Binary::Fmod => zip_as(x[0], x[1], shape, |x: i64, y: i64| x.wrapping_rem(y))?,
                        Binary::FloorDiv => zip_as(x[0], x[1], shape, floor_div_i)?,
                        Binary::TruncDiv => zip_as(x[0], x[1], shape, |x: i64, y: i64| x.wrapping_div(y))?,
                        _ => zip_as(x[0], x[1], shape, |x: i64, y: i64| {
                            let r = x.wrapping_rem(y);
                            if r != 0 && ((r < 0) != (y < 0)) {
                                r + y
                            } else {
                                r
                            }
                        })?,
                    };
                    Tensor::from_vec(v, shape)?
                }
                DType::Bool => match op {
                    Binary::Maximum => Tensor::from_vec(zip_as(x[0], x[1], shape, |x: bool, y: bool| x | y)?, shape)?,
                    Binary::Minimum => Tensor::from_vec(zip_as(x[0], x[1], shape, |x: bool, y: bool| x & y)?, shape)?,
                    _ => bail!(NotImplemented, "\"{}\" not implemented for 'Bool'", op.kernel_name()),
                },
                _ => unreachable!("compute dtypes are bool, int64, float32 and float64"),
            }
            .cast_detached(dtype))
        })?;
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
        Ok(record(out, &[self, other], |_| FloorDivideBackward))
    }
    pub fn maximum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Maximum)
    }
    pub fn minimum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Minimum)
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
        "RemainderBackward0", "RemainderBackward1", "NotImplemented", "DivBackward2", "XlogyBackward0",
        "XlogyBackward1", "XlogyBackward2", "SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1",
        "SpecialXlog1PyBackward2", "SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2",
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
            // number % tensor: torch has no derivative (a node that fails in backward)
            (Binary::Remainder, _) if self.self_is_number => "NotImplemented",
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
        }
    }
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        if self.op == Binary::Remainder && self.self_is_number {
            bail!(Runtime, "derivative for aten::remainder is not implemented");
        }
        let (a, b) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.other)?);
        binary_grad(ctx, self.op, g, &a, &b)
    }
}

crate::backward_rule! {
    names = ["NotImplemented"];
    /// torch's node for floor_divide, which has no derivative formula: backward through it fails.
    pub struct FloorDivideBackward;
}
impl Backward for FloorDivideBackward {
    fn apply(&self, _: &Ctx<'_>, _: &Tensor) -> Result<Grads> {
        bail!(Runtime, "derivative for aten::floor_divide is not implemented")
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
            let zeros = || Ok(Tensor::zeros(g.shape(), g.dtype()));
            vec![ctx.grad_if(0, zeros)?, ctx.grad_if(1, zeros)?]
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
    })
}
