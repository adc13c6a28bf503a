//! Every differentiable op's backward rule and PyTorch name, in one table.
//!
//! A rule maps the gradient of the op's output to the gradients of its inputs, written with the same
//! differentiable tensor ops as the forward pass, so `create_graph=True` differentiates it again.
//! Rules return gradients shaped like the broadcast output; the engine sums them down to each input's
//! shape and casts them to its dtype, once, for every op.
use super::node::{GradMeta, Node};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::Binary as BinaryFn;
use crate::ops::conv::Window;
use crate::ops::index::Positions;
use crate::ops::loss::LossKind;
use crate::ops::nn::Reduction;
use crate::ops::norm::NormOrder;
use crate::ops::shape::SplitKind;
use crate::ops::unary::Unary;
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
    Sub {
        reversed: bool,
    },
    Mul, // a, b
    Div, // a, b
    PowScalar {
        exponent: f64,
    }, // a
    Pow, // a, b, out
    ScalarPow {
        base: f64,
    }, // out
    Neg,
    Exp,          // out
    Log,          // a
    Unary(Unary), // a, or out where Unary::saves_output
    Where,        // cond
    Binary {
        op: BinaryFn,
        scalar_other: bool,
    }, // a, b
    ClampScalar {
        min: Option<f64>,
        max: Option<f64>,
        kind: u8,
    }, // a
    ClampTensor {
        has_min: bool,
        has_max: bool,
    }, // a, min?, max?
    LerpScalar {
        weight: f64,
    },
    LerpTensor, // a, end, weight
    NanToNum,   // a
    // reductions
    Sum {
        shape: Vec<usize>,
    },
    SumDim {
        shape: Vec<usize>,
        dims: Vec<usize>,
        keepdim: bool,
    },
    Mean {
        shape: Vec<usize>,
    },
    MeanDim {
        shape: Vec<usize>,
        dims: Vec<usize>,
        keepdim: bool,
    },
    VectorNorm {
        ord: NormOrder,
        dims: Vec<usize>,
        keepdim: bool,
    }, // a, out
    Extreme {
        shape: Vec<usize>,
        dims: Vec<usize>,
        keepdim: bool,
        is_max: bool,
        full_form: bool,
    }, // a, out
    IndexedExtreme {
        shape: Vec<usize>,
        dim: Option<usize>,
        keepdim: bool,
        is_max: bool,
    }, // indices
    Prod {
        shape: Vec<usize>,
        dims: Vec<usize>,
        keepdim: bool,
        all: bool,
    }, // a, out
    VarStd {
        dims: Vec<usize>,
        keepdim: bool,
        correction: f64,
        std: bool,
    }, // a, out
    Logsumexp {
        dims: Vec<usize>,
        keepdim: bool,
    }, // a, out
    Cumsum {
        dim: usize,
        reverse: bool,
    },
    Cumprod {
        dim: usize,
    }, // a, out
    // nn
    Softmax {
        dim: usize,
        log: bool,
    }, // out
    NllLoss {
        input_shape: Vec<usize>,
        reduction: Reduction,
        ignore_index: i64,
        total_weight: f64,
        has_weight: bool,
    }, // target, weight?
    MseLoss {
        reduction: Reduction,
        numel: usize,
    }, // input, target
    Addmm, // a, b
    PointwiseLoss {
        kind: LossKind,
        reduction: Reduction,
        numel: usize,
        has_weight: bool,
        has_pos_weight: bool,
    }, // input, target, weight?, pos_weight?
    LayerNorm {
        dims: Vec<isize>,
        eps: f64,
        has_weight: bool,
        has_bias: bool,
    }, // input, weight?
    /// Rows of a weight gathered by index; `pos` is where each output element's gradient goes.
    Embedding {
        shape: Vec<usize>,
        pos: Positions,
    },
    Im2Col {
        win: Window,
        hw: [usize; 2],
        out: [usize; 2],
    },
    Col2Im {
        win: Window,
        out: [usize; 2],
    },
    Convolution {
        win: Window,
        groups: usize,
        spatial: usize,
    }, // input, weight
    /// avg_pool2d / adaptive_avg_pool2d as `A_h · x · A_wᵀ`.
    SeparablePool {
        adaptive: bool,
    }, // a_h, a_w
    // linear algebra
    Mm,  // a, b
    Bmm, // a, b
    Mv,  // a, v
    Dot, // a, b
    Baddbmm {
        beta: f64,
        alpha: f64,
    }, // batch1, batch2
    Trace {
        shape: Vec<usize>,
    },
    // views and copies
    View {
        shape: Vec<usize>,
    },
    UnsafeView {
        shape: Vec<usize>,
    },
    Transpose {
        dim0: usize,
        dim1: usize,
    },
    T,
    Permute {
        perm: Vec<usize>,
    },
    Unsqueeze {
        dim: usize,
    },
    Squeeze {
        shape: Vec<usize>,
        overload: u8,
    },
    Expand {
        shape: Vec<usize>,
    },
    Select {
        shape: Vec<usize>,
        dim: usize,
        index: usize,
    },
    Slice {
        shape: Vec<usize>,
        dim: usize,
        start: usize,
        end: usize,
        step: usize,
    },
    SelectBackward {
        dim: usize,
        index: usize,
    },
    SliceBackward {
        dim: usize,
        start: usize,
        end: usize,
        step: usize,
    },
    /// Overlapping windows along `dim` (their gradients add up).
    Unfold {
        shape: Vec<usize>,
        dim: usize,
        size: usize,
        step: usize,
    },
    Clone,
    ToCopy {
        dtype: DType,
    },
    // in-place writes that replace a tensor's values: no gradient to the old values
    Fill,
    Zero,
    Copy, // (self, src)
    /// `base[geom] = src` out of place: writing into a slice of a tensor that is part of a graph.
    CopySlices {
        geom: Layout,
    }, // (base, src)
    /// The region `geom` of a contiguous tensor of `shape`.
    AsStrided {
        shape: Vec<usize>,
        geom: Layout,
    },
    // shape ops and indexing (ops/shape.rs, ops/index.rs)
    Cat {
        dim: usize,
        sizes: Vec<usize>,
    }, // usize::MAX: a skipped 1-D empty input
    Stack {
        dim: usize,
    },
    /// One node for all the views of a split/chunk/unbind.
    Split {
        shape: Vec<usize>,
        dim: usize,
        sizes: Vec<usize>,
        kind: SplitKind,
    },
    Diagonal {
        shape: Vec<usize>,
        offset: isize,
        dim1: usize,
        dim2: usize,
        copy: bool,
    },
    /// `out = input_flat[pos]` (flip, roll, repeat, tril, gather, advanced indexing, ...).
    TakeFlat {
        name: &'static str,
        shape: Vec<usize>,
        pos: Positions,
    },
    /// `out = input` with `src` written or added at `pos` (scatter, index_put, masked_fill, ...).
    PutFlat {
        name: &'static str,
        pos: Positions,
        accumulate: bool,
        src_shape: Vec<usize>,
    },
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
            Unary(op) => op.name(),
            Where => "WhereBackward0",
            Binary { op, scalar_other } => match (op, scalar_other) {
                (BinaryFn::Maximum, _) => "MaximumBackward0",
                (BinaryFn::Minimum, _) => "MinimumBackward0",
                (BinaryFn::Atan2, _) => "Atan2Backward0",
                (BinaryFn::Fmod, true) => "FmodBackward0",
                (BinaryFn::Fmod, false) => "FmodBackward1",
                (BinaryFn::Remainder, true) => "RemainderBackward0",
                (BinaryFn::Remainder, false) => "RemainderBackward1",
                (BinaryFn::FloorDiv | BinaryFn::TruncDiv, _) => "DivBackward2",
            },
            ClampScalar { kind: 1, .. } => "ClampMinBackward0",
            ClampScalar { kind: 2, .. } => "ClampMaxBackward0",
            ClampScalar { .. } => "ClampBackward1",
            ClampTensor { .. } => "ClampBackward0",
            LerpScalar { .. } => "LerpBackward0",
            LerpTensor => "LerpBackward1",
            NanToNum => "NanToNumBackward0",
            Sum { .. } => "SumBackward0",
            SumDim { .. } => "SumBackward1",
            Mean { .. } => "MeanBackward0",
            MeanDim { .. } => "MeanBackward1",
            VectorNorm { .. } => "LinalgVectorNormBackward0",
            Extreme { is_max: true, full_form: true, .. } => "MaxBackward1",
            Extreme { is_max: false, full_form: true, .. } => "MinBackward1",
            Extreme { is_max: true, .. } => "AmaxBackward0",
            Extreme { .. } => "AminBackward0",
            IndexedExtreme { is_max: true, .. } => "MaxBackward0",
            IndexedExtreme { .. } => "MinBackward0",
            Prod { all: true, .. } => "ProdBackward0",
            Prod { .. } => "ProdBackward1",
            VarStd { std: false, .. } => "VarBackward0",
            VarStd { .. } => "StdBackward0",
            Logsumexp { .. } => "LogsumexpBackward0",
            Cumsum { .. } => "CumsumBackward0",
            Cumprod { .. } => "CumprodBackward0",
            Softmax { log: false, .. } => "SoftmaxBackward0",
            Softmax { log: true, .. } => "LogSoftmaxBackward0",
            NllLoss { .. } => "NllLossBackward0",
            MseLoss { .. } => "MseLossBackward0",
            Addmm => "AddmmBackward0",
            PointwiseLoss { kind: LossKind::SmoothL1 { .. }, .. } => "SmoothL1LossBackward0",
            PointwiseLoss { kind: LossKind::BinaryCrossEntropy, .. } => "BinaryCrossEntropyBackward0",
            PointwiseLoss { kind: LossKind::BinaryCrossEntropyWithLogits, .. } => {
                "BinaryCrossEntropyWithLogitsBackward0"
            }
            LayerNorm { .. } => "NativeLayerNormBackward0",
            Embedding { .. } => "EmbeddingBackward0",
            Im2Col { .. } => "Im2ColBackward0",
            Col2Im { .. } => "Col2ImBackward0",
            Convolution { .. } => "ConvolutionBackward0",
            SeparablePool { adaptive: false } => "AvgPool2DBackward0",
            SeparablePool { adaptive: true } => "AdaptiveAvgPool2DBackward0",
            Mm => "MmBackward0",
            Bmm => "BmmBackward0",
            Mv => "MvBackward0",
            Dot => "DotBackward0",
            Baddbmm { .. } => "BaddbmmBackward0",
            Trace { .. } => "TraceBackward0",
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
            Unfold { .. } => "UnfoldBackward0",
            Clone => "CloneBackward0",
            ToCopy { .. } => "ToCopyBackward0",
            Fill => "FillBackward0",
            Zero => "ZeroBackward0",
            Copy => "CopyBackwards",
            CopySlices { .. } => "CopySlices",
            AsStrided { .. } => "AsStridedBackward0",
            Cat { .. } => "CatBackward0",
            Stack { .. } => "StackBackward0",
            Split { kind: SplitKind::Split, .. } => "SplitBackward0",
            Split { kind: SplitKind::SplitWithSizes, .. } => "SplitWithSizesBackward0",
            Split { kind: SplitKind::Unbind, .. } => "UnbindBackward0",
            Diagonal { copy: false, .. } => "DiagonalBackward0",
            Diagonal { copy: true, .. } => "DiagonalBackward0_copy",
            TakeFlat { name, .. } | PutFlat { name, .. } => name,
        }
    }

    /// Gradients for each input (None where `needs[i]` is false or the input gets none).
    pub(crate) fn apply(
        &self,
        node: &Arc<Node>,
        grads: &[Option<Tensor>],
        needs: &[bool],
    ) -> Result<Vec<Option<Tensor>>> {
        if let Custom(f) = self {
            return f.backward(grads, node.unpack_saved()?);
        }
        if let Split { shape, dim, sizes, kind } = self {
            // several outputs: the ones that got no gradient count as zeros
            return Ok(vec![crate::ops::shape::split_grad(grads, shape, *dim, sizes, *kind)?]);
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
                // x * x: both gradients go to one place, so they can be made as one (a post hook on
                // this node still sees the two separately)
                if need(0) && need(1) && a.same_tensor(b) && !node.has_post_hooks() {
                    if let Some(grad) = fused_square_grad(g, a) {
                        return Ok(vec![Some(grad?), None]);
                    }
                }
                Ok(vec![opt(need(0), || g.mul(b))?, opt(need(1), || g.mul(a))?])
            }
            Div => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.div(b))?, opt(need(1), || g.neg()?.mul(a)?.div(&b.mul(b)?))?])
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
            NanToNum => {
                // the replaced values were constants
                let a = &saved()?[0];
                one(Tensor::where_(&a.float_class(2)?, g, &c(0.0)))
            }
            Exp => one(g.mul(&saved()?[0])),
            Log => one(g.div(&saved()?[0])),
            Unary(op) => {
                let s = &saved()?[0];
                one(fused_unary_grad(*op, g, s).unwrap_or_else(|| unary_grad(*op, g, s)))
            }
            Where => {
                let cond = &saved()?[0];
                let zero = Tensor::scalar(0.0);
                Ok(vec![
                    None,
                    opt(need(1), || Tensor::where_(cond, g, &zero))?,
                    opt(need(2), || Tensor::where_(cond, &zero, g))?,
                ])
            }
            Binary { op, .. } => {
                let s = saved()?;
                binary_grad(*op, g, &s[0], &s[1], need(0), need(1))
            }
            ClampScalar { min, max, .. } => {
                let a = &saved()?[0];
                let mut inside = Tensor::from_vec(vec![true], &[])?;
                if let Some(lo) = min {
                    inside = inside.logical_and(&a.gt(&c(*lo))?)?;
                }
                if let Some(hi) = max {
                    inside = inside.logical_and(&a.lt(&c(*hi))?)?;
                }
                one(Tensor::where_(&inside, g, &c(0.0)))
            }
            ClampTensor { has_min, has_max } => {
                let s = saved()?;
                let a = &s[0];
                let zero = c(0.0);
                // ties split the gradient in halves, as maximum/minimum do
                match (*has_min, *has_max) {
                    (true, true) => {
                        let (lo, hi) = (&s[1], &s[2]);
                        let (w_lo, w_hi) = (tie_weight(a, lo)?, tie_weight(hi, a)?);
                        // lo < hi: the usual case; lo >= hi: the output is hi (or a, where all three tie)
                        let valid = lo.lt(hi)?;
                        let all_tie = a.eq(lo)?.logical_and(&a.eq(hi)?)?;
                        Ok(vec![
                            opt(need(0), || {
                                let d = g.mul(&w_lo.add(&w_hi)?.sub(&c(1.0))?)?;
                                Tensor::where_(&valid, &d, &Tensor::where_(&all_tie, g, &zero)?)
                            })?,
                            opt(need(1), || Tensor::where_(&valid, &g.mul(&c(1.0).sub(&w_lo)?)?, &zero))?,
                            opt(need(2), || {
                                let d = g.mul(&c(1.0).sub(&w_hi)?)?;
                                Tensor::where_(&valid, &d, &Tensor::where_(&all_tie, &zero, g)?)
                            })?,
                        ])
                    }
                    (true, false) => binary_grad(BinaryFn::Maximum, g, a, &s[1], need(0), need(1)),
                    _ => binary_grad(BinaryFn::Minimum, g, a, &s[1], need(0), need(1)),
                }
            }
            LerpScalar { weight } => {
                Ok(vec![opt(need(0), || g.mul(&c(1.0 - weight)))?, opt(need(1), || g.mul(&c(*weight)))?])
            }
            LerpTensor => {
                let s = saved()?;
                let (a, b, w) = (&s[0], &s[1], &s[2]);
                Ok(vec![
                    opt(need(0), || g.mul(&c(1.0).sub(w)?))?,
                    opt(need(1), || g.mul(w))?,
                    opt(need(2), || g.mul(&b.sub(a)?))?,
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
            // the count of nonzeros has no gradient (not even zeros), as in PyTorch
            VectorNorm { ord: NormOrder::Zero, .. } => Ok(vec![None]),
            VectorNorm { ord, dims, keepdim } => {
                let s = saved()?;
                let (g, out) = (unsqueeze_dims(g, dims, *keepdim)?, unsqueeze_dims(&s[1], dims, *keepdim)?);
                one(crate::ops::norm::vector_norm_grad(&g, &s[0], &out, *ord, dims))
            }
            Extreme { dims, keepdim, .. } => {
                let s = saved()?;
                let (a, out) = (&s[0], &unsqueeze_dims(&s[1], dims, *keepdim)?);
                // shared evenly among the elements equal to the extreme (NaN counts as equal to NaN)
                let mask = a.eq(out)?.logical_or(&a.float_class(0)?.logical_and(&out.float_class(0)?)?)?;
                let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
                let count = mask.sum(Some(&idims), true)?;
                one(unsqueeze_dims(g, dims, *keepdim)?.mul(&mask)?.div(&count))
            }
            IndexedExtreme { shape, dim, keepdim, .. } => {
                let Some(dim) = dim else { return one(Ok(g.clone())) };
                let indices = &saved()?[0];
                let dims = [*dim];
                let idx = unsqueeze_dims(indices, &dims, *keepdim)?;
                let mask = crate::ops::reduce::positions_along(shape[*dim], *dim, shape.len())?.eq(&idx)?;
                one(Tensor::where_(&mask, &unsqueeze_dims(g, &dims, *keepdim)?, &c(0.0)))
            }
            Prod { dims, keepdim, all, .. } => {
                let s = saved()?;
                let a = &s[0];
                let out = unsqueeze_dims(&s[1], dims, *keepdim)?;
                let g = unsqueeze_dims(g, dims, *keepdim)?;
                let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
                let is_zero = a.eq(&c(0.0))?;
                let zeros = is_zero.sum(Some(&idims), true)?;
                // no zero: out / a; one zero: the product of the others at the zero; more: 0
                let others = Tensor::where_(&is_zero, &c(1.0), a)?;
                let others = if *all || dims.is_empty() {
                    others.prod(None, false)?
                } else {
                    others.prod(Some(dims[0] as isize), true)?
                };
                let no_zero = g.mul(&out)?.div(a)?;
                let one_zero = Tensor::where_(&zeros.eq(&c(1.0))?.logical_and(&is_zero)?, &g.mul(&others)?, &c(0.0))?;
                one(Tensor::where_(&zeros.eq(&c(0.0))?, &no_zero, &one_zero))
            }
            VarStd { dims, keepdim, correction, std } => {
                let s = saved()?;
                let a = &s[0];
                let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
                let n = dims.iter().map(|&d| a.shape()[d]).product::<usize>() as f64;
                let dev = a.sub(&a.mean(Some(&idims), true)?)?;
                let g = unsqueeze_dims(g, dims, *keepdim)?;
                let scale = if *std {
                    let out = unsqueeze_dims(&s[1], dims, *keepdim)?;
                    Tensor::where_(&out.eq(&c(0.0))?, &c(0.0), &g.div(&out)?)?.mul(&c(1.0 / (n - correction)))?
                } else {
                    g.mul(&c(2.0 / (n - correction)))?
                };
                one(dev.mul(&scale))
            }
            Logsumexp { dims, keepdim } => {
                let s = saved()?;
                let out = unsqueeze_dims(&s[1], dims, *keepdim)?;
                one(unsqueeze_dims(g, dims, *keepdim)?.mul(&s[0].sub(&out)?.exp()?))
            }
            Cumsum { dim, reverse } => one(g.cumsum(*dim as isize, !reverse)),
            Cumprod { dim } => {
                let s = saved()?;
                one(cumprod_grad(g, &s[0], &s[1], *dim))
            }
            Softmax { dim, log } => {
                let out = &saved()?[0];
                if let Some(fused) = crate::ops::nn::softmax_backward_fused(g, out, *dim, *log) {
                    return one(fused);
                }
                let d = [*dim as isize];
                if *log {
                    one(g.sub(&out.exp()?.mul(&g.sum(Some(&d), true)?)?))
                } else {
                    one(out.mul(&g.sub(&g.mul(out)?.sum(Some(&d), true)?)?))
                }
            }
            NllLoss { input_shape, reduction, ignore_index, total_weight, has_weight } => {
                let s = saved()?;
                let weight = has_weight.then(|| &s[1]);
                one(crate::ops::nn::nll_loss_grad(
                    g,
                    &s[0],
                    weight,
                    input_shape,
                    *reduction,
                    *ignore_index,
                    *total_weight,
                ))
            }
            MseLoss { reduction, numel } => {
                let s = saved()?;
                let d = s[0].sub(&s[1])?;
                let scale = if *reduction == Reduction::Mean { 2.0 / *numel as f64 } else { 2.0 };
                let ga = g.mul(&d)?.mul(&c(scale))?;
                Ok(vec![opt(need(0), || Ok(ga.clone()))?, opt(need(1), || ga.neg())?])
            }
            Addmm => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![Some(g.clone()), opt(need(1), || g.mm(&b.t()?))?, opt(need(2), || a.t()?.mm(g))?])
            }
            PointwiseLoss { kind, reduction, numel, has_weight, has_pos_weight } => {
                let s = saved()?;
                let (gx, gt) = crate::ops::loss::pointwise_loss_grad(
                    g,
                    &s,
                    *kind,
                    *reduction,
                    *numel,
                    *has_weight,
                    *has_pos_weight,
                )?;
                Ok(vec![opt(need(0), || Ok(gx))?, opt(need(1), || Ok(gt))?])
            }
            LayerNorm { dims, eps, has_weight, has_bias } => {
                let s = saved()?;
                let weight = has_weight.then(|| &s[1]);
                let needs: Vec<bool> = (0..3).map(need).collect();
                crate::ops::layer_norm::layer_norm_grad(g, &s[0], weight, dims, *eps, *has_bias, &needs)
            }
            Embedding { shape, pos } => {
                one(Tensor::zeros(shape, g.dtype()).put_flat(pos.clone(), g, true, "IndexPutBackward0"))
            }
            Im2Col { win, hw, out } => one(g.col2im(win, *hw, *out)),
            Col2Im { win, out } => one(g.im2col(win, *out)),
            Convolution { win, groups, spatial } => {
                let s = saved()?;
                let grads = crate::ops::conv::convolution_grad(
                    g,
                    &s[0],
                    &s[1],
                    win,
                    *groups,
                    *spatial,
                    [need(0), need(1), need(2)],
                )?;
                Ok(grads.into_iter().take(node.next_edges().len()).collect())
            }
            SeparablePool { .. } => {
                let s = saved()?;
                one(crate::ops::pool::separable_pool_grad(g, &s[0], &s[1]))
            }
            Mm => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.mm(&b.t()?))?, opt(need(1), || a.t()?.mm(g))?])
            }
            Bmm => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.bmm(&b.transpose(1, 2)?))?, opt(need(1), || a.transpose(1, 2)?.bmm(g))?])
            }
            Mv => {
                let s = saved()?;
                let (a, v) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.unsqueeze(1)?.mm(&v.unsqueeze(0)?))?, opt(need(1), || a.t()?.mv(g))?])
            }
            Dot => {
                let s = saved()?;
                let (a, b) = (&s[0], &s[1]);
                Ok(vec![opt(need(0), || g.mul(b))?, opt(need(1), || g.mul(a))?])
            }
            Baddbmm { beta, alpha } => {
                let s = saved()?;
                let (b1, b2) = (&s[0], &s[1]);
                Ok(vec![
                    opt(need(0), || g.mul(&c(*beta)))?,
                    opt(need(1), || g.bmm(&b2.transpose(1, 2)?)?.mul(&c(*alpha)))?,
                    opt(need(2), || b1.transpose(1, 2)?.bmm(g)?.mul(&c(*alpha)))?,
                ])
            }
            Trace { shape } => {
                let geom = crate::ops::shape::diagonal_layout(&Layout::contiguous(shape), 0, 0, 1);
                one(Tensor::zeros(shape, g.dtype()).copy_slices(&geom, g))
            }
            Unfold { shape, dim, size, step } => {
                let geom = crate::ops::view::unfold_layout(&Layout::contiguous(shape), *dim, *size, *step);
                let pos = Tensor::region_positions(&geom);
                one(Tensor::zeros(shape, g.dtype()).put_flat(pos, g, true, "UnfoldBackwardBackward0"))
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
            Cat { dim, sizes } => {
                let mut start = 0;
                let mut out = Vec::with_capacity(sizes.len());
                for (i, &n) in sizes.iter().enumerate() {
                    if n == usize::MAX {
                        out.push(opt(need(i), || Ok(Tensor::zeros(&[0], g.dtype())))?);
                        continue;
                    }
                    out.push(opt(need(i), || g.slice(*dim, start, start + n, 1))?);
                    start += n;
                }
                Ok(out)
            }
            Stack { dim } => {
                (0..g.shape()[*dim]).map(|i| opt(need(i), || g.select(*dim as isize, i as isize))).collect()
            }
            Split { .. } => Ok(vec![]),
            Diagonal { shape, offset, dim1, dim2, .. } => {
                let geom = crate::ops::shape::diagonal_layout(&Layout::contiguous(shape), *offset, *dim1, *dim2);
                one(Tensor::zeros(shape, g.dtype()).copy_slices(&geom, g))
            }
            TakeFlat { shape, pos, .. } => {
                one(Tensor::zeros(shape, g.dtype()).put_flat(pos.clone(), g, true, "IndexPutBackward0"))
            }
            PutFlat { pos, accumulate, src_shape, .. } => Ok(vec![
                opt(need(0), || {
                    if *accumulate {
                        Ok(g.clone())
                    } else {
                        g.put_flat(pos.clone(), &Tensor::zeros(src_shape, g.dtype()), false, "IndexPutBackward0")
                    }
                })?,
                opt(need(1), || g.take_flat(pos.clone(), src_shape, "IndexBackward0"))?,
            ]),
        }
    }
}

