//! Neural-network building blocks with their own PyTorch grad_fn: softmax, log_softmax and addmm (the
//! fused `linear`). The losses are in `loss.rs`.
use crate::autograd::{one, record, Backward, Ctx, Grads, MatrixStrides, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, traced_product, MapAfter, NodeKind};
use crate::dtype::{DType, Scalar};
use crate::element::Float;
use crate::error::Result;
use crate::kernels::softmax::{softmax_backward_f32, softmax_f32};
use crate::layout::{broadcast_shapes, wrap_dim};
use crate::ops::formula::c;
use crate::ops::matmul::{matrix, matrix_grads};
use crate::tensor::Tensor;

impl Tensor {
    /// softmax (`log` = false) or log_softmax along `dim`, shifted by the max for stability.
    pub fn softmax(&self, dim: isize, log: bool) -> Result<Tensor> {
        let name = if log { "_log_softmax" } else { "_softmax" };
        let replay = || move |x: &[&Tensor]| x[0].softmax_eager(dim, log);
        traced(name, NodeKind::Opaque, &[self], || self.softmax_eager(dim, log), replay)
    }

    fn softmax_eager(&self, dim: isize, log: bool) -> Result<Tensor> {
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
        Ok(record(out, &[self], |out| SoftmaxBackward { log, dim: d, result: SavedTensor::output(out) }))
    }

