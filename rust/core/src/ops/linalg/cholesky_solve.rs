//! `cholesky_solve` and `cholesky_inverse`: A⁻¹ B and A⁻¹ for A = L Lᵀ (or Uᵀ U) given its Cholesky
//! factor, by two triangular solves; and PyTorch's backward rules for them.
use super::batch::{batch_element, check_float, eye, mt, square_batch};
use super::triangular::solve_left;
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// A⁻¹ B of the factor `factor` (*, n, n) and B (*, n, k) sharing one batch shape, unrecorded.
fn solve_with_factor(b: &Tensor, factor: &Tensor, upper: bool) -> Result<Tensor> {
    let dtype = b.dtype();
    // lower: L (Lᵀ X) = B; upper: Uᵀ (U X) = B
    let (first, second) = if upper { (mt(factor)?, factor.clone()) } else { (factor.clone(), mt(factor)?) };
    let y = solve_left(&first, b, false, false, dtype)?;
    solve_left(&second, &y, true, false, dtype)
}

impl Tensor {
    /// `cholesky_solve(self, input2, upper)`: X with (L Lᵀ) X = self for the factor `input2`, batch
    /// dimensions broadcast.
    pub fn cholesky_solve(&self, input2: &Tensor, upper: bool) -> Result<Tensor> {
        let (b, u) = (self, input2);
        if b.ndim() < 2 {
            bail!(Runtime, "b should have at least 2 dimensions, but has {} dimensions instead", b.ndim());
        }
        if u.ndim() < 2 {
            bail!(Runtime, "u should have at least 2 dimensions, but has {} dimensions instead", u.ndim());
        }
        let (n, cols) = (u.shape()[u.ndim() - 2], u.shape()[u.ndim() - 1]);
        if n != cols {
            bail!(Runtime, "A must be batches of square matrices, but they are {n} by {cols} matrices");
        }
        if b.dtype() != u.dtype() {
            bail!(
                Runtime,
                "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
                b.dtype().scalar_type_name(),
                u.dtype().scalar_type_name()
            );
        }
        let (rows, k) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
        if rows != n {
            bail!(
                Runtime,
                "Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b matrix is \
                 {rows} by {k}"
            );
        }
        if !matches!(b.dtype(), DType::F32 | DType::F64) {
            bail!(NotImplemented, "\"cholesky_solve_cpu\" not implemented for '{}'", b.dtype().scalar_type_name());
        }
        let batch = broadcast_shapes(&b.shape()[..b.ndim() - 2], &u.shape()[..u.ndim() - 2])?;
        let b_e = b.detach().expand(&[batch.as_slice(), &[n, k]].concat())?;
        let u_e = u.detach().expand(&[batch.as_slice(), &[n, n]].concat())?;
        let x = solve_with_factor(&b_e, &u_e, upper)?;
        Ok(record(x, &[b, u], |x| CholeskySolveBackward0 {
            input2: SavedTensor::input(u),
            result: SavedTensor::output(x),
            self_: SavedTensor::input(b),
            upper,
        }))
    }

    /// `cholesky_inverse(self, upper)`: (L Lᵀ)⁻¹ for the factor `self`; a zero on its diagonal is a
    /// `LinAlgError` naming it.
    pub fn cholesky_inverse(&self, upper: bool) -> Result<Tensor> {
        const FUNC: &str = "cholesky_inverse";
        if self.ndim() < 2 {
            bail!(Runtime, "{FUNC}: The input tensor A must have at least 2 dimensions.");
        }
        if self.dtype().is_int() || self.dtype() == DType::Bool {
            bail!(
                NotImplemented,
                "\"cholesky_inverse_out_cpu\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            );
        }
        let batch = square_batch(self, FUNC)?;
        check_float(self, FUNC)?;
        let n = batch.n;
        for i in 0..batch.count() {
            let m = batch.matrix(i);
            if let Some(d) = (0..n).find(|&d| m[d * n + d] == 0.0) {
                return Err(Error::LinAlg(format!(
                    "{FUNC}: {}The diagonal element {} is zero, the inversion could not be completed because the \
                     input matrix is singular.",
                    batch_element(&batch, i),
                    d + 1
                )));
            }
        }
        let identity = eye(n, self.dtype())?.expand(self.shape())?;
        let inverse = solve_with_factor(&identity, &self.detach(), upper)?;
        Ok(record(inverse, &[self], |inv| CholeskyInverseBackward0 {
            result: SavedTensor::output(inv),
            self_: SavedTensor::input(self),
            upper,
        }))
    }
}

crate::backward_rule! {
    /// `cholesky_solve`: gB = A⁻¹ g (one more solve), and with C = gB Xᵀ + (gB Xᵀ)ᵀ the factor's
    /// gradient -C L (lower) or -U C (upper), PyTorch's `cholesky_solve_backward`.
    pub struct CholeskySolveBackward0 {
        input2: SavedTensor,
        result: SavedTensor,
        self_: SavedTensor,
        upper: bool,
    }
}
impl Backward for CholeskySolveBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (factor, x) = (ctx.unpack(&self.input2)?, ctx.unpack(&self.result)?);
        let gb = g.cholesky_solve(&factor, self.upper)?;
        let gu = ctx.grad_if(1, || {
            let common = gb.matmul(&mt(&x)?)?;
            let common = common.add(&mt(&common)?)?;
            let product = if self.upper { factor.matmul(&common)? } else { common.matmul(&factor)? };
            product.neg()
        })?;
        Ok(vec![Some(gb), gu])
    }
}

crate::backward_rule! {
    /// `cholesky_inverse`: with C = A⁻¹ (g + gᵀ) A⁻¹, the factor's gradient -C L (lower) or -U C.
    pub struct CholeskyInverseBackward0 {
        result: SavedTensor,
        self_: SavedTensor,
        upper: bool,
    }
}
impl Backward for CholeskyInverseBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (inverse, factor) = (ctx.unpack(&self.result)?, ctx.unpack(&self.self_)?);
        let common = inverse.matmul(&g.add(&mt(g)?)?.matmul(&inverse)?)?;
        let product = if self.upper { factor.matmul(&common)? } else { common.matmul(&factor)? };
        one(product.neg())
    }
}
