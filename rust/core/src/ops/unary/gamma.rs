//! The gamma family: lgamma, digamma and polygamma(n), computed in float64 (kernels/special/gamma.rs).
use super::{via_f64, InplaceNode, Keeps, UnaryOp};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::special::gamma as k;
use crate::ops::formula::c;
use crate::tensor::Tensor;

crate::backward_rule! {
    names = ["LgammaBackward0"];
    /// `ln|Γ(x)|`: `g · ψ(x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Lgamma;
}
impl UnaryOp for Lgamma {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::lgamma)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.unary(Digamma)?)
    }
}

crate::backward_rule! {
    names = ["DigammaBackward0"];
    /// ψ(x) = Γ'(x)/Γ(x): `g · ψ'(x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Digamma;
}
impl UnaryOp for Digamma {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        via_f64(k::digamma)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.unary(Polygamma::new(1))?)
    }
}

crate::backward_rule! {
    names = ["PolygammaBackward0", "PolygammaBackward1"];
    /// ψ⁽ⁿ⁾(x), the n-th derivative of digamma: `g · ψ⁽ⁿ⁺¹⁾(x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Polygamma {
        n: i64,
    }
}
impl Polygamma {
    /// `n` is checked (non-negative) by the caller.
    pub fn new(n: u32) -> Polygamma {
        Polygamma { n: i64::from(n) }
    }
    /// torch's error for a negative n.
    fn checked(n: i64) -> Result<Polygamma> {
        if n < 0 {
            crate::bail!(Runtime, "polygamma(n, x) does not support negative n.");
        }
        let n =
            u32::try_from(n).map_err(|_| crate::error::Error::Runtime(format!("polygamma: n = {n} is too large")))?;
        Ok(Polygamma::new(n))
    }
    fn order(self) -> u32 {
        self.n as u32
    }
}
impl UnaryOp for Polygamma {
    const KEEPS: Keeps = Keeps::Input;
    // torch's `polygamma_` keeps the input too, under its own name
    const INPLACE_NODE: InplaceNode = InplaceNode::Renamed;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let n = self.order();
        move |x: T| T::from_f64(k::polygamma(n, x.to_f64()))
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.unary(Polygamma::new(self.order() + 1))?)
    }
}

crate::backward_rule! {
    names = ["MvlgammaBackward0"];
    /// The multivariate log-gamma of dimension p: `g · Σⱼ ψ(x - j/2)`, j = 0..p-1.
    #[derive(Clone, Copy, Debug)]
    pub struct Mvlgamma {
        p: i64,
    }
}
impl Mvlgamma {
    /// `p` (at least 1) is checked by `Tensor::mvlgamma`.
    fn new(p: u32) -> Mvlgamma {
        Mvlgamma { p: i64::from(p) }
    }
}
impl UnaryOp for Mvlgamma {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let p = self.p as u32;
        move |x: T| T::from_f64(k::mvlgamma(x.to_f64(), p))
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let mut sum = x.unary(Digamma)?;
        for j in 1..self.p {
            sum = sum.add(&x.sub(&c(j as f64 / 2.0))?.unary(Digamma)?)?;
        }
        g.mul(&sum)
    }
}

impl Tensor {
    /// `polygamma(n, self)`: torch's error for a negative n.
    pub fn polygamma(&self, n: i64) -> Result<Tensor> {
        self.unary(Polygamma::checked(n)?)
    }

    /// `polygamma_`'s values as the in-place form records them (PolygammaBackward1); the write is the caller's.
    pub fn polygamma_inplace_form(&self, n: i64) -> Result<Tensor> {
        self.unary_inplace_form(Polygamma::checked(n)?)
    }

    /// The multivariate log-gamma; torch checks p but (since 2.x) not the domain x > (p-1)/2.
    pub fn mvlgamma(&self, p: i64) -> Result<Tensor> {
        if p < 1 {
            crate::bail!(Runtime, "p has to be greater than or equal to 1");
        }
        let p =
            u32::try_from(p).map_err(|_| crate::error::Error::Runtime(format!("mvlgamma: p = {p} is too large")))?;
        self.unary(Mvlgamma::new(p))
    }
}
