//! Piecewise functions: abs, sign, rounding, negation, `nan_to_num`, and the NaN/inf tests.
use super::{IntInputs, Keeps, UnaryOp};
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::dtype::DType;
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::elementwise::map1;
use crate::ops::formula::c;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

/// A gradient that is zero almost everywhere (rounding, sign).
fn zero_grad(g: &Tensor) -> Result<Tensor> {
    Ok(Tensor::zeros(g.shape(), g.dtype()))
}

crate::backward_rule! {
    names = ["AbsBackward0"];
    /// `|x|`: `g · sign(x)`; ints stay ints.
    #[derive(Clone, Copy, Debug)]
    pub struct Abs;
}
impl UnaryOp for Abs {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::KeepInt;
    const KERNEL_NAME: &'static str = "abs_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.abs()
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        Some(|x: i64| x.wrapping_abs())
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        if x.is_complex() {
            return g.mul(&x.complex_sgn()?);
        }
        g.mul(&x.sign()?)
    }
}

crate::backward_rule! {
    names = ["SignBackward0"];
    /// -1, 0 or 1; bools stay bools.
    #[derive(Clone, Copy, Debug)]
    pub struct Sign;
}
impl UnaryOp for Sign {
    const KEEPS: Keeps = Keeps::Nothing;
    const INT_INPUTS: IntInputs = IntInputs::KeepIntAndBool;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| {
            if x > T::ZERO {
                T::ONE
            } else if x < T::ZERO {
                -T::ONE
            } else {
                T::ZERO
            }
        }
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        Some(|x: i64| x.signum())
    }
    fn grad(self, g: &Tensor, _: &Tensor) -> Result<Tensor> {
        zero_grad(g)
    }
}

crate::backward_rule! {
    names = ["SgnBackward0"];
    /// `sgn`: torch's sign generalized to complex numbers (`z / |z|`), `sign` for real ones.
    #[derive(Clone, Copy, Debug)]
    pub struct Sgn;
}
impl UnaryOp for Sgn {
    const KEEPS: Keeps = Keeps::Nothing;
    const INT_INPUTS: IntInputs = IntInputs::KeepIntAndBool;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        Sign.kernel()
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        Sign.int_kernel()
    }
    fn grad(self, g: &Tensor, s: &Tensor) -> Result<Tensor> {
        Sign.grad(g, s)
    }
}

/// Rounding ops: zero gradient, ints unchanged.
macro_rules! rounding {
    ($(#[$doc:meta])* $op:ident, $name:literal, $kernel_name:literal, |$x:ident| $f:expr) => {
        crate::backward_rule! {
            names = [$name];
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $op;
        }
        impl UnaryOp for $op {
            const KEEPS: Keeps = Keeps::Nothing;
            const INT_INPUTS: IntInputs = IntInputs::KeepInt;
            const KERNEL_NAME: &'static str = $kernel_name;
            fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
                |$x: T| $f
            }
            fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
                Some(|x: i64| x)
            }
            fn grad(self, g: &Tensor, _: &Tensor) -> Result<Tensor> {
                zero_grad(g)
            }
        }
    };
}
rounding!(/// Rounds down.
    Floor, "FloorBackward0", "floor_vml_cpu", |x| x.floor());
rounding!(/// Rounds up.
    Ceil, "CeilBackward0", "ceil_vml_cpu", |x| x.ceil());
rounding!(/// Rounds half to even.
    Round, "RoundBackward0", "round_vml_cpu", |x| x.round_even());
rounding!(/// Rounds towards zero.
    Trunc, "TruncBackward0", "trunc_vml_cpu", |x| x.trunc());

