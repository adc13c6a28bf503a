//! Every differentiable op's backward rule and PyTorch name, in one table.
//!
//! A rule maps the gradient of the op's output to the gradients of its inputs, written with the same
//! differentiable tensor ops as the forward pass, so `create_graph=True` differentiates it again.
//! Rules return gradients shaped like the broadcast output; the engine sums them down to each input's
//! shape and casts them to its dtype, once, for every op.
use super::node::{GradMeta, Node};
use crate::dtype::DType;
use crate::layout::Layout;
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

/// A backward rule defined outside the core (a Python `autograd.Function`).
pub trait CustomBackward: Send + Sync {
    fn name(&self) -> &'static str;
    /// Gradients for each input, from the gradients of each output (None where an output got none).
    fn backward(&self, grads: &[Option<Tensor>], saved: Vec<Tensor>) -> Result<Vec<Option<Tensor>>>;
}

pub enum BackwardOp {
    AccumulateGrad(Arc<GradMeta>),
    Custom(Arc<dyn CustomBackward>),
    // elementwise; saved tensors are listed after each
    Add,
    Sub { reversed: bool },
    Mul,                  // a, b
    Div,                  // a, b
    PowScalar { exponent: f64 }, // a
    Pow,                  // a, b, out
    ScalarPow { base: f64 }, // out
    Neg,
    Exp, // out
    Log, // a
    Where, // cond
    // reductions
    Sum { shape: Vec<usize> },
    SumDim { shape: Vec<usize>, dims: Vec<usize>, keepdim: bool },
    Mean { shape: Vec<usize> },
    MeanDim { shape: Vec<usize>, dims: Vec<usize>, keepdim: bool },
    Norm, // a, out
    // linear algebra
    Mm,  // a, b
    Bmm, // a, b
    Mv,  // a, v
    Dot, // a, b
    // views and copies
    View { shape: Vec<usize> },
    UnsafeView { shape: Vec<usize> },
    Transpose { dim0: usize, dim1: usize },
    T,
    Permute { perm: Vec<usize> },
    Unsqueeze { dim: usize },
    Squeeze { shape: Vec<usize>, overload: u8 },
    Expand { shape: Vec<usize> },
    Select { shape: Vec<usize>, dim: usize, index: usize },
    Slice { shape: Vec<usize>, dim: usize, start: usize, end: usize, step: usize },
    SelectBackward { dim: usize, index: usize },
    SliceBackward { dim: usize, start: usize, end: usize, step: usize },
    Clone,
    ToCopy { dtype: DType },
    // in-place writes that replace a tensor's values: no gradient to the old values
    Fill,
    Zero,
    Copy, // (self, src)
    /// `base[geom] = src` out of place: writing into a slice of a tensor that is part of a graph.
    CopySlices { geom: Layout }, // (base, src)
    /// The region `geom` of a contiguous tensor of `shape`.
    AsStrided { shape: Vec<usize>, geom: Layout },
}

use BackwardOp::*;

