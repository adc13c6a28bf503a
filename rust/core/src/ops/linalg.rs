//! Small linear-algebra ops over the matrix products: outer, trace, baddbmm.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
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
        let shape = self.shape().to_vec();
        Ok(record(out, &[self], move || BackwardOp::Trace { shape }, |_| vec![]))
    }

    /// `baddbmm(self, batch1, batch2, beta, alpha)` = beta·self + alpha·(batch1 @ batch2), with
    /// `self` broadcast to the product's shape (and ignored when beta is 0, NaNs included).
    pub fn baddbmm(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        if batch1.dtype() != self.dtype() || batch2.dtype() != self.dtype() {
            let name = |d: DType| match d {
                DType::Bool => "bool",
                DType::U8 => "unsigned char",
                DType::I8 => "signed char",
                DType::I16 => "short int",
                DType::I32 => "int",
                DType::I64 => "long int",
                DType::F16 => "c10::Half",
                DType::BF16 => "c10::BFloat16",
                DType::F32 => "float",
                DType::F64 => "double",
            };
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
        let op = move || BackwardOp::Baddbmm { beta, alpha };
        Ok(record(out, &[self, batch1, batch2], op, |_| vec![SavedTensor::input(batch1), SavedTensor::input(batch2)]))
    }
}
