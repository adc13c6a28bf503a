//! The fused products `beta·input + alpha·(product)`: addbmm (the sum of a batch of matrix products),
//! addmv (matrix @ vector) and addr (outer product). `input` is broadcast to the product's shape and
//! ignored when beta is 0 (its NaNs included), as torch's.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ops::formula::c;
use crate::tensor::Tensor;

/// A scale as an operand that keeps the product's dtype: an integer for integer tensors (torch truncates
/// a fractional scale there), else a float.
fn scale(v: f64, dtype: DType) -> Tensor {
    if dtype.is_float() {
        Tensor::scalar(v)
    } else {
        Tensor::wrapped_scalar(Scalar::Int(v as i64))
    }
}

/// `beta·input + alpha·product` over detached tensors, `input` broadcast to the product's shape.
pub(crate) fn scale_add(input: &Tensor, product: Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
    let dtype = product.dtype();
    let scaled = if alpha == 1.0 { product } else { product.mul(&scale(alpha, dtype))? };
    if beta == 0.0 {
        return scaled.contiguous();
    }
    let bias = input.detach().expand(scaled.shape())?;
    let bias = if beta == 1.0 { bias } else { bias.mul(&scale(beta, dtype))? };
    bias.add(&scaled)
}

/// A factor kept for the other factor's gradient (saved whenever that input required grad).
fn saved(ctx: &Ctx<'_>, factor: &Option<SavedTensor>) -> Result<Tensor> {
    ctx.unpack_opt(factor)?.ok_or_else(|| crate::Error::Runtime("a product's factor was not saved".into()))
}

impl Tensor {
    /// `addbmm(batch1, batch2, beta, alpha)`: beta·self + alpha·Σ_b batch1[b] @ batch2[b].
    pub fn addbmm(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        // torch broadcasts self to (batch1.size(1), batch2.size(2)) before checking the batches
        if let (Some(&n), Some(&p)) = (batch1.shape().get(1), batch2.shape().get(2)) {
            self.expand(&[n, p])?;
        }
        for (t, name) in [(batch1, "batch1"), (batch2, "batch2")] {
            if t.ndim() != 3 {
                bail!(Runtime, "{name} must be a 3D tensor");
            }
        }
        let (b1, b2) = (batch1.shape(), batch2.shape());
        if b1[0] != b2[0] {
            bail!(Runtime, "batch1 and batch2 must have same number of batches, got {} and {}", b1[0], b2[0]);
        }
        if b1[2] != b2[1] {
            bail!(Runtime, "Incompatible matrix sizes for bmm ({}x{} and {}x{})", b1[1], b1[2], b2[1], b2[2]);
        }
        if batch1.dtype() != batch2.dtype() {
            bail!(
                Runtime,
                "mat1 and mat2 must have the same dtype, but got {} and {}",
                batch1.dtype().scalar_type_name(),
                batch2.dtype().scalar_type_name()
            );
        }
        if self.dtype() != batch2.dtype() {
            bail!(
                Runtime,
                "self and mat2 must have the same dtype, but got {} and {}",
                self.dtype().scalar_type_name(),
                batch2.dtype().scalar_type_name()
            );
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
        }
        let (batches, n, m, p) = (b1[0], b1[1], b1[2], b2[2]);
        // the batch as one product: [n, batches·m] @ [batches·m, p]
        let left = batch1.detach().permute(&[1, 0, 2])?.reshape(&[n, batches * m])?;
        let right = batch2.detach().reshape(&[batches * m, p])?;
        let out = scale_add(self, left.mm(&right)?.detach(), beta, alpha)?;
        let rule = |_: &Tensor| AddbmmBackward0 {
            alpha,
            batch1: batch2.requires_grad().then(|| SavedTensor::input(batch1)),
            batch1_sym_argsize_0: batches,
            batch1_sym_argsize_1: n,
            batch2: batch1.requires_grad().then(|| SavedTensor::input(batch2)),
            batch2_sym_argsize_2: p,
            beta,
        };
        Ok(record(out, &[self, batch1, batch2], rule))
    }

