//! Neural-network building blocks with their own PyTorch grad_fn: softmax, log_softmax, nll_loss,
//! mse_loss and addmm (the fused `linear`).
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::bail;
use crate::dtype::{result_type, DType};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::softmax::{softmax_backward_f32, softmax_f32};
use crate::layout::{broadcast_shapes, wrap_dim};
use crate::ops::reduce::positions_along;
use crate::tensor::Tensor;

/// `reduction=` of the losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Tensor {
    /// softmax (`log` = false) or log_softmax along `dim`, shifted by the max for stability.
    pub fn softmax(&self, dim: isize, log: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            let d = wrap_dim(dim, self.ndim())?;
            let kernel = match (log, d + 1 >= self.ndim()) {
                (false, true) => "softmax_lastdim_kernel_impl",
                (false, false) => "softmax_kernel_impl",
                (true, true) => "log_softmax_lastdim_kernel_impl",
                (true, false) => "log_softmax_kernel_impl",
            };
            bail!(NotImplemented, "\"{kernel}\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        let d = wrap_dim(dim, self.ndim())?;
        let out = match self.dtype() {
            DType::F32 if d + 1 == self.ndim() => {
                let n = self.shape()[d];
                let x = self.detach().contiguous()?;
                let v = x.with_data(|l, xs: &[f32]| softmax_f32(&xs[l.contiguous_range().unwrap()], n, log));
                Tensor::from_vec(v, self.shape())?
            }
            DType::F64 => lanes(self, d, |row: &mut [f64]| softmax_row(row, log))?,
            // the halves compute in float32
            dtype => lanes(self, d, |row: &mut [f32]| softmax_row(row, log))?.cast_detached(dtype),
        };
        let dim = d;
        Ok(record(out, &[self], move || BackwardOp::Softmax { dim, log }, |out| vec![SavedTensor::output(out)]))
    }

    /// `nll_loss` for class-index targets: input (N, C, d...) or (C,), target (N, d...) or ().
    pub fn nll_loss(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
        reduction: Reduction,
    ) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"nll_loss_out_frame\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        if target.dtype() != DType::I64 {
            bail!(Runtime, "expected target dtype to be Long or Byte, but got {}", target.dtype().scalar_type_name());
        }
        let nd = self.ndim();
        if nd == 0 {
            bail!(Runtime, "input tensor should be 1D or 2D");
        }
        let class_dim = if nd == 1 { 0 } else { 1 };
        let c = self.shape()[class_dim];
        let expected: Vec<usize> = if nd == 1 {
            vec![]
        } else {
            self.shape().iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &s)| s).collect()
        };
        if nd >= 2 && target.ndim() >= 1 && target.shape()[0] != self.shape()[0] {
            bail!(
                Value,
                "Expected input batch_size ({}) to match target batch_size ({}).",
                self.shape()[0],
                target.shape()[0]
            );
        }
        if target.shape() != expected.as_slice() {
            bail!(Runtime, "Expected target size {:?}, got {:?}", expected, target.shape());
        }
        if let Some(w) = weight {
            if w.ndim() != 1 || w.shape()[0] != c {
                bail!(Runtime, "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {:?}", w.shape());
            }
        }
        let t = target.to_vec::<i64>();
        if let Some(&bad) = t.iter().find(|&&v| v != ignore_index && (v < 0 || v >= c as i64)) {
            bail!(Index, "Target {bad} is out of bounds.");
        }
        // per-element losses and weights, in the target's row-major order
        let x = self.to_vec::<f64>();
        let w = weight.map(|w| w.to_vec::<f64>());
        let inner: usize = if nd >= 2 { self.shape()[2..].iter().product() } else { 1 };
        let mut losses = Vec::with_capacity(t.len());
        let mut total = 0.0;
        for (i, &ti) in t.iter().enumerate() {
            if ti == ignore_index {
                losses.push(0.0);
                continue;
            }
            let (n, s) = (i / inner, i % inner);
            let wi = w.as_ref().map_or(1.0, |w| w[ti as usize]);
            losses.push(-wi * x[(n * c + ti as usize) * inner + s]);
            total += wi;
        }
        let out = match reduction {
            Reduction::None => Tensor::from_vec(losses, target.shape())?,
            Reduction::Sum => Tensor::from_vec(vec![losses.iter().sum::<f64>()], &[])?,
            Reduction::Mean => Tensor::from_vec(vec![losses.iter().sum::<f64>() / total], &[])?,
        }
        .to_dtype(self.dtype())?;
        let input_shape = self.shape().to_vec();
        let has_weight = weight.is_some();
        let op = move || BackwardOp::NllLoss { input_shape, reduction, ignore_index, total_weight: total, has_weight };
        let saved = |_: &Tensor| {
            let mut s = vec![SavedTensor::input(target)];
            s.extend(weight.map(SavedTensor::input));
            s
        };
        Ok(record(out, &[self], op, saved))
    }

    /// `mse_loss`: mean/sum/none of (input - target)², broadcasting the two.
    pub fn mse_loss(&self, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        let dtype = result_type(self.promotion_key(), target.promotion_key());
        if !dtype.is_float() {
            bail!(NotImplemented, "\"mse_cpu\" not implemented for '{}'", dtype.scalar_type_name());
        }
        let shape = broadcast_shapes(self.shape(), target.shape())?;
        let d = self.detach().sub(&target.detach())?;
        let sq = d.mul(&d)?;
        let out = match reduction {
            Reduction::None => sq,
            Reduction::Sum => sq.sum(None, false)?,
            Reduction::Mean => sq.mean(None, false)?,
        };
        let n = shape.iter().product::<usize>();
        Ok(record(
            out,
            &[self, target],
            move || BackwardOp::MseLoss { reduction, numel: n },
            |_| vec![SavedTensor::input(self), SavedTensor::input(target)],
        ))
    }

    /// `linear(input, weight, bias)` = input @ weight.T + bias; with a bias, the input is flattened to
    /// 2-D for one `addmm` and the result viewed back when it is contiguous (grad_fn names as PyTorch's).
    pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let wt = weight.t()?;
        match bias {
            Some(b) if weight.ndim() == 2 && input.ndim() == 2 => Tensor::addmm(b, input, &wt),
            // as PyTorch, only a contiguous input is flattened; others go through matmul + bias
            Some(b) if weight.ndim() == 2 && input.ndim() >= 1 && input.is_contiguous() => {
                let k = input.shape()[input.ndim() - 1];
                if k != weight.shape()[1] {
                    return input.matmul(&wt); // PyTorch's error for mismatched sizes
                }
                let rows = input.shape()[..input.ndim() - 1].iter().product::<usize>();
                let out = Tensor::addmm(b, &input.reshape(&[rows, k])?, &wt)?;
                let mut shape = input.shape()[..input.ndim() - 1].to_vec();
                shape.push(weight.shape()[0]);
                out.unsafe_view(&shape)
            }
            Some(b) => input.matmul(&wt)?.add(b),
            None => input.matmul(&wt),
        }
    }

    /// `addmm(bias, a, b)` = bias + a @ b, with one node (AddmmBackward0).
    pub fn addmm(bias: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let prod = a.detach().mm(&b.detach())?;
        let out = bias.detach().add(&prod)?;
        if out.shape() != prod.shape() {
            bail!(Runtime, "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}.  Target sizes: {:?}.  Tensor sizes: {:?}", prod.shape()[1], bias.shape().last().copied().unwrap_or(1), 1, prod.shape(), bias.shape());
        }
        Ok(record(out, &[bias, a, b], || BackwardOp::Addmm, |_| vec![SavedTensor::input(a), SavedTensor::input(b)]))
    }
}

