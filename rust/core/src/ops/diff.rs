//! `diff(n, dim, prepend, append)`, composed as ATen's `diff` is: `prepend`/`append` concatenated along
//! `dim`, then `n` times the difference of two `narrow`s (`logical_xor` for bool), so the gradient flows
//! through `SubBackward0`.
use crate::bail;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use crate::DType;

impl Tensor {
    pub fn diff(&self, n: i64, dim: isize, prepend: Option<&Tensor>, append: Option<&Tensor>) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Runtime, "diff expects input to be at least one-dimensional");
        }
        if n < 0 {
            bail!(Runtime, "order must be non-negative but got {n}");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let mut parts = Vec::with_capacity(3);
        for (i, extra) in [prepend, Some(self), append].into_iter().enumerate() {
            let Some(t) = extra else { continue };
            if i == 1 {
                parts.push(t.clone());
                continue;
            }
            parts.push(self.diff_operand(t, d)?);
        }
        if n == 0 {
            let copy = Tensor::zeros(self.shape(), self.dtype());
            return copy.copy_inplace(self);
        }
        let mut result = if parts.len() == 1 { parts.remove(0) } else { Tensor::cat(&parts, d as isize)? };
        let mut len = result.shape()[d];
        for _ in 0..n.min(len as i64) {
            let out_len = len.saturating_sub(1) as isize;
            let (hi, lo) = (result.narrow(d as isize, 1, out_len)?, result.narrow(d as isize, 0, out_len)?);
            result = if result.dtype() == DType::Bool { hi.logical_xor(&lo)? } else { hi.sub(&lo)? };
            len = len.saturating_sub(1);
        }
        Ok(result)
    }

    /// A `prepend`/`append` operand, checked to match the input but along `dim`.
    fn diff_operand(&self, t: &Tensor, d: usize) -> Result<Tensor> {
        if t.ndim() != self.ndim() {
            bail!(Runtime, "diff expects prepend or append to be the same dimension as input");
        }
        for i in (0..self.ndim()).filter(|&i| i != d) {
            if t.shape()[i] != self.shape()[i] {
                bail!(
                    Runtime,
                    "diff expects the shape of tensor to prepend or append to match that of input except along \
                    the differencing dimension; input.size({i}) = {}, but got tensor.size({i}) = {}",
                    self.shape()[i],
                    t.shape()[i]
                );
            }
        }
        Ok(t.clone())
    }
}
