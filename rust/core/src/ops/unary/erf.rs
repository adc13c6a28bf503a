//! The error-function family beyond erf (activation.rs): erfc, erfcx, erfinv, log_ndtr and ndtri,
//! computed in float64 (kernels/special/erf.rs).
use super::{via_f64, Keeps, UnaryOp};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::special::erf as k;
use crate::ops::formula::c;
use crate::tensor::Tensor;
use std::f64::consts::{FRAC_2_SQRT_PI, PI};

crate::backward_rule! {
    names = ["ErfcBackward0"];
    /// `1 - erf(x)`: `-g · 2/√π · e^{-x²}`.
    #[derive(Clone, Copy, Debug)]
    pub struct Erfc;
}
impl UnaryOp for Erfc {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::erfc)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.mul(x)?.neg()?.exp()?.mul(&c(-FRAC_2_SQRT_PI))?)
    }
}

crate::backward_rule! {
    names = ["SpecialErfcxBackward0"];
    /// `e^{x²} erfc(x)`: `g · (2x · erfcx(x) - 2/√π)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Erfcx;
}
impl UnaryOp for Erfcx {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::erfcx)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.mul(&x.unary(Erfcx)?)?.mul(&c(2.0))?.sub(&c(FRAC_2_SQRT_PI))?)
    }
}

crate::backward_rule! {
    names = ["ErfinvBackward0"];
    /// The inverse of erf: `g · √π/2 · e^{result²}`.
    #[derive(Clone, Copy, Debug)]
    pub struct Erfinv;
}
impl UnaryOp for Erfinv {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::erfinv)
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.mul(result)?.exp()?.mul(&c(PI.sqrt() / 2.0))?)
    }
}

crate::backward_rule! {
    names = ["SpecialLogNdtrBackward0"];
    /// `ln Φ(x)`: `g · φ(x)/Φ(x)`, as torch writes it: `g / √(2π) · e^{-(log_ndtr(x) + x²/2)}`.
    #[derive(Clone, Copy, Debug)]
    pub struct LogNdtr;
}
impl UnaryOp for LogNdtr {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::log_ndtr)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let exponent = x.unary(LogNdtr)?.add(&x.mul(x)?.mul(&c(0.5))?)?;
        g.mul(&exponent.neg()?.exp()?.mul(&c(1.0 / (2.0 * PI).sqrt()))?)
    }
}

crate::backward_rule! {
    names = ["SpecialNdtriBackward0"];
    /// The inverse of Φ: `g · √(2π) · e^{result²/2}`.
    #[derive(Clone, Copy, Debug)]
    pub struct Ndtri;
}
impl UnaryOp for Ndtri {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::ndtri)
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.mul(result)?.mul(&c(0.5))?.exp()?.mul(&c((2.0 * PI).sqrt()))?)
    }
}
