//! `var_mean` and `std_mean`: the spread and the mean of one reduction as two outputs of one node
//! (VarMeanBackward0 / StdMeanBackward0), whose gradient is the sum of var's (std's) and mean's.
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::ops::formula::unsqueeze_dims;
use crate::ops::reduce::{reduction_dims, Spread};
use crate::tensor::Tensor;

impl Tensor {
    /// (var, mean) (`std` = false) or (std, mean) over `dims` (None: all), with `correction` (1: unbiased).
    pub fn var_std_mean(
        &self,
        dims: Option<&[isize]>,
        correction: f64,
        keepdim: bool,
        std: bool,
    ) -> Result<(Tensor, Tensor)> {
        if !self.dtype().is_float() {
            let name = if std { "std_mean" } else { "var_mean" };
            bail!(NotImplemented, "{name} only support floating point and complex dtypes");
        }
        let x = self.detach();
        let spread = x.var_std(dims, correction, keepdim, std)?;
        let mean = x.mean(dims, keepdim)?;
        let rule = VarStdMeanBackward {
            correction,
            dim: reduction_dims(dims, self.ndim())?,
            all_dims: dims.is_none() || self.ndim() == 0,
            keepdim,
            self_: SavedTensor::input(self),
            result0: std.then(|| SavedTensor::output(&spread)),
        };
        let mut out = record_outputs(vec![spread, mean], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.result0.is_some()) {
        true => "StdMeanBackward0",
        false => "VarMeanBackward0",
    };
    /// `var_mean` (VarMeanBackward0) or `std_mean` (StdMeanBackward0, which keeps the std as `result0`).
    pub struct VarStdMeanBackward {
        correction: f64,
        dim: Vec<usize>,
        all_dims: bool,
        keepdim: bool,
        self_: SavedTensor,
        result0: Option<SavedTensor>,
    }
}
impl Backward for VarStdMeanBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let a = ctx.unpack(&self.self_)?;
        let spread =
            Spread { dim: &self.dim, all_dims: self.all_dims, correction: self.correction, keepdim: self.keepdim };
        let mut total: Option<Tensor> = None;
        if let Some(Some(g)) = grads.first() {
            let std = ctx.unpack_opt(&self.result0)?;
            total = Some(spread.grad(g, &a, std.as_ref())?);
        }
        if let Some(Some(g)) = grads.get(1) {
            let n = self.dim.iter().map(|&d| a.shape()[d]).product::<usize>() as f64;
            let g_mean = unsqueeze_dims(g, &self.dim, self.keepdim)?.expand(a.shape())?.div(&Tensor::scalar(n))?;
            total = Some(match total {
                Some(t) => t.add(&g_mean)?,
                None => g_mean,
            });
        }
        Ok(vec![total])
    }
}