    /// `linear(input, weight, bias)` = input @ weight.T + bias; with a bias, the input is flattened to
    /// 2-D for one `addmm` and the result viewed back when it is contiguous (grad_fn names as PyTorch's).
    pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(input), Some(weight), bias]);
        let op = move |x: &[&Tensor], then: Option<&mut MapAfter>| match optional_args(x, given) {
            [Some(input), Some(weight), bias] => Tensor::linear_eager(input, weight, bias, then),
            _ => unreachable!("input and weight are always given"),
        };
        traced_product("linear", &operands, op)
    }

    fn linear_eager(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        then: Option<&mut MapAfter>,
    ) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(input), Some(weight), bias], |[x, w, b]| {
            Tensor::linear_uncast(x.expect("given"), w.expect("given"), b, then)
        })
    }

    fn linear_uncast(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        then: Option<&mut MapAfter>,
    ) -> Result<Tensor> {
        let wt = weight.t()?;
        match bias {
            Some(b) if weight.ndim() == 2 && input.ndim() == 2 => Tensor::addmm_uncast(b, input, &wt, then),
            // as PyTorch, only a contiguous input is flattened; others go through matmul + bias
            Some(b) if weight.ndim() == 2 && input.ndim() >= 1 && input.is_contiguous() => {
                let k = input.shape()[input.ndim() - 1];
                if k != weight.shape()[1] {
                    return input.matmul(&wt); // PyTorch's error for mismatched sizes
                }
                let rows = input.shape()[..input.ndim() - 1].iter().product::<usize>();
                let mut shape = input.shape()[..input.ndim() - 1].to_vec();
                shape.push(weight.shape()[0]);
                let out = match then {
                    Some(then) => {
                        let out = Tensor::addmm_uncast(b, &input.reshape(&[rows, k])?, &wt, Some(&mut *then))?;
                        then.out = then.out.take().map(|mapped| mapped.reshape(&shape)).transpose()?;
                        out
                    }
                    None => Tensor::addmm(b, &input.reshape(&[rows, k])?, &wt)?,
                };
                out.unsafe_view(&shape)
            }
            Some(b) => input.matmul(&wt)?.add(b),
            None => input.matmul(&wt),
        }
    }

    /// `addmm(bias, a, b)` = bias + a @ b, with one node (AddmmBackward0).
    pub fn addmm(bias: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let op = |x: &[&Tensor], then: Option<&mut MapAfter>| Tensor::addmm_eager(x[0], x[1], x[2], then);
        traced_product("addmm", &[bias, a, b], op)
    }

    fn addmm_eager(bias: &Tensor, a: &Tensor, b: &Tensor, then: Option<&mut MapAfter>) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(bias), Some(a), Some(b)], |[bias, a, b]| {
            Tensor::addmm_uncast(bias.expect("given"), a.expect("given"), b.expect("given"), then)
        })
    }

    /// `addmm(bias, a, b, beta, alpha)` = beta·bias + alpha·(a @ b) (bias ignored when beta is 0, its NaNs
    /// included); with both 1, `addmm`.
    pub fn addmm_scaled(bias: &Tensor, a: &Tensor, b: &Tensor, beta: Scalar, alpha: Scalar) -> Result<Tensor> {
        let one = |s: Scalar| s.to_f64() == 1.0;
        if one(beta) && one(alpha) {
            return Tensor::addmm(bias, a, b);
        }
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(bias), Some(a), Some(b)], |[bias, a, b]| {
            let (bias, a, b) = (bias.expect("given"), a.expect("given"), b.expect("given"));
            let prod = Tensor::addmm_product(bias, a, b)?;
            let out = crate::ops::linalg::scale_add(bias, prod, beta.to_f64(), alpha.to_f64())?;
            Ok(Tensor::record_addmm(out, (bias, a, b), beta, alpha))
        })
    }

    /// `addmm`'s forward and record; a map in `then` runs over the product's output as it is made, when the product
    /// takes the one-call path (`linear::bias_mm`).
    fn addmm_uncast(bias: &Tensor, a: &Tensor, b: &Tensor, then: Option<&mut MapAfter>) -> Result<Tensor> {
        let out = match crate::ops::linear::bias_mm(bias, a, b, then) {
            Some(out) => out?,
            None => Tensor::addmm_composed(bias, a, b)?,
        };
        Ok(Tensor::record_addmm(out, (bias, a, b), Scalar::Int(1), Scalar::Int(1)))
    }

    fn record_addmm(out: Tensor, (bias, a, b): (&Tensor, &Tensor, &Tensor), beta: Scalar, alpha: Scalar) -> Tensor {
        record(out, &[bias, a, b], |_| AddmmBackward0 {
            alpha,
            beta,
            mat1: b.requires_grad().then(|| SavedTensor::input(a)),
            mat1_sym_sizes: matrix(a.shape()),
            mat1_sym_strides: a.requires_grad().then(|| matrix(a.strides())),
            mat2: a.requires_grad().then(|| SavedTensor::input(b)),
            mat2_sym_sizes: matrix(b.shape()),
            mat2_sym_strides: b.requires_grad().then(|| matrix(b.strides())),
        })
    }

    /// `addmm`'s forward as `bias + a @ b` (other dtypes, a bias that does not broadcast: their errors).
    fn addmm_composed(bias: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        bias.detach().add(&Tensor::addmm_product(bias, a, b)?)
    }

    /// `a @ b` (detached) after addmm's checks of the three operands, with torch's errors.
    fn addmm_product(bias: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        for (what, t) in [("mat1", a), ("self", bias)] {
            if a.ndim() == 2 && b.ndim() == 2 && t.dtype() != b.dtype() {
                bail!(
                    Runtime,
                    "{what} and mat2 must have the same dtype, but got {} and {}",
                    t.dtype().scalar_type_name(),
                    b.dtype().scalar_type_name()
                );
            }
        }
        let prod = a.detach().mm(&b.detach())?;
        if broadcast_shapes(bias.shape(), prod.shape()).ok().as_deref() != Some(prod.shape()) {
            bail!(
                Runtime,
                "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton \
                dimension {}.  Target sizes: {:?}.  Tensor sizes: {:?}",
                prod.shape()[1],
                bias.shape().last().copied().unwrap_or(1),
                1,
                prod.shape(),
                bias.shape()
            );
        }
        Ok(prod)
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

crate::backward_rule! {
    name_by = |rule| match (rule.log) {
        true => "LogSoftmaxBackward0",
        false => "SoftmaxBackward0",
    };
    /// softmax (SoftmaxBackward0) or log_softmax (LogSoftmaxBackward0), from the output.
    pub struct SoftmaxBackward {
        log: bool,
        dim: usize,
        result: SavedTensor,
    }
}
impl Backward for SoftmaxBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let out = ctx.unpack(&self.result)?;
        if let Some(fused) = softmax_backward_fused(g, &out, self.dim, self.log) {
            return one(fused);
        }
        let d = [self.dim as isize];
        if self.log {
            one(g.sub(&out.exp()?.mul(&g.sum(Some(&d), true)?)?))
        } else {
            one(out.mul(&g.sub(&g.mul(&out)?.sum(Some(&d), true)?)?))
        }
    }
}

crate::backward_rule! {
    /// `addmm(bias, mat1, mat2, beta, alpha)` (the products' gradients as `MmBackward0`'s, scaled).
    pub struct AddmmBackward0 {
        alpha: Scalar,
        beta: Scalar,
        mat1: Option<SavedTensor>,
        mat1_sym_sizes: [usize; 2],
        mat1_sym_strides: MatrixStrides,
        mat2: Option<SavedTensor>,
        mat2_sym_sizes: [usize; 2],
        mat2_sym_strides: MatrixStrides,
    }
}
impl Backward for AddmmBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let scaled = |t: Tensor, by: Scalar| if by.to_f64() == 1.0 { Ok(t) } else { t.mul(&c(by.to_f64())) };
        let mut grads = vec![ctx.grad_if(0, || scaled(g.clone(), self.beta))?];
        let products =
            matrix_grads(ctx, g, (&self.mat1, self.mat1_sym_strides), (&self.mat2, self.mat2_sym_strides), 1)?;
        for grad in products {
            grads.push(grad.map(|t| scaled(t, self.alpha)).transpose()?);
        }
        Ok(grads)
    }
}
