//! Products composed of views and `mm`/`mul` as ATen composes them (`tensordot`, `inner`, `kron`), so the
//! gradient flows through the nodes torch records, and `vdot` (one node, VdotBackward0).
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;

impl Tensor {
    /// `tensordot(self, other, dims=(dims_a, dims_b))`: sums the products over each pair of dims; a dim of
    /// size 1 facing a larger one is summed first. The result has the free dims of `self`, then `other`'s.
    pub fn tensordot(&self, other: &Tensor, dims_a: &[isize], dims_b: &[isize]) -> Result<Tensor> {
        if dims_a.len() != dims_b.len() {
            bail!(Runtime, "both dimension lists should have same length");
        }
        if self.dtype() != other.dtype() {
            bail!(Runtime, "both inputs should have same dtype");
        }
        let da = dims_a.iter().map(|&d| wrap_dim(d, self.ndim())).collect::<Result<Vec<_>>>()?;
        let db = dims_b.iter().map(|&d| wrap_dim(d, other.ndim())).collect::<Result<Vec<_>>>()?;
        let (mut a, mut b) = (self.clone(), other.clone());
        let mut contracted = 1usize;
        for (&i, &j) in da.iter().zip(&db) {
            let (sa, sb) = (self.shape()[i], other.shape()[j]);
            if sb == 1 {
                a = a.sum(Some(&[i as isize]), true)?;
            } else if sa == 1 {
                b = b.sum(Some(&[j as isize]), true)?;
            } else if sa != sb {
                bail!(
                    Runtime,
                    "contracted dimensions need to match, but first has size {sa} in dim {i} and second has size \
                    {sb} in dim {j}"
                );
            } else {
                contracted *= sa;
            }
        }
        let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !da.contains(i)).collect();
        let free_b: Vec<usize> = (0..b.ndim()).filter(|j| !db.contains(j)).collect();
        let mut sizes: Vec<usize> = free_a.iter().map(|&i| a.shape()[i]).collect();
        sizes.extend(free_b.iter().map(|&j| b.shape()[j]));
        let rows: usize = free_a.iter().map(|&i| a.shape()[i]).product();
        let cols: usize = free_b.iter().map(|&j| b.shape()[j]).product();
        let perm_a: Vec<isize> = free_a.iter().chain(&da).map(|&d| d as isize).collect();
        let perm_b: Vec<isize> = db.iter().chain(&free_b).map(|&d| d as isize).collect();
        let left = a.permute(&perm_a)?.reshape(&[rows, contracted])?;
        let right = b.permute(&perm_b)?.reshape(&[contracted, cols])?;
        left.mm(&right)?.reshape(&sizes)
    }

    /// `inner(self, other)`: sums over the last dims (a 0-d operand multiplies).
    pub fn inner(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.mul(other);
        }
        if self.shape()[self.ndim() - 1] != other.shape()[other.ndim() - 1] {
            bail!(
                Runtime,
                "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            );
        }
        self.tensordot(other, &[-1], &[-1])
    }

    /// `kron(self, other)`: the Kronecker product, as `self` and `other` viewed with interleaved size-1
    /// dims, multiplied, and viewed back (UnsafeViewBackward0 over MulBackward0).
    pub fn kron(&self, other: &Tensor) -> Result<Tensor> {
        let dims = self.ndim().max(other.ndim());
        let (pad_a, pad_b) = (dims - self.ndim(), dims - other.ndim());
        let (mut shape_a, mut shape_b, mut shape) = (vec![1; 2 * dims], vec![1; 2 * dims], vec![1; dims]);
        for i in 0..dims {
            shape_a[2 * i] = if i >= pad_a { self.shape()[i - pad_a] } else { 1 };
            shape_b[2 * i + 1] = if i >= pad_b { other.shape()[i - pad_b] } else { 1 };
            shape[i] = shape_a[2 * i] * shape_b[2 * i + 1];
        }
        let a = self.unsafe_view(&shape_a)?;
        let b = other.unsafe_view(&shape_b)?;
        a.mul(&b)?.unsafe_view(&shape)
    }

    /// `vdot(self, other)`: the dot product of two 1-d tensors (real: `dot`), recorded as VdotBackward0.
    pub fn vdot(&self, other: &Tensor) -> Result<Tensor> {
        if self.dtype() != other.dtype() {
            bail!(
                Runtime,
                "dot : expected both vectors to have same dtype, but found {} and {}",
                self.dtype().scalar_type_name(),
                other.dtype().scalar_type_name()
            );
        }
        let out = self.detach().dot(&other.detach())?;
        let rule = |_: &Tensor| VdotBackward0 { self_: SavedTensor::input(self), other: SavedTensor::input(other) };
        Ok(record(out, &[self, other], rule))
    }
}

crate::backward_rule! {
    /// `vdot(self, other)`: each gradient is the other vector times the incoming one (real dtypes).
    pub struct VdotBackward0 {
        self_: SavedTensor,
        other: SavedTensor,
    }
}
impl Backward for VdotBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.other)?);
        Ok(vec![ctx.grad_if(0, || g.mul(&b))?, ctx.grad_if(1, || g.mul(&a))?])
    }
}
