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
    /// The buffer variant of this element type.
    fn buffer(d: Data<Self>) -> Buffer;
    fn into_buffer(v: Vec<Self>) -> Buffer {
        Self::buffer(Data::from_vec(v))
    }
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
        if Self::DTYPE == DType::I64 && matches!(U::DTYPE, DType::F32 | DType::F16 | DType::BF16) {
            // rounded once to float32, as C++'s conversion (through float64, 2^60 + 2^36 + 1 rounded twice, down)
            return U::from_f64(f64::from(self.to_i64() as f32));
        }
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
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn buffer(d: Data<Self>) -> Buffer {
                Buffer::$dtype(d)
            }
            fn data(b: &Buffer) -> Option<&Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                a - b
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                a.powf(b)
            }
            #[inline(always)]
            fn neg(a: Self) -> Self {
                -a
            }
        }
    };
}
float_element!(f32, F32);
float_element!(f64, F64);

/// Integers wrap on overflow (two's complement), as PyTorch's do; conversions wrap too (300 → int8 44).
macro_rules! int_element {
    ($t:ty, $dtype:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as i64 as $t
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn buffer(d: Data<Self>) -> Buffer {
                Buffer::$dtype(d)
            }
            fn data(b: &Buffer) -> Option<&Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            // Integer division is floor division here; true division always computes in float.
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    a.div_euclid(b)
                }
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                let (a64, b64) = (a as i64, b as i64);
                if b64 < 0 {
                    return if a64 == 1 {
                        1
                    } else if a64 == -1 {
                        if b64 % 2 == 0 {
                            1
                        } else {
                            (0 as $t).wrapping_sub(1)
                        }
                    } else {
                        0
                    };
                }
                a.wrapping_pow(b64.min(u32::MAX as i64) as u32)
            }
            #[inline(always)]
            fn neg(a: Self) -> Self {
                a.wrapping_neg()
            }
        }
    };
}
int_element!(u8, U8);
int_element!(i8, I8);
int_element!(i16, I16);
int_element!(i32, I32);
int_element!(i64, I64);

/// The 16-bit floats: stored as such, every operation computed in float32 and rounded back.
macro_rules! half_element {
    ($t:ty, $dtype:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.to_f64()
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self.to_f32() as i64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                <$t>::from_f64(v as f64)
            }
            fn buffer(d: Data<Self>) -> Buffer {
                Buffer::$dtype(d)
            }
            fn data(b: &Buffer) -> Option<&Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> {
                if let Buffer::$dtype(d) = b {
                    Some(d)
                } else {
                    None
                }
            }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() + b.to_f32())
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() - b.to_f32())
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() * b.to_f32())
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() / b.to_f32())
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32().powf(b.to_f32()))
            }
            #[inline(always)]
            fn neg(a: Self) -> Self {
                -a
            }
        }
    };
}
half_element!(half::f16, F16);
half_element!(half::bf16, BF16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as i64 as f64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn buffer(d: Data<Self>) -> Buffer {
        Buffer::Bool(d)
    }
    fn data(b: &Buffer) -> Option<&Data<Self>> {
        if let Buffer::Bool(d) = b {
            Some(d)
        } else {
            None
        }
    }
    fn data_mut(b: &mut Buffer) -> Option<&mut Data<Self>> {
        if let Buffer::Bool(d) = b {
            Some(d)
        } else {
            None
        }
    }
    // PyTorch's bool arithmetic: + is or, * is and.
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline(always)]
    fn pow(a: Self, b: Self) -> Self {
        a | !b
    }
    #[inline(always)]
    fn neg(a: Self) -> Self {
        !a
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::DType::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            $crate::DType::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            // no real kernel runs on complex pairs: the ops that support complex dispatch before this
            complex @ ($crate::DType::C64 | $crate::DType::C128) => $crate::dtype::refuse_complex(complex),
        }
    };
}

/// Like `with_dtype!` for the dtypes kernels compute in (float32, float64); other dtypes reach
/// `$otherwise` (the halves compute in float32: see `DType::compute`).
#[macro_export]
macro_rules! with_float_dtype {
    ($dtype:expr, $T:ident => $body:expr, $otherwise:expr) => {
        match $dtype {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            _ => $otherwise,
        }
    };
}

