//! Elementwise unary ops.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::dtype::DType;
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::elementwise::map1;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

/// Applies a float function; integer inputs compute in float32, as in PyTorch.
fn float_map(x: &Tensor, f32_fn: fn(f32) -> f32, f64_fn: fn(f64) -> f64) -> Result<Tensor> {
    match x.dtype().to_float() {
        DType::F64 => x.with_data(|l, v: &[f64]| Tensor::from_vec(map1(l, v, f64_fn), x.shape())),
        _ => x.with_data(|l, v: &[f32]| Tensor::from_vec(map1(l, v, f32_fn), x.shape())),
    }
}

impl Tensor {
    pub fn neg(&self) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            bail!(Runtime, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        }
        let out = with_dtype!(self.dtype(), T => self.with_data(|l, v: &[T]| Tensor::from_vec(map1(l, v, T::neg), self.shape()))?);
        Ok(record(out, &[self], || BackwardOp::Neg, |_| vec![]))
    }

    pub fn exp(&self) -> Result<Tensor> {
        let out = float_map(self, <f32 as Float>::exp, <f64 as Float>::exp)?;
        Ok(record(out, &[self], || BackwardOp::Exp, |out| vec![SavedTensor::output(out)]))
    }

    pub fn log(&self) -> Result<Tensor> {
        let out = float_map(self, <f32 as Float>::ln, <f64 as Float>::ln)?;
        Ok(record(out, &[self], || BackwardOp::Log, |_| vec![SavedTensor::input(self)]))
    }

    /// A copy in another dtype; differentiable between float dtypes.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let out = with_dtype!(dtype, T => Tensor::from_vec(self.to_vec::<T>(), self.shape())?);
        if !dtype.is_float() {
            return Ok(out);
        }
        let from = self.dtype();
        Ok(record(out, &[self], || BackwardOp::ToCopy { dtype: from }, |_| vec![]))
    }
}
