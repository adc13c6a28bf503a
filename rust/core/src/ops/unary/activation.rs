//! Activations: sigmoid, relu, erf and the `nn.functional` ones with parameters.
use super::{FromParam, InplaceNode, IntInputs, Keeps, UnaryOp};
use crate::autograd::{AsField, Field};
use crate::element::Float;
use crate::error::{Error, Result};
use crate::kernels::gelu::{gelu_backward_f32_kernel, gelu_f32_into, gelu_tanh_f32_into, GeluForm};
use crate::kernels::math::{erf_f32_into, sigmoid_f32_into, silu_f32_into, F32SliceKernel, F32ZipKernel};
use crate::ops::formula::c;
use crate::ops::quantile::cxx_double;
use crate::tensor::Tensor;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI};

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_TANH_COEF: f64 = 0.044715;

crate::backward_rule! {
    names = ["SigmoidBackward0"];
    /// `1 / (1 + e^-x)`: `g · result · (1 - result)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Sigmoid;
}
impl UnaryOp for Sigmoid {
    const KEEPS: Keeps = Keeps::Output;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        #[inline(always)]
        |x: T| T::ONE / (T::ONE + (-x).exp())
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(sigmoid_f32_into)
    }
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        g.mul(&result.mul(&c(1.0).sub(result)?)?.conj()?)
    }
    fn fused_grad<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        Some(|g: T, y: T| g * (y * (T::ONE - y)))
    }
}

crate::backward_rule! {
    names = ["ReluBackward0"];
    /// `max(x, 0)`: `g` where the output is positive.
    #[derive(Clone, Copy, Debug)]
    pub struct Relu;
}
impl UnaryOp for Relu {
    const KEEPS: Keeps = Keeps::Output;
    const INT_INPUTS: IntInputs = IntInputs::KeepInt;
    const BOOL_MESSAGE: Option<&'static str> = Some("Boolean inputs not supported for relu");
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| if x < T::ZERO { T::ZERO } else { x }
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        Some(|x: i64| x.max(0))
    }
    // `g` unless the output is <= 0: a NaN passes its gradient, as in torch
    fn grad(self, g: &Tensor, result: &Tensor) -> Result<Tensor> {
        Tensor::where_(&result.le(&c(0.0))?, &c(0.0), g)
    }
    fn fused_grad<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        Some(|g: T, y: T| if y <= T::ZERO { T::ZERO } else { g })
    }
}

crate::backward_rule! {
    names = ["ErfBackward0"];
    /// The Gauss error function: `g · 2/√π · e^{-x²}`.
    #[derive(Clone, Copy, Debug)]
    pub struct Erf;
}
impl UnaryOp for Erf {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        #[inline(always)]
        |x: T| x.erf()
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(erf_f32_into)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.mul(x)?.neg()?.exp()?.mul(&c(FRAC_2_SQRT_PI))?)
    }
}

crate::backward_rule! {
    names = ["SiluBackward0"];
    /// `x · sigmoid(x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct Silu;
}
impl UnaryOp for Silu {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "silu_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        #[inline(always)]
        |x: T| x / (T::ONE + (-x).exp())
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(silu_f32_into)
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let sig = x.sigmoid()?;
        g.mul(&sig.mul(&x.mul(&c(1.0).sub(&sig)?)?.add(&c(1.0))?)?)
    }
}

/// GELU's `approximate=`: the exact form (through erf) or the tanh one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeluApproximate {
    None,
    Tanh,
}

impl AsField for GeluApproximate {
    fn as_field(&self) -> Field<'_> {
        Field::Str(match self {
            GeluApproximate::None => "none",
            GeluApproximate::Tanh => "tanh",
        })
    }
}

