//! `torch.geqrf`: LAPACK's compact Householder QR (R and the reflectors in `a`, their scales in `tau`),
//! straight from `householder.rs`'s `geqr2`; PyTorch has no derivative for it.
use super::batch::to_tensor;
use super::householder::householder_qr;
use crate::autograd::{record_outputs, Backward, Ctx, Grads};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// `geqrf(input)`: (a, tau) as LAPACK's `geqrf` gives them.
    pub fn geqrf(&self) -> Result<(Tensor, Tensor)> {
        if self.ndim() < 2 {
            bail!(Runtime, "torch.geqrf: input must have at least 2 dimensions.");
        }
        if !matches!(self.dtype(), DType::F32 | DType::F64) {
            bail!(NotImplemented, "\"geqrf_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let (m, n) = (self.shape()[self.ndim() - 2], self.shape()[self.ndim() - 1]);
        let batch = &self.shape()[..self.ndim() - 2];
        let values = self.to_vec::<f64>();
        let count: usize = batch.iter().product();
        let (mut a, mut tau) = (Vec::with_capacity(values.len()), Vec::with_capacity(count * m.min(n)));
        for b in 0..count {
            let f = householder_qr(&values[b * m * n..(b + 1) * m * n], m, n);
            a.extend(f.a);
            tau.extend(f.tau);
        }
        let a = to_tensor(a, self.shape(), self.dtype())?;
        let tau = to_tensor(tau, &[batch, &[m.min(n)]].concat(), self.dtype())?;
        let mut out = record_outputs(vec![a, tau], &[self], GeqrfBackward0).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

crate::backward_rule! {
    /// `geqrf`: not differentiable in PyTorch either.
    pub struct GeqrfBackward0;
}
impl Backward for GeqrfBackward0 {
    fn apply(&self, _ctx: &Ctx<'_>, _g: &Tensor) -> Result<Grads> {
        bail!(NotImplemented, "the derivative for 'geqrf' is not implemented.")
    }
}
