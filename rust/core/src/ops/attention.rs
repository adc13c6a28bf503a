//! Scaled dot-product attention without dropout as one node, as torch's CPU flash path records it
//! (`ScaledDotProductFlashAttentionForCpuBackward0`): the composition records ~8 nodes and keeps the
//! (..., L, S) weights alive for backward; this keeps q, k, v, the output and one logsumexp per row.
//! Forward and (unrecorded) backward run kernels::attention, one head at a time; a recorded backward
//! (create_graph) is written with tensor ops so that it differentiates again.
use crate::autograd::grad_mode;
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, NodeKind};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::attention::{
    attention_backward, attention_forward, AttentionFloat, Dims, Inputs, Mask, Saved, View,
};
use crate::layout::Layout;
use crate::ops::formula::c as constant;
use crate::ops::slices::{with_layouts, with_slices};
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::sync::Arc;

/// q·kᵀ·scale (+ mask): the (..., L, S) scores.
fn scores(q: &Tensor, k: &Tensor, mask: Option<&Tensor>, scale: f64) -> Result<Tensor> {
    let s = q.matmul(&k.transpose(-2, -1)?)?.mul(&constant(scale))?;
    mask.map_or(Ok(s.clone()), |m| s.add(m))
}

/// The (L, S) additive causal mask (-inf above the diagonal), for the recorded backward.
fn causal_mask(l: usize, s: usize, dtype: DType) -> Result<Tensor> {
    let m: Vec<f64> = (0..l * s).map(|i| if i % s > i / s { f64::NEG_INFINITY } else { 0.0 }).collect();
    Ok(Tensor::from_vec(m, &[l, s])?.cast_detached(dtype))
}

/// The storage offset of each head's (L, S) block of a mask laid out as `layout` (batch dims first).
fn head_offsets(layout: &Layout, heads: usize) -> Vec<usize> {
    let batch = layout.ndim() - 2;
    (0..heads)
        .map(|mut h| {
            let mut off = layout.offset;
            for d in (0..batch).rev() {
                off += (h % layout.shape[d]) * layout.strides[d];
                h /= layout.shape[d];
            }
            off
        })
        .collect()
}

/// Runs `f` with the mask (already of the inputs' dtype and expanded to (..., L, S)) as a kernel view.
fn with_mask<T: Element, R>(mask: Option<&Tensor>, heads: usize, f: impl FnOnce(Option<&Mask<'_, T>>) -> R) -> R {
    match mask {
        None => f(None),
        Some(m) => m.with_data(|layout, data: &[T]| {
            let n = layout.ndim();
            let view = Mask {
                data,
                head: head_offsets(layout, heads),
                row: layout.strides[n - 2],
                col: layout.strides[n - 1],
            };
            f(Some(&view))
        }),
    }
}

fn dims_of(q: &Tensor, k: &Tensor, v: &Tensor, scale: f64, causal: bool) -> Dims {
    let n = q.ndim();
    Dims {
        heads: q.shape()[..n - 2].iter().product(),
        l: q.shape()[n - 2],
        s: k.shape()[n - 2],
        e: q.shape()[n - 1],
        ev: v.shape()[n - 1],
        scale,
        causal,
    }
}

/// Whether the kernel reads `t` in place: rows of unit stride (any row and head strides).
fn readable(t: &Tensor) -> bool {
    let n = t.ndim();
    t.strides()[n - 1] == 1 || t.shape()[n - 1] <= 1
}

fn view<'a, T>((data, layout): &(&'a [T], Layout), heads: usize) -> View<'a, T> {
    View { data, head: head_offsets(layout, heads), row: layout.strides[layout.ndim() - 2] }
}

/// The output's layout, torch's: a 4-D query whose heads are inner to its rows (the usual split of one
/// (B, L, 3·C) projection) gives (B, H, L, Ev) over a (B, L, H, Ev) buffer, so that the usual
/// `out.transpose(1, 2).contiguous()` before the out-projection copies nothing; row-major otherwise.
fn output_layout(shape: &[usize], q: &Tensor) -> Layout {
    match *shape {
        [b, h, l, ev] if q.strides()[1] < q.strides()[2] => {
            Layout { shape: vec![b, h, l, ev], strides: vec![l * h * ev, ev, h * ev, 1], offset: 0 }
        }
        _ => Layout::contiguous(shape),
    }
}

fn forward_typed<T: AttentionFloat>(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    d: &Dims,
) -> Result<(Tensor, Tensor)> {
    let n = q.ndim();
    let mut out_shape = q.shape().to_vec();
    out_shape[n - 1] = d.ev;
    let layout = output_layout(&out_shape, q);
    let (out_head, out_row) = (head_offsets(&layout, d.heads), layout.strides[n - 2]);
    let (out, lse) = with_layouts(&[q, k, v], readable, |x: &[(&[T], Layout)]| {
        let inputs = Inputs { q: view(&x[0], d.heads), k: view(&x[1], d.heads), v: view(&x[2], d.heads) };
        with_mask(mask, d.heads, |m| attention_forward(&inputs, m, d, out_head, out_row))
    });
    let out = Tensor::from_storage(Arc::new(Storage::new(T::into_buffer(out))), layout)?;
    Ok((out, Tensor::from_vec(lse, &q.shape()[..n - 1])?))
}

