//! The deprecated `torch.triangular_solve(b, A)`: X with A X = b (Aᵀ X = b with `transpose`) and a
//! copy of A, batch dimensions broadcast, with PyTorch's backward rule for both outputs.
use super::batch::mt;
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

const FUNC: &str = "torch.triangular_solve";

/// PyTorch's checks of `triangular_solve`'s arguments, in its order.
fn check_args(b: &Tensor, a: &Tensor) -> Result<()> {
    for (name, t) in [("b", b), ("A", a)] {
        if t.ndim() < 2 {
            bail!(
                Runtime,
                "{FUNC}: Expected {name} to have at least 2 dimensions, but it has {} dimensions instead",
                t.ndim()
            );
        }
    }
    let (rows, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    if rows != n {
        bail!(Runtime, "A must be batches of square matrices, but they are {rows} by {n} matrices");
    }
    let (br, bc) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    if br != n {
        bail!(
            Runtime,
            "Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but each b matrix is {br} by \
             {bc}"
        );
    }
    if b.dtype() != a.dtype() {
        bail!(
            Runtime,
            "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
            b.dtype().scalar_type_name(),
            a.dtype().scalar_type_name()
        );
    }
    if !matches!(a.dtype(), DType::F32 | DType::F64) {
        bail!(NotImplemented, "\"triangular_solve_cpu\" not implemented for '{}'", a.dtype().scalar_type_name());
    }
    Ok(())
}

/// The triangle of `t` an `upper` (or lower) triangular matrix uses, without the diagonal when `unit`.
fn triangle(t: &Tensor, upper: bool, unit: bool) -> Result<Tensor> {
    let k = match (unit, upper) {
        (false, _) => 0,
        (true, true) => 1,
        (true, false) => -1,
    };
    t.tri(k, upper)
}

impl Tensor {
    /// `torch.triangular_solve(self, A, upper, transpose, unitriangular)`: (solution, cloned_coefficient).
    pub fn triangular_solve(
        &self,
        a: &Tensor,
        upper: bool,
        transpose: bool,
        unitriangular: bool,
    ) -> Result<(Tensor, Tensor)> {
        let b = self;
        check_args(b, a)?;
        let n = a.shape()[a.ndim() - 1];
        let cols = b.shape()[b.ndim() - 1];
        let batch = broadcast_shapes(&b.shape()[..b.ndim() - 2], &a.shape()[..a.ndim() - 2])?;
        let b = b.expand(&[batch.as_slice(), &[n, cols]].concat())?;
        let a = a.expand(&[batch.as_slice(), &[n, n]].concat())?;
        let (x, copy) = {
            let _no_grad = GradModeGuard::new(false);
            let op = if transpose { mt(&a)? } else { a.clone() };
            let x = op.linalg_solve_triangular(&b, upper != transpose, true, unitriangular)?.contiguous()?;
            (x, a.contiguous_copy()?)
        };
        let rule = TriangularSolveBackward0 {
            A: SavedTensor::input(&a),
            self_: SavedTensor::input(&b),
            solution: SavedTensor::output(&x),
            transpose,
            unitriangular,
            upper,
        };
        let mut out = record_outputs(vec![x, copy], &[&b, &a], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

crate::backward_rule! {
    /// `triangular_solve`: with op(A) = A or Aᵀ, gb = op(A)⁻ᵀ gX and gA = -gb Xᵀ on A's triangle (transposed
    /// back with `transpose`), plus the copy's gradient as it is.
    #[allow(non_snake_case)]
    pub struct TriangularSolveBackward0 {
        A: SavedTensor,
        self_: SavedTensor,
        solution: SavedTensor,
        transpose: bool,
        unitriangular: bool,
        upper: bool,
    }
}
impl Backward for TriangularSolveBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (gx, gm) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        let (mut gb, mut ga) = (None, gm);
        if let Some(gx) = gx {
            let a = ctx.unpack(&self.A)?;
            let x = ctx.unpack(&self.solution)?;
            let op_upper = self.upper != self.transpose;
            let op = if self.transpose { mt(&a)? } else { a };
            let g = mt(&op)?.linalg_solve_triangular(&gx, !op_upper, true, self.unitriangular)?;
            let g_op = triangle(&g.matmul(&mt(&x)?)?.neg()?, op_upper, self.unitriangular)?;
            let g_a = if self.transpose { mt(&g_op)? } else { g_op };
            ga = Some(match ga {
                Some(gm) => g_a.add(&gm)?,
                None => g_a,
            });
            gb = Some(g);
        }
        Ok(vec![gb, ga])
    }
}
