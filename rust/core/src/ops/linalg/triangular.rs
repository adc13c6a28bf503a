//! `linalg.solve_triangular`: A X = B (or X A = B) by substitution, reading only A's given triangle,
//! batch dimensions broadcast; and PyTorch's backward rule for it.
use super::batch::{mt, to_tensor};
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::{promote_types, DType};
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// Solves T X = B in place of the row-major n×k `x` (holding B) for the n×n triangle of `a`
/// (`upper` or lower, with a unit diagonal taken as given when `unit`).
pub(super) fn substitute(a: &[f64], x: &mut [f64], n: usize, k: usize, upper: bool, unit: bool) {
    let rows: Vec<usize> = if upper { (0..n).rev().collect() } else { (0..n).collect() };
    for &i in &rows {
        let known = if upper { i + 1..n } else { 0..i };
        for j in known {
            let aij = a[i * n + j];
            for c in 0..k {
                x[i * k + c] -= aij * x[j * k + c];
            }
        }
        if !unit {
            let d = a[i * n + i];
            for c in 0..k {
                x[i * k + c] /= d;
            }
        }
    }
}

/// The left solve A X = B of A (*, n, n) and B (*, n, k) sharing one batch shape, in `dtype`.
pub(super) fn solve_left(a: &Tensor, b: &Tensor, upper: bool, unit: bool, dtype: DType) -> Result<Tensor> {
    let n = a.shape()[a.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let (a_vals, mut x) = (a.to_vec::<f64>(), b.to_vec::<f64>());
    let count = x.len().checked_div(n * k).unwrap_or(0);
    for i in 0..count {
        substitute(&a_vals[i * n * n..(i + 1) * n * n], &mut x[i * n * k..(i + 1) * n * k], n, k, upper, unit);
    }
    to_tensor(x, b.shape(), dtype)
}

impl Tensor {
    /// `linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)`: X with
    /// A X = B (X A = B when not `left`); a zero on A's diagonal gives inf/NaN, as in PyTorch.
    pub fn linalg_solve_triangular(&self, b: &Tensor, upper: bool, left: bool, unitriangular: bool) -> Result<Tensor> {
        let a = self;
        const FUNC: &str = "linalg.solve_triangular";
        if a.ndim() < 2 {
            bail!(Runtime, "{FUNC}: The input tensor A must have at least 2 dimensions.");
        }
        if b.ndim() < 2 {
            bail!(Runtime, "{FUNC}: The input tensor B must have at least 2 dimensions.");
        }
        let (rows, cols) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
        if rows != cols {
            bail!(Runtime, "{FUNC}: A must be batches of square matrices, but they are {rows} by {cols} matrices");
        }
        let (br, bc) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
        if (left && br != rows) || (!left && bc != rows) {
            let equation = if left { "AX = B" } else { "XA = B" };
            bail!(
                Runtime,
                "{FUNC}: Incompatible shapes of A and B for the equation {equation} ({rows}x{rows} and {br}x{bc})"
            );
        }
        let dtype = promote_types(a.dtype(), b.dtype());
        if !matches!(dtype, DType::F32 | DType::F64) {
            bail!(NotImplemented, "\"triangular_solve_cpu\" not implemented for '{}'", dtype.scalar_type_name());
        }
        let batch = broadcast_shapes(&a.shape()[..a.ndim() - 2], &b.shape()[..b.ndim() - 2])?;
        let a_e = a.detach().expand(&[batch.as_slice(), &[rows, rows]].concat())?;
        let b_e = b.detach().expand(&[batch.as_slice(), &[br, bc]].concat())?;
        // X A = B  <=>  Aᵀ Xᵀ = Bᵀ, Aᵀ triangular on the other side
        let x = if left {
            solve_left(&a_e, &b_e, upper, unitriangular, dtype)?
        } else {
            mt(&solve_left(&mt(&a_e)?, &mt(&b_e)?, !upper, unitriangular, dtype)?)?.contiguous()?
        };
        Ok(record(x, &[a, b], |x| LinalgSolveTriangularBackward0 {
            left,
            result: SavedTensor::output(x),
            self_: SavedTensor::input(a),
            unitriangular,
            upper,
        }))
    }
}

crate::backward_rule! {
    /// `linalg.solve_triangular`: gB = A⁻ᵀ g (one more triangular solve, by the other triangle),
    /// gA = -gB Xᵀ (X gB... when not `left`), kept on A's triangle (off its diagonal when unit).
    pub struct LinalgSolveTriangularBackward0 {
        left: bool,
        result: SavedTensor,
        self_: SavedTensor,
        unitriangular: bool,
        upper: bool,
    }
}
impl Backward for LinalgSolveTriangularBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, x) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        let gb = mt(&a)?.linalg_solve_triangular(g, !self.upper, self.left, self.unitriangular)?;
        let ga = ctx.grad_if(0, || {
            let full = if self.left { gb.matmul(&mt(&x)?)? } else { mt(&x)?.matmul(&gb)? };
            let diagonal_offset = if self.unitriangular { 1 } else { 0 };
            let k = if self.upper { diagonal_offset } else { -diagonal_offset };
            full.neg()?.tri(k, self.upper)
        })?;
        Ok(vec![ga, Some(gb)])
    }
}
