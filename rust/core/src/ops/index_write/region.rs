//! `select_scatter`, `slice_scatter` and `diagonal_scatter`: a copy of self with a view's region (a
//! selected slice, a strided range, a diagonal) replaced by `src`, which must have the region's shape.
use crate::autograd::{record, Backward, Ctx, Grads};
use crate::bail;
use crate::error::Result;
use crate::layout::{wrap_dim, Layout};
use crate::ops::index::{IndexBackward0, IndexPutBackward0, Positions};
use crate::ops::shape::diagonal_layout;
use crate::tensor::Tensor;

/// Self's elements in `region` (a view of self's contiguous form) replaced by `src` (cast to self's dtype).
fn scatter_region(x: &Tensor, src: &Tensor, region: &Layout) -> Result<(Tensor, Positions)> {
    if src.shape() != region.shape.as_slice() {
        bail!(
            Runtime,
            "expected src to have a size equal to the slice of self. src size = {:?}, slice size = {:?}",
            src.shape(),
            region.shape
        );
    }
    let pos = Tensor::region_positions(region);
    let values = src.detach().to_dtype(x.dtype())?.reshape(&[pos.len()])?;
    Ok((x.detach().put_values(&pos, &values, false)?, pos))
}

/// The gradients of a region scatter: self's is zero in the region, src's is the region of the gradient.
fn region_grads(ctx: &Ctx<'_>, g: &Tensor, positions: &Positions, region_shape: &[usize]) -> Result<Grads> {
    Ok(vec![
        ctx.grad_if(0, || {
            let zeros = Tensor::zeros(&[positions.len()], g.dtype());
            g.put_flat(positions.clone(), &zeros, false, IndexPutBackward0::gradient_write(false))
        })?,
        ctx.grad_if(1, || g.take_flat(positions.clone(), region_shape, IndexBackward0::of(g)))?,
    ])
}

impl Tensor {
    /// `select_scatter(src, dim, index)`: `self.select(dim, index)` replaced by `src`.
    pub fn select_scatter(&self, src: &Tensor, dim: isize, index: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as isize;
        if index < -size || index >= size {
            bail!(Index, "select(): index {index} out of range for tensor of size {:?} at dimension {d}", self.shape());
        }
        let row = if index < 0 { index + size } else { index } as usize;
        let region = Layout::contiguous(self.shape()).select(d, row);
        let (out, positions) = scatter_region(self, src, &region)?;
        let rule = |_: &Tensor| SelectScatterBackward0 { dim: d, index, positions, region };
        Ok(record(out, &[self, src], rule))
    }

    /// `slice_scatter(src, dim, start, end, step)`: `self[start:end:step]` along `dim` replaced by `src`
    /// (the bounds clamped as Python's slices are).
    pub fn slice_scatter(
        &self,
        src: &Tensor,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "slice() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        if step <= 0 {
            bail!(Runtime, "slice step must be positive");
        }
        let size = self.shape()[d] as isize;
        let clamp = |v: isize| (if v < 0 { v + size } else { v }).clamp(0, size) as usize;
        let (first, last) = (start.map_or(0, clamp), end.map_or(size as usize, clamp));
        let region = Layout::contiguous(self.shape()).slice(d, first, last.max(first), step as usize);
        let (out, positions) = scatter_region(self, src, &region)?;
        let rule = |_: &Tensor| SliceScatterBackward0 { dim: d, end, start, step, positions, region };
        Ok(record(out, &[self, src], rule))
    }

    /// `diagonal_scatter(src, offset, dim1, dim2)`: `self.diagonal(offset, dim1, dim2)` replaced by `src`.
    pub fn diagonal_scatter(&self, src: &Tensor, offset: isize, dim1: isize, dim2: isize) -> Result<Tensor> {
        let (d1, d2) = (wrap_dim(dim1, self.ndim())?, wrap_dim(dim2, self.ndim())?);
        if d1 == d2 {
            bail!(Runtime, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let region = diagonal_layout(&Layout::contiguous(self.shape()), offset, d1, d2);
        let (out, positions) = scatter_region(self, src, &region)?;
        let rule = |_: &Tensor| DiagonalScatterBackward0 { dim1: d1, dim2: d2, offset, positions, region };
        Ok(record(out, &[self, src], rule))
    }
}

crate::backward_rule! {
    /// `select_scatter(src, dim, index)`.
    pub struct SelectScatterBackward0 {
        dim: usize,
        index: isize,
        positions: Positions,
        region: Layout,
    }
}
impl Backward for SelectScatterBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        region_grads(ctx, g, &self.positions, &self.region.shape)
    }
}

crate::backward_rule! {
    /// `slice_scatter(src, dim, start, end, step)`.
    pub struct SliceScatterBackward0 {
        dim: usize,
        end: Option<isize>,
        start: Option<isize>,
        step: isize,
        positions: Positions,
        region: Layout,
    }
}
impl Backward for SliceScatterBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        region_grads(ctx, g, &self.positions, &self.region.shape)
    }
}

crate::backward_rule! {
    /// `diagonal_scatter(src, offset, dim1, dim2)`.
    pub struct DiagonalScatterBackward0 {
        dim1: usize,
        dim2: usize,
        offset: isize,
        positions: Positions,
        region: Layout,
    }
}
impl Backward for DiagonalScatterBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        region_grads(ctx, g, &self.positions, &self.region.shape)
    }
}
