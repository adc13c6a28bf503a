//! `linalg.cholesky`: A = L Lᵀ from A's lower triangle, and its backward rule.
use super::batch::{batch_element, mt, square_batch, to_tensor};
use super::factor::cholesky;
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.cholesky(A, upper=upper)`: L (or U = Lᵀ when `upper`); an input that is not
    /// positive-definite is a `LinAlgError` naming the first failing leading minor.
    pub fn linalg_cholesky(&self, upper: bool) -> Result<Tensor> {
        let batch = square_batch(self, "linalg.cholesky")?;
        let n = batch.n;
        let mut out = Vec::with_capacity(batch.values.len());
        for i in 0..batch.count() {
            match cholesky(batch.matrix(i), n) {
                Ok(l) => out.extend(l),
                Err(order) => {
                    return Err(Error::LinAlg(format!(
                        "linalg.cholesky: {}The factorization could not be completed because the input is not \
                         positive-definite (the leading minor of order {order} is not positive-definite).",
                        batch_element(&batch, i)
                    )))
                }
            }
        }
        let lower = to_tensor(out, self.shape(), self.dtype())?;
        let out = if upper { mt(&lower)?.contiguous()? } else { lower };
        Ok(record(out, &[self], |out| LinalgCholeskyExBackward0 { upper, l: SavedTensor::output(out) }))
    }
}

crate::backward_rule! {
    /// `linalg.cholesky`: with Φ = tril(Lᵀ gL) halved on its diagonal (as a symmetric matrix),
    /// dA = L⁻ᵀ Φ L⁻¹ (PyTorch's formula; the triangular solves are products with L⁻¹ here).
    pub struct LinalgCholeskyExBackward0 {
        upper: bool,
        l: SavedTensor,
    }
}
impl Backward for LinalgCholeskyExBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let saved = ctx.unpack(&self.l)?;
        let (l, gl) = if self.upper { (mt(&saved)?, mt(g)?) } else { (saved, g.clone()) };
        let phi = mt(&l)?.matmul(&gl)?.tri(0, false)?;
        let phi = phi.add(&mt(&phi.tri(-1, false)?)?)?.mul(&Tensor::scalar(0.5))?;
        let l_inv = l.linalg_inv()?;
        one(mt(&l_inv)?.matmul(&phi)?.matmul(&l_inv))
    }
}
