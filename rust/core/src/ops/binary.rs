//! Broadcasting binary ops with PyTorch's type promotion, plus comparisons, logic and `where`.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::dtype::{result_type, DType, Scalar};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::elementwise::{map2, map3};
use crate::layout::{broadcast_shapes, Layout};
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Runs `f` over both operands read as `T` and broadcast to `shape`.
fn zip_as<T: Element, U: Element>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Vec<U>> {
    a.with_data(|la: &Layout, xa: &[T]| {
        b.with_data(|lb: &Layout, xb: &[T]| Ok(map2(&la.broadcast_to(shape)?, xa, &lb.broadcast_to(shape)?, xb, &f)))
    })
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
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let mut dtype = result_type(a.promotion_key(), b.promotion_key());
    if op == Arith::Div {
        dtype = dtype.to_float();
    }
    if op == Arith::Sub {
        match (a.dtype() == DType::Bool, b.dtype() == DType::Bool) {
            (true, true) => bail!(
                Runtime,
                "Subtraction, the `-` operator, with two bool tensors is not supported. \
                Use the `^` or `logical_xor()` operator instead."
            ),
            (true, false) | (false, true) => bail!(
                Runtime,
                "Subtraction, the `-` operator, with a bool tensor is not \
                supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
            ),
            _ => {}
        }
    }
    if dtype == DType::I64 && op == Arith::Pow && b.dtype() != DType::Bool && b.to_vec::<i64>().iter().any(|&e| e < 0) {
        bail!(Runtime, "Integers to negative integer powers are not allowed.");
    }
    let out = Tensor::in_memory_order(
        &[a, b],
        &shape,
        |x, shape| with_dtype!(dtype, T => Tensor::from_vec(arith_kernel::<T>(op, x[0], x[1], shape)?, shape)),
    )?;
    let backward = || match op {
        Arith::Add => BackwardOp::Add,
        Arith::Sub => BackwardOp::Sub { reversed: a.0.wrapped_number },
        Arith::Mul => BackwardOp::Mul,
        Arith::Div => BackwardOp::Div,
        Arith::Pow if b.0.wrapped_number => BackwardOp::PowScalar { exponent: b.to_vec::<f64>()[0] },
        Arith::Pow if a.0.wrapped_number => BackwardOp::ScalarPow { base: a.to_vec::<f64>()[0] },
        Arith::Pow => BackwardOp::Pow,
    };
    let saved = |out: &Tensor| match op {
        Arith::Add | Arith::Sub => vec![],
        // each factor is needed only for the other's gradient
        Arith::Mul => vec![SavedTensor::input_if(b.requires_grad(), a), SavedTensor::input_if(a.requires_grad(), b)],
        Arith::Div => vec![SavedTensor::input_if(b.requires_grad(), a), SavedTensor::input(b)],
        Arith::Pow if b.0.wrapped_number => vec![SavedTensor::input(a)],
        Arith::Pow if a.0.wrapped_number => vec![SavedTensor::output(out)],
        Arith::Pow => vec![SavedTensor::input(a), SavedTensor::input(b), SavedTensor::output(out)],
    };
    Ok(record(out, &[a, b], backward, saved))
}

