//! Elementwise unary ops: one table (`Unary`) gives each op's PyTorch name, forward kernel and dtype
//! rule; its backward rule lives in `autograd/formulas.rs` under `BackwardOp::Unary`.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::dtype::DType;
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::elementwise::{map1, map1_by};
use crate::kernels::math::{
    cos_f32_into, erf_f32_into, exp_f32_into, gelu_f32_into, ln_f32_into, sigmoid_f32_into, silu_f32_into,
    sin_f32_into, tanh_f32_into, F32SliceKernel,
};
use crate::layout::Layout;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

/// Applies a float function; integer inputs compute in float32, as in PyTorch.
/// (Generic over the functions, not `fn` pointers, so they inline into the vectorized loop.)
/// The halves compute in float32 too, rounding the result back.
fn float_map(x: &Tensor, f32_fn: impl Fn(f32) -> f32 + Sync, f64_fn: impl Fn(f64) -> f64 + Sync) -> Result<Tensor> {
    x.map_in_memory_order(|x| match x.dtype().to_float() {
        DType::F64 => x.with_data(|l, v: &[f64]| Tensor::from_vec(map1(l, v, f64_fn), x.shape())),
        out => Ok(x.with_data(|l, v: &[f32]| Tensor::from_vec(map1(l, v, f32_fn), x.shape()))?.cast_detached(out)),
    })
}

/// The elementwise unary ops with a gradient. Parameters are stored as f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unary {
    Abs,
    Sign,
    Sqrt,
    Rsqrt,
    Reciprocal,
    Exp2,
    Expm1,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    Relu,
    Erf,
    Silu,
    Gelu {
        tanh: bool,
    },
    Softplus {
        beta: f64,
        threshold: f64,
    },
    Elu {
        alpha: f64,
    },
    LeakyRelu {
        slope: f64,
    },
    Hardtanh {
        min: f64,
        max: f64,
    },
    Logit {
        eps: Option<f64>,
    },
    Floor,
    Ceil,
    Round,
    /// `round(decimals=d)` with d != 0
    RoundDecimals {
        decimals: i32,
    },
    Trunc,
    Frac,
}

use Unary::*;

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_TANH_COEF: f64 = 0.044715;

