//! `batch_norm` as one node (NativeBatchNormBackward0), as PyTorch's CPU build records it: normalise each channel
//! of (N, C, *) input by the batch's statistics (training, which also moves the running statistics) or the running
//! ones, then an optional per-channel affine map. The work runs in kernels::batch_norm in float32 (half types too,
//! as PyTorch computes them) or float64; an unrecorded backward likewise, while a recorded one (create_graph)
//! recomputes the statistics with tensor ops, so it differentiates again.
use crate::autograd::{freed_error, grad_mode, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, NodeKind};
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::batch_norm::{batch_norm_backward, batch_norm_forward, Planes, Statistics};
use crate::ops::slices::with_slices;
use crate::tensor::Tensor;

/// What a call does besides normalising: PyTorch's `training`, `momentum` and `eps` arguments.
#[derive(Clone, Copy, Debug)]
pub struct BatchNormMode {
    pub training: bool,
    pub momentum: f64,
    pub eps: f64,
}

/// The optional per-channel tensors of a call, in PyTorch's argument order.
#[derive(Clone, Copy)]
pub struct ChannelTensors<'a> {
    pub weight: Option<&'a Tensor>,
    pub bias: Option<&'a Tensor>,
    pub running_mean: Option<&'a Tensor>,
    pub running_var: Option<&'a Tensor>,
}

fn planes(x: &Tensor) -> Planes {
    let shape = x.shape();
    Planes { batch: shape[0], channels: shape[1], spatial: shape[2..].iter().product() }
}

