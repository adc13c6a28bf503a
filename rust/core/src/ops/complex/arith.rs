//! The values of `+ - * / **` on complex operands (the binary ops record them with their usual rules, whose
//! formulas conjugate where torch's complex ones do).
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::tensor::Tensor;

/// The complex arithmetic ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `a ** b`: `exp(b log a)`, as C's `cpow`.
    Pow,
}

/// `(a + ib) ** (c + id)` (computed in float64, as the functions of `super::math`).
fn power<T: Float>(a: T, b: T, c: T, d: T) -> (T, T) {
    use rustfft::num_complex::Complex;
    let w = super::math::power(Complex::new(a.to_f64(), b.to_f64()), Complex::new(c.to_f64(), d.to_f64()));
    (T::from_f64(w.re), T::from_f64(w.im))
}

fn pair_kernel<T: Float>(op: PairOp, x: &[T], y: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(x.len());
    for (p, q) in x.chunks_exact(2).zip(y.chunks_exact(2)) {
        let (a, b, c, d) = (p[0], p[1], q[0], q[1]);
        let (re, im) = match op {
            PairOp::Add => (a + c, b + d),
            PairOp::Sub => (a - c, b - d),
            PairOp::Mul => (a * c - b * d, a * d + b * c),
            PairOp::Div => super::math::divide(a, b, c, d),
            PairOp::Pow => power(a, b, c, d),
        };
        out.push(re);
        out.push(im);
    }
    out
}

impl Tensor {
    /// `self op other` in the complex `dtype`, broadcast to `shape`, with no history.
    pub(crate) fn complex_arith_values(
        &self,
        other: &Tensor,
        op: PairOp,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Tensor> {
        let a = self.detach().complex_cast_or_same(dtype)?.expand(shape)?;
        let b = other.detach().complex_cast_or_same(dtype)?.expand(shape)?;
        let mut pair_shape = shape.to_vec();
        pair_shape.push(2);
        let (pa, pb) = (a.pairs(), b.pairs());
        let values = crate::with_float_dtype!(
            dtype.component(),
            T => Tensor::from_vec(pair_kernel::<T>(op, &pa.to_vec::<T>(), &pb.to_vec::<T>()), &pair_shape),
            // (a complex dtype's parts are float32 or float64)
            return Err(crate::dtype::complex_refusal(dtype))
        );
        values?.view_as_complex()
    }

    /// `1 / self` of a complex tensor, with no history (`reciprocal`'s values).
    pub(crate) fn complex_reciprocal_values(&self) -> Result<Tensor> {
        let one = Tensor::wrapped_scalar(crate::dtype::Scalar::Int(1));
        one.complex_arith_values(self, PairOp::Div, self.dtype(), self.shape())
    }

    /// This tensor in `dtype`, itself when it is already.
    fn complex_cast_or_same(&self, dtype: DType) -> Result<Tensor> {
        if self.dtype() == dtype {
            Ok(self.clone())
        } else {
            self.complex_cast(dtype)
        }
    }
}