    /// `addmv(mat, vec, beta, alpha)`: beta·self + alpha·(mat @ vec), self 0-d or 1-d.
    pub fn addmv(&self, mat: &Tensor, vec: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        if mat.ndim() != 2 || vec.ndim() != 1 || self.ndim() > 1 {
            bail!(Runtime, "vector + matrix @ vector expected, got {}, {}, {}", self.ndim(), mat.ndim(), vec.ndim());
        }
        let (rows, cols) = (mat.shape()[0], mat.shape()[1]);
        if cols != vec.shape()[0] || (self.numel() != rows && self.numel() != 1) {
            let size = self.shape().first().copied().unwrap_or(1);
            bail!(Runtime, "size mismatch, got input ({size}), mat ({rows}x{cols}), vec ({})", vec.shape()[0]);
        }
        if mat.dtype() != self.dtype() || vec.dtype() != self.dtype() {
            bail!(
                Runtime,
                "addmv input tensors must have the same dtype, but got {}, {}, and {}",
                self.dtype().scalar_type_name(),
                mat.dtype().scalar_type_name(),
                vec.dtype().scalar_type_name()
            );
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"addmv_impl_cpu\" not implemented for 'Bool'");
        }
        let out = scale_add(self, mat.detach().mv(&vec.detach())?, beta, alpha)?;
        let rule = |_: &Tensor| AddmvBackward0 {
            alpha,
            beta,
            mat: vec.requires_grad().then(|| SavedTensor::input(mat)),
            vec: mat.requires_grad().then(|| SavedTensor::input(vec)),
        };
        Ok(record(out, &[self, mat, vec], rule))
    }

    /// `addr(vec1, vec2, beta, alpha)`: beta·self + alpha·outer(vec1, vec2), in the three's promoted
    /// dtype (for bools, `beta and self or alpha and the outer product`).
    pub fn addr(&self, vec1: &Tensor, vec2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        for (t, name) in [(vec1, "vec1"), (vec2, "vec2")] {
            if t.ndim() != 1 {
                bail!(Runtime, "addr: Expected 1-D argument {name}, but got {}-D", t.ndim());
            }
        }
        let dtype = crate::dtype::promote_types(crate::dtype::promote_types(self.dtype(), vec1.dtype()), vec2.dtype());
        if !dtype.is_float() && dtype != DType::Bool {
            for (v, name) in [(beta, "beta"), (alpha, "alpha")] {
                if v.fract() != 0.0 {
                    bail!(Runtime, "For integral input tensors, argument {name} must not be a floating point number.");
                }
            }
        }
        let (x, a, b) =
            (self.detach().to_dtype(dtype)?, vec1.detach().to_dtype(dtype)?, vec2.detach().to_dtype(dtype)?);
        let outer = a.unsqueeze(1)?.mul(&b)?;
        let out = if dtype == DType::Bool {
            let product = if alpha != 0.0 { outer } else { Tensor::zeros(outer.shape(), DType::Bool) };
            if beta == 0.0 {
                product
            } else {
                product.logical_or(&x.expand(product.shape())?)?
            }
        } else {
            scale_add(&x, outer, beta, alpha)?
        };
        let rule = |_: &Tensor| AddrBackward0 {
            alpha,
            beta,
            vec1: vec2.requires_grad().then(|| SavedTensor::input(vec1)),
            vec2: vec1.requires_grad().then(|| SavedTensor::input(vec2)),
        };
        Ok(record(out, &[self, vec1, vec2], rule))
    }
}

crate::backward_rule! {
    /// `addbmm(input, batch1, batch2, beta, alpha)`: the gradient spread over the batch.
    pub struct AddbmmBackward0 {
        alpha: f64,
        batch1: Option<SavedTensor>,
        batch1_sym_argsize_0: usize,
        batch1_sym_argsize_1: usize,
        batch2: Option<SavedTensor>,
        batch2_sym_argsize_2: usize,
        beta: f64,
    }
}
impl Backward for AddbmmBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let spread = || {
            g.unsqueeze(0)?.expand(&[self.batch1_sym_argsize_0, self.batch1_sym_argsize_1, self.batch2_sym_argsize_2])
        };
        Ok(vec![
            ctx.grad_if(0, || g.mul(&c(self.beta)))?,
            ctx.grad_if(1, || spread()?.bmm(&saved(ctx, &self.batch2)?.transpose(1, 2)?)?.mul(&c(self.alpha)))?,
            ctx.grad_if(2, || saved(ctx, &self.batch1)?.transpose(1, 2)?.bmm(&spread()?)?.mul(&c(self.alpha)))?,
        ])
    }
}

crate::backward_rule! {
    /// `addmv(input, mat, vec, beta, alpha)`.
    pub struct AddmvBackward0 {
        alpha: f64,
        beta: f64,
        mat: Option<SavedTensor>,
        vec: Option<SavedTensor>,
    }
}
impl Backward for AddmvBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![
            ctx.grad_if(0, || g.mul(&c(self.beta)))?,
            ctx.grad_if(1, || g.unsqueeze(1)?.mul(&saved(ctx, &self.vec)?)?.mul(&c(self.alpha)))?,
            ctx.grad_if(2, || saved(ctx, &self.mat)?.t()?.mv(g)?.mul(&c(self.alpha)))?,
        ])
    }
}

crate::backward_rule! {
    /// `addr(input, vec1, vec2, beta, alpha)`.
    pub struct AddrBackward0 {
        alpha: f64,
        beta: f64,
        vec1: Option<SavedTensor>,
        vec2: Option<SavedTensor>,
    }
}
impl Backward for AddrBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![
            ctx.grad_if(0, || g.mul(&c(self.beta)))?,
            ctx.grad_if(1, || g.mv(&saved(ctx, &self.vec2)?)?.mul(&c(self.alpha)))?,
            ctx.grad_if(2, || g.t()?.mv(&saved(ctx, &self.vec1)?)?.mul(&c(self.alpha)))?,
        ])
    }
}
