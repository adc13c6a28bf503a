//! `+ - * / **` with broadcasting and PyTorch's type promotion, and their backward rules.
use super::zip_as;
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::compile::{traced_fusable, Elementwise, NodeKind, SliceKernel};
use crate::dtype::{result_type, DType, Scalar};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::elementwise::map2;
use crate::kernels::simd::{map_into, zip_into};
use crate::layout::{broadcast_shapes, Layout};
use crate::ops::formula::{c, one_pass_grad};
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

fn arith_kernel<T: Element>(op: Arith, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<T>> {
    match op {
        Arith::Add => zip_as(a, b, shape, T::add),
        Arith::Sub => zip_as(a, b, shape, T::sub),
        Arith::Mul => zip_as(a, b, shape, T::mul),
        Arith::Div => zip_as(a, b, shape, T::div),
        Arith::Pow => zip_as(a, b, shape, T::pow),
    }
}

fn arith(a: &Tensor, b: &Tensor, op: Arith) -> Result<Tensor> {
    let name = match op {
        Arith::Add => "add",
        Arith::Sub => "sub",
        Arith::Mul => "mul",
        Arith::Div => "div",
        Arith::Pow => "pow",
    };
    traced_fusable(
        name,
        NodeKind::Elementwise,
        &[a, b],
        || arith_eager(a, b, op),
        || move |x: &[&Tensor]| arith_eager(x[0], x[1], op),
        |out| arith_slice_kernel(a, b, op, out.dtype()),
    )
}

/// The kernel `map2` runs for this op over contiguous operands, as a handle for fusion: `zip_into` with
/// the op's function for two tensors, `map_into` with the number folded in (read as `T`, as `zip_as`
/// reads it) for a tensor and a number. Pow with a number exponent of ±0.5 is sqrt in eager: not fused.
fn arith_slice_kernel(a: &Tensor, b: &Tensor, op: Arith, dtype: DType) -> Option<SliceKernel> {
    if op == Arith::Pow && b.0.wrapped_number && !b.is_complex() {
        let e = b.to_vec::<f64>()[0];
        if [0.5, -0.5].contains(&e) {
            return None;
        }
        // the other shortcuts as eager computes them (`arith_eager`): a copy, a reciprocal, products each rounded
        if POWERS_BY_SHORTCUT.contains(&e) && a.dtype() == dtype {
            let f32 = || Arc::new(move |o: &mut [_], x: &[f32]| map_into(o, x, &power_by_products::<f32>(e))) as _;
            let f64 = || Arc::new(move |o: &mut [_], x: &[f64]| map_into(o, x, &power_by_products::<f64>(e))) as _;
            return SliceKernel::map(dtype, 0, f32, f64);
        }
    }
    match dtype {
        DType::F32 => Some(SliceKernel::F32(arith_elementwise::<f32>(a, b, op)?)),
        DType::F64 => Some(SliceKernel::F64(arith_elementwise::<f64>(a, b, op)?)),
        _ => None,
    }
}

/// The number exponents `arith_eager` computes otherwise than by powf.
const POWERS_BY_SHORTCUT: [f64; 7] = [0.5, -0.5, 1.0, -1.0, 2.0, 3.0, -2.0];

/// `x ** e` for the exponents of `POWERS_BY_SHORTCUT` as `arith_eager` computes it: √x, 1 / √x, x, 1 / x, x·x,
/// x·x·x, 1 / (x·x).
fn power_by_products<T: Float>(e: f64) -> impl Fn(T) -> T + Copy {
    move |x: T| {
        if e == 0.5 {
            x.sqrt()
        } else if e == -0.5 {
            T::ONE / x.sqrt()
        } else if e == 1.0 {
            x
        } else if e == -1.0 {
            T::ONE / x
        } else if e == 2.0 {
            x * x
        } else if e == 3.0 {
            x * x * x
        } else {
            T::ONE / (x * x)
        }
    }
}

fn arith_elementwise<T: Element>(a: &Tensor, b: &Tensor, op: Arith) -> Option<Elementwise<T>> {
    // the op's function as the fn item eager passes to `zip_as` (a fn pointer would not vectorize)
    match op {
        Arith::Add => elementwise_of(a, b, T::add),
        Arith::Sub => elementwise_of(a, b, T::sub),
        Arith::Mul => elementwise_of(a, b, T::mul),
        Arith::Div => elementwise_of(a, b, T::div),
        Arith::Pow => elementwise_of(a, b, T::pow),
    }
}

fn elementwise_of<T: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> T + Copy + Send + Sync + 'static,
) -> Option<Elementwise<T>> {
    let number = |t: &Tensor| t.with_data(|l, v: &[T]| v[l.offset]);
    Some(match (a.0.wrapped_number, b.0.wrapped_number) {
        (false, false) => Elementwise::Zip(Arc::new(move |o, x, y| zip_into(o, x, y, &f))),
        (false, true) if !b.is_complex() => {
            let y = number(b);
            Elementwise::Map { operand: 0, f: Arc::new(move |o, x| map_into(o, x, &|x| f(x, y))) }
        }
        (true, false) if !a.is_complex() => {
            let x = number(a);
            Elementwise::Map { operand: 1, f: Arc::new(move |o, y| map_into(o, y, &|y| f(x, y))) }
        }
        _ => return None,
    })
}

