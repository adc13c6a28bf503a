//! Trigonometric and hyperbolic functions and their inverses.
use super::{Keeps, UnaryOp};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::math::{tanh_f32_into, F32SliceKernel};
use crate::kernels::sincos::{cos_f32_into, sin_f32_into};
use crate::ops::formula::c;
use crate::tensor::Tensor;

crate::backward_rule! {
    names = ["SinBackward0"];
    /// `sin(x)`: `g · cos x`.
    #[derive(Clone, Copy, Debug)]
    pub struct Sin;
}
impl UnaryOp for Sin {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.sin()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(sin_f32_into)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.cos()?.conj()?)
    }
}

crate::backward_rule! {
    names = ["CosBackward0"];
    /// `cos(x)`: `-g · sin x`.
    #[derive(Clone, Copy, Debug)]
    pub struct Cos;
}
impl UnaryOp for Cos {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.cos()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(cos_f32_into)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.sin()?.neg()?.conj()?)
    }
}

crate::backward_rule! {
    names = ["TanBackward0"];
    /// `tan(x)`: `g · (1 + result²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Tan;
}
impl UnaryOp for Tan {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.tan()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.mul(result)?.add(&c(1.0))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["AsinBackward0"];
    /// `asin(x)`: `g / √(1 - x²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Asin;
}
impl UnaryOp for Asin {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.asin()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&c(1.0).sub(&x.mul(x)?)?.rsqrt()?)
    }
}

crate::backward_rule! {
    names = ["AcosBackward0"];
    /// `acos(x)`: `-g / √(1 - x²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Acos;
}
impl UnaryOp for Acos {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.acos()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&c(1.0).sub(&x.mul(x)?)?.rsqrt()?.neg()?)
    }
}

crate::backward_rule! {
    names = ["AtanBackward0"];
    /// `atan(x)`: `g / (1 + x²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Atan;
}
impl UnaryOp for Atan {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.atan()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&x.mul(x)?.add(&c(1.0))?)
    }
}

crate::backward_rule! {
    names = ["SinhBackward0"];
    /// `sinh(x)`: `g · cosh x`.
    #[derive(Clone, Copy, Debug)]
    pub struct Sinh;
}
impl UnaryOp for Sinh {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.sinh()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.cosh()?.conj()?)
    }
}

crate::backward_rule! {
    names = ["CoshBackward0"];
    /// `cosh(x)`: `g · sinh x`.
    #[derive(Clone, Copy, Debug)]
    pub struct Cosh;
}
impl UnaryOp for Cosh {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.cosh()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.sinh()?.conj()?)
    }
}

crate::backward_rule! {
    names = ["TanhBackward0"];
    /// `tanh(x)`: `g · (1 - result²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Tanh;
}
impl UnaryOp for Tanh {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        #[inline(always)]
        |x: T| x.tanh()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(tanh_f32_into)
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&c(1.0).sub(&result.mul(result)?)?.conj()?)
    }
    fn fused_grad<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        Some(|g: T, y: T| g * (T::ONE - y * y))
    }
}

crate::backward_rule! {
    names = ["AsinhBackward0"];
    /// `asinh(x)`: `g / √(x² + 1)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Asinh;
}
impl UnaryOp for Asinh {
    const KEEPS: Keeps = Keeps::Input;
    const INPLACE_NO_DERIVATIVE: Option<&'static str> = Some("AsinhBackward1");
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| {
            let v = x.to_f64();
            // above 2^28, sqrt(x² + 1) is |x| to the last bit: ln|x| + ln 2 (Rust's asinh overflowed to inf
            // from 9e307, where torch's, glibc's, is finite)
            let a = v.abs();
            T::from_f64(if a > (1u64 << 28) as f64 { (a.ln() + std::f64::consts::LN_2).copysign(v) } else { v.asinh() })
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.mul(x)?.add(&c(1.0))?.rsqrt()?)
    }
}

crate::backward_rule! {
    names = ["AtanhBackward0"];
    /// `atanh(x)`: `g / (1 - x²)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Atanh;
}
impl UnaryOp for Atanh {
    const KEEPS: Keeps = Keeps::Input;
    const INPLACE_NO_DERIVATIVE: Option<&'static str> = Some("AtanhBackward1");
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| T::from_f64(x.to_f64().atanh())
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&c(1.0).sub(&x.mul(x)?)?)
    }
}

crate::backward_rule! {
    names = ["SincBackward0"];
    /// The normalized sinc `sin(πx)/(πx)`, 1 at 0: `g · (πx cos(πx) - sin(πx)) / (πx²)`, 0 at 0.
    #[derive(Clone, Copy, Debug)]
    pub struct Sinc;
}
impl UnaryOp for Sinc {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| {
            if x == T::ZERO {
                T::ONE
            } else {
                let product = T::from_f64(std::f64::consts::PI) * x;
                product.sin() / product
            }
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let pi_x = x.mul(&c(std::f64::consts::PI))?;
        let slope = pi_x.mul(&pi_x.cos()?)?.sub(&pi_x.sin()?)?.div(&pi_x.mul(x)?)?;
        g.mul(&Tensor::where_(&x.eq(&c(0.0))?, &c(0.0), &slope)?)
    }
}

crate::backward_rule! {
    names = ["AcoshBackward0"];
    /// `acosh(x)`: `g / √(x² - 1)` (inf at 1, NaN below, as torch).
    #[derive(Clone, Copy, Debug)]
    pub struct Acosh;
}
impl UnaryOp for Acosh {
    const KEEPS: Keeps = Keeps::Input;
    const INPLACE_NO_DERIVATIVE: Option<&'static str> = Some("AcoshBackward1");
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| T::from_f64(x.to_f64().acosh())
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.mul(x)?.sub(&c(1.0))?.rsqrt()?)
    }
}

/// Multiplication by a constant angle factor (`deg2rad`, `rad2deg`): `g` times the factor.
macro_rules! angle_conversion {
    ($(#[$doc:meta])* $op:ident, $name:literal, $factor:expr) => {
        crate::backward_rule! {
            names = [$name];
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $op;
        }
        impl UnaryOp for $op {
            const KEEPS: Keeps = Keeps::Nothing;
            fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
                // the factor rounded to the dtype first, as torch's `self * M_PI_180`
                let factor = T::from_f64($factor);
                move |x: T| x * factor
            }
            fn grad(self, g: &Tensor, _: &Tensor) -> Result<Tensor> {
                g.mul(&c($factor))
            }
        }
    };
}
angle_conversion!(
    /// `deg2rad(x)`: `x · π / 180`.
    Deg2Rad,
    "Deg2RadBackward0",
    std::f64::consts::PI / 180.0
);
angle_conversion!(
    /// `rad2deg(x)`: `x · 180 / π`.
    Rad2Deg,
    "Rad2DegBackward0",
    180.0 / std::f64::consts::PI
);