/// float64 for float64 input, else float32 (PyTorch's accumulate type for the half types).
fn compute_dtype(x: &Tensor) -> DType {
    if x.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// `t` contiguous in `dtype`, without history.
fn prepared(t: &Tensor, dtype: DType) -> Result<Tensor> {
    t.detach().to_dtype(dtype)?.contiguous()
}

/// PyTorch's rule for the per-channel tensors' dtypes: the input's, or float32 beside a half-type input.
fn check_parameter_dtype(x: DType, param: DType) -> Result<()> {
    match x {
        DType::F64 if param != DType::F64 => bail!(Runtime, "mixed dtype (CPU): all inputs must share same datatype."),
        DType::F64 => Ok(()),
        _ if param == x || param == DType::F32 => Ok(()),
        _ => bail!(Runtime, "mixed dtype (CPU): expect parameter to have scalar type of Float"),
    }
}

fn check(x: &Tensor, given: &ChannelTensors<'_>, mode: BatchNormMode) -> Result<()> {
    if !x.dtype().is_float() {
        bail!(NotImplemented, "\"batch_norm\" not implemented for '{}'", x.dtype().scalar_type_name());
    }
    // a 1-d input has no channel dimension: PyTorch reads its channels as 0, or fails reading size(1)
    let channels = x.shape().get(1).copied().unwrap_or(0);
    let named = [
        ("running_mean", given.running_mean),
        ("running_var", given.running_var),
        ("weight", given.weight),
        ("bias", given.bias),
    ];
    for (name, t) in named {
        if let Some(t) = t.filter(|t| t.numel() != channels) {
            bail!(Runtime, "{name} should contain {channels} elements not {}", t.numel());
        }
    }
    if x.ndim() < 2 {
        bail!(Index, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    }
    for t in named.iter().filter_map(|(_, t)| *t) {
        check_parameter_dtype(x.dtype(), t.dtype())?;
    }
    if mode.training {
        if planes(x).per_channel() <= 1 {
            let dims: Vec<String> = x.shape().iter().map(usize::to_string).collect();
            bail!(
                Value,
                "Expected more than 1 value per channel when training, got input size ferrograd.Size([{}])",
                dims.join(", ")
            );
        }
    } else if given.running_mean.is_none() {
        bail!(Runtime, "running_mean must be defined in evaluation mode");
    } else if given.running_var.is_none() {
        bail!(Runtime, "running_var must be defined in evaluation mode");
    }
    Ok(())
}

/// The kernel's forward in `T` over prepared (contiguous, `T`) tensors.
fn forward_typed<T: Float>(
    x: &Tensor,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    stats: Statistics<'_>,
) -> Result<(Tensor, Vec<f64>, Vec<f64>)> {
    let mut ts = vec![x];
    ts.extend(w);
    ts.extend(b);
    let p = planes(x);
    let (out, means, vars) = with_slices(&ts, |s: &[&[T]]| {
        let w_s = w.map(|_| s[1]);
        let b_s = b.map(|_| s[ts.len() - 1]);
        batch_norm_forward(s[0], w_s, b_s, p, stats)
    });
    Ok((Tensor::from_vec(out, x.shape())?, means, vars))
}

/// A [C] tensor of these values in `dtype`.
fn channel_vector(values: Vec<f64>, dtype: DType) -> Result<Tensor> {
    let n = values.len();
    Tensor::from_vec(values, &[n])?.to_dtype(dtype)
}

/// `running = momentum · batch + (1 - momentum) · running` for each given statistic, the variance's batch value
/// unbiased, written without history (PyTorch's formula; a traced write, so a compiled step repeats it).
fn update_running(given: &ChannelTensors<'_>, means: &[f64], vars: &[f64], count: usize, momentum: f64) -> Result<()> {
    let unbiased = count as f64 / (count - 1) as f64;
    let statistics = [(given.running_mean, means, 1.0), (given.running_var, vars, unbiased)];
    for (running, batch, factor) in statistics {
        let Some(running) = running else { continue };
        let old = running.to_vec::<f64>();
        let new: Vec<f64> =
            old.iter().zip(batch).map(|(r, b)| momentum * (b * factor) + (1.0 - momentum) * r).collect();
        let new = channel_vector(new, running.dtype())?.reshape(running.shape())?;
        running.write_untracked(&new, "copy_", Tensor::copy_from)?;
    }
    Ok(())
}

/// The running statistics as (mean, 1 / sqrt(var + eps)) per channel.
fn running_statistics(mean: &Tensor, var: &Tensor, eps: f64) -> (Vec<f64>, Vec<f64>) {
    (mean.to_vec::<f64>(), var.to_vec::<f64>().into_iter().map(|v| 1.0 / (v + eps).sqrt()).collect())
}

impl Tensor {
    /// PyTorch's `batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)`.
    pub fn batch_norm(&self, given: ChannelTensors<'_>, mode: BatchNormMode) -> Result<Tensor> {
        let ChannelTensors { weight, bias, running_mean, running_var } = given;
        let (operands, present) = operand_list([Some(self), weight, bias, running_mean, running_var]);
        let eager = move |x: &[&Tensor]| match optional_args(x, present) {
            [Some(input), weight, bias, running_mean, running_var] => {
                input.batch_norm_eager(ChannelTensors { weight, bias, running_mean, running_var }, mode)
            }
            _ => unreachable!("the input is always given"),
        };
        let replay = eager;
        traced("batch_norm", NodeKind::Opaque, &operands, || eager(&operands), || replay)
    }

    fn batch_norm_eager(&self, given: ChannelTensors<'_>, mode: BatchNormMode) -> Result<Tensor> {
        check(self, &given, mode)?;
        let dtype = compute_dtype(self);
        let x = prepared(self, dtype)?;
        let w = given.weight.map(|t| prepared(t, dtype)).transpose()?;
        let b = given.bias.map(|t| prepared(t, dtype)).transpose()?;
        let (mean, invstd);
        let stats = if mode.training {
            Statistics::Batch { eps: mode.eps }
        } else {
            let (rm, rv) = (given.running_mean.expect("checked"), given.running_var.expect("checked"));
            (mean, invstd) = running_statistics(rm, rv, mode.eps);
            Statistics::Given { mean: &mean, invstd: &invstd }
        };
        let (out, means, vars) = match dtype {
            DType::F64 => forward_typed::<f64>(&x, w.as_ref(), b.as_ref(), stats)?,
            _ => forward_typed::<f32>(&x, w.as_ref(), b.as_ref(), stats)?,
        };
        let out = out.to_dtype(self.dtype())?;
        let (save_mean, save_invstd) = if mode.training {
            update_running(&given, &means, &vars, planes(self).per_channel(), mode.momentum)?;
            let invstd = vars.iter().map(|v| 1.0 / (v + mode.eps).sqrt()).collect();
            (channel_vector(means, dtype)?, channel_vector(invstd, dtype)?)
        } else {
            (Tensor::zeros(&[0], dtype), Tensor::zeros(&[0], dtype))
        };
        let mut inputs = vec![self];
        inputs.extend(given.weight);
        inputs.extend(given.bias);
        let rule = |_: &Tensor| NativeBatchNormBackward0 {
            input: SavedTensor::input(self),
            weight: given.weight.map(SavedTensor::input),
            running_mean: given.running_mean.map(SavedTensor::input),
            running_var: given.running_var.map(SavedTensor::input),
            result1: SavedTensor::input(&save_mean),
            result2: SavedTensor::input(&save_invstd),
            training: mode.training,
            eps: mode.eps,
            has_bias: given.bias.is_some(),
        };
        Ok(record(out, &inputs, rule))
    }
}

crate::backward_rule! {
    /// `batch_norm`: the inputs are (input, weight if given, bias if given). `result1` and `result2` are the batch's
    /// mean and 1 / sqrt(var + eps) in training (empty in evaluation), as PyTorch saves them. The running statistics
    /// are read as they are at backward, unchecked, as PyTorch reads them.
    pub struct NativeBatchNormBackward0 {
        input: SavedTensor,
        weight: Option<SavedTensor>,
        running_mean: Option<SavedTensor>,
        running_var: Option<SavedTensor>,
        result1: SavedTensor,
        result2: SavedTensor,
        training: bool,
        eps: f64,
        has_bias: bool,
    }
}

/// A saved running statistic as it is now (it moves with later training calls, which PyTorch does not check).
fn live(saved: &Option<SavedTensor>) -> Result<Tensor> {
    saved.as_ref().and_then(SavedTensor::peek).ok_or_else(freed_error)
}

/// The kernel's backward in `T`: (dx, dweight, dbias) with dx only when `input_grad`.
fn backward_typed<T: Float>(
    x: &Tensor,
    g: &Tensor,
    w: Option<&Tensor>,
    stats: (&[f64], &[f64]),
    training: bool,
    input_grad: bool,
) -> Result<(Tensor, Tensor, Tensor)> {
    let mut ts = vec![x, g];
    ts.extend(w);
    let p = planes(x);
    let (dx, dw, db) =
        with_slices(&ts, |s: &[&[T]]| batch_norm_backward(s[0], s[1], w.map(|_| s[2]), p, stats, training, input_grad));
    let dx = if input_grad { Tensor::from_vec(dx, x.shape())? } else { Tensor::zeros(&[0], x.dtype()) };
    Ok((dx, Tensor::from_vec(dw, &[p.channels])?, Tensor::from_vec(db, &[p.channels])?))
}

impl NativeBatchNormBackward0 {
    /// Each channel's (mean, invstd) the forward normalised with.
    fn statistics(&self, ctx: &Ctx<'_>) -> Result<(Vec<f64>, Vec<f64>)> {
        if self.training {
            Ok((ctx.unpack(&self.result1)?.to_vec(), ctx.unpack(&self.result2)?.to_vec()))
        } else {
            Ok(running_statistics(&live(&self.running_mean)?, &live(&self.running_var)?, self.eps))
        }
    }

    /// The gradients through the kernel (no graph recorded).
    fn kernel_grads(&self, ctx: &Ctx<'_>, x: &Tensor, weight: Option<&Tensor>, g: &Tensor) -> Result<Grads> {
        let dtype = compute_dtype(x);
        let (xc, gc) = (prepared(x, dtype)?, prepared(g, dtype)?);
        let wc = weight.map(|t| prepared(t, dtype)).transpose()?;
        let (mean, invstd) = self.statistics(ctx)?;
        let stats = (mean.as_slice(), invstd.as_slice());
        let (dx, dw, db) = match dtype {
            DType::F64 => backward_typed::<f64>(&xc, &gc, wc.as_ref(), stats, self.training, ctx.needs(0))?,
            _ => backward_typed::<f32>(&xc, &gc, wc.as_ref(), stats, self.training, ctx.needs(0))?,
        };
        let mut grads = vec![ctx.grad_if(0, || dx.to_dtype(x.dtype()))?];
        let param_dtype = weight.map_or(x.dtype(), Tensor::dtype);
        if let Some(w) = weight {
            grads.push(ctx.grad_if(1, || dw.to_dtype(param_dtype)?.reshape(w.shape()))?);
        }
        if self.has_bias {
            grads.push(ctx.grad_if(grads.len(), || db.to_dtype(param_dtype))?);
        }
        Ok(grads)
    }
}

impl Backward for NativeBatchNormBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, weight) = (ctx.unpack(&self.input)?, ctx.unpack_opt(&self.weight)?);
        if !grad_mode::is_enabled() {
            return self.kernel_grads(ctx, &x, weight.as_ref(), g);
        }
        // recorded (create_graph): the same gradients written with differentiable ops
        let nd = x.ndim();
        let mut shape = vec![1usize; nd];
        shape[1] = x.shape()[1];
        let dims: Vec<isize> = std::iter::once(0).chain(2..nd as isize).collect();
        let (mean, rstd) = if self.training {
            let var = x.var_std(Some(&dims), 0.0, true, false)?;
            (x.mean(Some(&dims), true)?, var.add(&Tensor::scalar(self.eps))?.rsqrt()?)
        } else {
            let (rm, rv) = (live(&self.running_mean)?, live(&self.running_var)?);
            (rm.reshape(&shape)?, rv.reshape(&shape)?.add(&Tensor::scalar(self.eps))?.rsqrt()?)
        };
        let xhat = x.sub(&mean)?.mul(&rstd)?;
        let w = weight.as_ref().map(|w| w.reshape(&shape)).transpose()?;
        let mut grads = vec![ctx.grad_if(0, || {
            let gxhat = match &w {
                Some(w) => g.mul(w)?,
                None => g.clone(),
            };
            if !self.training {
                return gxhat.mul(&rstd)?.to_dtype(x.dtype());
            }
            // dx = rstd · (dx̂ - mean(dx̂) - x̂ · mean(dx̂ · x̂)), with dx̂ = g · weight
            let centred = gxhat.sub(&gxhat.mean(Some(&dims), true)?)?;
            let proj = xhat.mul(&gxhat.mul(&xhat)?.mean(Some(&dims), true)?)?;
            rstd.mul(&centred.sub(&proj)?)?.to_dtype(x.dtype())
        })?];
        let param_dtype = weight.as_ref().map_or(x.dtype(), Tensor::dtype);
        if let Some(wt) = &weight {
            grads.push(
                ctx.grad_if(1, || g.mul(&xhat)?.sum(Some(&dims), false)?.to_dtype(param_dtype)?.reshape(wt.shape()))?,
            );
        }
        if self.has_bias {
            grads.push(ctx.grad_if(grads.len(), || g.sum(Some(&dims), false)?.to_dtype(param_dtype))?);
        }
        Ok(grads)
    }
}