fn arith_eager(a: &Tensor, b: &Tensor, op: Arith) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let mut dtype = result_type(a.promotion_key(), b.promotion_key());
    if op == Arith::Div {
        dtype = dtype.to_float();
    }
    if op == Arith::Sub {
        check_sub_operands(a, b)?;
    }
    if op == Arith::Pow {
        // torch refuses a negative number exponent of an integer tensor, but computes a tensor exponent's
        // (1 for 1, ±1 for -1, else 0); a bool result is computed only for a number exponent
        if dtype.is_int() && b.0.wrapped_number && b.dtype() != DType::Bool && b.to_vec::<f64>()[0] < 0.0 {
            bail!(Runtime, "Integers to negative integer powers are not allowed.");
        }
        if dtype == DType::Bool && !b.0.wrapped_number {
            bail!(NotImplemented, "\"pow\" not implemented for 'Bool'");
        }
    }
    // torch computes a few number exponents otherwise than by `pow`, and its values are theirs: ±0.5 is sqrt
    // (1/sqrt): pow(-inf, 0.5) is NaN and pow(-0, -0.5) is -inf there, where powf gives inf for both (and the
    // gradient at -0 goes through the same); 2 is x·x, 3 is x·x·x and -2 is 1/(x·x), each product rounded (x**3 differs
    // from a once-rounded cube in a third of float32 values); 1 is a copy and -1 is 1/x (powf's values, without its
    // cost: `x ** 2`'s gradient takes `x ** 1`, 4.3 ms by powf over 1e6 float32)
    let shortcut = (op == Arith::Pow && b.0.wrapped_number && dtype.is_float() && a.dtype() == dtype)
        .then(|| b.to_vec::<f64>()[0])
        .filter(|&e| POWERS_BY_SHORTCUT.contains(&e));
    let out = match shortcut {
        None if dtype.is_complex() => {
            use crate::ops::complex::PairOp;
            let pair_op = match op {
                Arith::Add => PairOp::Add,
                Arith::Sub => PairOp::Sub,
                Arith::Mul => PairOp::Mul,
                Arith::Div => PairOp::Div,
                Arith::Pow => match complex_power_shortcut(a, b)? {
                    Some(out) => return record_arith(a, b, op, out),
                    None => PairOp::Pow,
                },
            };
            a.complex_arith_values(b, pair_op, dtype, &shape)?
        }
        Some(e) => {
            let x = a.detach();
            if e == 1.0 {
                x.clone_tensor()?
            } else if e == -1.0 {
                x.reciprocal()?
            } else if e == 2.0 {
                x.mul(&x)?
            } else if e == 3.0 {
                x.mul(&x)?.mul(&x)?
            } else if e == -2.0 {
                x.mul(&x)?.reciprocal()?
            } else if e < 0.0 {
                x.sqrt()?.reciprocal()?
            } else {
                x.sqrt()?
            }
        }
        None => Tensor::in_memory_order(&[a, b], &shape, |x, shape| {
            if op == Arith::Mul {
                if let Some(out) = product_with_mask(x[0], x[1], shape, dtype)? {
                    return Ok(out);
                }
            }
            with_dtype!(dtype, T => Tensor::from_vec(arith_kernel::<T>(op, x[0], x[1], shape)?, shape))
        })?,
    };
    record_arith(a, b, op, out)
}

