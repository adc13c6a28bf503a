//! `linalg.eigh`: eigenvalues (ascending) and eigenvectors of symmetric matrices, and the rule.
use super::batch::{eye, mt, square_batch, to_tensor};
use super::factor::eigh;
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.eigh(A, UPLO)`: (eigenvalues, eigenvectors) of the symmetric matrix read from A's lower
    /// triangle (`upper`: its upper one). Eigenvectors are columns, each signed so that its entry of
    /// largest magnitude is positive.
    pub fn linalg_eigh(&self, upper: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype().is_int() || self.dtype() == crate::dtype::DType::Bool {
            bail!(NotImplemented, "\"linalg_eigh_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let batch = square_batch(self, "linalg.eigh")?;
        let n = batch.n;
        let (mut values, mut vectors) = (Vec::with_capacity(batch.count() * n), Vec::with_capacity(batch.values.len()));
        let mut symmetric = vec![0.0; n * n];
        for i in 0..batch.count() {
            let a = batch.matrix(i);
            for r in 0..n {
                for c in 0..n {
                    let (lo, hi) = (r.max(c), r.min(c));
                    symmetric[r * n + c] = if upper { a[hi * n + lo] } else { a[lo * n + hi] };
                }
            }
            let (w, v) = eigh(&symmetric, n);
            values.extend(w);
            vectors.extend(v);
        }
        let w = to_tensor(values, &self.shape()[..self.ndim() - 1], self.dtype())?;
        let v = to_tensor(vectors, self.shape(), self.dtype())?;
        let rule = LinalgEighBackward0 { upper, a: SavedTensor::input(self) };
        let mut out = record_outputs(vec![w, v], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

crate::backward_rule! {
    /// `linalg.eigh`: dA = V (diag(gw) + skew(Vᵀ gV) / (wⱼ - wᵢ)) Vᵀ, PyTorch's formula for real
    /// symmetric inputs. The factorization is redone from the saved input (its second output cannot
    /// be kept as a saved output), so a recorded backward differentiates through it.
    pub struct LinalgEighBackward0 {
        upper: bool,
        a: SavedTensor,
    }
}
impl Backward for LinalgEighBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (gw, gv) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        if gw.is_none() && gv.is_none() {
            return Ok(vec![None]);
        }
        let (w, v) = ctx.unpack(&self.a)?.linalg_eigh(self.upper)?;
        let n = w.shape()[w.ndim() - 1];
        let identity = eye(n, w.dtype())?;
        let mut inner = match &gv {
            Some(gv) => {
                let vt_gv = mt(&v)?.matmul(gv)?;
                let skew = vt_gv.sub(&mt(&vt_gv)?)?.mul(&Tensor::scalar(0.5))?;
                // wⱼ - wᵢ off the diagonal, 1 on it (where the skew part is zero)
                let gaps = w.unsqueeze(-2)?.sub(&w.unsqueeze(-1)?)?.add(&identity)?;
                Some(skew.div(&gaps)?)
            }
            None => None,
        };
        if let Some(gw) = &gw {
            let diag = gw.unsqueeze(-2)?.mul(&identity)?;
            inner = Some(match inner {
                Some(t) => t.add(&diag)?,
                None => diag,
            });
        }
        let inner = inner.expect("a gradient for one output at least");
        Ok(vec![Some(v.matmul(&inner)?.matmul(&mt(&v)?)?)])
    }
}
