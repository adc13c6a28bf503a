//! Optimizer updates in one call over every parameter of every group (what PyTorch's fused paths do).
//!
//! A [`Group`] pairs an update rule with one param group's hyper-parameters (an [`Update`]: [`Sgd`],
//! [`Adam`], ...) and its [`Slot`]s: a parameter, its gradient, its per-element state buffers and its
//! 0-dim counters (`step`, NAdam's `mu_product`). [`step`] advances the counters, then rewrites each
//! parameter and its buffers in place in one pass over their memory (split across the thread pool when
//! large), and bumps the version of every tensor it wrote, as PyTorch's in-place writes do.
//!
//! The arithmetic follows PyTorch's step op by op in the parameter's dtype (each op rounded, scalars cast
//! to it as PyTorch's CPU kernels cast them, FMA where its vectorized kernels use it). Float32 results are
//! bit for bit those of PyTorch's default SGD and Adamax and of its `fused=True` Adam, AdamW and Adagrad
//! (whose kernel takes a tensor's last `len % 16` elements through scalar code that can round differently);
//! RMSprop, NAdam and PyTorch's default Adam differ only where PyTorch's vectorized float32 `sqrt` is off
//! by up to 0.75 ulp (ours rounds correctly). float16/bfloat16 parameters compute in float32 and round
//! once per step (PyTorch rounds after every op).
mod adadelta;
mod adagrad;
mod adam;
mod adamax;
mod apply;
mod asgd;
mod nadam;
mod radam;
mod rmsprop;
mod rprop;
mod sgd;

pub use adadelta::Adadelta;
pub use adagrad::Adagrad;
pub use adam::Adam;
pub use adamax::Adamax;
pub use apply::step;
pub use asgd::Asgd;
pub use nadam::NAdam;
pub use radam::RAdam;
pub use rmsprop::RmsProp;
pub use rprop::Rprop;
pub use sgd::Sgd;

use crate::dtype::DType;
use crate::element::Element;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Most per-element buffers a rule keeps (Adam with amsgrad, RMSprop centered with momentum: 3).
pub const MAX_BUFFERS: usize = 3;

/// One parameter and what its update reads and writes.
pub struct Slot {
    pub param: Tensor,
    pub grad: Tensor,
    /// Per-element state of the parameter's shape, in the order the rule documents.
    pub buffers: Vec<Tensor>,
    /// 0-dim state tensors, in the order the rule documents.
    pub counters: Vec<Tensor>,
    /// The buffers were made for this step (SGD starts its momentum buffer from the gradient).
    pub fresh: bool,
}

/// One param group: its rule with the group's hyper-parameters, and its parameters.
pub struct Group<U> {
    pub rule: U,
    pub slots: Vec<Slot>,
}

/// Weight decay as PyTorch's Adam-family options set it (`weight_decay`, `decoupled_weight_decay`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeightDecay {
    None,
    /// `grad += weight_decay * param` (Adam, NAdam).
    L2(f64),
    /// `param *= 1 - lr * weight_decay` before the update (AdamW, `decoupled_weight_decay=True`).
    Decoupled(f64),
}

impl WeightDecay {
    /// PyTorch skips the decay altogether when `weight_decay` is 0.
    pub fn new(weight_decay: f64, decoupled: bool) -> Self {
        if weight_decay == 0.0 {
            WeightDecay::None
        } else if decoupled {
            WeightDecay::Decoupled(weight_decay)
        } else {
            WeightDecay::L2(weight_decay)
        }
    }

    /// The factor the parameter is scaled by first, and the coefficient of the parameter added to the
    /// gradient.
    pub(crate) fn split(self, lr: f64) -> (Option<f64>, Option<f64>) {
        match self {
            WeightDecay::None => (None, None),
            WeightDecay::L2(wd) => (None, Some(wd)),
            WeightDecay::Decoupled(wd) => (Some(1.0 - lr * wd), None),
        }
    }
}

/// A 0-dim state value, kept in its tensor's dtype: every write rounds to it, as the tensor would.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    value: f64,
    dtype: DType,
}