/// `g * mask`, a bool mask beside a float32 or float64 tensor (either side: the product commutes bit for bit), reads
/// the mask as bool and converts each value in the loop, instead of casting the whole mask first: over 1e6 float32,
/// 343 -> 176 µs (`g * g`: 160). Only the product and these two dtypes: each pair compiles `map2`'s vectorized paths
/// once more, and the same path in `zip_as`, for every op and dtype, made the release build 3× longer.
fn product_with_mask(a: &Tensor, b: &Tensor, shape: &[usize], dtype: DType) -> Result<Option<Tensor>> {
    // the values' dtype must be the product's: `mask * 0.5` is float32, where the number is held as float64
    let (values, mask) = match (a.dtype(), b.dtype()) {
        (t, DType::Bool) if t == dtype => (a, b),
        (DType::Bool, t) if t == dtype => (b, a),
        _ => return Ok(None),
    };
    fn masked<T: Float>(values: &Tensor, mask: &Tensor, shape: &[usize]) -> Result<Tensor> {
        let out = values.with_data(|lv: &Layout, xv: &[T]| {
            mask.with_data(|lm: &Layout, xm: &[bool]| {
                let (lv, lm) = (lv.broadcast_to(shape)?, lm.broadcast_to(shape)?);
                Ok(map2(&lv, xv, &lm, xm, |x, m| x * if m { T::ONE } else { T::ZERO }))
            })
        })?;
        Tensor::from_vec(out, shape)
    }
    Ok(match values.dtype() {
        DType::F32 => Some(masked::<f32>(values, mask, shape)?),
        DType::F64 => Some(masked::<f64>(values, mask, shape)?),
        _ => None,
    })
}

/// torch's complex `pow` by a real number: the exponents it computes by products, roots and reciprocals (so
/// `z ** 2` is `z * z`, exact, and `0 ** -1` is `1 / 0`), and 1 for 0 (even of NaN); None for the others.
fn complex_power_shortcut(a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
    if !b.0.wrapped_number || b.is_complex() || !a.is_complex() {
        return Ok(None);
    }
    let a = a.detach();
    let e = b.to_vec::<f64>()[0];
    Ok(Some(match e {
        0.0 => Tensor::complex_full(a.shape(), 1.0, 0.0, a.dtype())?,
        0.5 => a.sqrt()?,
        -0.5 => a.sqrt()?.reciprocal()?,
        1.0 => a.clone_tensor()?,
        2.0 => a.mul(&a)?,
        3.0 => a.mul(&a)?.mul(&a)?,
        -1.0 => a.reciprocal()?,
        -2.0 => a.mul(&a)?.reciprocal()?,
        _ => return Ok(None),
    }))
}

