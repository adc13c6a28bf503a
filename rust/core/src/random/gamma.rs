//! `_standard_gamma`: Gamma(alpha, 1) draws as PyTorch's CPU kernel makes them, element after element in
//! memory order: Marsaglia and Tsang's rejection (2000) over the float64 uniforms (`random64`, 53 bits) and
//! the float64 normals (Box–Muller with the float64 cache) of the generator, alpha < 1 boosted to alpha + 1
//! and scaled by U^(1/alpha). The constants are PyTorch's float literals (`1.0f / 3.0f`, `0.0331f`) widened
//! as C++ widens them, and the arithmetic on alpha is in its dtype, so seeded draws are PyTorch's bit for bit.
use super::Generator;
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;

/// `1.0f / 3.0f`: a float, widened where alpha is a double.
const ONE_THIRD_F32: f32 = 1.0 / 3.0;
/// `0.0331f` widened to double: the squeeze of the acceptance test.
const SQUEEZE: f64 = 0.0331f32 as f64;

/// The arithmetic PyTorch does in alpha's own type (`scalar_t`) before its double (`accscalar_t`) loop.
trait GammaScalar: Copy {
    fn boost(self) -> Option<(Self, f64)>;
    fn d(self) -> f64;
    fn narrow(v: f64) -> Self;
    fn min_positive() -> Self;
    fn to_f64(self) -> f64;
}

impl GammaScalar for f32 {
    /// alpha < 1: (alpha + 1, 1 / alpha in float) for the boost
    fn boost(self) -> Option<(f32, f64)> {
        (self < 1.0).then(|| (self + 1.0, (1.0f32 / self) as f64))
    }
    fn d(self) -> f64 {
        (self - ONE_THIRD_F32) as f64
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
    fn min_positive() -> f32 {
        f32::MIN_POSITIVE
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl GammaScalar for f64 {
    fn boost(self) -> Option<(f64, f64)> {
        (self < 1.0).then(|| (self + 1.0, 1.0 / self))
    }
    fn d(self) -> f64 {
        self - ONE_THIRD_F32 as f64
    }
    fn narrow(v: f64) -> f64 {
        v
    }
    fn min_positive() -> f64 {
        f64::MIN_POSITIVE
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// One draw, as PyTorch's `sample_gamma` then `std::max(numeric_limits::min(), sample)` (a NaN draw gives
/// the minimum, as `std::max` does).
fn sample<T: GammaScalar>(g: &mut Generator, alpha: T) -> T {
    let mut alpha = alpha;
    let mut scale = 1.0f64;
    if let Some((boosted, inverse)) = alpha.boost() {
        if alpha.to_f64() == 0.0 {
            return T::narrow(0.0).max_with_min();
        }
        scale *= (1.0 - g.uniform()).powf(inverse);
        alpha = boosted;
    }
    let d = alpha.d();
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let (x, y) = loop {
            let x = g.normal_f64(0.0, 1.0);
            let y = 1.0 + c * x;
            // C++'s `while (y <= 0)`: a NaN y (from a NaN alpha) leaves the loop too
            if y > 0.0 || y.is_nan() {
                break (x, y);
            }
        };
        let v = y * y * y;
        let u = 1.0 - g.uniform();
        let xx = x * x;
        if u < 1.0 - SQUEEZE * xx * xx || u.ln() < 0.5 * xx + d * (1.0 - v + v.ln()) {
            return T::narrow(scale * d * v).max_with_min();
        }
    }
}

trait MaxWithMin {
    fn max_with_min(self) -> Self;
}

impl<T: GammaScalar> MaxWithMin for T {
    /// `std::max(min, x)`: x only when min < x (so NaN gives min).
    fn max_with_min(self) -> T {
        if T::min_positive().to_f64() < self.to_f64() {
            self
        } else {
            T::min_positive()
        }
    }
}

/// Gamma(alpha, 1) draws of `alpha`'s shape and dtype (float32 or float64, as PyTorch's kernel).
pub fn standard_gamma(gen: &Mutex<Generator>, alpha: &Tensor) -> Result<Tensor> {
    let shape = alpha.shape().to_vec();
    let mut g = gen.lock();
    match alpha.dtype() {
        DType::F32 => {
            let draws: Vec<f32> = alpha.to_vec::<f32>().into_iter().map(|a| sample(&mut g, a)).collect();
            Tensor::from_vec(draws, &shape)
        }
        DType::F64 => {
            let draws: Vec<f64> = alpha.to_vec::<f64>().into_iter().map(|a| sample(&mut g, a)).collect();
            Tensor::from_vec(draws, &shape)
        }
        other => bail!(NotImplemented, "\"gamma_cpu\" not implemented for '{}'", other.scalar_type_name()),
    }
}
