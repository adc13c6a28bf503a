//! Exponentials, logarithms, roots and the reciprocal.
use super::{Keeps, UnaryOp};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::math::{exp_f32_into, ln_f32_into, F32SliceKernel};
use crate::ops::formula::c;
use crate::tensor::Tensor;
use std::f64::consts::{LN_10, LN_2};

crate::backward_rule! {
    names = ["ExpBackward0"];
    /// `exp(x)`; its gradient reuses the output: `g · exp(x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Exp;
}
impl UnaryOp for Exp {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.exp()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(exp_f32_into)
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        // the derivative conjugated for complex input (torch's rule), as in every rule below with `conj`
        g.mul(&result.conj()?)
    }
}

crate::backward_rule! {
    names = ["LogBackward0"];
    /// `ln(x)`: `g / x`.
    #[derive(Clone, Copy, Debug)]
    pub struct Log;
}
impl UnaryOp for Log {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.ln()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(ln_f32_into)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&x.conj()?)
    }
}

crate::backward_rule! {
    names = ["Exp2Backward0"];
    /// `2^x`: `g · 2^x · ln 2`, from the output.
    #[derive(Clone, Copy, Debug)]
    pub struct Exp2;
}
impl UnaryOp for Exp2 {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.exp2()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.mul(&c(LN_2))?)
    }
}

crate::backward_rule! {
    names = ["Expm1Backward0"];
    /// `exp(x) - 1`: `g · (result + 1)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Expm1;
}
impl UnaryOp for Expm1 {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.exp_m1()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.add(&c(1.0))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["Log2Backward0"];
    /// `log2(x)`: `g / (x ln 2)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Log2;
}
impl UnaryOp for Log2 {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.log2()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&x.mul(&c(LN_2))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["Log10Backward0"];
    /// `log10(x)`: `g / (x ln 10)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Log10;
}
impl UnaryOp for Log10 {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.log10()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&x.mul(&c(LN_10))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["Log1PBackward0"];
    /// `ln(1 + x)`: `g / (x + 1)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Log1p;
}
impl UnaryOp for Log1p {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.ln_1p()
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.div(&x.add(&c(1.0))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["SqrtBackward0"];
    /// `√x`: `g / (2√x)`, from the output.
    #[derive(Clone, Copy, Debug)]
    pub struct Sqrt;
}
impl UnaryOp for Sqrt {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.sqrt()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.div(&result.mul(&c(2.0))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["RsqrtBackward0"];
    /// `1/√x`: `-g·result³/2`.
    #[derive(Clone, Copy, Debug)]
    pub struct Rsqrt;
}
impl UnaryOp for Rsqrt {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.sqrt().recip()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.pow(&c(3.0))?.mul(&c(-0.5))?.conj()?)
    }
}

crate::backward_rule! {
    names = ["ReciprocalBackward0"];
    /// `1/x`: `-g·result²`.
    #[derive(Clone, Copy, Debug)]
    pub struct Reciprocal;
}
impl UnaryOp for Reciprocal {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x.recip()
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        // conjugated for complex results (torch's rule); a real result is its own conjugate
        g.mul(&result.mul(result)?.neg()?.conj()?)
    }
}

crate::backward_rule! {
    names = ["SpecialEntrBackward0"];
    /// The entropy term `-x ln x`: 0 at 0, -inf below 0; `-g · (1 + ln x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Entr;
}
impl UnaryOp for Entr {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| {
            if x > T::ZERO {
                -(x * x.ln())
            } else if x == T::ZERO {
                T::ZERO
            } else if x < T::ZERO {
                T::from_f64(f64::NEG_INFINITY)
            } else {
                x
            }
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.log()?.add(&c(1.0))?.neg()?)
    }
}
