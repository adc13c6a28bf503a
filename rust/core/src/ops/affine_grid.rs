//! `affine_grid_generator` (`nn.functional.affine_grid`'s core): the normalized output coordinates of an
//! (N, C, H, W) or (N, C, D, H, W) size, as homogeneous rows (x, y[, z], 1), times each batch's affine
//! matrix θ; torch's `AffineGridGenerator.cpp` composes it the same way (a base grid and `bmm`).
use crate::autograd::{record, Backward, Ctx, Grads};
use crate::bail;
use crate::element::Float;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::DType;

/// `linspace(-1, 1, steps)` as torch's kernel computes it (the second half counted back from 1),
/// scaled by (steps - 1) / steps without `align_corners`; a single step is 0.
fn axis_coordinates<F: Float>(steps: usize, align_corners: bool) -> Vec<F> {
    if steps <= 1 {
        return vec![F::ZERO; steps];
    }
    let (start, end) = (-F::ONE, F::ONE);
    let step = (end - start) / F::from_f64((steps - 1) as f64);
    let halfway = steps / 2;
    (0..steps)
        .map(|i| {
            let v = if i < halfway {
                start + step * F::from_f64(i as f64)
            } else {
                end - step * F::from_f64((steps - i - 1) as f64)
            };
            if align_corners {
                v
            } else {
                v * F::from_f64((steps - 1) as f64) / F::from_f64(steps as f64)
            }
        })
        .collect()
}

/// The base grid (N, points, dims + 1): every output point's (x, y[, z], 1), x along the last dim.
fn base_grid_values<F: Float>(spatial: &[usize], batch: usize, align_corners: bool) -> Vec<F> {
    let dims = spatial.len();
    let axes: Vec<Vec<F>> = (0..dims).map(|a| axis_coordinates(spatial[dims - 1 - a], align_corners)).collect();
    let points: usize = spatial.iter().product();
    let mut row = Vec::with_capacity(points * (dims + 1));
    for p in 0..points {
        let mut rest = p;
        let mut coords = vec![F::ONE; dims + 1];
        for a in 0..dims {
            let len = spatial[dims - 1 - a];
            coords[a] = axes[a][rest % len];
            rest /= len;
        }
        row.extend(coords);
    }
    row.repeat(batch)
}

fn base_grid(size: &[usize], dtype: DType, align_corners: bool) -> Result<Tensor> {
    let (batch, spatial) = (size[0], &size[2..]);
    let points: usize = spatial.iter().product();
    let shape = [batch, points, spatial.len() + 1];
    crate::alloc::check_new_shape(&shape, dtype.itemsize())?;
    if dtype == DType::F64 {
        Tensor::from_vec(base_grid_values::<f64>(spatial, batch, align_corners), &shape)
    } else {
        Tensor::from_vec(base_grid_values::<f32>(spatial, batch, align_corners), &shape)?.to_dtype(dtype)
    }
}

impl Tensor {
    /// `affine_grid_generator(theta, size, align_corners)`: θ (N, 2, 3) for a 4-D size or (N, 3, 4) for a
    /// 5-D one gives the sampling grid (N, H, W, 2) or (N, D, H, W, 3) (AffineGridGeneratorBackward0).
    pub fn affine_grid_generator(&self, size: &[usize], align_corners: bool) -> Result<Tensor> {
        if size.len() != 4 && size.len() != 5 {
            bail!(Runtime, "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
        }
        let dims = size.len() - 2;
        let base = base_grid(size, self.dtype(), align_corners)?;
        let grid = base.bmm(&self.detach().transpose(1, 2)?)?;
        let mut shape = vec![size[0] as isize];
        shape.extend(size[2..].iter().map(|&s| s as isize));
        shape.push(dims as isize);
        let grid = grid.view(&shape)?;
        Ok(record(grid, &[self], |_| AffineGridGeneratorBackward0 { size: size.to_vec(), align_corners }))
    }
}

crate::backward_rule! {
    pub struct AffineGridGeneratorBackward0 {
        size: Vec<usize>,
        align_corners: bool,
    }
}

impl Backward for AffineGridGeneratorBackward0 {
    /// θ's gradient: baseᵀ · g per batch, transposed back (bmm, so it is differentiable in g).
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let base = base_grid(&self.size, g.dtype(), self.align_corners)?;
        let dims = self.size.len() - 2;
        let points: usize = self.size[2..].iter().product();
        let g = g.reshape(&[self.size[0], points, dims])?;
        Ok(vec![Some(base.transpose(1, 2)?.bmm(&g)?.transpose(1, 2)?)])
    }
}
