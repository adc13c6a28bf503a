//! Reductions that skip NaN (`nansum`, `nanmean`) and `count_nonzero`.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::formula::{c, unsqueeze_dims};
use crate::ops::reduce::reduction_dims;
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;

impl Tensor {
    /// The sum over `dims` (None: all) with NaNs counted as zeros (NansumBackward0); ints sum to int64.
    pub fn nansum(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let out = self.nan_zeroed()?.sum(dims, keepdim)?;
        Ok(record(out, &[self], |_| NansumBackward0 {
            dim: reduction_dims(dims, self.ndim()).unwrap_or_default(),
            keepdim,
            self_: SavedTensor::input(self),
        }))
    }

    /// The mean over `dims` of the elements that are not NaN: nansum / their count, as torch composes it
    /// (so its grad_fn is DivBackward0); NaN where all are NaN.
    pub fn nanmean(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "nanmean(): expected input to have floating point or complex dtype but got {}",
                self.dtype().scalar_type_name()
            );
        }
        let count = self.detach().float_class(FloatClass::Nan)?.logical_not()?.sum(dims, keepdim)?;
        self.nansum(dims, keepdim)?.div(&count)
    }

    /// How many elements over `dims` (None: all) are not zero (NaN counts), as int64.
    pub fn count_nonzero(&self, dims: Option<&[isize]>) -> Result<Tensor> {
        self.detach().ne(&Tensor::wrapped_scalar(Scalar::Int(0)))?.sum(dims, false)
    }

    /// This tensor without history, its NaNs replaced by zeros (integers as they are).
    fn nan_zeroed(&self) -> Result<Tensor> {
        let x = self.detach();
        if !x.dtype().is_float() {
            return Ok(x);
        }
        Tensor::where_(&x.float_class(FloatClass::Nan)?, &c(0.0), &x)
    }
}

crate::backward_rule! {
    /// `nansum(dim, keepdim)`: the gradient where the input is not NaN, zero where it is.
    pub struct NansumBackward0 {
        dim: Vec<usize>,
        keepdim: bool,
        self_: SavedTensor,
    }
}
impl Backward for NansumBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let a = ctx.unpack(&self.self_)?;
        let g = unsqueeze_dims(g, &self.dim, self.keepdim)?.expand(a.shape())?;
        one(Tensor::where_(&a.float_class(FloatClass::Nan)?, &c(0.0), &g))
    }
}
