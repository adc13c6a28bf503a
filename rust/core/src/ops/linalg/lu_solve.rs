//! `linalg.lu_solve`: A X = B (Aᵀ X = B with `adjoint`, X A = B without `left`) from A's compact LU
//! factorization and pivots, as LAPACK's `getrs`; batch dimensions broadcast; and its backward rule.
use super::batch::{check_float, mt, to_tensor};
use super::lu::{permutation_matrix, unpack_factors};
use super::triangular::substitute;
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// Solves A X = B (`transpose`: Aᵀ X = B) in place of the row-major n×k `x` for A = P L U given as the
/// compact n×n `lu` and 1-based `pivots`.
pub(super) fn getrs(lu: &[f64], pivots: &[i32], x: &mut [f64], n: usize, k: usize, transpose: bool) {
    let swap_rows = |x: &mut [f64], i: usize, j: usize| {
        if i != j {
            for c in 0..k {
                x.swap(i * k + c, j * k + c);
            }
        }
    };
    if transpose {
        // Uᵀ Lᵀ Pᵀ X = B: Uᵀ is lower, Lᵀ unit upper
        let lu_t: Vec<f64> = (0..n * n).map(|idx| lu[(idx % n) * n + idx / n]).collect();
        substitute(&lu_t, x, n, k, false, false);
        substitute(&lu_t, x, n, k, true, true);
        for (j, &p) in pivots.iter().enumerate().rev() {
            swap_rows(x, j, p as usize - 1);
        }
    } else {
        for (j, &p) in pivots.iter().enumerate() {
            swap_rows(x, j, p as usize - 1);
        }
        substitute(lu, x, n, k, false, true);
        substitute(lu, x, n, k, true, false);
    }
}

const FUNC: &str = "linalg.lu_solve";

/// PyTorch's checks of `lu_solve`'s arguments, in its order.
fn check_args(lu: &Tensor, pivots: &Tensor, b: &Tensor, left: bool) -> Result<()> {
    if lu.ndim() < 2 {
        bail!(Runtime, "torch.{FUNC}: The input tensor A must have at least 2 dimensions.");
    }
    let (rows, n) = (lu.shape()[lu.ndim() - 2], lu.shape()[lu.ndim() - 1]);
    if rows != n {
        bail!(Runtime, "torch.{FUNC}: A must be batches of square matrices, but they are {rows} by {n} matrices");
    }
    check_float(lu, &format!("torch.{FUNC}"))?;
    if b.ndim() < 2 {
        bail!(Runtime, "{FUNC}: The input tensor B must have at least 2 dimensions.");
    }
    let (br, bc) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    if (if left { br } else { bc }) != n {
        let equation = if left { "AX = B" } else { "XA = B" };
        bail!(Runtime, "{FUNC}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and {br}x{bc})");
    }
    if lu.dtype() != b.dtype() {
        bail!(
            Runtime,
            "{FUNC}: Expected LU and B to have the same dtype, but found LU of type {} and B of type {} instead",
            lu.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        );
    }
    if pivots.dtype() != DType::I32 {
        bail!(Runtime, "{FUNC}: pivots should be a Tensor of scalar type torch.int32");
    }
    if pivots.shape().last() != Some(&n) {
        bail!(Runtime, "{FUNC}: Number of pivots per batch should be same as the dimension of the matrix");
    }
    if pivots.shape() != &lu.shape()[..lu.ndim() - 1] {
        bail!(
            Runtime,
            "{FUNC}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape {:?} instead",
            pivots.shape()
        );
    }
    // getrs reads rows by them: one out of range is torch's error, not an out-of-bounds access
    let piv = pivots.to_vec::<i32>();
    if piv.iter().any(|&p| p < 1) {
        bail!(
            Runtime,
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of \
             lu_factor?"
        );
    }
    if piv.iter().any(|&p| p as usize > n) {
        bail!(
            Runtime,
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the result of \
             lu_factor?"
        );
    }
    Ok(())
}