crate::backward_rule! {
    names = ["GeluBackward0"];
    /// `x · Φ(x)`, or its tanh approximation.
    #[derive(Clone, Copy, Debug)]
    pub struct Gelu {
        approximate: GeluApproximate,
    }
}
impl FromParam<&str> for GeluApproximate {
    fn from_param(name: &str) -> Result<GeluApproximate> {
        match name {
            "none" => Ok(GeluApproximate::None),
            "tanh" => Ok(GeluApproximate::Tanh),
            _ => Err(Error::Runtime("approximate argument must be either none or tanh.".into())),
        }
    }
}
impl UnaryOp for Gelu {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "GeluKernelImpl";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (half, r) = (T::from_f64(0.5), T::from_f64(FRAC_1_SQRT_2));
        let (k, a) = (T::from_f64(SQRT_2_OVER_PI), T::from_f64(GELU_TANH_COEF));
        let tanh = self.approximate == GeluApproximate::Tanh;
        #[inline(always)]
        move |x: T| {
            if tanh {
                half * x * (T::ONE + (k * (x + a * x * x * x)).tanh())
            } else {
                half * x * (T::ONE + (x * r).erf())
            }
        }
    }
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(match self.approximate {
            GeluApproximate::None => gelu_f32_into,
            GeluApproximate::Tanh => gelu_tanh_f32_into,
        })
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        if self.approximate == GeluApproximate::None {
            // Φ(x) + x·φ(x)
            let cdf = x.mul(&c(FRAC_1_SQRT_2))?.erf()?.add(&c(1.0))?.mul(&c(0.5))?;
            let pdf = x.mul(x)?.mul(&c(-0.5))?.exp()?.mul(&c(0.5 * FRAC_2_SQRT_PI * FRAC_1_SQRT_2))?;
            return g.mul(&cdf.add(&x.mul(&pdf)?)?);
        }
        let (k, a) = (SQRT_2_OVER_PI, GELU_TANH_COEF);
        let x2 = x.mul(x)?;
        let t = x.mul(&x2.mul(&c(a))?.add(&c(1.0))?)?.mul(&c(k))?.tanh()?;
        let dinner = x2.mul(&c(3.0 * a * k))?.add(&c(k))?;
        let left = t.add(&c(1.0))?.mul(&c(0.5))?;
        let right = x.mul(&c(0.5))?.mul(&c(1.0).sub(&t.mul(&t)?)?)?.mul(&dinner)?;
        g.mul(&left.add(&right)?)
    }
    fn f32_fused_grad_kernel(self) -> Option<F32ZipKernel> {
        gelu_backward_f32_kernel(match self.approximate {
            GeluApproximate::None => GeluForm::Exact,
            GeluApproximate::Tanh => GeluForm::Tanh,
        })
    }
}

crate::backward_rule! {
    names = ["SoftplusBackward0"];
    /// `ln(1 + e^{βx}) / β`, and `x` where `βx > threshold`.
    #[derive(Clone, Copy, Debug)]
    pub struct Softplus {
        beta: f64,
        threshold: f64,
    }
}
impl UnaryOp for Softplus {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "softplus_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (b, t) = (T::from_f64(self.beta), T::from_f64(self.threshold));
        move |x: T| if x * b > t { x } else { (x * b).exp().ln_1p() / b }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let z = x.mul(&c(self.beta))?;
        Tensor::where_(&z.gt(&c(self.threshold))?, g, &g.mul(&z.sigmoid()?)?)
    }
}

crate::backward_rule! {
    names = ["LogSigmoidBackward0"];
    /// `log(sigmoid(x)) = min(x, 0) - log(1 + e^{-|x|})`, which no input overflows; its gradient is
    /// `sigmoid(-x)`.
    #[derive(Clone, Copy, Debug)]
    pub struct LogSigmoid;
}
impl UnaryOp for LogSigmoid {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "log_sigmoid_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| {
            let negative_part = if x < T::ZERO { x } else { T::ZERO };
            negative_part - (-x.abs()).exp().ln_1p()
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        g.mul(&x.neg()?.sigmoid()?)
    }
}