fn opt(needed: bool, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
    if needed {
        f().map(Some)
    } else {
        Ok(None)
    }
}

/// The gradient of `cumprod` along `dim`: Σ_{j≥k} g_j·out_j / x_k without zeros; with zeros, each
/// g_k gets Σ_{j≥k} g_j·Π_{i≤j, i≠k} x_i, built as an n×n running product per row.
fn cumprod_grad(g: &Tensor, x: &Tensor, out: &Tensor, dim: usize) -> Result<Tensor> {
    let has_zero = x.eq(&c(0.0))?.any()?.to_vec::<bool>()[0];
    if !has_zero {
        return g.mul(out)?.cumsum(dim as isize, true)?.div(x);
    }
    if x.ndim() == 0 {
        return Ok(g.clone());
    }
    let n = x.shape()[dim];
    let last = x.ndim() as isize - 1;
    let (xm, gm) = (x.transpose(dim as isize, last)?, g.transpose(dim as isize, last)?);
    // rows[.., k, i] = x_i with x_k replaced by 1; a running product over i, kept where i ≥ k
    let eye = Tensor::from_vec((0..n * n).map(|p| p / n == p % n).collect::<Vec<bool>>(), &[n, n])?;
    let upper = Tensor::from_vec((0..n * n).map(|p| p % n >= p / n).collect::<Vec<bool>>(), &[n, n])?;
    let rows = Tensor::where_(&eye, &c(1.0), &xm.unsqueeze(-2)?)?.cumprod(-1)?;
    let terms = Tensor::where_(&upper, &rows.mul(&gm.unsqueeze(-2)?)?, &c(0.0))?;
    terms.sum(Some(&[-1]), false)?.transpose(dim as isize, last)
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

fn c(v: f64) -> Tensor {
    Tensor::scalar(v)
}

/// Gradient of a `Unary` op; `s` is its saved input, or its output for ops that save it.
/// The gradients of the commonest activations in one pass over `g` and the saved tensor, when the
/// backward pass is not itself recorded (`create_graph=False`): the formulas in `unary_grad` would
/// allocate two or three temporaries each. Same values; `unary_grad` stays the definition.
fn fused_unary_grad(op: Unary, g: &Tensor, s: &Tensor) -> Option<Result<Tensor>> {
    if !fusable(g, s) {
        return None;
    }
    macro_rules! fused {
        ($T:ident, $one:expr, $zero:expr) => {
            match op {
                Unary::Tanh => zip::<$T>(g, s, |g, y| g * ($one - y * y)),
                Unary::Sigmoid => zip::<$T>(g, s, |g, y| g * (y * ($one - y))),
                Unary::Relu => zip::<$T>(g, s, |g, y| if y > $zero { g } else { $zero }),
                _ => return None,
            }
        };
    }
    Some(match g.dtype() {
        DType::F32 => fused!(f32, 1.0f32, 0.0f32),
        DType::F64 => fused!(f64, 1.0f64, 0.0f64),
        _ => return None,
    })
}

/// Whether a gradient can be made in one pass over `g` and a saved tensor `s`: the backward pass is
/// not recorded, and the two agree in shape and dtype.
fn fusable(g: &Tensor, s: &Tensor) -> bool {
    !super::grad_mode::is_enabled() && g.dtype() == s.dtype() && g.shape() == s.shape()
}

/// `f(g, s)` elementwise into a new tensor (the two broadcast to one shape already).
fn zip<T: crate::element::Float>(g: &Tensor, s: &Tensor, f: impl Fn(T, T) -> T + Sync) -> Result<Tensor> {
    let v =
        g.with_data(|lg, xg: &[T]| s.with_data(|ls, xs: &[T]| crate::kernels::elementwise::map2(lg, xg, ls, xs, &f)));
    Tensor::from_vec(v, g.shape())
}

/// The gradient of `x * x` when not recorded: `g·x + g·x`, the sum the engine would otherwise form of
/// the two factors' gradients (so the same bits), in one pass.
fn fused_square_grad(g: &Tensor, x: &Tensor) -> Option<Result<Tensor>> {
    if !fusable(g, x) {
        return None;
    }
    Some(match g.dtype() {
        DType::F32 => zip::<f32>(g, x, |g, x| (g * x) + (g * x)),
        DType::F64 => zip::<f64>(g, x, |g, x| (g * x) + (g * x)),
        _ => return None,
    })
}

fn unary_grad(op: Unary, g: &Tensor, s: &Tensor) -> Result<Tensor> {
    use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2};
    use Unary::*;
    let zero = || Ok(Tensor::zeros(g.shape(), g.dtype()));
    match op {
        Abs => g.mul(&s.sign()?),
        Sign | Floor | Ceil | Round | RoundDecimals { .. } | Trunc => zero(),
        Frac => Ok(g.clone()),
        Sqrt => g.div(&s.mul(&c(2.0))?),
        Rsqrt => g.mul(&s.pow(&c(3.0))?.mul(&c(-0.5))?),
        Reciprocal => g.mul(&s.mul(s)?.neg()?),
        Exp2 => g.mul(&s.mul(&c(LN_2))?),
        Expm1 => g.mul(&s.add(&c(1.0))?),
        Log2 => g.div(&s.mul(&c(LN_2))?),
        Log10 => g.div(&s.mul(&c(LN_10))?),
        Log1p => g.div(&s.add(&c(1.0))?),
        Sin => g.mul(&s.cos()?),
        Cos => g.mul(&s.sin()?.neg()?),
        Tan => g.mul(&s.mul(s)?.add(&c(1.0))?),
        Asin => g.mul(&c(1.0).sub(&s.mul(s)?)?.rsqrt()?),
        Acos => g.mul(&c(1.0).sub(&s.mul(s)?)?.rsqrt()?.neg()?),
        Atan => g.div(&s.mul(s)?.add(&c(1.0))?),
        Sinh => g.mul(&s.cosh()?),
        Cosh => g.mul(&s.sinh()?),
        Tanh => g.mul(&c(1.0).sub(&s.mul(s)?)?),
        Sigmoid => g.mul(&s.mul(&c(1.0).sub(s)?)?),
        Relu => Tensor::where_(&s.gt(&c(0.0))?, g, &c(0.0)),
        Erf => g.mul(&s.mul(s)?.neg()?.exp()?.mul(&c(FRAC_2_SQRT_PI))?),
        Silu => {
            let sig = s.sigmoid()?;
            g.mul(&sig.mul(&s.mul(&c(1.0).sub(&sig)?)?.add(&c(1.0))?)?)
        }
        Gelu { tanh: false } => {
            // Φ(x) + x·φ(x)
            let cdf = s.mul(&c(std::f64::consts::FRAC_1_SQRT_2))?.erf()?.add(&c(1.0))?.mul(&c(0.5))?;
            let pdf =
                s.mul(s)?.mul(&c(-0.5))?.exp()?.mul(&c(0.5 * FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2))?;
            g.mul(&cdf.add(&s.mul(&pdf)?)?)
        }
        Gelu { tanh: true } => {
            let (k, a) = (0.797_884_560_802_865_4, 0.044715);
            let x2 = s.mul(s)?;
            let t = s.mul(&x2.mul(&c(a))?.add(&c(1.0))?)?.mul(&c(k))?.tanh()?;
            let dinner = x2.mul(&c(3.0 * a * k))?.add(&c(k))?;
            let left = t.add(&c(1.0))?.mul(&c(0.5))?;
            let right = s.mul(&c(0.5))?.mul(&c(1.0).sub(&t.mul(&t)?)?)?.mul(&dinner)?;
            g.mul(&left.add(&right)?)
        }
        Softplus { beta, threshold } => {
            let z = s.mul(&c(beta))?;
            Tensor::where_(&z.gt(&c(threshold))?, g, &g.mul(&z.sigmoid()?)?)
        }
        Elu { alpha } => Tensor::where_(&s.gt(&c(0.0))?, g, &g.mul(&s.exp()?.mul(&c(alpha))?)?),
        LeakyRelu { slope } => Tensor::where_(&s.gt(&c(0.0))?, g, &g.mul(&c(slope))?),
        Hardtanh { min, max } => {
            let inside = s.gt(&c(min))?.logical_and(&s.lt(&c(max))?)?;
            Tensor::where_(&inside, g, &c(0.0))
        }
        Logit { eps } => {
            let d = g.div(&s.mul(&c(1.0).sub(s)?)?)?;
            match eps {
                Some(e) => {
                    let inside = s.ge(&c(e))?.logical_and(&s.le(&c(1.0 - e))?)?;
                    Tensor::where_(&inside, &d, &c(0.0))
                }
                None => {
                    let outside = s.lt(&c(0.0))?.logical_or(&s.gt(&c(1.0))?)?;
                    Tensor::where_(&outside, &c(f64::NAN), &d)
                }
            }
        }
    }
}

