//! `layer_norm` as one node (NativeLayerNormBackward0): normalise over the trailing dims, then an
//! optional elementwise affine map. float32 and float64 run kernels::layer_norm (statistics and map in
//! one pass over each row); an unrecorded backward too, while a recorded one (create_graph) recomputes
//! the statistics with tensor ops, so it differentiates again.
use crate::autograd::{grad_mode, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, NodeKind};
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::layer_norm::{layer_norm_backward, layer_norm_forward};
use crate::ops::slices::with_slices;
use crate::tensor::Tensor;

/// Mean and 1/sqrt(var + eps) over `dims` (kept as size-1 dims).
fn statistics(x: &Tensor, dims: &[isize], eps: f64) -> Result<(Tensor, Tensor)> {
    let mean = x.mean(Some(dims), true)?;
    let var = x.var_std(Some(dims), 0.0, true, false)?;
    Ok((mean, var.add(&Tensor::scalar(eps))?.rsqrt()?))
}

/// The kernel's forward over `x` with rows of `n`.
fn forward_typed<T: Float>(x: &Tensor, w: Option<&Tensor>, b: Option<&Tensor>, n: usize, eps: f64) -> Result<Tensor> {
    let mut ts = vec![x];
    ts.extend(w);
    ts.extend(b);
    let out = with_slices(&ts, |s: &[&[T]]| {
        let w_s = w.map(|_| s[1]);
        let b_s = b.map(|_| s[ts.len() - 1]);
        layer_norm_forward(s[0], w_s, b_s, n, eps)
    });
    Tensor::from_vec(out, x.shape())
}

/// The kernel's backward: (dx, dweight, dbias) for the output gradient `g`.
fn backward_typed<T: Float>(
    x: &Tensor,
    g: &Tensor,
    w: Option<&Tensor>,
    normalized: &[usize],
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let n = normalized.iter().product();
    let mut ts = vec![x, g];
    ts.extend(w);
    let (dx, dw, db) = with_slices(&ts, |s: &[&[T]]| layer_norm_backward(s[0], s[1], w.map(|_| s[2]), n, eps));
    let cast = |v: Vec<f64>| Tensor::from_vec(v.into_iter().map(T::from_f64).collect::<Vec<T>>(), normalized);
    Ok((Tensor::from_vec(dx, x.shape())?, cast(dw)?, cast(db)?))
}

impl Tensor {
    pub fn layer_norm(
        &self,
        normalized_shape: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(self), weight, bias]);
        let shape = normalized_shape.to_vec();
        let eager = move |x: &[&Tensor]| match optional_args(x, given) {
            [Some(input), weight, bias] => input.layer_norm_eager(&shape, weight, bias, eps),
            _ => unreachable!("the input is always given"),
        };
        let replay = eager.clone();
        traced("layer_norm", NodeKind::Opaque, &operands, || eager(&operands), || replay)
    }

    fn layer_norm_eager(
        &self,
        normalized_shape: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let (nd, k) = (self.ndim(), normalized_shape.len());
        if k == 0 {
            bail!(
                Runtime,
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one \
                element, but got normalized_shape = []"
            );
        }
        for (what, t) in [("weight", weight), ("bias", bias)] {
            if let Some(t) = t {
                if t.shape() != normalized_shape {
                    bail!(
                        Runtime,
                        "Expected {what} to be of same shape as normalized_shape, but got {what} of shape \
                        {:?} and normalized_shape = {:?}",
                        t.shape(),
                        normalized_shape
                    );
                }
            }
        }
        if nd < k || self.shape()[nd - k..] != *normalized_shape {
            let mut expected = String::from("[*");
            for s in normalized_shape {
                expected += &format!(", {s}");
            }
            bail!(
                Runtime,
                "Given normalized_shape={:?}, expected input with shape {expected}], but got input of size{:?}",
                normalized_shape,
                self.shape()
            );
        }
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"LayerNormKernelImpl\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let dims: Vec<isize> = (nd - k..nd).map(|d| d as isize).collect();
        let n: usize = normalized_shape.iter().product();
        let out = match self.dtype() {
            DType::F32 => forward_typed::<f32>(self, weight, bias, n, eps)?,
            DType::F64 => forward_typed::<f64>(self, weight, bias, n, eps)?,
            _ => {
                let x = self.detach();
                let (mean, rstd) = statistics(&x, &dims, eps)?;
                let mut out = x.sub(&mean)?.mul(&rstd)?;
                if let Some(w) = weight {
                    out = out.mul(&w.detach())?;
                }
                if let Some(b) = bias {
                    out = out.add(&b.detach())?;
                }
                out
            }
        };
        let mut inputs = vec![self];
        inputs.extend(weight);
        inputs.extend(bias);
        let rule = |_: &Tensor| NativeLayerNormBackward0 {
            normalized_dims: dims,
            eps,
            input: SavedTensor::input(self),
            weight: weight.map(SavedTensor::input),
            has_bias: bias.is_some(),
        };
        Ok(record(out, &inputs, rule))
    }
}

crate::backward_rule! {
    /// `layer_norm`: the inputs are (input, weight if given, bias if given); the statistics are
    /// recomputed from the saved input.
    pub struct NativeLayerNormBackward0 {
        normalized_dims: Vec<isize>,
        eps: f64,
        input: SavedTensor,
        weight: Option<SavedTensor>,
        has_bias: bool,
    }
}
impl Backward for NativeLayerNormBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, weight) = (ctx.unpack(&self.input)?, ctx.unpack_opt(&self.weight)?);
        let dims = &self.normalized_dims;
        if !grad_mode::is_enabled() && matches!(x.dtype(), DType::F32 | DType::F64) {
            let normalized = &x.shape()[x.ndim() - dims.len()..];
            let (dx, dw, db) = match x.dtype() {
                DType::F32 => backward_typed::<f32>(&x, g, weight.as_ref(), normalized, self.eps)?,
                _ => backward_typed::<f64>(&x, g, weight.as_ref(), normalized, self.eps)?,
            };
            let mut grads = vec![ctx.needs(0).then_some(dx)];
            if weight.is_some() {
                grads.push(ctx.needs(1).then_some(dw));
            }
            if self.has_bias {
                grads.push(ctx.needs(grads.len()).then_some(db));
            }
            return Ok(grads);
        }
        let (mean, rstd) = statistics(&x, dims, self.eps)?;
        let xhat = x.sub(&mean)?.mul(&rstd)?;
        let batch: Vec<isize> = (0..x.ndim() as isize - dims.len() as isize).collect();
        // reduce over the leading (batch) dims; with none, the gradient already has the weight's shape
        let over_batch = |t: Tensor| if batch.is_empty() { Ok(t) } else { t.sum(Some(&batch), false) };
        let mut grads = vec![ctx.grad_if(0, || {
            // dx = rstd · (dx̂ - mean(dx̂) - x̂ · mean(dx̂ · x̂)), with dx̂ = g · weight
            let gxhat = match &weight {
                Some(w) => g.mul(w)?,
                None => g.clone(),
            };
            let centred = gxhat.sub(&gxhat.mean(Some(dims), true)?)?;
            let proj = xhat.mul(&gxhat.mul(&xhat)?.mean(Some(dims), true)?)?;
            rstd.mul(&centred.sub(&proj)?)
        })?];
        if weight.is_some() {
            grads.push(ctx.grad_if(1, || over_batch(g.mul(&xhat)?))?);
        }
        if self.has_bias {
            // the bias is the input after the weight, when there is one
            grads.push(ctx.grad_if(grads.len(), || over_batch(g.clone()))?);
        }
        Ok(grads)
    }
}
