//! Pointwise losses with their own PyTorch grad_fn: smooth_l1_loss, binary_cross_entropy and
//! binary_cross_entropy_with_logits. Each is a per-element loss (broadcast input/target/weights)
//! followed by the reduction; forward and backward are both written with tensor ops, so the backward
//! is itself differentiable.
use crate::autograd::{record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::dtype::result_type;
use crate::error::Result;
use crate::ops::formula::c;
use crate::ops::nn::Reduction;
use crate::tensor::Tensor;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossKind {
    SmoothL1 { beta: f64 },
    BinaryCrossEntropy,
    BinaryCrossEntropyWithLogits,
}

/// Optional per-element factors of the BCE losses: `weight`, and `pos_weight` (with logits only).
#[derive(Clone, Copy)]
pub struct LossWeights<'a> {
    pub weight: Option<&'a Tensor>,
    pub pos_weight: Option<&'a Tensor>,
}

/// max(-x, 0) + log(1 + exp(-|x|)) = log(1 + exp(-x)), without overflow.
fn softplus_neg(x: &Tensor) -> Result<Tensor> {
    x.neg()?.maximum(&c(0.0))?.add(&x.abs()?.neg()?.exp()?.log1p()?)
}

/// The unreduced loss of each element.
fn pointwise(kind: LossKind, x: &Tensor, t: &Tensor, w: LossWeights) -> Result<Tensor> {
    let l = match kind {
        LossKind::SmoothL1 { beta } => {
            let d = x.sub(t)?.abs()?;
            if beta == 0.0 {
                return Ok(d);
            }
            Tensor::where_(&d.lt(&c(beta))?, &d.mul(&d)?.mul(&c(0.5 / beta))?, &d.sub(&c(0.5 * beta))?)?
        }
        LossKind::BinaryCrossEntropy => {
            // PyTorch clamps each log at -100 so x = 0 or 1 gives a finite loss
            let log_x = x.log()?.maximum(&c(-100.0))?;
            let log_1mx = c(1.0).sub(x)?.log()?.maximum(&c(-100.0))?;
            t.mul(&log_x)?.add(&c(1.0).sub(t)?.mul(&log_1mx)?)?.neg()?
        }
        LossKind::BinaryCrossEntropyWithLogits => {
            let sp = softplus_neg(x)?;
            let sp = match w.pos_weight {
                Some(pw) => sp.mul(&pw.sub(&c(1.0))?.mul(t)?.add(&c(1.0))?)?,
                None => sp,
            };
            c(1.0).sub(t)?.mul(x)?.add(&sp)?
        }
    };
    match w.weight {
        Some(w) => l.mul(w),
        None => Ok(l),
    }
}

/// d(loss element)/d(input) and d(loss element)/d(target).
fn pointwise_grads(kind: LossKind, x: &Tensor, t: &Tensor, w: LossWeights) -> Result<(Tensor, Tensor)> {
    let (gx, gt) = match kind {
        LossKind::SmoothL1 { beta } => {
            let d = x.sub(t)?;
            let gx = if beta == 0.0 {
                d.sign()?
            } else {
                // torch's branches: ±1 beyond ±beta, d / beta otherwise (so a NaN difference gives NaN)
                let inner = Tensor::where_(&d.lt(&c(-beta))?, &c(-1.0), &d.div(&c(beta))?)?;
                Tensor::where_(&d.gt(&c(beta))?, &c(1.0), &inner)?
            };
            let gt = gx.neg()?;
            (gx, gt)
        }
        LossKind::BinaryCrossEntropy => {
            // as PyTorch: (x - t) / max(x (1 - x), ε) with ε the float 1e-12 in every dtype;
            // d/dt = log(1 - x) - log(x)
            let eps = f64::from(1e-12f32);
            let gx = x.sub(t)?.div(&x.mul(&c(1.0).sub(x)?)?.maximum(&c(eps))?)?;
            let gt = c(1.0).sub(x)?.log()?.sub(&x.log()?)?;
            (gx, gt)
        }
        LossKind::BinaryCrossEntropyWithLogits => match w.pos_weight {
            Some(pw) => {
                // d/dx = σ(x)(1 + (pw - 1) t) - pw t;  d/dt = (pw - 1) softplus(-x) - x
                let pw1 = pw.sub(&c(1.0))?;
                let gx = x.sigmoid()?.mul(&pw1.mul(t)?.add(&c(1.0))?)?.sub(&pw.mul(t)?)?;
                let gt = pw1.mul(&softplus_neg(x)?)?.sub(x)?;
                (gx, gt)
            }
            None => (x.sigmoid()?.sub(t)?, x.neg()?),
        },
    };
    match w.weight {
        Some(w) => Ok((gx.mul(w)?, gt.mul(w)?)),
        None => Ok((gx, gt)),
    }
}