fn backward_typed<T: AttentionFloat>(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    out: &Tensor,
    lse: &Tensor,
    g: &Tensor,
    mask: Option<&Tensor>,
    d: &Dims,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (dq, dk, dv) = with_slices(&[lse], |ls: &[&[T]]| {
        with_layouts(&[q, k, v, out, g], readable, |x: &[(&[T], Layout)]| {
            let saved = Saved {
                x: Inputs { q: view(&x[0], d.heads), k: view(&x[1], d.heads), v: view(&x[2], d.heads) },
                out: view(&x[3], d.heads),
                lse: ls[0],
                grad: view(&x[4], d.heads),
            };
            with_mask(mask, d.heads, |m| attention_backward(&saved, m, d))
        })
    });
    Ok((Tensor::from_vec(dq, q.shape())?, Tensor::from_vec(dk, k.shape())?, Tensor::from_vec(dv, v.shape())?))
}

/// The mask in the inputs' dtype, broadcast to (..., L, S) (a view: no copy).
fn expanded_mask(mask: &Tensor, q: &Tensor, k: &Tensor) -> Result<Tensor> {
    let n = q.ndim();
    let mut shape = q.shape()[..n - 1].to_vec();
    shape.push(k.shape()[n - 2]);
    mask.detach().cast_detached(q.dtype()).expand(&shape).map(|m| m.detach())
}

/// Softmax over the last dim, zero on rows masked everywhere, written with differentiable ops.
fn safe_softmax(s: &Tensor) -> Result<Tensor> {
    let live = s.ne(&constant(f64::NEG_INFINITY))?.all_any(Some(&[-1]), true, false)?;
    let p = Tensor::where_(&live, s, &constant(0.0))?.softmax(-1, false)?;
    Tensor::where_(&live, &p, &constant(0.0))
}

impl Tensor {
    /// softmax(self·keyᵀ·scale + mask)·value over (..., L, E) × (..., S, E) × (..., S, Ev) of one dtype
    /// and equal batch dims; `mask` is an additive float mask broadcastable to (..., L, S) (a bool mask
    /// already turned into one by the caller); `is_causal` keeps s ≤ l on top of it.
    pub fn scaled_dot_product_attention(
        &self,
        key: &Tensor,
        value: &Tensor,
        mask: Option<&Tensor>,
        scale: f64,
        is_causal: bool,
    ) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(self), Some(key), Some(value), mask]);
        let eager = move |x: &[&Tensor]| match optional_args(x, given) {
            [Some(q), Some(k), Some(v), mask] => q.scaled_dot_product_attention_eager(k, v, mask, scale, is_causal),
            _ => unreachable!("query, key and value are always given"),
        };
        traced("scaled_dot_product_attention", NodeKind::Opaque, &operands, || eager(&operands), || eager)
    }

    fn scaled_dot_product_attention_eager(
        &self,
        key: &Tensor,
        value: &Tensor,
        mask: Option<&Tensor>,
        scale: f64,
        is_causal: bool,
    ) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(self), Some(key), Some(value), mask], |[q, k, v, mask]| {
            let (q, k, v) = (q.expect("given"), k.expect("given"), v.expect("given"));
            if !matches!(q.dtype(), DType::BF16 | DType::F16) || k.dtype() != q.dtype() || v.dtype() != q.dtype() {
                return q.scaled_dot_product_attention_uncast(k, v, mask, scale, is_causal);
            }
            // the halves compute in float32 (each input rounded to its dtype first) and round the result
            let wide = |t: &Tensor| t.to_dtype(DType::F32);
            let mask = mask.map(wide).transpose()?;
            let out =
                wide(q)?.scaled_dot_product_attention_uncast(&wide(k)?, &wide(v)?, mask.as_ref(), scale, is_causal)?;
            out.to_dtype(q.dtype())
        })
    }

    fn scaled_dot_product_attention_uncast(
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
        if q.shape()[n - 1] == 0 || v.shape()[n - 1] == 0 {
            // the kernels step over rows of at least one element; F.scaled_dot_product_attention composes
            // heads of width 0 from tensor ops instead
            bail!(Runtime, "scaled_dot_product_attention: the fused kernel needs heads of width 1 or more");
        }
        let mask_d = mask.map(Tensor::detach);
        let expanded = mask_d.as_ref().map(|m| expanded_mask(m, q, k)).transpose()?;
        let d = dims_of(q, k, v, scale, is_causal);
        let (out, lse) = match q.dtype() {
            DType::F32 => forward_typed::<f32>(q, k, v, expanded.as_ref(), &d)?,
            _ => forward_typed::<f64>(q, k, v, expanded.as_ref(), &d)?,
        };
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
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (q, k, v) = (ctx.unpack(&self.query)?, ctx.unpack(&self.key)?, ctx.unpack(&self.value)?);
        let mut mask = self.attn_mask.as_ref().map(|m| ctx.unpack(m)).transpose()?;
        if !grad_mode::is_enabled() {
            let (out, lse) = (ctx.unpack(&self.output)?, ctx.unpack(&self.logsumexp)?);
            let d = dims_of(&q, &k, &v, self.scale, self.is_causal);
            let expanded = mask.as_ref().map(|m| expanded_mask(m, &q, &k)).transpose()?;
            let (dq, dk, dv) = match q.dtype() {
                DType::F32 => backward_typed::<f32>(&q, &k, &v, &out, &lse, g, expanded.as_ref(), &d)?,
                _ => backward_typed::<f64>(&q, &k, &v, &out, &lse, g, expanded.as_ref(), &d)?,
            };
            return Ok(vec![ctx.needs(0).then_some(dq), ctx.needs(1).then_some(dk), ctx.needs(2).then_some(dv)]);
        }
        if self.is_causal {
            let n = q.ndim();
            let causal = causal_mask(q.shape()[n - 2], k.shape()[n - 2], q.dtype())?;
            mask = Some(match mask {
                Some(m) => m.add(&causal)?,
                None => causal,
            });
        }
        let s = scores(&q, &k, mask.as_ref(), self.scale)?;
        let p = safe_softmax(&s)?;
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