crate::backward_rule! {
    names = ["EluBackward0", "EluBackward1"];
    /// `scale · x`, and `scale · α(e^{x · input_scale} - 1)` below 0 (torch's elu; selu is its fixed
    /// constants, celu its own op).
    #[derive(Clone, Copy, Debug)]
    pub struct Elu {
        alpha: f64,
        scale: f64,
        input_scale: f64,
    }
}
impl UnaryOp for Elu {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "elu_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (negative, positive) = (self.negative_scale::<T>(), T::from_f64(self.scale));
        let input = T::from_f64(self.input_scale);
        move |x: T| if x > T::ZERO { x * positive } else { negative * (x * input).exp_m1() }
    }
    const INPLACE_NODE: InplaceNode = InplaceNode::KeepsResult;
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        // the negative branch for x <= 0 only: NaN takes the identity's gradient, as in torch
        let slope = x.mul(&c(self.input_scale))?.exp()?.mul(&c(self.alpha * self.scale * self.input_scale))?;
        Tensor::where_(&x.le(&c(0.0))?, &g.mul(&slope)?, &g.mul(&c(self.scale))?)
    }
    fn grad_from_result(self, g: &Tensor, y: &Tensor) -> Result<Tensor> {
        elu_grad_from_result(g, y, self.alpha, self.scale, self.input_scale)
    }
}

impl Elu {
    /// selu's constants: `scale · elu(x, α)` that keeps a unit normal's mean and variance.
    pub const SELU_ALPHA: f64 = 1.673_263_242_354_377_2;
    pub const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

    /// α · scale in the input's own precision, as torch's kernel multiplies them
    fn negative_scale<T: Float>(self) -> T {
        T::from_f64(self.alpha) * T::from_f64(self.scale)
    }
}

/// The gradient of torch's elu from its result `y`: `α·scale·e^{x·input_scale} · input_scale = (y + α·scale) ·
/// input_scale` below 0, `scale` above; a negative α cannot be told from the result, which torch refuses.
fn elu_grad_from_result(g: &Tensor, y: &Tensor, alpha: f64, scale: f64, input_scale: f64) -> Result<Tensor> {
    if alpha < 0.0 {
        return Err(Error::Runtime(NEGATIVE_ELU_SLOPE.into()));
    }
    let negative = g.mul(&y.add(&c(alpha * scale))?.mul(&c(input_scale))?)?;
    Tensor::where_(&y.le(&c(0.0))?, &negative, &g.mul(&c(scale))?)
}

const NEGATIVE_ELU_SLOPE: &str = "In-place elu backward calculation is triggered with a negative slope which is not \
    supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place \
    version instead.";
const NEGATIVE_LEAKY_SLOPE: &str = "In-place leakyReLu backward calculation is triggered with a negative slope which \
    is not supported. This is caused by calling in-place forward function with a negative slope, please call \
    out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting \
    in-place leakRelu backward calculation with negative slope";

crate::backward_rule! {
    names = ["CeluBackward0", "CeluBackward1"];
    /// `x`, and `α(e^{x/α} - 1)` below 0.
    #[derive(Clone, Copy, Debug)]
    pub struct Celu {
        alpha: f64,
    }
}
impl UnaryOp for Celu {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "elu_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let a = T::from_f64(self.alpha);
        move |x: T| if x > T::ZERO { x } else { a * (x / a).exp_m1() }
    }
    fn check(self, _: &Tensor) -> Result<()> {
        if self.alpha == 0.0 {
            return Err(Error::Runtime("ZeroDivisionError: alpha cannot be 0 for CELU".into()));
        }
        Ok(())
    }
    const INPLACE_NODE: InplaceNode = InplaceNode::KeepsResult;
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        // as elu's: the negative branch for x <= 0 only, NaN takes the identity's gradient
        let negative = g.mul(&x.div(&c(self.alpha))?.exp()?)?;
        Tensor::where_(&x.le(&c(0.0))?, &negative, g)
    }
    fn grad_from_result(self, g: &Tensor, y: &Tensor) -> Result<Tensor> {
        elu_grad_from_result(g, y, self.alpha, 1.0, 1.0 / self.alpha)
    }
}

