//! `aminmax`: the smallest and the largest element of one reduction, found in one pass, as two outputs of
//! one node (AminmaxBackward0) whose gradient is amin's plus amax's.
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::kernels::reduce::fold;
use crate::layout::wrap_dim;
use crate::ops::extreme::better;
use crate::ops::formula::{signed, unsqueeze_dims};
use crate::ops::reduce::reduced_shape;
use crate::tensor::Tensor;

/// The (min, max) of each group over `dims` (NaN wins both and stays).
fn min_max_kernel<T: crate::element::Element>(x: &Tensor, dims: &[usize]) -> (Vec<T>, Vec<T>) {
    let acc = x.with_data(|l, v: &[T]| {
        fold(l, v, dims, None::<(T, T)>, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => {
                Some((if better(v, lo, false) { v } else { lo }, if better(v, hi, true) { v } else { hi }))
            }
        })
    });
    acc.into_iter().map(Option::unwrap_or_default).unzip()
}

/// The dims `dim` reduces: it alone (none of a 0-d tensor), or every dim.
fn reduced_dims(dim: Option<isize>, ndim: usize) -> Result<Vec<usize>> {
    Ok(match dim {
        Some(d) => {
            let d = wrap_dim(d, ndim)?;
            if ndim == 0 {
                vec![]
            } else {
                vec![d]
            }
        }
        None => (0..ndim).collect(),
    })
}

impl Tensor {
    /// (min, max) over `dim` (None: every element, the results 0-d unless `keepdim`).
    pub fn aminmax(&self, dim: Option<isize>, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let dims = reduced_dims(dim, self.ndim())?;
        if self.numel() == 0 {
            if dim.is_none() {
                bail!(
                    Runtime,
                    "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
                );
            }
            if let Some(d) = dims.iter().find(|&&d| self.shape()[d] == 0) {
                bail!(Index, "aminmax: Expected reduction dim {d} to have non-zero size.");
            }
        }
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let (min, max) = crate::with_dtype!(self.dtype(), T => {
            let (lo, hi) = min_max_kernel::<T>(self, &dims);
            (Tensor::from_vec(lo, &shape)?, Tensor::from_vec(hi, &shape)?)
        });
        let rule = AminmaxBackward0 {
            dim,
            keepdim,
            self_: SavedTensor::input(self),
            min: SavedTensor::output(&min),
            max: SavedTensor::output_at(&max, 1),
        };
        let mut out = record_outputs(vec![min, max], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

crate::backward_rule! {
    /// `aminmax`: each output's gradient shared evenly among the elements equal to it (`==`, as amin's and
    /// amax's: a NaN extreme has none, so its gradient is NaN).
    pub struct AminmaxBackward0 {
        dim: Option<isize>,
        keepdim: bool,
        self_: SavedTensor,
        min: SavedTensor,
        max: SavedTensor,
    }
}
impl Backward for AminmaxBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let a = ctx.unpack(&self.self_)?;
        let dims = reduced_dims(self.dim, a.ndim())?;
        let mut total: Option<Tensor> = None;
        for (g, saved) in grads.iter().zip([&self.min, &self.max]) {
            let Some(g) = g else { continue };
            let extreme = unsqueeze_dims(&ctx.unpack(saved)?, &dims, self.keepdim)?;
            let mask = a.eq(&extreme)?;
            let count = mask.sum(Some(&signed(&dims)), true)?;
            let part = unsqueeze_dims(g, &dims, self.keepdim)?.mul(&mask)?.div(&count)?;
            total = Some(match total {
                Some(t) => t.add(&part)?,
                None => part,
            });
        }
        Ok(vec![total])
    }
}
