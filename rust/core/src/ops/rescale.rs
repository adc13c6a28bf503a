//! `frexp` (mantissa and exponent of each element) and `renorm` (sub-tensors scaled down to a maximum
//! p-norm).
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::ops::formula::c;
use crate::ops::norm::{vector_norm_grad, NormOrder};
use crate::ops::quantile::cxx_double;
use crate::tensor::Tensor;
use crate::with_dtype;

/// torch adds this to a norm before dividing by it in `renorm` (forward and backward).
const RENORM_EPSILON: f64 = 1e-7;

/// C's `frexp`: `x = mantissa * 2^exponent` with |mantissa| in [0.5, 1); zero, inf and NaN keep exponent 0.
fn frexp_f64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    const MANTISSA_BITS: u32 = 52;
    const EXPONENT_BIAS: i32 = 1022;
    let (x, shift) = if x.abs() < f64::MIN_POSITIVE { (x * 2f64.powi(64), -64) } else { (x, 0) };
    let bits = x.to_bits();
    let biased = ((bits >> MANTISSA_BITS) & 0x7ff) as i32;
    let mantissa = f64::from_bits((bits & !(0x7ffu64 << MANTISSA_BITS)) | ((EXPONENT_BIAS as u64) << MANTISSA_BITS));
    (mantissa, biased - EXPONENT_BIAS + shift)
}

impl Tensor {
    /// `frexp()`: (mantissa in this dtype, exponent as int32); the mantissa's gradient is the incoming one
    /// divided by 2^exponent (FrexpBackward0).
    pub fn frexp(&self) -> Result<(Tensor, Tensor)> {
        if !self.dtype().is_float() {
            bail!(Runtime, "torch.frexp() only supports floating-point dtypes");
        }
        let (mantissa, exponent): (Vec<f64>, Vec<i32>) =
            with_dtype!(self.dtype(), T => self.to_vec::<T>().into_iter().map(|v| frexp_f64(v.to_f64())).unzip());
        let mantissa = Tensor::from_vec(mantissa, self.shape())?.to_dtype(self.dtype())?;
        let exponent = Tensor::from_vec(exponent, self.shape())?;
        let rule = |_: &Tensor| FrexpBackward0 { exponent: SavedTensor::input(&exponent) };
        Ok((record(mantissa, &[self], rule), exponent))
    }

    /// `renorm(p, dim, maxnorm)`: each sub-tensor along `dim` whose p-norm exceeds `maxnorm` scaled to it.
    pub fn renorm(&self, p: f64, dim: isize, maxnorm: f64) -> Result<Tensor> {
        if p <= 0.0 {
            bail!(Runtime, "renorm: non-positive-norm not supported");
        }
        if maxnorm < 0.0 {
            bail!(Runtime, "renorm: expected maxnorm to be >= 0 but got {}", cxx_double(maxnorm));
        }
        if self.ndim() <= 1 {
            bail!(Runtime, "renorm: input needs at least 2 dimensions, got {} dimensions", self.ndim());
        }
        let d = wrap_dim(dim, self.ndim())?;
        let x = self.detach();
        let norm = x.vector_norm(NormOrder::from_p(p), Some(&others(d, self.ndim())), true)?;
        let factor = Tensor::where_(&norm.gt(&c(maxnorm))?, &c(maxnorm).div(&norm.add(&c(RENORM_EPSILON))?)?, &c(1.0))?;
        let out = x.mul(&factor.to_dtype(self.dtype())?)?;
        let rule = |_: &Tensor| RenormBackward0 { dim: d, maxnorm, p, self_: SavedTensor::input(self) };
        Ok(record(out, &[self], rule))
    }
}

/// Every dim but `dim`, as reduction dims.
fn others(dim: usize, ndim: usize) -> Vec<isize> {
    (0..ndim).filter(|&i| i != dim).map(|i| i as isize).collect()
}

crate::backward_rule! {
    /// `frexp()`: the mantissa is the input times 2^-exponent.
    pub struct FrexpBackward0 {
        exponent: SavedTensor,
    }
}
impl Backward for FrexpBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let exponent = ctx.unpack(&self.exponent)?;
        one(g.div(&c(2.0).pow(&exponent.to_dtype(g.dtype())?)?))
    }
}

crate::backward_rule! {
    /// `renorm(p, dim, maxnorm)`, as torch's `renorm_backward`.
    pub struct RenormBackward0 {
        dim: usize,
        maxnorm: f64,
        p: f64,
        self_: SavedTensor,
    }
}
impl Backward for RenormBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let x = ctx.unpack(&self.self_)?;
        let reduce = others(self.dim, x.ndim());
        let reduce_usize: Vec<usize> = reduce.iter().map(|&d| d as usize).collect();
        let ord = NormOrder::from_p(self.p);
        let norm = x.vector_norm(ord, Some(&reduce), true)?;
        let along = x.mul(g)?.sum(Some(&reduce), true)?;
        let norm_grad = vector_norm_grad(&along, &x, &norm, ord, &reduce_usize)?;
        let inverse = c(1.0).div(&norm.add(&c(RENORM_EPSILON))?)?;
        let factor = inverse.mul(&c(self.maxnorm))?;
        let scaled = factor.mul(g)?.sub(&factor.mul(&inverse)?.mul(&norm_grad)?)?;
        one(Tensor::where_(&norm.gt(&c(self.maxnorm))?, &scaled, g))
    }
}

#[cfg(test)]
mod tests {
    use super::frexp_f64;

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp_f64(8.0), (0.5, 4));
        assert_eq!(frexp_f64(-5.0), (-0.625, 3));
        assert_eq!(frexp_f64(0.5), (0.5, 0));
        assert_eq!(frexp_f64(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
        assert_eq!(frexp_f64(0.0), (0.0, 0));
    }
}
