//! Bessel functions (kernels/special/bessel.rs), computed in float64. Their gradients follow torch's
//! derivative formulas, including the values it gives at 0; the scaled K's and the spherical j₀ have none
//! in torch, so their results do not require grad.
use super::{via_f64, Keeps, UnaryOp};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::special::bessel as k;
use crate::ops::formula::c;
use crate::ops::unary::Sign;
use crate::tensor::Tensor;

/// `on_zero` where x == 0, else `value` (torch's limits of the formulas with a /x).
fn at_zero(x: &Tensor, on_zero: f64, value: Tensor) -> Result<Tensor> {
    Tensor::where_(&x.eq(&c(0.0))?, &c(on_zero), &value)
}

/// One argument-free Bessel op computed by a `kernels::special::bessel` function: its type, its grad_fn
/// name, what it keeps and its gradient `|g, s| ...`.
macro_rules! bessel_op {
    ($(#[$doc:meta])* $name:ident, $grad_fn:literal, $kernel:path, $keeps:expr, |$g:ident, $s:ident| $grad:expr) => {
        crate::backward_rule! {
            names = [$grad_fn];
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
        }
        impl UnaryOp for $name {
            const KEEPS: Keeps = $keeps;
            fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
                via_f64($kernel)
            }
            fn grad(self, $g: &Tensor, $s: &Tensor) -> Result<Tensor> {
                $grad
            }
        }
    };
}

bessel_op!(
    /// I₀(x): `g · I₁(x)`.
    I0, "I0Backward0", k::i0, Keeps::Input, |g, x| g.mul(&x.unary(I1)?)
);
bessel_op!(
    /// e^{-|x|} I₀(x): `g · (i1e(x) - sgn(x) · i0e(x))`.
    I0e, "SpecialI0EBackward0", k::i0e, Keeps::Input,
    |g, x| g.mul(&x.unary(I1e)?.sub(&x.unary(Sign)?.mul(&x.unary(I0e)?)?)?)
);
bessel_op!(
    /// I₁(x): `g · (I₀(x) - I₁(x)/x)`, 1/2 at 0.
    I1, "SpecialI1Backward0", k::i1, Keeps::Input,
    |g, x| g.mul(&at_zero(x, 0.5, x.unary(I0)?.sub(&x.unary(I1)?.div(x)?)?)?)
);
bessel_op!(
    /// e^{-|x|} I₁(x): `g · (i0e(x) - i1e(x) · (sgn(x) + 1/x))`, 1/2 at 0.
    I1e, "SpecialI1EBackward0", k::i1e, Keeps::Input,
    |g, x| {
        let slope = x.unary(I0e)?.sub(&x.unary(I1e)?.mul(&x.unary(Sign)?.add(&x.reciprocal()?)?)?)?;
        g.mul(&at_zero(x, 0.5, slope)?)
    }
);
bessel_op!(
    /// torch.special.modified_bessel_i0: I₀ under its own grad_fn name.
    ModifiedBesselI0, "SpecialModifiedBesselI0Backward0", k::i0, Keeps::Input, |g, x| g.mul(&x.unary(I1)?)
);
bessel_op!(
    /// torch.special.modified_bessel_i1: I₁ under its own grad_fn name.
    ModifiedBesselI1, "SpecialModifiedBesselI1Backward0", k::i1, Keeps::Input,
    |g, x| g.mul(&at_zero(x, 0.5, x.unary(I0)?.sub(&x.unary(I1)?.div(x)?)?)?)
);
bessel_op!(
    /// K₀(x): `-g · K₁(x)`.
    ModifiedBesselK0, "SpecialModifiedBesselK0Backward0", k::k0, Keeps::Input,
    |g, x| g.mul(&x.unary(ModifiedBesselK1)?.neg()?)
);
bessel_op!(
    /// K₁(x): `-g · (K₀(x) + K₁(x)/x)`.
    ModifiedBesselK1, "SpecialModifiedBesselK1Backward0", k::k1, Keeps::Input,
    |g, x| g.mul(&x.unary(ModifiedBesselK0)?.add(&x.unary(ModifiedBesselK1)?.div(x)?)?.neg()?)
);
bessel_op!(
    /// J₀(x): `-g · J₁(x)`.
    BesselJ0, "SpecialBesselJ0Backward0", k::j0, Keeps::Input, |g, x| g.mul(&x.unary(BesselJ1)?.neg()?)
);
bessel_op!(
    /// J₁(x): `g · (J₀(x) - J₁(x)/x)`, 1/2 at 0.
    BesselJ1, "SpecialBesselJ1Backward0", k::j1, Keeps::Input,
    |g, x| g.mul(&at_zero(x, 0.5, x.unary(BesselJ0)?.sub(&x.unary(BesselJ1)?.div(x)?)?)?)
);
bessel_op!(
    /// Y₀(x): `-g · Y₁(x)`.
    BesselY0, "SpecialBesselY0Backward0", k::y0, Keeps::Input, |g, x| g.mul(&x.unary(BesselY1)?.neg()?)
);
bessel_op!(
    /// Y₁(x): `g · (Y₀(x) - Y₁(x)/x)`, +inf at 0.
    BesselY1, "SpecialBesselY1Backward0", k::y1, Keeps::Input,
    |g, x| g.mul(&at_zero(x, f64::INFINITY, x.unary(BesselY0)?.sub(&x.unary(BesselY1)?.div(x)?)?)?)
);

/// A Bessel op torch gives no derivative: its result does not require grad (`grad` is never called).
macro_rules! bessel_op_without_grad {
    ($(#[$doc:meta])* $name:ident, $kernel:path) => {
        crate::backward_rule! {
            names = ["NotDifferentiable"];
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
        }
        impl UnaryOp for $name {
            const KEEPS: Keeps = Keeps::Nothing;
            const DIFFERENTIABLE: bool = false;
            fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
                via_f64($kernel)
            }
            fn grad(self, _: &Tensor, _: &Tensor) -> Result<Tensor> {
                crate::bail!(Runtime, "the derivative of this function is not implemented")
            }
        }
    };
}

bessel_op_without_grad!(
    /// e^{x} K₀(x).
    ScaledModifiedBesselK0, k::k0e
);
bessel_op_without_grad!(
    /// e^{x} K₁(x).
    ScaledModifiedBesselK1, k::k1e
);
bessel_op_without_grad!(
    /// sin(x)/x.
    SphericalBesselJ0, k::spherical_j0
);
bessel_op_without_grad!(
    /// The Airy function Ai(x).
    AiryAi, crate::kernels::special::airy::airy_ai
);
