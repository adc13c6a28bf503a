//! Tensors built around a diagonal: `diag_embed` (each last-dim vector laid on a diagonal of a new pair of
//! dims) and `diagflat`; their gradient reads the diagonal back (`diagonal`, a view, as torch's).
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::error::Result;
use crate::layout::{wrap_dim, Layout};
use crate::ops::index::positions;
use crate::tensor::Tensor;

impl Tensor {
    /// A tensor with one more dim: dims `dim1` and `dim2` of the result (each of size n + |offset|, n this
    /// tensor's last dim) hold each last-dim vector on their diagonal `offset`, zeros elsewhere; the other
    /// dims are this tensor's leading ones, in order.
    pub fn diag_embed(&self, offset: isize, dim1: isize, dim2: isize) -> Result<Tensor> {
        let out_ndim = self.ndim() + 1;
        let (d1, d2) = (wrap_dim(dim1, out_ndim)?, wrap_dim(dim2, out_ndim)?);
        if d1 == d2 {
            bail!(Runtime, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        // a 0-d tensor has already failed wrap_dim: the result would be 1-d
        let n = self.shape()[self.ndim() - 1];
        let side = n + offset.unsigned_abs();
        let mut leading = self.shape().iter().take(self.ndim().saturating_sub(1)).copied();
        let shape: Vec<usize> = (0..out_ndim)
            .map(|d| if d == d1 || d == d2 { side } else { leading.next().expect("one leading dim each") })
            .collect();
        let geom = Layout::contiguous(self.shape());
        let last = geom.ndim() - 1;
        let pos = positions(&shape, &geom, |i, s| {
            let (row, col) = (i[d1] as isize, i[d2] as isize);
            if col - row != offset {
                return false;
            }
            let mut k = 0;
            for (d, &v) in i.iter().enumerate() {
                if d != d1 && d != d2 {
                    s[k] = v;
                    k += 1;
                }
            }
            s[last] = row.min(col) as usize;
            true
        });
        let out = self.detach().contiguous()?.take_values(&pos, &shape)?;
        Ok(record(out, &[self], |_| DiagEmbedBackward0 { dim1: d1, dim2: d2, offset }))
    }

    /// `diagflat(offset)`: every element, flattened, on diagonal `offset` of a square matrix.
    pub fn diagflat(&self, offset: isize) -> Result<Tensor> {
        self.contiguous()?.view(&[-1])?.diag_embed(offset, 0, 1)
    }
}

crate::backward_rule! {
    /// `diag_embed(offset, dim1, dim2)`: the gradient's diagonal `offset` of `dim1` and `dim2`.
    pub struct DiagEmbedBackward0 {
        dim1: usize,
        dim2: usize,
        offset: isize,
    }
}
impl Backward for DiagEmbedBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.diagonal(self.offset, self.dim1 as isize, self.dim2 as isize))
    }
}