impl BackwardOp {
    pub fn name(&self) -> &'static str {
        match self {
            AccumulateGrad(_) => "AccumulateGrad",
            Custom(f) => f.name(),
            Add => "AddBackward0",
            Sub { reversed: false } => "SubBackward0",
            Sub { reversed: true } => "RsubBackward1",
            Mul => "MulBackward0",
            Div => "DivBackward0",
            PowScalar { .. } => "PowBackward0",
            Pow => "PowBackward1",
            ScalarPow { .. } => "PowBackward2",
            Neg => "NegBackward0",
            Exp => "ExpBackward0",
            Log => "LogBackward0",
            Where => "WhereBackward0",
            Sum { .. } => "SumBackward0",
            SumDim { .. } => "SumBackward1",
            Mean { .. } => "MeanBackward0",
            MeanDim { .. } => "MeanBackward1",
            Norm => "LinalgVectorNormBackward0",
            Mm => "MmBackward0",
            Bmm => "BmmBackward0",
            Mv => "MvBackward0",
            Dot => "DotBackward0",
            View { .. } => "ViewBackward0",
            UnsafeView { .. } => "UnsafeViewBackward0",
            Transpose { .. } => "TransposeBackward0",
            T => "TBackward0",
            Permute { .. } => "PermuteBackward0",
            Unsqueeze { .. } => "UnsqueezeBackward0",
            Squeeze { overload: 0, .. } => "SqueezeBackward0",
            Squeeze { overload: 1, .. } => "SqueezeBackward1",
            Squeeze { .. } => "SqueezeBackward2",
            Expand { .. } => "ExpandBackward0",
            Select { .. } => "SelectBackward0",
            Slice { .. } => "SliceBackward0",
            SelectBackward { .. } => "SelectBackwardBackward0",
            SliceBackward { .. } => "SliceBackwardBackward0",
            Clone => "CloneBackward0",
            ToCopy { .. } => "ToCopyBackward0",
            Fill => "FillBackward0",
            Zero => "ZeroBackward0",
            Copy => "CopyBackwards",
            CopySlices { .. } => "CopySlices",
            AsStrided { .. } => "AsStridedBackward0",
        }
    }

    /// Gradients for each input (None where `needs[i]` is false or the input gets none).
    pub(crate) fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        if let Custom(f) = self {
            return f.backward(grads, node.unpack_saved()?);
        }
        let Some(Some(g)) = grads.first() else { return Ok(vec![]) };
        let need = |i: usize| needs.get(i).copied().unwrap_or(false);
        let saved = || node.unpack_saved();
        let one = |t: Result<Tensor>| t.map(|t| vec![Some(t)]);
        match self {
            AccumulateGrad(_) | Custom(_) => Ok(vec![]),
            Add => Ok(vec![Some(g.clone()), Some(g.clone())]),
            Sub { .. } => Ok(vec![Some(g.clone()), Some(g.neg()?)]),
            Mul => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.mul(b))?, opt(need(1), || g.mul(a))?])
            }
            Div => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![
                    opt(need(0), || g.div(b))?,
                    opt(need(1), || g.neg()?.mul(a)?.div(&b.mul(b)?))?,
                ])
            }
            PowScalar { exponent } => {
                let a = &saved()?[0];
                if *exponent == 0.0 {
                    return one(g.mul(&Tensor::scalar(0.0)));
                }
                one(g.mul(&a.pow(&Tensor::scalar(exponent - 1.0))?.mul(&Tensor::scalar(*exponent))?))
            }
            Pow => {
                let s = saved()?;
                let (a, b, out) = (&s[0], &s[1], &s[2]);
                let grad_a = opt(need(0), || {
                    // d/da a^b = b·a^(b-1), and 0 where b == 0 (even at a == 0)
                    let d = b.mul(&a.pow(&b.sub(&Tensor::scalar(1.0))?)?)?;
                    let d = Tensor::where_(&b.eq(&Tensor::scalar(0.0))?, &Tensor::scalar(0.0), &d)?;
                    g.mul(&d)
                })?;
                let grad_b = opt(need(1), || {
                    // d/db a^b = a^b·ln a, taken as 0 where a == 0 and b >= 0
                    let d = out.mul(&a.log()?)?;
                    let zero_base = a.eq(&Tensor::scalar(0.0))?.logical_and(&b.ge(&Tensor::scalar(0.0))?)?;
                    g.mul(&Tensor::where_(&zero_base, &Tensor::scalar(0.0), &d)?)
                })?;
                Ok(vec![grad_a, grad_b])
            }
            ScalarPow { base } => {
                let out = &saved()?[0];
                if *base == 0.0 {
                    // d/dx 0^x: 0 everywhere torch defines it
                    return Ok(vec![None, Some(g.mul(&Tensor::scalar(0.0))?)]);
                }
                Ok(vec![None, Some(g.mul(&out.mul(&Tensor::scalar(base.ln()))?)?)])
            }
            Neg => one(g.neg()),
            Exp => one(g.mul(&saved()?[0])),
            Log => one(g.div(&saved()?[0])),
            Where => {
                let cond = &saved()?[0];
                let zero = Tensor::scalar(0.0);
                Ok(vec![
                    None,
                    opt(need(1), || Tensor::where_(cond, g, &zero))?,
                    opt(need(2), || Tensor::where_(cond, &zero, g))?,
                ])
            }
            Sum { shape } => one(g.expand(shape)),
            SumDim { shape, dims, keepdim } => one(unsqueeze_dims(g, dims, *keepdim)?.expand(shape)),
            Mean { shape } => {
                let n = shape.iter().product::<usize>() as f64;
                one(g.expand(shape)?.div(&Tensor::scalar(n)))
            }
            MeanDim { shape, dims, keepdim } => {
                let n = dims.iter().map(|&d| shape[d]).product::<usize>() as f64;
                one(unsqueeze_dims(g, dims, *keepdim)?.expand(shape)?.div(&Tensor::scalar(n)))
            }
            Norm => {
                let s = saved()?;
                let (a, out) = (&s[0], &s[1]);
                // x / ||x||, and 0 at the origin (a subgradient, as PyTorch picks)
                let scale = Tensor::where_(&out.eq(&Tensor::scalar(0.0))?, &Tensor::scalar(0.0), &g.div(out)?)?;
                one(a.mul(&scale))
            }
            Mm => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.mm(&b.t()?))?, opt(need(1), || a.t()?.mm(g))?])
            }
            Bmm => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![
                    opt(need(0), || g.bmm(&b.transpose(1, 2)?))?,
                    opt(need(1), || a.transpose(1, 2)?.bmm(g))?,
                ])
            }
            Mv => {
                let s = saved()?;
                let (a, v) = (&s[0], &s[1]);
                Ok(vec![
                    opt(need(0), || g.unsqueeze(1)?.mm(&v.unsqueeze(0)?))?,
                    opt(need(1), || a.t()?.mv(g))?,
                ])
            }
            Dot => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.mul(b))?, opt(need(1), || g.mul(a))?])
            }
            View { shape } | UnsafeView { shape } | Squeeze { shape, .. } => one(g.reshape(shape)),
            Transpose { dim0, dim1 } => one(g.transpose(*dim0 as isize, *dim1 as isize)),
            T => one(g.t()),
            Permute { perm } => {
                let mut inverse = vec![0isize; perm.len()];
                for (i, &p) in perm.iter().enumerate() {
                    inverse[p] = i as isize;
                }
                one(g.permute(&inverse))
            }
            Unsqueeze { dim } => one(g.squeeze_dim(*dim as isize)),
            Expand { shape } => one(g.sum_to_size(shape)),
            Select { shape, dim, index } => one(g.select_backward(shape, *dim, *index)),
            Slice { shape, dim, start, end, step } => one(g.slice_backward(shape, *dim, *start, *end, *step)),
            SelectBackward { dim, index } => one(g.select(*dim as isize, *index as isize)),
            SliceBackward { dim, start, end, step } => one(g.slice(*dim, *start, *end, *step)),
            Clone => one(Ok(g.clone())),
            ToCopy { dtype } => one(g.to_dtype(*dtype)),
            Fill | Zero => one(g.mul(&Tensor::scalar(0.0))),
            Copy => Ok(vec![opt(need(0), || g.mul(&Tensor::scalar(0.0)))?, Some(g.clone())]),
            CopySlices { geom } => Ok(vec![
                opt(need(0), || g.copy_slices(geom, &Tensor::scalar(0.0)))?,
                opt(need(1), || g.as_strided_view(geom))?,
            ]),
            AsStrided { shape, geom } => one(Tensor::zeros(shape, g.dtype()).copy_slices(geom, g)),
        }
    }
}

fn opt(needed: bool, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
    if needed { f().map(Some) } else { Ok(None) }
}

/// Puts reduced dims back as size 1, so a reduction's gradient can be expanded to the input's shape.
fn unsqueeze_dims(g: &Tensor, dims: &[usize], keepdim: bool) -> Result<Tensor> {
    if keepdim {
        return Ok(g.clone());
    }
    let mut g = g.clone();
    for &d in dims {
        g = g.unsqueeze(d as isize)?;
    }
    Ok(g)
}