crate::backward_rule! {
    names = ["RoundBackward1"];
    /// `round(decimals=d)` with d != 0: scaled by 10^|d|, rounded half to even, scaled back.
    #[derive(Clone, Copy, Debug)]
    pub struct RoundDecimals {
        decimals: i32,
    }
}
impl RoundDecimals {
    pub fn new(decimals: i32) -> RoundDecimals {
        RoundDecimals { decimals }
    }
}
impl UnaryOp for RoundDecimals {
    const KEEPS: Keeps = Keeps::Nothing;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "round_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let p = T::from_f64(10f64.powi(self.decimals.abs()));
        let up = self.decimals > 0;
        move |x: T| if up { (x * p).round_even() / p } else { (x / p).round_even() * p }
    }
    fn grad(self, g: &Tensor, _: &Tensor) -> Result<Tensor> {
        zero_grad(g)
    }
}

crate::backward_rule! {
    names = ["FracBackward0"];
    /// `x - trunc(x)`: the gradient passes through unchanged.
    #[derive(Clone, Copy, Debug)]
    pub struct Frac;
}
impl UnaryOp for Frac {
    const KEEPS: Keeps = Keeps::Nothing;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "frac_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x - x.trunc()
    }
    fn grad(self, g: &Tensor, _: &Tensor) -> Result<Tensor> {
        Ok(g.clone())
    }
}

crate::backward_rule! {
    /// `-x`.
    pub struct NegBackward0;
}
impl Backward for NegBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.neg())
    }
}

crate::backward_rule! {
    /// `nan_to_num`: the replaced values were constants, so their gradient is zero.
    pub struct NanToNumBackward0 {
        self_: SavedTensor,
    }
}
impl Backward for NanToNumBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let x = ctx.unpack(&self.self_)?;
        one(Tensor::where_(&x.float_class(FloatClass::Finite)?, g, &c(0.0)))
    }
}

/// What `isnan`, `isinf` and `isfinite` test for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatClass {
    Nan,
    Infinite,
    Finite,
    PosInf,
    NegInf,
    /// the sign bit set: negatives, -0.0 and NaNs with a sign
    SignBit,
}

impl FloatClass {
    /// Whether a float (widened to float64, which keeps its class and sign) is of this class.
    #[inline(always)]
    fn holds(self, x: f64) -> bool {
        match self {
            FloatClass::Nan => x.is_nan(),
            FloatClass::Infinite => x.is_infinite(),
            FloatClass::Finite => x.is_finite(),
            FloatClass::PosInf => x == f64::INFINITY,
            FloatClass::NegInf => x == f64::NEG_INFINITY,
            FloatClass::SignBit => x.is_sign_negative(),
        }
    }

    /// The op's name, as torch's (a captured graph's node).
    pub fn name(self) -> &'static str {
        match self {
            FloatClass::Nan => "isnan",
            FloatClass::Infinite => "isinf",
            FloatClass::Finite => "isfinite",
            FloatClass::PosInf => "isposinf",
            FloatClass::NegInf => "isneginf",
            FloatClass::SignBit => "signbit",
        }
    }
}