crate::backward_rule! {
    names = ["ThresholdBackward0", "ThresholdBackward1"];
    /// `value` where `x <= threshold`, else `x`: `g` where `x > threshold` or NaN, else 0. Integers stay
    /// integers, both numbers cast to them first (truncated), as torch's kernel does.
    #[derive(Clone, Copy, Debug)]
    pub struct Threshold {
        threshold: f64,
        value: f64,
    }
}
impl UnaryOp for Threshold {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::KeepInt;
    const KERNEL_NAME: &'static str = "threshold_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (t, v) = (T::from_f64(self.threshold), T::from_f64(self.value));
        move |x: T| if x <= t { v } else { x }
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        let (t, v) = (self.threshold as i64, self.value as i64);
        Some(move |x: i64| if x <= t { v } else { x })
    }
    // torch's in-place node keeps the input too, under its own name
    const INPLACE_NODE: InplaceNode = InplaceNode::Renamed;
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        Tensor::where_(&x.le(&c(self.threshold))?, &c(0.0), g)
    }
}

crate::backward_rule! {
    names = ["LeakyReluBackward0", "LeakyReluBackward1"];
    /// `x`, and `slope · x` below 0.
    #[derive(Clone, Copy, Debug)]
    pub struct LeakyRelu {
        negative_slope: f64,
    }
}
impl UnaryOp for LeakyRelu {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "leaky_relu_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let s = T::from_f64(self.negative_slope);
        move |x: T| if x > T::ZERO { x } else { x * s }
    }
    const INPLACE_NODE: InplaceNode = InplaceNode::KeepsResult;
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        Tensor::where_(&x.gt(&c(0.0))?, g, &g.mul(&c(self.negative_slope))?)
    }
    fn fused_grad<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        let s = T::from_f64(self.negative_slope);
        Some(move |g: T, x: T| if x > T::ZERO { g } else { g * s })
    }
    fn fused_grad_from_result<T: Float>(self) -> Option<impl Fn(T, T) -> T + Sync + Send + Copy + 'static> {
        // with a slope ≥ 0 the result is above 0 where the input is; a negative one raises (`grad_from_result`)
        (self.negative_slope >= 0.0).then_some(self.fused_grad::<T>()).flatten()
    }
    fn grad_from_result(self, g: &Tensor, y: &Tensor) -> Result<Tensor> {
        if self.negative_slope < 0.0 {
            return Err(Error::Runtime(NEGATIVE_LEAKY_SLOPE.into()));
        }
        Tensor::where_(&y.gt(&c(0.0))?, g, &g.mul(&c(self.negative_slope))?)
    }
}

crate::backward_rule! {
    names = ["HardtanhBackward0"];
    /// `x` clamped to `[min_val, max_val]`; ints stay ints.
    #[derive(Clone, Copy, Debug)]
    pub struct Hardtanh {
        min_val: f64,
        max_val: f64,
    }
}
impl UnaryOp for Hardtanh {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::KeepInt;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (lo, hi) = (T::from_f64(self.min_val), T::from_f64(self.max_val));
        move |x: T| {
            if x < lo {
                lo
            } else if x > hi {
                hi
            } else {
                x
            }
        }
    }
    fn int_kernel(self) -> Option<impl Fn(i64) -> i64 + Sync + Copy> {
        let (min, max) = (self.min_val, self.max_val);
        Some(move |x: i64| {
            if (x as f64) < min {
                min as i64
            } else if (x as f64) > max {
                max as i64
            } else {
                x
            }
        })
    }
    fn check(self, _: &Tensor) -> Result<()> {
        if self.min_val > self.max_val {
            return Err(Error::Value("min_val cannot be greater than max_val".into()));
        }
        Ok(())
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        // 0 at and beyond the bounds; NaN passes its gradient, as in torch
        let outside = x.le(&c(self.min_val))?.logical_or(&x.ge(&c(self.max_val))?)?;
        Tensor::where_(&outside, &c(0.0), g)
    }
}

