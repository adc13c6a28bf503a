//! `poisson` and `binomial`: counts drawn as PyTorch's CPU kernels draw them, element after element in memory
//! order from the float64 uniforms (`random64`, 53 bits) of the generator, so seeded draws are PyTorch's.
//! Poisson: Hörmann's transformed rejection (PTRS, 1993) from a rate of 10, else the product of uniforms.
//! Binomial: Hörmann's BTRS (1993) from a mean (count times the smaller of p, 1 - p) of 10, else counting
//! geometric waiting times. The binomial arithmetic on count and prob is in their dtype (`scalar_t`) where
//! PyTorch's is, and in float64 where PyTorch's accumulates (`accscalar_t`).
use super::draw_grad::{Draw, DrawBackward};
use super::Generator;
use crate::autograd::record;
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;

/// From this rate on, a Poisson count comes from the transformed rejection.
const PTRS_FROM_RATE: f64 = 10.0;
/// From this mean on, a binomial count comes from BTRS.
const BTRS_FROM_MEAN: f64 = 10.0;

/// C++'s `(int64_t)x` on x86-64: NaN and values out of range give the "integer indefinite" value, i64::MIN
/// (Rust's `as` saturates instead). torch's count for an infinite rate is that value.
fn cvt_i64(x: f64) -> i64 {
    if x.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// One Poisson count of rate `lambda` (>= 0), as PyTorch's `sample_poisson`.
fn poisson_count(g: &mut Generator, lambda: f64) -> i64 {
    if lambda >= PTRS_FROM_RATE {
        let slam = lambda.sqrt();
        let loglam = lambda.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = g.uniform() - 0.5;
            let v = g.uniform();
            let us = 0.5 - u.abs();
            let k = cvt_i64(((2.0 * a / us + b) * u + lambda + 0.43).floor());
            if us >= 0.07 && v <= vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            let kf = k as f64;
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lambda + kf * loglam - libm::lgamma(kf + 1.0) {
                return k;
            }
        }
    } else if lambda == 0.0 {
        0
    } else {
        let enlam = (-lambda).exp();
        let mut count = 0;
        let mut prod = 1.0;
        loop {
            prod *= g.uniform();
            if prod > enlam {
                count += 1;
            } else {
                return count;
            }
        }
    }
}

/// Poisson counts for the rates of `rates` (float32 or float64), in its shape and dtype.
pub fn poisson(gen: &Mutex<Generator>, rates: &Tensor) -> Result<Tensor> {
    let shape = rates.shape().to_vec();
    let lambdas: Vec<f64> = match rates.dtype() {
        DType::F32 => rates.to_vec::<f32>().into_iter().map(f64::from).collect(),
        DType::F64 => rates.to_vec::<f64>(),
        other => bail!(NotImplemented, "\"poisson_cpu\" not implemented for '{}'", other.scalar_type_name()),
    };
    // torch checks each rate as it reaches it; every one is checked here before any is drawn, so a bad rate
    // leaves the generator as it was
    if lambdas.iter().any(|l| l.is_nan() || *l < 0.0) {
        bail!(Runtime, "invalid Poisson rate, expected rate to be non-negative");
    }
    let mut g = gen.lock();
    let counts = lambdas.into_iter().map(|l| poisson_count(&mut g, l) as f64);
    let out = match rates.dtype() {
        DType::F32 => Tensor::from_vec(counts.map(|c| c as f32).collect::<Vec<f32>>(), &shape),
        _ => Tensor::from_vec(counts.collect::<Vec<f64>>(), &shape),
    }?;
    Ok(record(out, &[rates], |_| DrawBackward { draw: Draw::Poisson }))
}

/// The binomial arithmetic PyTorch does in the tensor's dtype (`scalar_t`).
trait CountScalar:
    Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    fn wide(self) -> f64;
    fn narrow(v: f64) -> Self;
    fn log1p_neg(self) -> f64;
    fn sqrt_wide(self) -> f64;
    fn floor_wide(self) -> f64;
    fn div_wide(self, other: Self) -> f64;
}

macro_rules! count_scalar {
    ($t:ty) => {
        impl CountScalar for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const HALF: $t = 0.5;
            fn wide(self) -> f64 {
                self as f64
            }
            fn narrow(v: f64) -> $t {
                v as $t
            }
            /// `compat_log1p(-prob)`: log1p in prob's type
            fn log1p_neg(self) -> f64 {
                (-self).ln_1p() as f64
            }
            fn sqrt_wide(self) -> f64 {
                self.sqrt() as f64
            }
            fn floor_wide(self) -> f64 {
                self.floor() as f64
            }
            fn div_wide(self, other: $t) -> f64 {
                (self / other) as f64
            }
        }
    };
}
count_scalar!(f32);
count_scalar!(f64);