impl Tensor {
    /// `-x` in every dtype but bool.
    pub fn neg(&self) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| x[0].neg_eager();
        use crate::compile::{traced_fusable, NodeKind, SliceKernel};
        use crate::kernels::simd::map_into;
        // fused, the kernel `map1` runs on contiguous data: `T::neg` through the vectorized loop
        let kernel = |out: &Tensor| {
            SliceKernel::map(
                out.dtype(),
                0,
                || std::sync::Arc::new(|o, x| map_into(o, x, &<f32 as Element>::neg)),
                || std::sync::Arc::new(|o, x| map_into(o, x, &<f64 as Element>::neg)),
            )
        };
        traced_fusable("neg", NodeKind::Elementwise, &[self], || eager(&[self]), || eager, kernel)
    }

    fn neg_eager(&self) -> Result<Tensor> {
        if self.is_complex() {
            // the pairs negated, recorded as torch's NegBackward0
            let values = self.detach().view_as_real()?.neg()?.view_as_complex()?;
            return Ok(crate::autograd::record(values, &[self], |_| NegBackward0));
        }
        if self.dtype() == DType::Bool {
            bail!(
                Runtime,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to \
                invert a mask, use the `~` or `logical_not()` operator instead."
            );
        }
        let out = self.map_in_memory_order(
            |x| with_dtype!(x.dtype(), T => x.with_data(|l, v: &[T]| Tensor::from_vec(map1(l, v, T::neg), x.shape()))),
        )?;
        Ok(record(out, &[self], |_| NegBackward0))
    }

    /// `round(decimals=d)`.
    pub fn round(&self, decimals: i32) -> Result<Tensor> {
        if decimals == 0 {
            self.unary(Round)
        } else {
            self.unary(RoundDecimals::new(decimals))
        }
    }

    /// `nan_to_num(nan, posinf, neginf)`: infinities default to the dtype's largest finite values;
    /// ints and bools come back unchanged (a copy).
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        fn replace<T: Float>(x: &Tensor, nan: T, posinf: T, neginf: T) -> Result<Tensor> {
            let f = move |v: T| {
                if v.is_nan() {
                    nan
                } else if v.is_infinite() {
                    if v > T::ZERO {
                        posinf
                    } else {
                        neginf
                    }
                } else {
                    v
                }
            };
            x.with_data(|l, v: &[T]| Tensor::from_vec(map1(l, v, f), x.shape()))
        }
        let out = match self.dtype() {
            DType::F32 => {
                replace(self, nan as f32, posinf.map_or(f32::MAX, |v| v as f32), neginf.map_or(f32::MIN, |v| v as f32))?
            }
            DType::F64 => replace(self, nan, posinf.unwrap_or(f64::MAX), neginf.unwrap_or(f64::MIN))?,
            _ => self.contiguous_copy()?,
        };
        Ok(record(out, &[self], |_| NanToNumBackward0 { self_: SavedTensor::input(self) }))
    }

    /// isnan / isinf / isfinite / isposinf / isneginf / signbit: bool, never a gradient.
    pub fn float_class(&self, class: FloatClass) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].float_class_eager(class);
        crate::compile::traced(class.name(), crate::compile::NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn float_class_eager(&self, class: FloatClass) -> Result<Tensor> {
        // laid out as the input is, as torch's (and so read front to back)
        self.map_in_memory_order(|x| x.float_class_values(class))
    }

    fn float_class_values(&self, class: FloatClass) -> Result<Tensor> {
        // read in place as float32 or float64 (half types are cast to float32, exactly); converting every element to
        // a float64 vector first took 1.9 ms for 1000×1000 float32 against torch's 0.4
        fn classify<T: Element>(x: &Tensor, class: FloatClass) -> Vec<bool> {
            // one map per class: matching the class inside the element closure kept isnan from vectorizing (0.55×
            // torch's time on 1000×1000 float32)
            x.with_data(|l, v: &[T]| match class {
                FloatClass::Nan => map1(l, v, |x: T| FloatClass::Nan.holds(x.to_f64())),
                FloatClass::Infinite => map1(l, v, |x: T| FloatClass::Infinite.holds(x.to_f64())),
                FloatClass::Finite => map1(l, v, |x: T| FloatClass::Finite.holds(x.to_f64())),
                FloatClass::PosInf => map1(l, v, |x: T| FloatClass::PosInf.holds(x.to_f64())),
                FloatClass::NegInf => map1(l, v, |x: T| FloatClass::NegInf.holds(x.to_f64())),
                FloatClass::SignBit => map1(l, v, |x: T| FloatClass::SignBit.holds(x.to_f64())),
            })
        }
        let v: Vec<bool> = match self.dtype() {
            DType::F64 => classify::<f64>(self, class),
            d if d.is_float() => classify::<f32>(self, class),
            _ if class == FloatClass::SignBit => self.to_vec::<i64>().into_iter().map(|x| x < 0).collect(),
            _ => vec![class == FloatClass::Finite; self.numel()],
        };
        Tensor::from_vec(v, self.shape())
    }
}