impl Counter {
    pub fn new(value: f64, dtype: DType) -> Self {
        Counter { value: round_to(dtype, value), dtype }
    }
    pub fn get(&self) -> f64 {
        self.value
    }
    pub fn set(&mut self, v: f64) {
        self.value = round_to(self.dtype, v);
    }
    /// `counter *= factor` as a 0-dim tensor of this dtype computes it (the factor cast first).
    pub fn scale(&mut self, factor: f64) {
        self.set(self.value * round_to(self.dtype, factor));
    }
}

fn round_to(dtype: DType, v: f64) -> f64 {
    with_dtype!(dtype, T => T::from_f64(v).to_f64())
}

/// The float types a fused update computes in.
pub trait Real:
    Element + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
    /// `self * a + b` rounded once (PyTorch's vectorized CPU kernels use FMA where this is used).
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
        }
    };
}
real!(f32);
real!(f64);

/// `torch.lerp(start, end, weight)` as PyTorch's vectorized CPU kernel computes it.
#[inline(always)]
pub(crate) fn lerp<T: Real>(start: T, end: T, weight: T) -> T {
    let diff = end - start;
    if weight.abs() < T::from_f64(0.5) {
        weight.mul_add(diff, start)
    } else {
        (weight - T::ONE).mul_add(diff, end)
    }
}

/// `torch.addcmul(s, t1, t2, value=value)` as PyTorch's vectorized CPU kernel computes it:
/// `fma(value * t1, t2, s)`.
#[inline(always)]
pub(crate) fn addcmul<T: Real>(s: T, value: T, t1: T, t2: T) -> T {
    (value * t1).mul_add(t2, s)
}

/// `torch.maximum`: NaN in either operand gives NaN.
#[inline(always)]
pub(crate) fn maximum<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || a > b {
        a
    } else {
        b
    }
}

/// A param group's hyper-parameters, read by PyTorch's option names (`"lr"`, `"betas"`, ...); the bindings
/// read them from the group's dict.
pub trait Options {
    type Error;
    fn number(&self, key: &str) -> std::result::Result<f64, Self::Error>;
    fn flag(&self, key: &str) -> std::result::Result<bool, Self::Error>;
    /// A two-number option such as `betas`.
    fn pair(&self, key: &str) -> std::result::Result<(f64, f64), Self::Error>;
}

/// An update rule with one group's hyper-parameters. The rule declares its state once: the bindings and the
/// Python optimizer read the keys of its buffers and counters from here.
pub trait Update: Sync + Sized {
    /// Per-parameter scalars computed once per step from the counters (bias corrections, ...).
    type Coeffs: Sync + Send;
    /// The 0-dim counters each slot carries, in `advance`'s order: PyTorch's state key and its first value.
    const COUNTERS: &'static [(&'static str, f64)];
    /// The rule with a group's hyper-parameters.
    fn from_options<O: Options>(options: &O) -> std::result::Result<Self, O::Error>;
    /// PyTorch's state keys of the per-element buffers each slot carries, in `apply`'s order.
    fn buffer_names(&self) -> Vec<&'static str>;
    /// How many per-element buffers each slot carries.
    fn buffers(&self) -> usize {
        self.buffer_names().len()
    }
    /// How many 0-dim counters each slot carries.
    fn counters(&self) -> usize {
        Self::COUNTERS.len()
    }
    /// Advances one parameter's counters for this step and returns its coefficients.
    fn advance(&self, counters: &mut [Counter], fresh: bool) -> Self::Coeffs;
    /// Updates one run of elements: the parameter `p`, its gradient `g` and its buffers.
    fn apply<T: Real>(&self, c: &Self::Coeffs, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]);
}

/// `-g` when maximizing, else `g` (exact either way).
#[inline(always)]
pub(crate) fn signed<T: Real>(g: T, maximize: bool) -> T {
    if maximize {
        -g
    } else {
        g
    }
}

#[cfg(test)]
pub(crate) mod reference {
    /// A small deterministic sequence in [-1, 1) (no rand dependency in core tests).
    pub fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    /// Relative closeness for float32 results against a float64 reference.
    pub fn close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= rtol * (1.0 + b.abs())
    }
}
