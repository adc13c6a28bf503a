//! `linalg.cross`: the cross product of 3-vectors along one dimension, batch dimensions broadcast.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::wrap_sized_dim;
use crate::tensor::Tensor;

/// A cross product is defined for 3-vectors only.
const VECTOR_LEN: usize = 3;

impl Tensor {
    /// `linalg.cross(self, other, dim=dim)`: both inputs need the same number of dimensions and
    /// length 3 along `dim` (checked before broadcasting, as PyTorch does), and one dtype.
    pub fn linalg_cross(&self, other: &Tensor, dim: isize) -> Result<Tensor> {
        if self.ndim() != other.ndim() {
            bail!(Runtime, "linalg.cross: inputs must have the same number of dimensions.");
        }
        let d = wrap_sized_dim(dim, self.ndim())?;
        let (la, lb) = (self.shape()[d], other.shape()[d]);
        if la != VECTOR_LEN || lb != VECTOR_LEN {
            bail!(Runtime, "linalg.cross: inputs dimension {dim} must have length 3. Got {la} and {lb}");
        }
        if self.dtype() != other.dtype() {
            bail!(
                Runtime,
                "expected scalar type {} but found {}",
                self.dtype().scalar_type_name(),
                other.dtype().scalar_type_name()
            );
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"cross\" not implemented for 'Bool'");
        }
        let out = cross_product(&self.detach(), &other.detach(), d as isize)?;
        Ok(record(out, &[self, other], |_| LinalgCrossBackward0 {
            dim,
            self_: SavedTensor::input(self),
            other: SavedTensor::input(other),
        }))
    }

    /// `torch.cross(self, other, dim)`: without `dim`, the first dimension of `self` of length 3
    /// (PyTorch's deprecated default; the binding warns about it).
    pub fn cross(&self, other: &Tensor, dim: Option<isize>) -> Result<Tensor> {
        let dim = match dim {
            Some(d) => d,
            None => match self.shape().iter().position(|&s| s == VECTOR_LEN) {
                Some(d) => d as isize,
                None => bail!(Runtime, "no dimension of size 3 in input"),
            },
        };
        self.linalg_cross(other, dim)
    }
}

/// a × b along `dim` (both of length 3 there) with the elementwise ops, so it broadcasts and,
/// called on tensors with history, differentiates (the backward rule uses it that way).
fn cross_product(a: &Tensor, b: &Tensor, dim: isize) -> Result<Tensor> {
    let part = |t: &Tensor, i: isize| t.narrow(dim, i, 1);
    let (a0, a1, a2) = (part(a, 0)?, part(a, 1)?, part(a, 2)?);
    let (b0, b1, b2) = (part(b, 0)?, part(b, 1)?, part(b, 2)?);
    let x = a1.mul(&b2)?.sub(&a2.mul(&b1)?)?;
    let y = a2.mul(&b0)?.sub(&a0.mul(&b2)?)?;
    let z = a0.mul(&b1)?.sub(&a1.mul(&b0)?)?;
    Tensor::cat(&[x, y, z], dim)
}

crate::backward_rule! {
    /// `linalg.cross`: d self = other × g, d other = g × self (PyTorch's rule; the engine sums a
    /// broadcast gradient back to each input's shape).
    pub struct LinalgCrossBackward0 {
        dim: isize,
        self_: SavedTensor,
        other: SavedTensor,
    }
}
impl Backward for LinalgCrossBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let d = wrap_sized_dim(self.dim, g.ndim())? as isize;
        Ok(vec![
            ctx.grad_if(0, || cross_product(&ctx.unpack(&self.other)?, g, d))?,
            ctx.grad_if(1, || cross_product(g, &ctx.unpack(&self.self_)?, d))?,
        ])
    }
}