/// 1 where x > y, 0.5 where x == y, 0 elsewhere (how maximum/minimum split a gradient at ties).
fn tie_weight(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    Tensor::where_(&x.gt(y)?, &c(1.0), &Tensor::where_(&x.eq(y)?, &c(0.5), &c(0.0))?)
}

fn binary_grad(
    op: BinaryFn,
    g: &Tensor,
    a: &Tensor,
    b: &Tensor,
    need_a: bool,
    need_b: bool,
) -> Result<Vec<Option<Tensor>>> {
    Ok(match op {
        BinaryFn::Maximum | BinaryFn::Minimum => {
            let w = if op == BinaryFn::Maximum { tie_weight(a, b)? } else { tie_weight(b, a)? };
            vec![opt(need_a, || g.mul(&w))?, opt(need_b, || g.mul(&c(1.0).sub(&w)?))?]
        }
        BinaryFn::Atan2 => {
            let r2 = a.mul(a)?.add(&b.mul(b)?)?;
            vec![opt(need_a, || g.mul(b)?.div(&r2))?, opt(need_b, || g.mul(&a.neg()?)?.div(&r2))?]
        }
        BinaryFn::Fmod | BinaryFn::Remainder => {
            let q = a.div(b)?;
            let q = if op == BinaryFn::Fmod { q.unary(Unary::Trunc)? } else { q.unary(Unary::Floor)? };
            vec![opt(need_a, || Ok(g.clone()))?, opt(need_b, || g.mul(&q.neg()?))?]
        }
        // piecewise constant: zero almost everywhere, as torch
        BinaryFn::FloorDiv | BinaryFn::TruncDiv => {
            let zeros = || Ok(Tensor::zeros(g.shape(), g.dtype()));
            vec![opt(need_a, zeros)?, opt(need_b, zeros)?]
        }
    })
}