impl Tensor {
    /// `linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)` with `self` the compact LU.
    pub fn linalg_lu_solve(&self, pivots: &Tensor, b: &Tensor, left: bool, adjoint: bool) -> Result<Tensor> {
        check_args(self, pivots, b, left)?;
        let n = self.shape()[self.ndim() - 1];
        let (br, bc) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
        // torch broadcasts B against LU: its sizes come first in the mismatch message
        let batch = broadcast_shapes(&b.shape()[..b.ndim() - 2], &self.shape()[..self.ndim() - 2])?;
        let lu = self.expand(&[batch.as_slice(), &[n, n]].concat())?;
        let pivots = pivots.expand(&[batch.as_slice(), &[n]].concat())?;
        let b = b.expand(&[batch.as_slice(), &[br, bc]].concat())?;
        solve_same_batch(&lu, &pivots, &b, left, adjoint)
    }
}

/// `lu_solve` of LU (*, n, n), pivots (*, n) and B with one batch shape; X A = B is Aᵀ Xᵀ = Bᵀ.
fn solve_same_batch(lu: &Tensor, pivots: &Tensor, b: &Tensor, left: bool, adjoint: bool) -> Result<Tensor> {
    let n = lu.shape()[lu.ndim() - 1];
    let rhs = if left { b.clone() } else { mt(b)? };
    let k = rhs.shape()[rhs.ndim() - 1];
    let (lu_vals, piv, mut x) = (lu.to_vec::<f64>(), pivots.to_vec::<i32>(), rhs.to_vec::<f64>());
    let count = x.len().checked_div(n * k).unwrap_or(0);
    for i in 0..count {
        let piv = &piv[i * n..(i + 1) * n];
        getrs(&lu_vals[i * n * n..(i + 1) * n * n], piv, &mut x[i * n * k..(i + 1) * n * k], n, k, adjoint == left);
    }
    let x = to_tensor(x, rhs.shape(), b.dtype())?;
    let x = if left { x } else { mt(&x)?.contiguous()? };
    Ok(record(x, &[lu, b], |x| LinalgLuSolveBackward0 {
        LU: SavedTensor::input(lu),
        adjoint,
        left,
        pivots: SavedTensor::input(pivots),
        result: SavedTensor::output(x),
    }))
}

crate::backward_rule! {
    /// `linalg.lu_solve`: gB is one more solve with the adjoint flipped; gA (of A = P L U) is -gB Xᵀ
    /// (transposed and ordered by `left` and `adjoint`), and the packed LU gets tril(Pᵀ gA Uᵀ, -1) +
    /// triu(Lᵀ Pᵀ gA).
    #[allow(non_snake_case)]
    pub struct LinalgLuSolveBackward0 {
        LU: SavedTensor,
        adjoint: bool,
        left: bool,
        pivots: SavedTensor,
        result: SavedTensor,
    }
}
impl Backward for LinalgLuSolveBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (lu, pivots, x) = (ctx.unpack(&self.LU)?, ctx.unpack(&self.pivots)?, ctx.unpack(&self.result)?);
        let gb = solve_same_batch(&lu, &pivots, g, self.left, !self.adjoint)?;
        let ga_lu = ctx.grad_if(0, || {
            let ga = match (self.left, self.adjoint) {
                (true, false) => gb.matmul(&mt(&x)?)?,
                (true, true) => x.matmul(&mt(&gb)?)?,
                (false, false) => mt(&x)?.matmul(&gb)?,
                (false, true) => mt(&gb)?.matmul(&x)?,
            }
            .neg()?;
            let (l, u) = unpack_factors(&lu)?;
            let pt_ga = mt(&permutation_matrix(&pivots, lu.shape()[lu.ndim() - 1], lu.dtype())?)?.matmul(&ga)?;
            pt_ga.matmul(&mt(&u)?)?.tri(-1, false)?.add(&mt(&l)?.matmul(&pt_ga)?.tri(0, true)?)
        })?;
        Ok(vec![ga_lu, Some(gb)])
    }
}
