//! Scaled dot-product attention without dropout as one node, as torch's CPU flash path records it
//! (`ScaledDotProductFlashAttentionForCpuBackward0`): the composition records ~8 nodes and keeps the
//! (..., L, S) weights alive for backward; this keeps q, k, v, the output and one logsumexp per row.
use crate::autograd::grad_mode;
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::formula::c as constant;
use crate::tensor::Tensor;

/// q·kᵀ·scale (+ mask): the (..., L, S) scores.
fn scores(q: &Tensor, k: &Tensor, mask: Option<&Tensor>, scale: f64) -> Result<Tensor> {
    let s = q.matmul(&k.transpose(-2, -1)?)?.mul(&constant(scale))?;
    mask.map_or(Ok(s.clone()), |m| s.add(m))
}

/// The row logsumexp with rows masked everywhere (-inf) set to 0, so exp(s - lse) is 0 there and never
/// NaN (torch's safe softmax).
fn safe_logsumexp(s: &Tensor) -> Result<Tensor> {
    let lse = s.logsumexp(&[-1], true)?;
    let live = lse.ne(&constant(f64::NEG_INFINITY))?;
    Tensor::where_(&live, &lse, &constant(0.0))
}

/// Softmax over the last dim, zero on rows masked everywhere, written with differentiable ops.
fn safe_softmax(s: &Tensor) -> Result<Tensor> {
    let live = s.ne(&constant(f64::NEG_INFINITY))?.all_any(Some(&[-1]), true, false)?;
    let p = Tensor::where_(&live, s, &constant(0.0))?.softmax(-1, false)?;
    Tensor::where_(&live, &p, &constant(0.0))
}

impl Tensor {
    /// softmax(self·keyᵀ·scale + mask)·value over (..., L, E) × (..., S, E) × (..., S, Ev) of one dtype
    /// and equal batch dims; `mask` is an additive float mask broadcastable to (..., L, S) (a bool mask or
    /// is_causal already turned into one by the caller; `is_causal` is kept as the node's field).
    pub fn scaled_dot_product_attention(
        &self,
        key: &Tensor,
        value: &Tensor,
        mask: Option<&Tensor>,
        scale: f64,
        is_causal: bool,
    ) -> Result<Tensor> {
        let (q, k, v) = (self, key, value);
        if !matches!(q.dtype(), DType::F32 | DType::F64) || k.dtype() != q.dtype() || v.dtype() != q.dtype() {
            bail!(
                Runtime,
                "scaled_dot_product_attention: expected float32 or float64 query, key and value of one dtype"
            );
        }
        let n = q.ndim();
        if n < 2
            || k.ndim() != n
            || v.ndim() != n
            || q.shape()[..n - 2] != k.shape()[..n - 2]
            || k.shape()[..n - 1] != v.shape()[..n - 1]
            || q.shape()[n - 1] != k.shape()[n - 1]
        {
            bail!(
                Runtime,
                "scaled_dot_product_attention: expected query (..., L, E), key (..., S, E) and value (..., S, Ev) \
                 with equal batch dims, but got {:?}, {:?} and {:?}",
                q.shape(),
                k.shape(),
                v.shape()
            );
        }
        let mask_d = mask.map(Tensor::detach);
        let s = scores(&q.detach(), &k.detach(), mask_d.as_ref(), scale)?;
        let lse = safe_logsumexp(&s)?;
        let out = s.sub(&lse)?.exp()?.matmul(&v.detach())?;
        Ok(record(out, &[q, k, v], |out| ScaledDotProductFlashAttentionForCpuBackward0 {
            query: SavedTensor::input(q),
            key: SavedTensor::input(k),
            value: SavedTensor::input(v),
            output: SavedTensor::output(out),
            logsumexp: SavedTensor::input(&lse),
            attn_mask: mask_d.as_ref().map(SavedTensor::input),
            scale,
            is_causal,
            dropout_p: 0.0,
        }))
    }
}

crate::backward_rule! {
    /// Attention's one node: inputs (query, key, value). The weights are recomputed from the saved row
    /// logsumexp; a recorded backward (create_graph) recomputes them with a differentiable softmax.
    pub struct ScaledDotProductFlashAttentionForCpuBackward0 {
        query: SavedTensor,
        key: SavedTensor,
        value: SavedTensor,
        output: SavedTensor,
        logsumexp: SavedTensor,
        attn_mask: Option<SavedTensor>,
        scale: f64,
        is_causal: bool,
        dropout_p: f64,
    }
}
impl Backward for ScaledDotProductFlashAttentionForCpuBackward0 {
    fn name(&self) -> &'static str {
        "ScaledDotProductFlashAttentionForCpuBackward0"
    }
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (q, k, v) = (ctx.unpack(&self.query)?, ctx.unpack(&self.key)?, ctx.unpack(&self.value)?);
        let mask = self.attn_mask.as_ref().map(|m| ctx.unpack(m)).transpose()?;
        let s = scores(&q, &k, mask.as_ref(), self.scale)?;
        let p =
            if grad_mode::is_enabled() { safe_softmax(&s)? } else { s.sub(&ctx.unpack(&self.logsumexp)?)?.exp()? };
        let dv = ctx.needs(2).then(|| p.transpose(-2, -1)?.matmul(g)).transpose()?;
        let dq_dk = if ctx.needs(0) || ctx.needs(1) {
            let dp = g.matmul(&v.transpose(-2, -1)?)?;
            let row = p.mul(&dp)?.sum(Some(&[-1]), true)?;
            let ds = p.mul(&dp.sub(&row)?)?.mul(&constant(self.scale))?;
            let dq = ctx.needs(0).then(|| ds.matmul(&k)).transpose()?;
            let dk = ctx.needs(1).then(|| ds.transpose(-2, -1)?.matmul(&q)).transpose()?;
            (dq, dk)
        } else {
            (None, None)
        };
        Ok(vec![dq_dk.0, dq_dk.1, dv])
    }
}