/// `out`, the values of `a op b`, recorded with the op's rule.
fn record_arith(a: &Tensor, b: &Tensor, op: Arith, out: Tensor) -> Result<Tensor> {
    let inputs = [a, b];
    Ok(match op {
        Arith::Add => record(out, &inputs, |_| AddBackward0 { alpha: 1 }),
        // a number on the left is no input of the node (torch's RsubBackward1/PowBackward2 have one edge)
        Arith::Sub if a.0.wrapped_number => record(out, &[b], |_| RsubBackward1),
        Arith::Sub => record(out, &inputs, |_| SubBackward0 { alpha: 1 }),
        // each factor is needed only for the other's gradient
        Arith::Mul => record(out, &inputs, |_| MulBackward0 {
            self_: b.requires_grad().then(|| SavedTensor::input(a)),
            other: a.requires_grad().then(|| SavedTensor::input(b)),
        }),
        Arith::Div => record(out, &inputs, |_| DivBackward0 {
            self_: b.requires_grad().then(|| SavedTensor::input(a)),
            other: SavedTensor::input(b),
        }),
        Arith::Pow if b.0.wrapped_number && b.is_complex() => {
            let (re, im) = b.complex_values()?[0];
            record(out, &inputs, |_| PowComplexNumberBackward0 {
                self_: SavedTensor::input(a),
                exponent_real: re,
                exponent_imag: im,
            })
        }
        Arith::Pow if a.0.wrapped_number && a.is_complex() => {
            let (re, im) = a.complex_values()?[0];
            record(out, &[b], |out| PowComplexBaseBackward2 {
                self_real: re,
                self_imag: im,
                result: SavedTensor::output(out),
            })
        }
        Arith::Pow if b.0.wrapped_number => {
            let value = b.to_vec::<f64>()[0];
            let exponent = if b.dtype().is_float() { Scalar::Float(value) } else { Scalar::Int(value as i64) };
            record(out, &inputs, |_| PowBackward0 { self_: SavedTensor::input(a), exponent })
        }
        Arith::Pow if a.0.wrapped_number => {
            record(out, &[b], |out| PowBackward2 { self_: a.to_vec::<f64>()[0], result: SavedTensor::output(out) })
        }
        Arith::Pow => record(out, &inputs, |out| PowBackward1 {
            self_: SavedTensor::input(a),
            exponent: SavedTensor::input(b),
            result: SavedTensor::output(out),
        }),
    })
}

/// torch's refusal of bool operands in subtraction (NotImplementedError in torch 2.x).
fn check_sub_operands(a: &Tensor, b: &Tensor) -> Result<()> {
    match (a.dtype() == DType::Bool, b.dtype() == DType::Bool) {
        (true, true) => bail!(
            NotImplemented,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or \
            `logical_xor()` operator instead."
        ),
        (true, false) | (false, true) => bail!(
            NotImplemented,
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to \
            invert a mask, use the `~` or `logical_not()` operator instead."
        ),
        _ => Ok(()),
    }
}

/// Which of add/sub an `alpha=` scales the other operand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaOp {
    Add,
    Sub,
}

impl Tensor {
    /// `alpha * other` as `self + alpha * other` (add/sub's `alpha=`) reads it, so that the sum is torch's:
    /// the product is taken in the pair's result dtype (an int32 `other` next to a float `self` does not wrap
    /// first; a Python number `other` keeps the tensor's dtype), alpha counts as a bool for a bool result, and a
    /// float alpha with an integral (or bool) result is torch's RuntimeError.
    pub fn alpha_scaled(&self, other: &Tensor, alpha: Scalar, op: AlphaOp) -> Result<Tensor> {
        let dtype = result_type(self.promotion_key(), other.promotion_key());
        if !dtype.is_float() && matches!(alpha, Scalar::Float(_)) {
            bail!(Runtime, "For integral input tensors, argument alpha must not be a floating point number.");
        }
        if dtype != DType::Bool && matches!(alpha, Scalar::Bool(_)) {
            bail!(Runtime, "Boolean alpha only supported for Boolean results.");
        }
        if op == AlphaOp::Sub {
            check_sub_operands(self, other)?;
        }
        let one = match alpha {
            Scalar::Int(v) => v == 1,
            Scalar::Float(v) => v == 1.0,
            Scalar::Bool(v) => v,
        };
        if one || (dtype == DType::Bool && alpha.to_f64() != 0.0) {
            return Ok(other.clone());
        }
        if dtype == DType::Bool {
            return other.mul(&Tensor::wrapped_scalar(Scalar::Bool(false)));
        }
        // a Python number becomes a plain 0-dim tensor of the result dtype first: two wrapped numbers would
        // multiply in the default float32
        let other =
            if other.0.wrapped_number { Tensor::full(&[], other.item()?, dtype) } else { other.to_dtype(dtype)? };
        other.mul(&Tensor::wrapped_scalar(alpha))
    }
}

impl Tensor {
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Add)
    }
    pub fn sub(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Sub)
    }
    pub fn mul(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Mul)
    }
    pub fn div(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Div)
    }
    pub fn pow(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Pow)
    }
}