fn compare_kernel<T: Element>(op: Compare, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<bool>> {
    match op {
        Compare::Eq => zip_as(a, b, shape, |x: T, y: T| x == y),
        Compare::Ne => zip_as(a, b, shape, |x: T, y: T| x != y),
        Compare::Lt => zip_as(a, b, shape, |x: T, y: T| x < y),
        Compare::Le => zip_as(a, b, shape, |x: T, y: T| x <= y),
        Compare::Gt => zip_as(a, b, shape, |x: T, y: T| x > y),
        Compare::Ge => zip_as(a, b, shape, |x: T, y: T| x >= y),
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

    pub fn compare(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let dtype = result_type(self.promotion_key(), other.promotion_key());
        Tensor::in_memory_order(&[self, other], &shape, |x, shape| {
            Tensor::from_vec(with_dtype!(dtype, T => compare_kernel::<T>(op, x[0], x[1], shape)?), shape)
        })
    }
    pub fn eq(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Eq)
    }
    pub fn ge(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Ge)
    }
    pub fn gt(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Gt)
    }
    pub fn le(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Le)
    }
    pub fn lt(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Lt)
    }
    pub fn ne(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Ne)
    }

    pub fn logical_and(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x && y)?, &shape)
    }
    pub fn logical_or(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x || y)?, &shape)
    }
    pub fn logical_xor(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x != y)?, &shape)
    }
    pub fn logical_not(&self) -> Result<Tensor> {
        Tensor::from_vec(self.to_vec::<bool>().into_iter().map(|x| !x).collect(), self.shape())
    }

    /// Elementwise `cond ? a : b`, broadcasting all three.
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if cond.dtype() != DType::Bool {
            bail!(
                Runtime,
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype()
            );
        }
        let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
        let dtype = result_type(a.promotion_key(), b.promotion_key());
        let out = with_dtype!(dtype, T => {
            let v = cond.with_data(|lc, c: &[bool]| {
                a.with_data(|la, xa: &[T]| {
                    b.with_data(|lb, xb: &[T]| -> Result<Vec<T>> {
                        let l = [&lc.broadcast_to(&shape)?, &la.broadcast_to(&shape)?, &lb.broadcast_to(&shape)?];
                        Ok(map3(l, c, xa, xb, |c, x, y| if c { x } else { y }))
                    })
                })
            })?;
            Tensor::from_vec(v, &shape)?
        });
        Ok(record(out, &[cond, a, b], || BackwardOp::Where, |_| vec![SavedTensor::input(cond)]))
    }
}

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

