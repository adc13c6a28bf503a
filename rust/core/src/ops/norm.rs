//! `linalg.vector_norm` (what `Tensor.norm` computes for vectors): any order p over any dims.
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::error::Result;
use crate::kernels::reduce::fold;
use crate::ops::formula::unsqueeze_dims;
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;

/// The order of a vector norm, sorted into the cases that compute (and differentiate) differently.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrder {
    /// The number of nonzero elements (p = 0).
    Zero,
    One,
    Two,
    /// The largest magnitude (p = inf).
    Max,
    /// The smallest magnitude (p = -inf).
    Min,
    /// (sum |x|^p)^(1/p) for any other p.
    P(f64),
}

impl NormOrder {
    pub fn from_p(p: f64) -> NormOrder {
        match p {
            0.0 => NormOrder::Zero,
            1.0 => NormOrder::One,
            2.0 => NormOrder::Two,
            f64::INFINITY => NormOrder::Max,
            f64::NEG_INFINITY => NormOrder::Min,
            p => NormOrder::P(p),
        }
    }
}

/// max/min of magnitudes that lets a NaN win, as PyTorch's norm does.
fn nan_extreme(a: f64, v: f64, is_max: bool) -> f64 {
    if a.is_nan() || v.is_nan() {
        f64::NAN
    } else if is_max {
        a.max(v)
    } else {
        a.min(v)
    }
}

impl Tensor {
    /// `linalg.vector_norm(self, ord, dim=dims, keepdim)`; `dims` None: all elements.
    pub fn vector_norm(&self, ord: NormOrder, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let dims_owned = dims.map(<[isize]>::to_vec);
        let eager = move |x: &[&Tensor]| x[0].vector_norm_eager(ord, dims_owned.as_deref(), keepdim);
        let replay = eager.clone();
        traced("linalg_vector_norm", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn vector_norm_eager(&self, ord: NormOrder, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                NotImplemented,
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().scalar_type_name()
            );
        }
        let all = dims.is_none_or(|d| d.is_empty());
        let dims = crate::ops::reduce::reduction_dims(if all { None } else { dims }, self.ndim())?;
        if matches!(ord, NormOrder::Max | NormOrder::Min) {
            let which = if ord == NormOrder::Max { "inf" } else { "-inf" };
            if all && self.numel() == 0 {
                bail!(
                    Runtime,
                    "linalg.vector_norm cannot compute the {which} norm on an empty tensor because the \
                    operation does not have an identity"
                );
            }
            if let Some(d) = dims.iter().find(|&&d| self.shape()[d] == 0) {
                bail!(
                    Runtime,
                    "linalg.vector_norm cannot compute the {which} norm on the dimension {d}because this \
                    dimension is empty and the operation does not have an identity"
                );
            }
        }
        let shape = crate::ops::reduce::reduced_shape(self.shape(), &dims, keepdim);
        let values: Vec<f64> = self.with_data(|l, x: &[f64]| match ord {
            NormOrder::Zero => fold(l, x, &dims, 0.0, |a, v| a + if v != 0.0 { 1.0 } else { 0.0 }),
            NormOrder::One => fold(l, x, &dims, 0.0, |a, v| a + v.abs()),
            NormOrder::Two => fold(l, x, &dims, 0.0, |a, v| a + v * v).into_iter().map(f64::sqrt).collect(),
            NormOrder::Max => fold(l, x, &dims, 0.0, |a, v| nan_extreme(a, v.abs(), true)),
            NormOrder::Min => fold(l, x, &dims, f64::INFINITY, |a, v| nan_extreme(a, v.abs(), false)),
            NormOrder::P(p) => {
                fold(l, x, &dims, 0.0, |a, v| a + v.abs().powf(p)).into_iter().map(|s| s.powf(1.0 / p)).collect()
            }
        });
        let out = crate::ops::reduce::from_f64s(values, &shape, self.dtype())?;
        Ok(record(out, &[self], |out| LinalgVectorNormBackward0 {
            ord,
            dim: dims,
            keepdim,
            self_: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// The 2-norm of all elements.
    pub fn norm(&self) -> Result<Tensor> {
        self.vector_norm(NormOrder::Two, None, false)
    }
}

impl AsField for NormOrder {
    fn as_field(&self) -> Field<'_> {
        Field::Float(match self {
            NormOrder::Zero => 0.0,
            NormOrder::One => 1.0,
            NormOrder::Two => 2.0,
            NormOrder::Max => f64::INFINITY,
            NormOrder::Min => f64::NEG_INFINITY,
            NormOrder::P(p) => *p,
        })
    }
}

crate::backward_rule! {
    /// `linalg.vector_norm(ord, dim, keepdim)`.
    pub struct LinalgVectorNormBackward0 {
        ord: NormOrder,
        dim: Vec<usize>,
        keepdim: bool,
        self_: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LinalgVectorNormBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        // the count of nonzeros has no gradient (not even zeros), as in PyTorch
        if self.ord == NormOrder::Zero {
            return Ok(vec![None]);
        }
        let (x, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        let (g, out) = (unsqueeze_dims(g, &self.dim, self.keepdim)?, unsqueeze_dims(&out, &self.dim, self.keepdim)?);
        one(vector_norm_grad(&g, &x, &out, self.ord, &self.dim))
    }
}

/// d‖x‖/dx · g, following PyTorch's `linalg_vector_norm_backward` (0 where the norm is 0).
/// `g` and `norm` come with the reduced `dims` kept (size 1).
pub(crate) fn vector_norm_grad(
    g: &Tensor,
    x: &Tensor,
    norm: &Tensor,
    ord: NormOrder,
    dims: &[usize],
) -> Result<Tensor> {
    let c = Tensor::scalar;
    let zero_norm = norm.eq(&c(0.0))?;
    match ord {
        NormOrder::Zero => Ok(Tensor::zeros(x.shape(), g.dtype())), // not reached: no gradient
        NormOrder::One => x.sign()?.mul(g),
        NormOrder::Two => x.mul(&Tensor::where_(&zero_norm, &c(0.0), &g.div(norm)?)?),
        NormOrder::Max | NormOrder::Min => {
            // shared evenly among the elements whose magnitude is the extreme (or NaN)
            let magnitude = x.abs()?;
            let mask = magnitude.eq(norm)?.logical_or(&magnitude.float_class(FloatClass::Nan)?)?;
            let dims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            let count = mask.sum(Some(&dims), true)?;
            x.sign()?.mul(&g.div(&count)?.mul(&mask)?)
        }
        NormOrder::P(p) if p < 1.0 => {
            let scaled = x.sign()?.mul(&Tensor::where_(&x.eq(&c(0.0))?, &c(0.0), &x.abs()?.pow(&c(p - 1.0))?)?)?;
            scaled.mul(g)?.mul(&norm.pow(&c(1.0 - p))?)
        }
        NormOrder::P(p) => {
            let scaled =
                if p < 2.0 { x.sign()?.mul(&x.abs()?.pow(&c(p - 1.0))?)? } else { x.mul(&x.abs()?.pow(&c(p - 2.0))?)? };
            scaled.mul(&Tensor::where_(&zero_norm, &c(0.0), &g.div(&norm.pow(&c(p - 1.0))?)?)?)
        }
    }
}