/// Runs `f` on every 1-D lane of `x` along `dim` (a contiguous copy of it), returning a contiguous tensor.
fn lanes<T: Float>(x: &Tensor, dim: usize, f: impl Fn(&mut [T])) -> Result<Tensor> {
    if x.ndim() == 0 {
        return lanes(&x.detach().reshape(&[1])?, 0, f)?.reshape(&[]);
    }
    let last = x.ndim() - 1;
    let moved = if dim == last { x.detach() } else { x.detach().transpose(dim as isize, last as isize)? };
    let mut v: Vec<T> = moved.to_vec::<T>();
    let n = moved.shape()[last];
    if n > 0 {
        v.chunks_mut(n).for_each(&f);
    }
    let out = Tensor::from_vec(v, moved.shape())?;
    if dim == last {
        Ok(out)
    } else {
        out.transpose(dim as isize, last as isize)?.contiguous()
    }
}

/// softmax or log_softmax of one lane, in place: shifted by its max, the
/// sum of exponentials accumulated in f64.
fn softmax_row<T: Float>(row: &mut [T], log: bool) {
    // as PyTorch: an infinite max is subtracted too (a row holding inf, or only -inf, gives NaN)
    let m = row.iter().fold(T::from_f64(f64::NEG_INFINITY), |a, &b| if b > a { b } else { a });
    let mut s = 0.0f64;
    if log {
        for &x in row.iter() {
            s += (x - m).exp().to_f64();
        }
        let ls = T::from_f64(s.ln());
        for x in row.iter_mut() {
            *x = (*x - m) - ls;
        }
    } else {
        for x in row.iter_mut() {
            *x = (*x - m).exp();
            s += x.to_f64();
        }
        let s = T::from_f64(s);
        for x in row.iter_mut() {
            *x = *x / s;
        }
    }
}