crate::backward_rule! {
    /// `a + b`.
    pub struct AddBackward0 {
        /// always 1: `alpha=` other than 1 records its own multiplication
        alpha: i64,
    }
}
impl Backward for AddBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![Some(g.clone()), Some(g.clone())])
    }
}

crate::backward_rule! {
    /// `a - b`.
    pub struct SubBackward0 {
        /// always 1: `alpha=` other than 1 records its own multiplication
        alpha: i64,
    }
}
impl Backward for SubBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![Some(g.clone()), Some(g.neg()?)])
    }
}

crate::backward_rule! {
    /// `n - x` with a Python number `n`.
    pub struct RsubBackward1;
}
impl Backward for RsubBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![Some(g.neg()?)])
    }
}

crate::backward_rule! {
    /// `self * other`: each factor is the other's gradient.
    pub struct MulBackward0 {
        self_: Option<SavedTensor>,
        other: Option<SavedTensor>,
    }
}
impl Backward for MulBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack_opt(&self.self_)?, ctx.unpack_opt(&self.other)?);
        // x * x: both gradients go to one place, so they can be made as one (a post hook on this node
        // still sees the two separately)
        if let (Some(a), Some(b)) = (&a, &b) {
            if a.same_tensor(b) && !ctx.has_post_hooks() {
                if let Some(grad) = fused_square_grad(g, a) {
                    return Ok(vec![Some(grad?), None]);
                }
            }
        }
        // each factor is saved exactly when the other's gradient is needed (conjugated: torch's complex rule; a
        // real factor is its own conjugate)
        Ok(vec![b.map(|b| g.mul(&b.conj()?)).transpose()?, a.map(|a| g.mul(&a.conj()?)).transpose()?])
    }
}

/// The gradient of `x * x` when not recorded: `g·x + g·x`, the sum the engine would otherwise form of
/// the two factors' gradients (so the same bits), in one pass.
fn fused_square_grad(g: &Tensor, x: &Tensor) -> Option<Result<Tensor>> {
    let (f32, f64) = (|g: f32, x: f32| (g * x) + (g * x), |g: f64, x: f64| (g * x) + (g * x));
    one_pass_grad("MulBackward0", g, x, Some(f32), Some(f64), None)
}

crate::backward_rule! {
    /// `self / other`.
    pub struct DivBackward0 {
        self_: Option<SavedTensor>,
        other: SavedTensor,
    }
}
impl Backward for DivBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack_opt(&self.self_)?, ctx.unpack(&self.other)?);
        // -g · conj((a / b) / b), torch's order: -g · a / b² overflows (a huge a or b gives inf / inf = NaN); the
        // conjugates are torch's complex rule (a real tensor is its own)
        let grad_other = a.map(|a| g.neg()?.mul(&a.div(&b)?.div(&b)?.conj()?)).transpose()?;
        Ok(vec![ctx.grad_if(0, || g.div(&b.conj()?))?, grad_other])
    }
}

crate::backward_rule! {
    /// `self ** exponent` with a number exponent.
    pub struct PowBackward0 {
        self_: SavedTensor,
        /// as given (an int shows as an int)
        exponent: Scalar,
    }
}
impl Backward for PowBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let a = ctx.unpack(&self.self_)?;
        let exponent = self.exponent.to_f64();
        if exponent == 0.0 {
            // torch's zeros: +0 where the incoming gradient is negative, and 0 where it is NaN
            return one(Ok(Tensor::zeros(a.shape(), a.dtype())));
        }
        // `x ** 2`'s `g·(x·2)` and the like in one pass when not recorded: the same ops on each element as below
        if POWERS_BY_SHORTCUT.contains(&(exponent - 1.0)) {
            let (p32, p64) = (power_by_products::<f32>(exponent - 1.0), power_by_products::<f64>(exponent - 1.0));
            let (e32, e64) = (f32::from_f64(exponent), exponent);
            let f32 = move |g: f32, x: f32| g * (p32(x) * e32);
            let f64 = move |g: f64, x: f64| g * (p64(x) * e64);
            if let Some(grad) = one_pass_grad("PowBackward0", g, &a, Some(f32), Some(f64), None) {
                return one(grad);
            }
        }
        // the derivative conjugated for complex input (torch's rule; a real one is its own conjugate)
        one(g.mul(&a.pow(&c(exponent - 1.0))?.mul(&c(exponent))?.conj()?))
    }
}