/// Float-only math, for ops that compute in floating point (one generic kernel serves f32 and f64).
pub trait Float:
    Element
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
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
    /// `self · a + b` rounded once (the halves: in float32, then rounded to their type).
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! float_impl {
    ($t:ty, $erf:path, $exp:path, $ln:path, $tanh:path, $sin:path, $cos:path) => {
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                $exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                $ln(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::recip(self)
            }
            #[inline(always)]
            fn exp2(self) -> Self {
                <$t>::exp2(self)
            }
            #[inline(always)]
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            #[inline(always)]
            fn log2(self) -> Self {
                <$t>::log2(self)
            }
            #[inline(always)]
            fn log10(self) -> Self {
                <$t>::log10(self)
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                $sin(self)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                $cos(self)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                <$t>::tan(self)
            }
            #[inline(always)]
            fn asin(self) -> Self {
                <$t>::asin(self)
            }
            #[inline(always)]
            fn acos(self) -> Self {
                <$t>::acos(self)
            }
            #[inline(always)]
            fn atan(self) -> Self {
                <$t>::atan(self)
            }
            #[inline(always)]
            fn sinh(self) -> Self {
                <$t>::sinh(self)
            }
            #[inline(always)]
            fn cosh(self) -> Self {
                <$t>::cosh(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                $tanh(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            #[inline(always)]
            fn round_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            #[inline(always)]
            fn erf(self) -> Self {
                $erf(self)
            }
            #[inline(always)]
            fn atan2(self, other: Self) -> Self {
                <$t>::atan2(self, other)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
        }
    };
}
// float32 erf, exp, ln, tanh, sin and cos are ferrograd's own vectorizable versions (kernels/math.rs)
use crate::kernels::math as m;
float_impl!(f32, m::erf_f32, m::exp_f32, m::ln_f32, m::tanh_f32, m::sin_f32, m::cos_f32);
float_impl!(f64, libm::erf, f64::exp, f64::ln, f64::tanh, f64::sin, f64::cos);

/// The halves' math: computed in float32 and rounded back.
macro_rules! half_float_impl {
    ($t:ty) => {
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::from_f32(<f32 as Float>::exp(self.to_f32()))
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::from_f32(<f32 as Float>::ln(self.to_f32()))
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::from_f32(self.to_f32().sqrt())
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::from_f32(self.to_f32().abs())
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::from_f32(self.to_f32().recip())
            }
            #[inline(always)]
            fn exp2(self) -> Self {
                <$t>::from_f32(self.to_f32().exp2())
            }
            #[inline(always)]
            fn exp_m1(self) -> Self {
                <$t>::from_f32(self.to_f32().exp_m1())
            }
            #[inline(always)]
            fn log2(self) -> Self {
                <$t>::from_f32(self.to_f32().log2())
            }
            #[inline(always)]
            fn log10(self) -> Self {
                <$t>::from_f32(self.to_f32().log10())
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                <$t>::from_f32(self.to_f32().ln_1p())
            }
            #[inline(always)]
            fn sin(self) -> Self {
                <$t>::from_f32(<f32 as Float>::sin(self.to_f32()))
            }
            #[inline(always)]
            fn cos(self) -> Self {
                <$t>::from_f32(<f32 as Float>::cos(self.to_f32()))
            }
            #[inline(always)]
            fn tan(self) -> Self {
                <$t>::from_f32(self.to_f32().tan())
            }
            #[inline(always)]
            fn asin(self) -> Self {
                <$t>::from_f32(self.to_f32().asin())
            }
            #[inline(always)]
            fn acos(self) -> Self {
                <$t>::from_f32(self.to_f32().acos())
            }
            #[inline(always)]
            fn atan(self) -> Self {
                <$t>::from_f32(self.to_f32().atan())
            }
            #[inline(always)]
            fn sinh(self) -> Self {
                <$t>::from_f32(self.to_f32().sinh())
            }
            #[inline(always)]
            fn cosh(self) -> Self {
                <$t>::from_f32(self.to_f32().cosh())
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                <$t>::from_f32(<f32 as Float>::tanh(self.to_f32()))
            }
            #[inline(always)]
            fn floor(self) -> Self {
                <$t>::from_f32(self.to_f32().floor())
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                <$t>::from_f32(self.to_f32().ceil())
            }
            #[inline(always)]
            fn round_even(self) -> Self {
                <$t>::from_f32(self.to_f32().round_ties_even())
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                <$t>::from_f32(self.to_f32().trunc())
            }
            #[inline(always)]
            fn erf(self) -> Self {
                <$t>::from_f32(<f32 as Float>::erf(self.to_f32()))
            }
            #[inline(always)]
            fn atan2(self, other: Self) -> Self {
                <$t>::from_f32(self.to_f32().atan2(other.to_f32()))
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32().mul_add(a.to_f32(), b.to_f32()))
            }
        }
    };
}
half_float_impl!(half::f16);
half_float_impl!(half::bf16);