fn binary_float<T: Float>(op: Binary, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<T>> {
    match op {
        Binary::Maximum => zip_as(a, b, shape, nan_max::<T>),
        Binary::Minimum => zip_as(a, b, shape, nan_min::<T>),
        Binary::Atan2 => zip_as(a, b, shape, |x: T, y: T| x.atan2(y)),
        Binary::Fmod => zip_as(a, b, shape, fmod_f::<T>),
        Binary::Remainder => zip_as(a, b, shape, py_mod_f::<T>),
        Binary::FloorDiv => zip_as(a, b, shape, |x: T, y: T| T::from_f64(floor_div_f(x.to_f64(), y.to_f64()))),
        Binary::TruncDiv => zip_as(a, b, shape, |x: T, y: T| (x / y).trunc()),
    }
}

impl Tensor {
    pub fn binary(&self, other: &Tensor, op: Binary) -> Result<Tensor> {
        let (a, b) = (self, other);
        let shape = broadcast_shapes(a.shape(), b.shape())?;
        let mut dtype = result_type(a.promotion_key(), b.promotion_key());
        if op == Binary::Atan2 {
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
        let scalar_other = b.0.wrapped_number;
        Ok(record(
            out,
            &[a, b],
            || BackwardOp::Binary { op, scalar_other },
            |_| vec![SavedTensor::input(a), SavedTensor::input(b)],
        ))
    }
    pub fn maximum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Maximum)
    }
    pub fn minimum(&self, other: &Tensor) -> Result<Tensor> {
        self.binary(other, Binary::Minimum)
    }

    /// `clamp` with number bounds (ClampBackward1); `kind` 0: clamp, 1: clamp_min, 2: clamp_max.
    pub fn clamp_scalar(&self, min: Option<Scalar>, max: Option<Scalar>, kind: u8) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            bail!(Runtime, "torch.clamp: At least one of 'min' or 'max' must not be None");
        }
        let mut dtype = self.dtype();
        for s in [min, max].into_iter().flatten() {
            dtype =
                result_type((dtype, crate::dtype::Priority::Dimensioned), (s.dtype(), crate::dtype::Priority::Wrapped));
        }
        if dtype == DType::Bool {
            bail!(NotImplemented, "\"clamp_scalar_cpu\" not implemented for 'Bool'");
        }
        let (lo, hi) = (min.map(|s| s.to_f64()), max.map(|s| s.to_f64()));
        let out = with_dtype!(dtype, T => {
            let (lo, hi) = (lo.map(T::from_f64), hi.map(T::from_f64));
            // T may be bool, where `<` is the order false < true
            #[allow(clippy::bool_comparison)]
            let v = self.with_data(|l, x: &[T]| crate::kernels::elementwise::map1(l, x, |x: T| {
                let y = match lo { Some(lo) if x < lo => lo, _ => x };
                match hi { Some(hi) if y > hi => hi, _ => y }
            }));
            Tensor::from_vec(v, self.shape())?
        });
        Ok(record(
            out,
            &[self],
            || BackwardOp::ClampScalar { min: lo, max: hi, kind },
            |_| vec![SavedTensor::input(self)],
        ))
    }

    /// `clamp` with tensor bounds (ClampBackward0): `min(max(x, lo), hi)`, broadcasting all three.
    pub fn clamp_tensor(&self, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
        let mut out = self.detach();
        if let Some(lo) = min {
            out = out.detach().maximum(&lo.detach())?;
        }
        if let Some(hi) = max {
            out = out.minimum(&hi.detach())?;
        }
        let mut inputs = vec![self];
        inputs.extend(min);
        inputs.extend(max);
        let (has_min, has_max) = (min.is_some(), max.is_some());
        let saved = |_: &Tensor| inputs.iter().map(|t| SavedTensor::input(t)).collect();
        Ok(record(out, &inputs, || BackwardOp::ClampTensor { has_min, has_max }, saved))
    }

    /// `torch.lerp(self, end, weight)`: `self + weight * (end - self)`.
    pub fn lerp(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(&broadcast_shapes(self.shape(), end.shape())?, weight.shape())?;
        let dtype = result_type(self.promotion_key(), end.promotion_key());
        let lerp = |a: f64, b: f64, w: f64| if w.abs() < 0.5 { a + w * (b - a) } else { b - (b - a) * (1.0 - w) };
        let out = match dtype {
            d if d.is_float() => with_dtype!(dtype, T => {
                let v = self.with_data(|la, xa: &[T]| {
                    end.with_data(|lb, xb: &[T]| {
                        weight.with_data(|lw, xw: &[T]| -> Result<Vec<T>> {
                            let l = [&la.broadcast_to(&shape)?, &lb.broadcast_to(&shape)?, &lw.broadcast_to(&shape)?];
                            let f = |a: T, b: T, w: T| T::from_f64(lerp(a.to_f64(), b.to_f64(), w.to_f64()));
                            Ok(map3(l, xa, xb, xw, f))
                        })
                    })
                })?;
                Tensor::from_vec(v, &shape)?
            }),
            _ => bail!(NotImplemented, "\"lerp_kernel_scalar\" not implemented for '{}'", dtype.scalar_type_name()),
        };
        if weight.0.wrapped_number {
            let w = weight.to_vec::<f64>()[0];
            return Ok(record(out, &[self, end], || BackwardOp::LerpScalar { weight: w }, |_| vec![]));
        }
        let saved = |_: &Tensor| vec![SavedTensor::input(self), SavedTensor::input(end), SavedTensor::input(weight)];
        Ok(record(out, &[self, end, weight], || BackwardOp::LerpTensor, saved))
    }

    /// isnan / isinf / isfinite (`which` 0, 1, 2): bool, never a gradient.
    pub fn float_class(&self, which: u8) -> Result<Tensor> {
        let v: Vec<bool> = match self.dtype() {
            d if d.is_float() => self
                .to_vec::<f64>()
                .into_iter()
                .map(|x| match which {
                    0 => x.is_nan(),
                    1 => x.is_infinite(),
                    _ => x.is_finite(),
                })
                .collect(),
            _ => vec![which == 2; self.numel()],
        };
        Tensor::from_vec(v, self.shape())
    }

    /// `torch.equal`: same shape and the same values.
    pub fn equal(&self, other: &Tensor) -> Result<bool> {
        if self.shape() != other.shape() {
            return Ok(false);
        }
        Ok(self.eq(other)?.to_vec::<bool>().into_iter().all(|b| b))
    }

    /// `torch.allclose`: |a - b| <= atol + rtol·|b| everywhere (broadcasting); NaNs equal if asked.
    pub fn allclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<bool> {
        if self.dtype() != other.dtype() {
            bail!(Runtime, "{} did not match {}", self.dtype().scalar_type_name(), other.dtype().scalar_type_name());
        }
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let ok = zip_as(self, other, &shape, |a: f64, b: f64| {
            if a == b {
                return true;
            }
            if a.is_nan() || b.is_nan() {
                return equal_nan && a.is_nan() && b.is_nan();
            }
            if a.is_infinite() || b.is_infinite() {
                return false;
            }
            (a - b).abs() <= atol + rtol * b.abs()
        })?;
        Ok(ok.into_iter().all(|b| b))
    }
}