/// 1/6 rounded to float32: PyTorch's hardsigmoid backward multiplies by it in every dtype (float64 too).
const ONE_SIXTH_F32: f64 = (1.0f32 / 6.0f32) as f64;

crate::backward_rule! {
    names = ["HardsigmoidBackward0"];
    /// `min(max(x + 3, 0), 6) / 6`: `g · (1/6 as a float32)` strictly between -3 and 3, else 0 (NaN too).
    #[derive(Clone, Copy, Debug)]
    pub struct Hardsigmoid;
}
impl UnaryOp for Hardsigmoid {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "hardsigmoid_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (three, six) = (T::from_f64(3.0), T::from_f64(6.0));
        // NaN stays NaN through both comparisons, as through std::max/std::min in torch's kernel
        move |x: T| {
            let shifted = x + three;
            let low = if shifted < T::ZERO { T::ZERO } else { shifted };
            (if six < low { six } else { low }) / six
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let inside = x.gt(&c(-3.0))?.logical_and(&x.lt(&c(3.0))?)?;
        Tensor::where_(&inside, &g.mul(&c(ONE_SIXTH_F32))?, &c(0.0))
    }
}

crate::backward_rule! {
    names = ["MishBackward0"];
    /// `x · tanh(softplus(x))`, softplus without a threshold, as torch's kernel.
    #[derive(Clone, Copy, Debug)]
    pub struct Mish;
}
impl UnaryOp for Mish {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "mish_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        |x: T| x * x.exp().ln_1p().tanh()
    }
    /// torch's `g · (t + x · σ(x) · (1 - t²))` with `t = tanh(softplus(x))`: the upstream gradient is
    /// multiplied last, so a huge `x` (where `1 - t²` is 0) gives `g`, not `g · x · 0 = NaN`.
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let t = x.exp()?.log1p()?.tanh()?;
        let slope = x.mul(&x.sigmoid()?)?.mul(&c(1.0).sub(&t.mul(&t)?)?)?;
        g.mul(&t.add(&slope)?)
    }
}

crate::backward_rule! {
    names = ["HardswishBackward0"];
    /// `x · min(max(x + 3, 0), 6) / 6` (so a huge x overflows to inf, and NaN stays NaN, as in torch):
    /// `0` up to -3, `g · (x / 3 + 1/2)` below 3, else `g` (NaN too).
    #[derive(Clone, Copy, Debug)]
    pub struct Hardswish;
}
impl UnaryOp for Hardswish {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "hardswish_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let (three, six) = (T::from_f64(3.0), T::from_f64(6.0));
        move |x: T| {
            let shifted = x + three;
            let low = if shifted < T::ZERO { T::ZERO } else { shifted };
            x * (if six < low { six } else { low }) / six
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let middle = g.mul(&x.div(&c(3.0))?.add(&c(0.5))?)?;
        let upper = Tensor::where_(&x.lt(&c(3.0))?, &middle, g)?;
        Tensor::where_(&x.le(&c(-3.0))?, &c(0.0), &upper)
    }
}

