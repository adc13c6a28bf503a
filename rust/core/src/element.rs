//! The element trait that lets one generic kernel serve every dtype.
use crate::dtype::DType;
use crate::storage::{Buffer, Data};

pub trait Element: Copy + Send + Sync + PartialOrd + Default + std::fmt::Debug + 'static {
    const DTYPE: DType;
    const ZERO: Self;
    const ONE: Self;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn into_buffer(v: Vec<Self>) -> Buffer;
    fn data(b: &Buffer) -> Option<&Data<Self>>;
    fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>>;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
    fn pow(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;

    /// Value conversion between dtypes with C semantics (float → int truncates, x → bool is x != 0).
    #[inline(always)]
    fn cast<U: Element>(self) -> U {
        if U::DTYPE.is_float() || Self::DTYPE.is_float() && U::DTYPE == DType::Bool {
            U::from_f64(self.to_f64())
        } else {
            U::from_i64(self.to_i64())
        }
    }
}

macro_rules! float_element {
    ($t:ty, $dtype:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn to_i64(self) -> i64 { self as i64 }
            #[inline(always)] fn from_f64(v: f64) -> Self { v as $t }
            #[inline(always)] fn from_i64(v: i64) -> Self { v as $t }
            fn into_buffer(v: Vec<Self>) -> Buffer { Buffer::$dtype(Data::from_vec(v)) }
            fn data(b: &Buffer) -> Option<&Data<Self>> { if let Buffer::$dtype(d) = b { Some(d) } else { None } }
            fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> { if let Buffer::$dtype(d) = b { Some(d) } else { None } }
            #[inline(always)] fn add(a: Self, b: Self) -> Self { a + b }
            #[inline(always)] fn sub(a: Self, b: Self) -> Self { a - b }
            #[inline(always)] fn mul(a: Self, b: Self) -> Self { a * b }
            #[inline(always)] fn div(a: Self, b: Self) -> Self { a / b }
            #[inline(always)] fn pow(a: Self, b: Self) -> Self { a.powf(b) }
            #[inline(always)] fn neg(a: Self) -> Self { -a }
        }
    };
}
float_element!(f32, F32);
float_element!(f64, F64);

impl Element for i64 {
    const DTYPE: DType = DType::I64;
    const ZERO: Self = 0;
    const ONE: Self = 1;
    #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
    #[inline(always)] fn to_i64(self) -> i64 { self }
    #[inline(always)] fn from_f64(v: f64) -> Self { v as i64 }
    #[inline(always)] fn from_i64(v: i64) -> Self { v }
    fn into_buffer(v: Vec<Self>) -> Buffer { Buffer::I64(Data::from_vec(v)) }
    fn data(b: &Buffer) -> Option<&Data<Self>> { if let Buffer::I64(d) = b { Some(d) } else { None } }
    fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> { if let Buffer::I64(d) = b { Some(d) } else { None } }
    #[inline(always)] fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
    #[inline(always)] fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
    #[inline(always)] fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
    // Integer division is floor division here; true division always computes in float.
    #[inline(always)] fn div(a: Self, b: Self) -> Self { if b == 0 { 0 } else { a.div_euclid(b) } }
    #[inline(always)] fn pow(a: Self, b: Self) -> Self {
        if b < 0 { return if a == 1 { 1 } else if a == -1 { if b % 2 == 0 { 1 } else { -1 } } else { 0 } }
        a.wrapping_pow(b.min(u32::MAX as i64) as u32)
    }
    #[inline(always)] fn neg(a: Self) -> Self { a.wrapping_neg() }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)] fn to_f64(self) -> f64 { self as i64 as f64 }
    #[inline(always)] fn to_i64(self) -> i64 { self as i64 }
    #[inline(always)] fn from_f64(v: f64) -> Self { v != 0.0 }
    #[inline(always)] fn from_i64(v: i64) -> Self { v != 0 }
    fn into_buffer(v: Vec<Self>) -> Buffer { Buffer::Bool(Data::from_vec(v)) }
    fn data(b: &Buffer) -> Option<&Data<Self>> { if let Buffer::Bool(d) = b { Some(d) } else { None } }
    fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> { if let Buffer::Bool(d) = b { Some(d) } else { None } }
    // PyTorch's bool arithmetic: + is or, * is and.
    #[inline(always)] fn add(a: Self, b: Self) -> Self { a | b }
    #[inline(always)] fn sub(a: Self, b: Self) -> Self { a ^ b }
    #[inline(always)] fn mul(a: Self, b: Self) -> Self { a & b }
    #[inline(always)] fn div(a: Self, b: Self) -> Self { a & b }
    #[inline(always)] fn pow(a: Self, b: Self) -> Self { a | !b }
    #[inline(always)] fn neg(a: Self) -> Self { !a }
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Bool => { type $T = bool; $body }
            $crate::DType::I64 => { type $T = i64; $body }
            $crate::DType::F32 => { type $T = f32; $body }
            $crate::DType::F64 => { type $T = f64; $body }
        }
    };
}

