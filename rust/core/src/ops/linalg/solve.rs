//! inv, det, slogdet and solve: one LU factorization per matrix, and their backward rules.
use super::batch::{batch_element, check_float, mt, square_batch, to_tensor};
use super::factor::lu;
use super::lu::getrf;
use super::lu_solve::getrs;
use crate::autograd::{one, record, record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::{Error, Result};
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.inv(A)`: the inverse of each matrix; a singular one is a `LinAlgError`.
    pub fn linalg_inv(&self) -> Result<Tensor> {
        Ok(self.linalg_inv_ex(true, "linalg.inv")?.0)
    }

    /// `linalg.inv_ex(A, check_errors=check_errors)`: (inverse, info), LAPACK's `info` (the first zero
    /// pivot of U) per matrix; a singular matrix gives the solve's inf/NaN partial result unless
    /// `check_errors`, which raises naming `func`.
    pub fn linalg_inv_ex(&self, check_errors: bool, func: &str) -> Result<(Tensor, Tensor)> {
        let batch = square_batch(self, "linalg.inv")?;
        let n = batch.n;
        let mut identity = vec![0.0; n * n];
        for i in 0..n {
            identity[i * n + i] = 1.0;
        }
        let mut out = Vec::with_capacity(batch.values.len());
        let mut infos = Vec::with_capacity(batch.count());
        for i in 0..batch.count() {
            let f = getrf(batch.matrix(i), n, n);
            if check_errors && f.info > 0 {
                return Err(Error::LinAlg(format!(
                    "{func}: {}The diagonal element {} is zero, the inversion could not be completed because the \
                     input matrix is singular.",
                    batch_element(&batch, i),
                    f.info
                )));
            }
            let mut x = identity.clone();
            getrs(&f.lu, &f.pivots, &mut x, n, n, false);
            out.extend(x);
            infos.push(f.info);
        }
        let out = to_tensor(out, self.shape(), self.dtype())?;
        let info = Tensor::from_vec(infos, &batch.dims)?;
        Ok((record(out, &[self], |out| LinalgInvExBackward0 { inverse: SavedTensor::output(out) }), info))
    }

    /// `linalg.det(A)`: the determinant of each matrix (0 for a singular one).
    pub fn linalg_det(&self) -> Result<Tensor> {
        let batch = square_batch(self, "linalg.det")?;
        let dets = (0..batch.count()).map(|i| lu(batch.matrix(i), batch.n).det(batch.n)).collect();
        let out = to_tensor(dets, &batch.dims, self.dtype())?;
        Ok(record(out, &[self], |out| LinalgDetBackward0 {
            a: SavedTensor::input(self),
            result: SavedTensor::output(out),
        }))
    }

    /// `linalg.slogdet(A)`: (sign, log |det|) of each matrix; (0, -inf) for a singular one.
    pub fn linalg_slogdet(&self) -> Result<(Tensor, Tensor)> {
        let batch = square_batch(self, "linalg.slogdet")?;
        let (signs, logs): (Vec<f64>, Vec<f64>) =
            (0..batch.count()).map(|i| lu(batch.matrix(i), batch.n).slogdet(batch.n)).unzip();
        let sign = to_tensor(signs, &batch.dims, self.dtype())?;
        let log_abs = to_tensor(logs, &batch.dims, self.dtype())?;
        let rule = LinalgSlogdetBackward0 { a: SavedTensor::input(self) };
        let mut out = record_outputs(vec![sign, log_abs], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }

    /// `logdet(A)`: log det A, NaN where the determinant is negative (-inf where it is zero).
    pub fn logdet(&self) -> Result<Tensor> {
        let (sign, log_abs) = self.linalg_slogdet()?;
        Tensor::where_(&sign.lt(&Tensor::scalar(0.0))?, &Tensor::scalar(f64::NAN), &log_abs)
    }

    /// `linalg.solve(A, B)`: X with A X = B, batch dimensions broadcast; B is a (batch of) vector(s)
    /// when it is 1-D or has A's shape without its last dimension, as in PyTorch.
    pub fn linalg_solve(&self, b: &Tensor) -> Result<Tensor> {
        Ok(self.linalg_solve_ex(b, true, "torch.linalg.solve")?.0)
    }

    /// `linalg.solve_ex(A, B, check_errors=check_errors)`: (X, info) with LAPACK's `info` (the first
    /// zero pivot of U) per matrix; a singular matrix gives the solve's inf/NaN partial result unless
    /// `check_errors`, which raises naming `func`.
    pub fn linalg_solve_ex(&self, b: &Tensor, check_errors: bool, func: &str) -> Result<(Tensor, Tensor)> {
        let a = self;
        square_batch(a, "linalg.solve")?;
        if a.dtype() != b.dtype() {
            bail!(
                Runtime,
                "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} \
                 instead",
                a.dtype().scalar_type_name(),
                b.dtype().scalar_type_name()
            );
        }
        check_float(b, "linalg.solve")?;
        if b.ndim() == 0 {
            bail!(Runtime, "linalg.solve: The input tensor B must have at least 2 dimensions.");
        }
        let vector = b.ndim() == 1 || (b.ndim() + 1 == a.ndim() && b.shape() == &a.shape()[..a.ndim() - 1]);
        let b_mat = if vector { b.unsqueeze(-1)? } else { b.clone() };
        let n = a.shape()[a.ndim() - 1];
        let (rows, cols) = (b_mat.shape()[b_mat.ndim() - 2], b_mat.shape()[b_mat.ndim() - 1]);
        if rows != n {
            bail!(
                Runtime,
                "linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {rows}x{cols})"
            );
        }
        let batch = broadcast_shapes(&a.shape()[..a.ndim() - 2], &b_mat.shape()[..b_mat.ndim() - 2])?;
        let a_e = a.expand(&[batch.as_slice(), &[n, n]].concat())?;
        let b_e = b_mat.expand(&[batch.as_slice(), &[n, cols]].concat())?;
        let (x, info) = solve_same_batch(&a_e, &b_e, check_errors, func)?;
        let info = Tensor::from_vec(info, &batch)?;
        Ok((if vector { x.squeeze_dim(-1)? } else { x }, info))
    }
}

/// `solve` of A (*, n, n) and B (*, n, k) with one batch shape: X and each matrix's `info`.
fn solve_same_batch(a: &Tensor, b: &Tensor, check_errors: bool, func: &str) -> Result<(Tensor, Vec<i32>)> {
    let batch = square_batch(a, "linalg.solve")?;
    let (n, k) = (batch.n, b.shape()[b.ndim() - 1]);
    let mut x = b.to_vec::<f64>();
    let mut infos = Vec::with_capacity(batch.count());
    for i in 0..batch.count() {
        let f = getrf(batch.matrix(i), n, n);
        if check_errors && f.info > 0 {
            return Err(Error::LinAlg(format!(
                "{func}: {}The solver failed because the input matrix is singular.",
                batch_element(&batch, i)
            )));
        }
        getrs(&f.lu, &f.pivots, &mut x[i * n * k..(i + 1) * n * k], n, k, false);
        infos.push(f.info);
    }
    let x = to_tensor(x, b.shape(), b.dtype())?;
    let x = record(x, &[a, b], |x| LinalgSolveExBackward0 { a: SavedTensor::input(a), result: SavedTensor::output(x) });
    Ok((x, infos))
}

/// `g` (batch shape) as (batch, 1, 1), to scale each matrix of a batch.
fn per_matrix(g: &Tensor) -> Result<Tensor> {
    g.unsqueeze(-1)?.unsqueeze(-1)
}

crate::backward_rule! {
    /// `linalg.inv`: dA = -A⁻ᵀ g A⁻ᵀ.
    pub struct LinalgInvExBackward0 {
        inverse: SavedTensor,
    }
}
impl Backward for LinalgInvExBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let inv_t = mt(&ctx.unpack(&self.inverse)?)?;
        one(inv_t.matmul(g)?.matmul(&inv_t)?.neg())
    }
}

crate::backward_rule! {
    /// `linalg.det`: dA = g · det(A) · A⁻ᵀ (an invertible A; a singular one raises from inv).
    pub struct LinalgDetBackward0 {
        a: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LinalgDetBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, det) = (ctx.unpack(&self.a)?, ctx.unpack(&self.result)?);
        one(per_matrix(&g.mul(&det)?)?.mul(&mt(&a.linalg_inv()?)?))
    }
}

crate::backward_rule! {
    /// `linalg.slogdet`: dA = g_logabsdet · A⁻ᵀ; the sign's gradient is zero for real inputs.
    pub struct LinalgSlogdetBackward0 {
        a: SavedTensor,
    }
}
impl Backward for LinalgSlogdetBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[None, Some(g.clone())])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let Some(Some(g_log)) = grads.get(1) else { return Ok(vec![None]) };
        let a = ctx.unpack(&self.a)?;
        one(per_matrix(g_log)?.mul(&mt(&a.linalg_inv()?)?))
    }
}

crate::backward_rule! {
    /// `linalg.solve`: dB = A⁻ᵀ g (one more solve), dA = -dB Xᵀ.
    pub struct LinalgSolveExBackward0 {
        a: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LinalgSolveExBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, x) = (ctx.unpack(&self.a)?, ctx.unpack(&self.result)?);
        let gb = solve_same_batch(&mt(&a)?, g, true, "torch.linalg.solve")?.0;
        let ga = ctx.grad_if(0, || gb.matmul(&mt(&x)?)?.neg())?;
        Ok(vec![ga, Some(gb)])
    }
}