impl Unary {
    /// grad_fn name.
    pub fn name(self) -> &'static str {
        match self {
            Abs => "AbsBackward0",
            Sign => "SignBackward0",
            Sqrt => "SqrtBackward0",
            Rsqrt => "RsqrtBackward0",
            Reciprocal => "ReciprocalBackward0",
            Exp2 => "Exp2Backward0",
            Expm1 => "Expm1Backward0",
            Log2 => "Log2Backward0",
            Log10 => "Log10Backward0",
            Log1p => "Log1PBackward0",
            Sin => "SinBackward0",
            Cos => "CosBackward0",
            Tan => "TanBackward0",
            Asin => "AsinBackward0",
            Acos => "AcosBackward0",
            Atan => "AtanBackward0",
            Sinh => "SinhBackward0",
            Cosh => "CoshBackward0",
            Tanh => "TanhBackward0",
            Sigmoid => "SigmoidBackward0",
            Relu => "ReluBackward0",
            Erf => "ErfBackward0",
            Silu => "SiluBackward0",
            Gelu { .. } => "GeluBackward0",
            Softplus { .. } => "SoftplusBackward0",
            Elu { .. } => "EluBackward0",
            LeakyRelu { .. } => "LeakyReluBackward0",
            Hardtanh { .. } => "HardtanhBackward0",
            Logit { .. } => "LogitBackward0",
            Floor => "FloorBackward0",
            Ceil => "CeilBackward0",
            Round => "RoundBackward0",
            RoundDecimals { .. } => "RoundBackward1",
            Trunc => "TruncBackward0",
            Frac => "FracBackward0",
        }
    }

    /// The op's name in PyTorch's "not implemented for" messages.
    fn kernel_name(self) -> &'static str {
        match self {
            Abs => "abs_cpu",
            Silu => "silu_cpu",
            Gelu { .. } => "GeluKernelImpl",
            Softplus { .. } => "softplus_cpu",
            Elu { .. } => "elu_cpu",
            LeakyRelu { .. } => "leaky_relu_cpu",
            Floor => "floor_vml_cpu",
            Ceil => "ceil_vml_cpu",
            Round => "round_vml_cpu",
            RoundDecimals { .. } => "round_cpu",
            Trunc => "trunc_vml_cpu",
            Frac => "frac_cpu",
            _ => "unary op",
        }
    }

    /// The op's own float32 slice kernel (kernels/math.rs), where it has one; float32 inputs go through
    /// it instead of `float_kernel`.
    fn f32_slice_kernel(self) -> Option<F32SliceKernel> {
        Some(match self {
            Tanh => tanh_f32_into,
            Sigmoid => sigmoid_f32_into,
            Silu => silu_f32_into,
            Sin => sin_f32_into,
            Cos => cos_f32_into,
            Erf => erf_f32_into,
            Gelu { tanh: false } => gelu_f32_into,
            _ => return None,
        })
    }

    /// Whether the backward rule reads the op's output (else its input).
    fn saves_output(self) -> bool {
        matches!(self, Sqrt | Rsqrt | Reciprocal | Exp2 | Expm1 | Tan | Tanh | Sigmoid | Relu)
    }

    /// Float kernel; `map` runs it over the input's layout (monomorphized per op). Closures over
    /// ferrograd's own exp, tanh and erf are `inline(always)`: left to itself LLVM called the larger
    /// ones once per element from the vectorized loop, as scalar code (1e6-element erf: 8.3 ms).
    fn float_kernel<T: Float>(self, l: &Layout, v: &[T]) -> Vec<T> {
        let c = T::from_f64;
        let (zero, one, half) = (T::ZERO, T::ONE, c(0.5));
        match self {
            Abs => map1(l, v, |x: T| x.abs()),
            Sign => map1(l, v, move |x: T| {
                if x > zero {
                    one
                } else if x < zero {
                    -one
                } else {
                    zero
                }
            }),
            Sqrt => map1(l, v, |x: T| x.sqrt()),
            Rsqrt => map1(l, v, |x: T| x.sqrt().recip()),
            Reciprocal => map1(l, v, |x: T| x.recip()),
            Exp2 => map1(l, v, |x: T| x.exp2()),
            Expm1 => map1(l, v, |x: T| x.exp_m1()),
            Log2 => map1(l, v, |x: T| x.log2()),
            Log10 => map1(l, v, |x: T| x.log10()),
            Log1p => map1(l, v, |x: T| x.ln_1p()),
            Sin => map1(l, v, |x: T| x.sin()),
            Cos => map1(l, v, |x: T| x.cos()),
            Tan => map1(l, v, |x: T| x.tan()),
            Asin => map1(l, v, |x: T| x.asin()),
            Acos => map1(l, v, |x: T| x.acos()),
            Atan => map1(l, v, |x: T| x.atan()),
            Sinh => map1(l, v, |x: T| x.sinh()),
            Cosh => map1(l, v, |x: T| x.cosh()),
            Tanh => map1(
                l,
                v,
                #[inline(always)]
                |x: T| x.tanh(),
            ),
            Sigmoid => map1(
                l,
                v,
                #[inline(always)]
                move |x: T| one / (one + (-x).exp()),
            ),
            Relu => map1(l, v, move |x: T| if x < zero { zero } else { x }),
            Erf => map1(
                l,
                v,
                #[inline(always)]
                |x: T| x.erf(),
            ),
            Silu => map1(
                l,
                v,
                #[inline(always)]
                move |x: T| x / (one + (-x).exp()),
            ),
            Gelu { tanh: false } => {
                let r = c(std::f64::consts::FRAC_1_SQRT_2);
                map1(
                    l,
                    v,
                    #[inline(always)]
                    move |x: T| half * x * (one + (x * r).erf()),
                )
            }
            Gelu { tanh: true } => {
                let (k, a) = (c(SQRT_2_OVER_PI), c(GELU_TANH_COEF));
                map1(
                    l,
                    v,
                    #[inline(always)]
                    move |x: T| half * x * (one + (k * (x + a * x * x * x)).tanh()),
                )
            }
            Softplus { beta, threshold } => {
                let (b, t) = (c(beta), c(threshold));
                map1(l, v, move |x: T| if x * b > t { x } else { (x * b).exp().ln_1p() / b })
            }
            Elu { alpha } => {
                let a = c(alpha);
                map1(l, v, move |x: T| if x > zero { x } else { a * x.exp_m1() })
            }
            LeakyRelu { slope } => {
                let s = c(slope);
                map1(l, v, move |x: T| if x > zero { x } else { x * s })
            }
            Hardtanh { min, max } => {
                let (lo, hi) = (c(min), c(max));
                map1(l, v, move |x: T| {
                    if x < lo {
                        lo
                    } else if x > hi {
                        hi
                    } else {
                        x
                    }
                })
            }
            Logit { eps } => {
                let e = eps.map(c);
                map1(l, v, move |x: T| {
                    let z = match e {
                        Some(e) => {
                            if x < e {
                                e
                            } else if x > one - e {
                                one - e
                            } else {
                                x
                            }
                        }
                        None => x,
                    };
                    (z / (one - z)).ln()
                })
            }
            Floor => map1(l, v, |x: T| x.floor()),
            Ceil => map1(l, v, |x: T| x.ceil()),
            Round => map1(l, v, |x: T| x.round_even()),
            RoundDecimals { decimals } => {
                // as PyTorch: scale by 10^|d|, round half to even, scale back
                let p = c(10f64.powi(decimals.abs()));
                if decimals > 0 {
                    map1(l, v, move |x: T| (x * p).round_even() / p)
                } else {
                    map1(l, v, move |x: T| (x / p).round_even() * p)
                }
            }
            Trunc => map1(l, v, |x: T| x.trunc()),
            Frac => map1(l, v, |x: T| x - x.trunc()),
        }
    }

    /// Integer kernel for the ops that keep an int64 dtype (None: the op computes in float).
    fn int_kernel(self, l: &Layout, v: &[i64]) -> Option<Vec<i64>> {
        Some(match self {
            Abs => map1(l, v, |x: i64| x.wrapping_abs()),
            Sign => map1(l, v, |x: i64| x.signum()),
            Relu => map1(l, v, |x: i64| x.max(0)),
            Floor | Ceil | Round | Trunc => map1(l, v, |x: i64| x),
            Hardtanh { min, max } => map1(l, v, move |x: i64| {
                if (x as f64) < min {
                    min as i64
                } else if (x as f64) > max {
                    max as i64
                } else {
                    x
                }
            }),
            _ => return None,
        })
    }

    /// Whether an integer/bool input is an error (PyTorch has no kernel) rather than computed in float32.
    fn rejects(self, dtype: DType) -> bool {
        match dtype {
            DType::Bool => matches!(
                self,
                Abs | Relu
                    | Floor
                    | Ceil
                    | Round
                    | RoundDecimals { .. }
                    | Trunc
                    | Frac
                    | Silu
                    | Gelu { .. }
                    | Softplus { .. }
                    | Elu { .. }
                    | LeakyRelu { .. }
                    | Hardtanh { .. }
            ),
            d if d.is_int() => matches!(
                self,
                Frac | RoundDecimals { .. } | Silu | Gelu { .. } | Softplus { .. } | Elu { .. } | LeakyRelu { .. }
            ),
            _ => false,
        }
    }
}

