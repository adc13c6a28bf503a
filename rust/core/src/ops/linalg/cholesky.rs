//! `linalg.cholesky` and `linalg.cholesky_ex`: A = L Lᵀ from A's lower triangle (U = Lᵀ from its upper
//! one), with LAPACK's `info` and partial result, and the backward rule.
use super::batch::{batch_element, mt, square_batch, to_tensor};
use super::factor::cholesky;
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.cholesky(A, upper=upper)`: L (or U = Lᵀ when `upper`); an input that is not
    /// positive-definite is a `LinAlgError` naming the first failing leading minor.
    pub fn linalg_cholesky(&self, upper: bool) -> Result<Tensor> {
        Ok(self.linalg_cholesky_ex(upper, true, "linalg.cholesky")?.0)
    }

    /// `linalg.cholesky_ex(A, upper=upper, check_errors=check_errors)`: (L, info), `info` the order of
    /// the first leading minor that is not positive-definite (0 if none) with LAPACK's partial factor,
    /// unless `check_errors`, which raises naming `func`. `upper` reads A's upper triangle.
    pub fn linalg_cholesky_ex(&self, upper: bool, check_errors: bool, func: &str) -> Result<(Tensor, Tensor)> {
        square_batch(self, "linalg.cholesky")?;
        // the upper triangle of A is the lower one of Aᵀ
        let batch = square_batch(&if upper { mt(self)? } else { self.clone() }, "linalg.cholesky")?;
        let n = batch.n;
        let mut out = Vec::with_capacity(batch.values.len());
        let mut infos = Vec::with_capacity(batch.count());
        for i in 0..batch.count() {
            let (l, info) = cholesky(batch.matrix(i), n);
            if check_errors && info > 0 {
                return Err(Error::LinAlg(format!(
                    "{func}: {}The factorization could not be completed because the input is not positive-definite \
                     (the leading minor of order {info} is not positive-definite).",
                    batch_element(&batch, i)
                )));
            }
            out.extend(l);
            infos.push(info as i32);
        }
        let lower = to_tensor(out, self.shape(), self.dtype())?;
        let out = if upper { mt(&lower)?.contiguous()? } else { lower };
        let info = Tensor::from_vec(infos, &batch.dims)?;
        Ok((record(out, &[self], |out| LinalgCholeskyExBackward0 { upper, L: SavedTensor::output(out) }), info))
    }
}

crate::backward_rule! {
    /// `linalg.cholesky`: with Φ = tril(Lᵀ gL) halved on its diagonal (as a symmetric matrix),
    /// dA = L⁻ᵀ Φ L⁻¹ (PyTorch's formula; the triangular solves are products with L⁻¹ here).
    #[allow(non_snake_case)]
    pub struct LinalgCholeskyExBackward0 {
        upper: bool,
        L: SavedTensor,
    }
}
impl Backward for LinalgCholeskyExBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let saved = ctx.unpack(&self.L)?;
        let (l, gl) = if self.upper { (mt(&saved)?, mt(g)?) } else { (saved, g.clone()) };
        let phi = mt(&l)?.matmul(&gl)?.tri(0, false)?;
        let phi = phi.add(&mt(&phi.tri(-1, false)?)?)?.mul(&Tensor::scalar(0.5))?;
        let l_inv = l.linalg_inv()?;
        one(mt(&l_inv)?.matmul(&phi)?.matmul(&l_inv))
    }
}