/// Stirling's series tail of log k! (PyTorch's `stirling_approx_tail`), tabled below 10.
fn stirling_tail(k: f64) -> f64 {
    const TAIL: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k < TAIL.len() as f64 {
        return TAIL[k as usize];
    }
    let kp1sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / (k + 1.0)
}

/// Successes before the geometric waiting times pass `count` (chance `prob` <= 1/2, small mean).
fn binomial_inversion<T: CountScalar>(g: &mut Generator, count: T, prob: T) -> T {
    let logprob = prob.log1p_neg();
    let mut geom_sum = 0.0f64;
    let mut successes = T::ZERO;
    loop {
        geom_sum += (g.uniform().ln() / logprob).ceil();
        if geom_sum > count.wide() {
            return successes;
        }
        successes = T::narrow(successes.wide() + 1.0);
    }
}

/// Hörmann's BTRS for chance `prob` <= 1/2 and a mean of at least 10, with PyTorch's mixed precision.
fn btrs<T: CountScalar>(g: &mut Generator, count: T, prob: T) -> T {
    let stddev = (count * prob * (T::ONE - prob)).sqrt_wide();
    let b = 1.15 + 2.53 * stddev;
    let a = -0.0873 + 0.0248 * b + 0.01 * prob.wide();
    let c = (count * prob).wide() + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = prob.div_wide(T::ONE - prob);
    let alpha = (2.83 + 5.1 / b) * stddev;
    let m = ((count + T::ONE) * prob).floor_wide();
    let n = count.wide();
    loop {
        let u = g.uniform() - 0.5;
        let v = g.uniform();
        let us = 0.5 - u.abs();
        let k = T::narrow(((2.0 * a / us + b) * u + c).floor());
        if k < T::ZERO || k > count {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k;
        }
        // the sums of count and k with 1 are in their dtype, those with m in float64, as in PyTorch
        let kw = k.wide();
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let rest = (count - k + T::ONE).wide();
        let upper = (m + 0.5) * ((m + 1.0) / (r * (n - m + 1.0))).ln()
            + (count + T::ONE).wide() * ((n - m + 1.0) / rest).ln()
            + (kw + 0.5) * (r * rest / (k + T::ONE).wide()).ln()
            + stirling_tail(m)
            + stirling_tail(n - m)
            - stirling_tail(kw)
            - stirling_tail((count - k).wide());
        if v <= upper {
            return k;
        }
    }
}

/// One binomial count, as PyTorch's `sample_binomial`: 0 for count or prob <= 0, count for prob >= 1, NaN
/// for a NaN prob; a chance above 1/2 is drawn as failures.
fn binomial_count<T: CountScalar>(g: &mut Generator, count: T, prob: T) -> T {
    if count <= T::ZERO || prob <= T::ZERO {
        T::ZERO
    } else if prob >= T::ONE {
        count
    } else if prob <= T::HALF {
        if (count * prob).wide() >= BTRS_FROM_MEAN {
            btrs(g, count, prob)
        } else {
            binomial_inversion(g, count, prob)
        }
    } else if prob > T::HALF {
        let q = T::ONE - prob;
        let drawn =
            if (count * q).wide() >= BTRS_FROM_MEAN { btrs(g, count, q) } else { binomial_inversion(g, count, q) };
        count - drawn
    } else {
        T::narrow(f64::NAN)
    }
}

/// Binomial counts for `count` trials of chance `prob` each (broadcast together; one dtype, float32 or
/// float64).
pub fn binomial(gen: &Mutex<Generator>, count: &Tensor, prob: &Tensor) -> Result<Tensor> {
    if count.dtype() != prob.dtype() {
        bail!(Runtime, "binomial: count and prob must have one dtype");
    }
    let shape = crate::layout::broadcast_shapes(count.shape(), prob.shape())?;
    let out = binomial_counts(gen, &count.detach().expand(&shape)?, &prob.detach().expand(&shape)?, &shape)?;
    Ok(record(out, &[count, prob], |_| DrawBackward { draw: Draw::Binomial }))
}

fn binomial_counts(gen: &Mutex<Generator>, count: &Tensor, prob: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let mut g = gen.lock();
    match count.dtype() {
        DType::F32 => {
            let pairs = count.to_vec::<f32>().into_iter().zip(prob.to_vec::<f32>());
            Tensor::from_vec(pairs.map(|(n, p)| binomial_count(&mut g, n, p)).collect::<Vec<f32>>(), shape)
        }
        DType::F64 => {
            let pairs = count.to_vec::<f64>().into_iter().zip(prob.to_vec::<f64>());
            Tensor::from_vec(pairs.map(|(n, p)| binomial_count(&mut g, n, p)).collect::<Vec<f64>>(), shape)
        }
        other => bail!(NotImplemented, "\"binomial_cpu\" not implemented for '{}'", other.scalar_type_name()),
    }
}