impl Tensor {
    /// One of the pointwise losses of `self` (the input) against `target`.
    pub fn pointwise_loss(
        &self,
        target: &Tensor,
        kind: LossKind,
        weights: LossWeights,
        reduction: Reduction,
    ) -> Result<Tensor> {
        let fp32 = crate::autocast::Policy::Fp32;
        crate::autocast::run2(fp32, self, target, |x, t| x.pointwise_loss_uncast(t, kind, weights, reduction))
    }

    fn pointwise_loss_uncast(
        &self,
        target: &Tensor,
        kind: LossKind,
        weights: LossWeights,
        reduction: Reduction,
    ) -> Result<Tensor> {
        let dtype = result_type(self.promotion_key(), target.promotion_key());
        if !dtype.is_float() {
            let kernel = match kind {
                LossKind::SmoothL1 { .. } => "smooth_l1_cpu",
                LossKind::BinaryCrossEntropy => "binary_cross_entropy",
                LossKind::BinaryCrossEntropyWithLogits => "binary_cross_entropy_with_logits",
            };
            bail!(NotImplemented, "\"{kernel}\" not implemented for '{}'", dtype.scalar_type_name());
        }
        if kind == LossKind::BinaryCrossEntropy {
            let x = self.detach();
            if x.lt(&c(0.0))?.logical_or(&x.gt(&c(1.0))?)?.any()?.to_vec::<bool>()[0] {
                bail!(Runtime, "all elements of input should be between 0 and 1");
            }
        }
        let (x, t) = (self.detach(), target.detach());
        let (w, pw) = (weights.weight.map(Tensor::detach), weights.pos_weight.map(Tensor::detach));
        let detached = LossWeights { weight: w.as_ref(), pos_weight: pw.as_ref() };
        let l = pointwise(kind, &x, &t, detached)?;
        let numel = l.numel();
        let out = match reduction {
            Reduction::None => l,
            Reduction::Sum => l.sum(None, false)?,
            Reduction::Mean => l.mean(None, false)?,
        };
        let rule = |_: &Tensor| PointwiseLossBackward {
            kind,
            reduction,
            numel,
            self_: SavedTensor::input(self),
            target: SavedTensor::input(target),
            weight: weights.weight.map(SavedTensor::input),
            pos_weight: weights.pos_weight.map(SavedTensor::input),
        };
        Ok(record(out, &[self, target], rule))
    }
}

impl AsField for LossKind {
    fn as_field(&self) -> Field<'_> {
        match self {
            LossKind::SmoothL1 { beta } => Field::Float(*beta),
            _ => Field::Opaque,
        }
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.kind) {
        LossKind::SmoothL1 { .. } => "SmoothL1LossBackward0",
        LossKind::BinaryCrossEntropy => "BinaryCrossEntropyBackward0",
        LossKind::BinaryCrossEntropyWithLogits => "BinaryCrossEntropyWithLogitsBackward0",
    };
    /// smooth_l1_loss, binary_cross_entropy or binary_cross_entropy_with_logits (as `kind` says).
    pub struct PointwiseLossBackward {
        kind: LossKind,
        reduction: Reduction,
        numel: usize,
        self_: SavedTensor,
        target: SavedTensor,
        weight: Option<SavedTensor>,
        pos_weight: Option<SavedTensor>,
    }
}
impl Backward for PointwiseLossBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, t) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.target)?);
        let (weight, pos_weight) = (ctx.unpack_opt(&self.weight)?, ctx.unpack_opt(&self.pos_weight)?);
        let weights = LossWeights { weight: weight.as_ref(), pos_weight: pos_weight.as_ref() };
        let (gx, gt) = pointwise_grads(self.kind, &x, &t, weights)?;
        let g = if self.reduction == Reduction::Mean { g.div(&c(self.numel as f64))? } else { g.clone() };
        Ok(vec![ctx.grad_if(0, || g.mul(&gx))?, ctx.grad_if(1, || g.mul(&gt))?])
    }
}