/// The gradient of softmax (`log` = false) or log_softmax along `dim` from its saved output, in one
/// kernel when the backward pass is not recorded and the rows are contiguous float32 (None otherwise:
/// the tensor-op formula then runs).
pub(crate) fn softmax_backward_fused(g: &Tensor, out: &Tensor, dim: usize, log: bool) -> Option<Result<Tensor>> {
    let fusable = !crate::autograd::grad_mode::is_enabled()
        && g.dtype() == DType::F32
        && out.dtype() == DType::F32
        && g.shape() == out.shape()
        && dim + 1 == out.ndim();
    if !fusable {
        return None;
    }
    let n = out.shape()[dim];
    let run = || {
        let (g, y) = (g.contiguous()?, out.contiguous()?);
        let v = g.with_data(|lg, gs: &[f32]| {
            y.with_data(|ly, ys: &[f32]| {
                let (gs, ys) = (&gs[lg.contiguous_range().unwrap()], &ys[ly.contiguous_range().unwrap()]);
                softmax_backward_f32(gs, ys, n, log)
            })
        });
        Tensor::from_vec(v, out.shape())
    };
    Some(run())
}

/// The gradient of nll_loss with respect to its input.
pub(crate) fn nll_loss_grad(
    g: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    input_shape: &[usize],
    reduction: Reduction,
    ignore_index: i64,
    total_weight: f64,
) -> Result<Tensor> {
    let nd = input_shape.len();
    let class_dim = if nd == 1 { 0 } else { 1 };
    let c = input_shape[class_dim];
    let t = if nd == 1 { target.clone() } else { target.unsqueeze(1)? };
    let mask = positions_along(c, class_dim, nd)?
        .eq(&t)?
        .logical_and(&t.ne(&Tensor::wrapped_scalar(crate::Scalar::Int(ignore_index)))?)?;
    let g = match reduction {
        Reduction::None if nd > 1 => g.unsqueeze(1)?,
        Reduction::Mean => g.div(&Tensor::scalar(total_weight))?,
        _ => g.clone(),
    };
    let coef = match weight {
        Some(w) => {
            let mut shape = vec![1; nd];
            shape[class_dim] = c;
            g.mul(&w.reshape(&shape)?)?.neg()?
        }
        None => g.neg()?,
    };
    Tensor::where_(&mask, &coef, &Tensor::scalar(0.0))
}