crate::backward_rule! {
    names = ["PowBackward0"];
    /// `self ** exponent` with a complex number exponent: `g · conj(e · self^(e-1))`, 0 for e = 0.
    pub struct PowComplexNumberBackward0 {
        self_: SavedTensor,
        exponent_real: f64,
        exponent_imag: f64,
    }
}
impl Backward for PowComplexNumberBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let a = ctx.unpack(&self.self_)?;
        let (re, im) = (self.exponent_real, self.exponent_imag);
        if re == 0.0 && im == 0.0 {
            // torch's zeros (not g·0, which keeps a NaN and gives -0)
            return one(Ok(Tensor::zeros(a.shape(), a.dtype())));
        }
        let d = a.pow(&Tensor::wrapped_complex(re - 1.0, im))?.mul(&Tensor::wrapped_complex(re, im))?;
        one(g.mul(&d.conj()?))
    }
}

crate::backward_rule! {
    names = ["PowBackward2"];
    /// `base ** exponent` with a complex number base: `g · conj(result · ln base)`.
    pub struct PowComplexBaseBackward2 {
        self_real: f64,
        self_imag: f64,
        result: SavedTensor,
    }
}
impl Backward for PowComplexBaseBackward2 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let out = ctx.unpack(&self.result)?;
        let (re, im) = (self.self_real, self.self_imag);
        let log_base = Tensor::wrapped_complex(re.hypot(im).ln(), im.atan2(re));
        Ok(vec![Some(g.mul(&out.mul(&log_base)?.conj()?)?)])
    }
}

crate::backward_rule! {
    /// `self ** exponent` with two tensors.
    pub struct PowBackward1 {
        self_: SavedTensor,
        exponent: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for PowBackward1 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.exponent)?, ctx.unpack(&self.result)?);
        let grad_a = ctx.grad_if(0, || {
            // d/da a^b = b·a^(b-1), and 0 where b == 0 (even at a == 0)
            let d = b.mul(&a.pow(&b.sub(&c(1.0))?)?)?;
            let d = Tensor::where_(&b.eq(&c(0.0))?, &c(0.0), &d)?;
            g.mul(&d.conj()?)
        })?;
        let grad_b = ctx.grad_if(1, || {
            // d/db a^b = a^b·ln a, taken as 0 where a == 0 and b >= 0; ln of an integer base in the result's
            // dtype, as torch (not in the default float32 an integer's own log takes)
            let d = out.mul(&a.to_dtype(out.dtype())?.log()?)?;
            let mut zero_base = a.eq(&c(0.0))?.logical_and(&b.real_part()?.ge(&c(0.0))?)?;
            if b.is_complex() {
                zero_base = zero_base.logical_and(&b.imag_part()?.eq(&c(0.0))?)?;
            }
            g.mul(&Tensor::where_(&zero_base, &c(0.0), &d)?.conj()?)
        })?;
        Ok(vec![grad_a, grad_b])
    }
}

crate::backward_rule! {
    /// `base ** exponent` with a number base (`self`, in PyTorch's naming).
    pub struct PowBackward2 {
        self_: f64,
        result: SavedTensor,
    }
}
impl Backward for PowBackward2 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let out = ctx.unpack(&self.result)?;
        if self.self_ == 0.0 {
            // d/dx 0^x: 0 where x >= 0 (the result is finite), else 0^x · ln 0 (-inf, or NaN), as torch
            let finite = out.float_class(FloatClass::Finite)?;
            let d = Tensor::where_(&finite, &c(0.0), &out.mul(&c(f64::NEG_INFINITY))?)?;
            return Ok(vec![Some(g.mul(&d)?)]);
        }
        Ok(vec![Some(g.mul(&out.mul(&c(self.self_.ln()))?.conj()?)?)])
    }
}
