//! Small linear-algebra ops over the matrix products: outer, trace, baddbmm.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::formula::c;
use crate::tensor::Tensor;

impl Tensor {
    /// `outer(self, vec2)`: `self[:, None] * vec2` (so its grad_fn is MulBackward0, as in PyTorch).
    pub fn outer(&self, vec2: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 {
            bail!(Runtime, "outer: Expected 1-D argument self, but got {}-D", self.ndim());
        }
        if vec2.ndim() != 1 {
            bail!(Runtime, "outer: Expected 1-D argument vec2, but got {}-D", vec2.ndim());
        }
        self.unsqueeze(1)?.mul(vec2)
    }

    /// The sum of a matrix's main diagonal; ints sum to int64.
    pub fn trace(&self) -> Result<Tensor> {
        if self.ndim() != 2 {
            bail!(Runtime, "trace: expected a matrix, but got tensor with dim {}", self.ndim());
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"trace\" not implemented for 'Bool'");
        }
        let diag = crate::ops::shape::diagonal_layout(self.layout(), 0, 0, 1);
        let out = self.detach().view_with(diag).sum(None, false)?;
        Ok(record(out, &[self], |_| TraceBackward0 { self_sym_sizes: self.shape().to_vec() }))
    }

    /// `baddbmm(self, batch1, batch2, beta, alpha)` = beta·self + alpha·(batch1 @ batch2), with
    /// `self` broadcast to the product's shape (and ignored when beta is 0, NaNs included).
    pub fn baddbmm(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].baddbmm_eager(x[1], x[2], beta, alpha);
        traced("baddbmm", NodeKind::Opaque, &[self, batch1, batch2], || eager(&[self, batch1, batch2]), || eager)
    }

    fn baddbmm_eager(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(self), Some(batch1), Some(batch2)], |[x, b1, b2]| {
            x.expect("given").baddbmm_uncast(b1.expect("given"), b2.expect("given"), beta, alpha)
        })
    }

    fn baddbmm_uncast(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        if batch1.dtype() != self.dtype() || batch2.dtype() != self.dtype() {
            let name = DType::cpp_name;
            bail!(
                Runtime,
                "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
                name(self.dtype()),
                name(batch1.dtype()),
                name(batch2.dtype())
            );
        }
        let prod = batch1.detach().bmm(&batch2.detach())?;
        let bias = self.detach().expand(prod.shape())?;
        // an integral factor keeps an int product int
        let factor = |v: f64| {
            if v.fract() == 0.0 {
                Tensor::wrapped_scalar(crate::dtype::Scalar::Int(v as i64))
            } else {
                Tensor::scalar(v)
            }
        };
        let scaled = if alpha == 1.0 { prod } else { prod.mul(&factor(alpha))? };
        let out = match beta {
            0.0 => scaled.contiguous()?,
            1.0 => bias.add(&scaled)?,
            _ => bias.mul(&factor(beta))?.add(&scaled)?,
        };
        let rule = |_: &Tensor| BaddbmmBackward0 {
            alpha,
            beta,
            batch1: SavedTensor::input(batch1),
            batch2: SavedTensor::input(batch2),
        };
        Ok(record(out, &[self, batch1, batch2], rule))
    }
}

crate::backward_rule! {
    /// `trace()`: the gradient on the main diagonal.
    pub struct TraceBackward0 {
        self_sym_sizes: Vec<usize>,
    }
}
impl Backward for TraceBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let shape = &self.self_sym_sizes;
        let geom = crate::ops::shape::diagonal_layout(&Layout::contiguous(shape), 0, 0, 1);
        one(Tensor::zeros(shape, g.dtype()).copy_slices(&geom, g))
    }
}

crate::backward_rule! {
    /// `baddbmm(self, batch1, batch2, beta, alpha)`.
    pub struct BaddbmmBackward0 {
        alpha: f64,
        beta: f64,
        batch1: SavedTensor,
        batch2: SavedTensor,
    }
}
impl Backward for BaddbmmBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (b1, b2) = (ctx.unpack(&self.batch1)?, ctx.unpack(&self.batch2)?);
        Ok(vec![
            ctx.grad_if(0, || g.mul(&c(self.beta)))?,
            ctx.grad_if(1, || g.bmm(&b2.transpose(1, 2)?)?.mul(&c(self.alpha)))?,
            ctx.grad_if(2, || b1.transpose(1, 2)?.bmm(g)?.mul(&c(self.alpha)))?,
        ])
    }
}