crate::backward_rule! {
    names = ["LogitBackward0"];
    /// `ln(p / (1 - p))`, with `p` clamped to `[eps, 1 - eps]` when `eps` is given.
    #[derive(Clone, Copy, Debug)]
    pub struct Logit {
        eps: Option<f64>,
    }
}
impl Logit {
    pub fn new(eps: Option<f64>) -> Logit {
        Logit { eps }
    }
}
impl UnaryOp for Logit {
    const KEEPS: Keeps = Keeps::Input;
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let e = self.eps.map(T::from_f64);
        move |x: T| {
            let z = match e {
                Some(e) if x < e => e,
                Some(e) if x > T::ONE - e => T::ONE - e,
                _ => x,
            };
            (z / (T::ONE - z)).ln()
        }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        let d = g.div(&x.mul(&c(1.0).sub(x)?)?)?;
        match self.eps {
            Some(e) => {
                let inside = x.ge(&c(e))?.logical_and(&x.le(&c(1.0 - e))?)?;
                Tensor::where_(&inside, &d, &c(0.0))
            }
            None => {
                // torch's dy · inf at the poles, so -0.0 gives +inf as 0.0 does (not dy / -0)
                let pole = x.eq(&c(0.0))?.logical_or(&x.eq(&c(1.0))?)?;
                let d = Tensor::where_(&pole, &g.mul(&c(f64::INFINITY))?, &d)?;
                let outside = x.lt(&c(0.0))?.logical_or(&x.gt(&c(1.0))?)?;
                Tensor::where_(&outside, &c(f64::NAN), &d)
            }
        }
    }
}

crate::backward_rule! {
    names = ["HardshrinkBackward0"];
    /// 0 where `-lambd <= x <= lambd`, else `x`: `g` outside that range (NaN too), else 0.
    #[derive(Clone, Copy, Debug)]
    pub struct Hardshrink {
        lambd: f64,
    }
}
impl UnaryOp for Hardshrink {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "hardshrink_cpu";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let l = T::from_f64(self.lambd);
        move |x: T| if x >= -l && x <= l { T::ZERO } else { x }
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        shrink_grad(g, x, self.lambd)
    }
}

crate::backward_rule! {
    names = ["SoftshrinkBackward0"];
    /// `x - lambd` above `lambd`, `x + lambd` below `-lambd`, `x * 0` between (so -0.0 for negative `x`,
    /// and NaN stays NaN, as torch's kernel): `g` outside `[-lambd, lambd]` (NaN too), else 0.
    #[derive(Clone, Copy, Debug)]
    pub struct Softshrink {
        lambd: f64,
    }
}
impl UnaryOp for Softshrink {
    const KEEPS: Keeps = Keeps::Input;
    const INT_INPUTS: IntInputs = IntInputs::Reject;
    const KERNEL_NAME: &'static str = "softshrink_check";
    fn kernel<T: Float>(self) -> impl Fn(T) -> T + Sync + Copy {
        let l = T::from_f64(self.lambd);
        move |x: T| {
            if x > l {
                x - l
            } else if x < -l {
                x + l
            } else {
                x * T::ZERO
            }
        }
    }
    /// torch's `softshrink_check`: a float input (its dtype dispatch names the check), `lambd` in
    /// `[0, the dtype's largest value]`.
    fn check(self, input: &Tensor) -> Result<()> {
        let dtype = input.dtype();
        if !dtype.is_float() {
            let kind = dtype.scalar_type_name();
            return Err(Error::NotImplemented(format!("\"softshrink_check\" not implemented for '{kind}'")));
        }
        let top = -dtype.lowest_finite();
        if !(self.lambd >= 0.0 && self.lambd <= top) {
            return Err(Error::Runtime(format!(
                "lambda must be in range [0, {}] for input dtype {}, but found {}",
                cxx_double(top),
                dtype.scalar_type_name(),
                cxx_double(self.lambd)
            )));
        }
        Ok(())
    }
    fn grad(self, g: &Tensor, x: &Tensor) -> Result<Tensor> {
        shrink_grad(g, x, self.lambd)
    }
}

/// Both shrinks' gradient: 0 where `-lambd <= x <= lambd`, else `g` (NaN passes it, as in torch).
fn shrink_grad(g: &Tensor, x: &Tensor, lambd: f64) -> Result<Tensor> {
    let inside = x.ge(&c(-lambd))?.logical_and(&x.le(&c(lambd))?)?;
    Tensor::where_(&inside, &c(0.0), g)
}
