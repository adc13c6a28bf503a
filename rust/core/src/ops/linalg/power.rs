//! `linalg.matrix_power`: A^n by repeated squaring, composed of `matmul` and `linalg.inv` as
//! PyTorch composes it (so the result's `grad_fn` is theirs: MmBackward0, LinalgInvExBackward0...).
use super::batch::eye;
use crate::autograd::record;
use crate::bail;
use crate::error::Result;
use crate::ops::copy::CloneBackward0;
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.matrix_power(A, n)`: the identity (a copy of A overwritten, so it stays in the graph)
    /// for n = 0, a copy of A for 1, the inverse's powers for negative n.
    pub fn matrix_power(&self, n: i64) -> Result<Tensor> {
        let nd = self.ndim();
        if nd < 2 {
            bail!(Runtime, "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
        }
        let (rows, cols) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        if rows != cols {
            bail!(
                Runtime,
                "linalg.matrix_power: A must be batches of square matrices, but they are {rows} by {cols} matrices"
            );
        }
        match n {
            0 => {
                let copy = record(self.contiguous_copy()?, &[self], |_| CloneBackward0);
                let identity = eye(rows, crate::dtype::DType::F64)?.to_dtype(self.dtype())?;
                copy.copy_inplace(&identity)
            }
            1 => Ok(record(self.contiguous_copy()?, &[self], |_| CloneBackward0)),
            -1 => self.linalg_inv(),
            _ => {
                let base = if n < 0 { self.linalg_inv()? } else { self.clone() };
                let mut n = n.unsigned_abs();
                match n {
                    2 => return base.matmul(&base),
                    3 => return base.matmul(&base)?.matmul(&base),
                    _ => {}
                }
                // binary powering from the least significant bit, PyTorch's order of products
                let (mut square, mut result): (Option<Tensor>, Option<Tensor>) = (None, None);
                while n > 0 {
                    let bit = n % 2;
                    n /= 2;
                    let z = match &square {
                        Some(z) => z.matmul(z)?,
                        None => base.clone(),
                    };
                    if bit == 1 {
                        result = Some(match &result {
                            Some(r) => r.matmul(&z)?,
                            None => z.clone(),
                        });
                    }
                    square = Some(z);
                }
                Ok(result.expect("n > 0 sets a bit"))
            }
        }
    }
}