impl Tensor {
    /// Applies a `Unary` op and records its gradient.
    pub fn unary(&self, op: Unary) -> Result<Tensor> {
        let dtype = self.dtype();
        if op.rejects(dtype) {
            match op {
                Relu => bail!(NotImplemented, "Boolean inputs not supported for relu"),
                _ => {
                    bail!(NotImplemented, "\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name())
                }
            }
        }
        let out = self.map_in_memory_order(|x| {
            Ok(match dtype {
                DType::Bool if op == Sign => x.contiguous_copy()?,
                // narrow ints compute in int64 and wrap back
                d if d.is_int() => match x.with_data(|l, v: &[i64]| op.int_kernel(l, v)) {
                    Some(v) => Tensor::from_vec(v, x.shape())?.cast_detached(d),
                    None => x.with_data(|l, v: &[f32]| Tensor::from_vec(op.float_kernel(l, v), x.shape()))?,
                },
                DType::F64 => x.with_data(|l, v: &[f64]| Tensor::from_vec(op.float_kernel(l, v), x.shape()))?,
                // the hand-vectorized float32 kernel, for every layout (map1_by)
                DType::F32 if let Some(kernel) = op.f32_slice_kernel() => {
                    x.with_data(|l, v: &[f32]| Tensor::from_vec(map1_by(l, v, kernel), x.shape()))?
                }
                d => x
                    .with_data(|l, v: &[f32]| Tensor::from_vec(op.float_kernel(l, v), x.shape()))?
                    .cast_detached(d.to_float()),
            })
        })?;
        let saved =
            |out: &Tensor| vec![if op.saves_output() { SavedTensor::output(out) } else { SavedTensor::input(self) }];
        Ok(record(out, &[self], || BackwardOp::Unary(op), saved))
    }

    pub fn neg(&self) -> Result<Tensor> {
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
        Ok(record(out, &[self], || BackwardOp::Neg, |_| vec![]))
    }

    pub fn exp(&self) -> Result<Tensor> {
        let out = match self.dtype() {
            DType::F32 => self.map_in_memory_order(|x| {
                x.with_data(|l, v: &[f32]| Tensor::from_vec(map1_by(l, v, exp_f32_into), x.shape()))
            })?,
            _ => float_map(self, <f32 as Float>::exp, <f64 as Float>::exp)?,
        };
        Ok(record(out, &[self], || BackwardOp::Exp, |out| vec![SavedTensor::output(out)]))
    }

    pub fn log(&self) -> Result<Tensor> {
        let out = match self.dtype() {
            DType::F32 => self.map_in_memory_order(|x| {
                x.with_data(|l, v: &[f32]| Tensor::from_vec(map1_by(l, v, ln_f32_into), x.shape()))
            })?,
            _ => float_map(self, <f32 as Float>::ln, <f64 as Float>::ln)?,
        };
        Ok(record(out, &[self], || BackwardOp::Log, |_| vec![SavedTensor::input(self)]))
    }

    // Short names for formulas.
    pub fn abs(&self) -> Result<Tensor> {
        self.unary(Abs)
    }
    pub fn sign(&self) -> Result<Tensor> {
        self.unary(Sign)
    }
    pub fn sqrt(&self) -> Result<Tensor> {
        self.unary(Sqrt)
    }
    pub fn sin(&self) -> Result<Tensor> {
        self.unary(Sin)
    }
    pub fn cos(&self) -> Result<Tensor> {
        self.unary(Cos)
    }
    pub fn sinh(&self) -> Result<Tensor> {
        self.unary(Sinh)
    }
    pub fn cosh(&self) -> Result<Tensor> {
        self.unary(Cosh)
    }
    pub fn tanh(&self) -> Result<Tensor> {
        self.unary(Tanh)
    }
    pub fn sigmoid(&self) -> Result<Tensor> {
        self.unary(Sigmoid)
    }
    pub fn erf(&self) -> Result<Tensor> {
        self.unary(Erf)
    }
    pub fn rsqrt(&self) -> Result<Tensor> {
        self.unary(Rsqrt)
    }

    /// `nan_to_num(nan, posinf, neginf)`: infinities default to the dtype's largest finite values;
    /// ints and bools come back unchanged (a copy).
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        let out = match self.dtype() {
            DType::F32 => {
                let (hi, lo) = (posinf.map_or(f32::MAX, |v| v as f32), neginf.map_or(f32::MIN, |v| v as f32));
                let f = move |v: f32| {
                    if v.is_nan() {
                        nan as f32
                    } else if v == f32::INFINITY {
                        hi
                    } else if v == f32::NEG_INFINITY {
                        lo
                    } else {
                        v
                    }
                };
                self.with_data(|l, v: &[f32]| Tensor::from_vec(map1(l, v, f), self.shape()))?
            }
            DType::F64 => {
                let (hi, lo) = (posinf.unwrap_or(f64::MAX), neginf.unwrap_or(f64::MIN));
                let f = move |v: f64| {
                    if v.is_nan() {
                        nan
                    } else if v == f64::INFINITY {
                        hi
                    } else if v == f64::NEG_INFINITY {
                        lo
                    } else {
                        v
                    }
                };
                self.with_data(|l, v: &[f64]| Tensor::from_vec(map1(l, v, f), self.shape()))?
            }
            _ => self.contiguous_copy()?,
        };
        Ok(record(out, &[self], || BackwardOp::NanToNum, |_| vec![SavedTensor::input(self)]))
    }

    /// A copy in another dtype; differentiable between float dtypes.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let out =
            self.map_in_memory_order(|x| with_dtype!(dtype, T => Tensor::from_vec(x.to_vec::<T>(), x.shape())))?;
        if !dtype.is_float() {
            return Ok(out);
        }
        let from = self.dtype();
        Ok(record(out, &[self], || BackwardOp::ToCopy { dtype: from }, |_| vec![]))
    }
}