/// Like `with_dtype!` for float dtypes only; other dtypes reach `$otherwise`.
#[macro_export]
macro_rules! with_float_dtype {
    ($dtype:expr, $T:ident => $body:expr, $otherwise:expr) => {
        match $dtype {
            $crate::DType::F32 => { type $T = f32; $body }
            $crate::DType::F64 => { type $T = f64; $body }
            _ => $otherwise,
        }
    };
}

/// Float-only math, for ops that compute in floating point (one generic kernel serves f32 and f64).
pub trait Float: Element + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self> + std::ops::Neg<Output = Self> {
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn recip(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round_even(self) -> Self;
    fn trunc(self) -> Self;
    fn erf(self) -> Self;
    fn atan2(self, other: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_finite(self) -> bool;
}

macro_rules! float_impl {
    ($t:ty, $erf:path, $exp:path, $tanh:path) => {
        impl Float for $t {
            #[inline(always)] fn exp(self) -> Self { $exp(self) }
            #[inline(always)] fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            #[inline(always)] fn abs(self) -> Self { <$t>::abs(self) }
            #[inline(always)] fn recip(self) -> Self { <$t>::recip(self) }
            #[inline(always)] fn exp2(self) -> Self { <$t>::exp2(self) }
            #[inline(always)] fn exp_m1(self) -> Self { <$t>::exp_m1(self) }
            #[inline(always)] fn log2(self) -> Self { <$t>::log2(self) }
            #[inline(always)] fn log10(self) -> Self { <$t>::log10(self) }
            #[inline(always)] fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            #[inline(always)] fn sin(self) -> Self { <$t>::sin(self) }
            #[inline(always)] fn cos(self) -> Self { <$t>::cos(self) }
            #[inline(always)] fn tan(self) -> Self { <$t>::tan(self) }
            #[inline(always)] fn asin(self) -> Self { <$t>::asin(self) }
            #[inline(always)] fn acos(self) -> Self { <$t>::acos(self) }
            #[inline(always)] fn atan(self) -> Self { <$t>::atan(self) }
            #[inline(always)] fn sinh(self) -> Self { <$t>::sinh(self) }
            #[inline(always)] fn cosh(self) -> Self { <$t>::cosh(self) }
            #[inline(always)] fn tanh(self) -> Self { $tanh(self) }
            #[inline(always)] fn floor(self) -> Self { <$t>::floor(self) }
            #[inline(always)] fn ceil(self) -> Self { <$t>::ceil(self) }
            #[inline(always)] fn round_even(self) -> Self { <$t>::round_ties_even(self) }
            #[inline(always)] fn trunc(self) -> Self { <$t>::trunc(self) }
            #[inline(always)] fn erf(self) -> Self { $erf(self) }
            #[inline(always)] fn atan2(self, other: Self) -> Self { <$t>::atan2(self, other) }
            #[inline(always)] fn is_nan(self) -> bool { <$t>::is_nan(self) }
            #[inline(always)] fn is_infinite(self) -> bool { <$t>::is_infinite(self) }
            #[inline(always)] fn is_finite(self) -> bool { <$t>::is_finite(self) }
        }
    };
}
// float32 exp and tanh are ferrograd's own vectorizable versions (kernels/math.rs)
float_impl!(f32, libm::erff, crate::kernels::math::exp_f32, crate::kernels::math::tanh_f32);
float_impl!(f64, libm::erf, f64::exp, f64::tanh);
