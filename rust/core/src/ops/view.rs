//! Views: tensors that read another's storage through a new layout, and their backward rules.
use crate::autograd::{grad_mode, one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::error::Result;
use crate::layout::{wrap_dim, Layout};
use crate::tensor::Tensor;
use std::sync::Arc;

/// Resolves one `-1` in a requested shape, with PyTorch's messages.
pub fn infer_shape(shape: &[isize], numel_in: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &d) in shape.iter().enumerate() {
        match d {
            -1 if infer.is_some() => bail!(Runtime, "only one dimension can be inferred"),
            -1 => infer = Some(i),
            d if d < 0 => bail!(Runtime, "invalid shape dimension {d}"),
            // wrapping, as torch's infer_size: a shape that wraps to the input's size is caught below
            d => known = known.wrapping_mul(d as usize),
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match infer {
        Some(i) if known != 0 && numel_in.is_multiple_of(known) => out[i] = numel_in / known,
        None if known == numel_in => {}
        _ => bail!(Runtime, "shape '{:?}' is invalid for input of size {}", shape, numel_in),
    }
    // a product past isize::MAX (2**40 × 2**40 wraps to an empty input's 0) is refused, even where a later dim
    // is 0, as torch's checked numel of the new sizes
    if out.iter().try_fold(1usize, |n, &d| n.checked_mul(d).filter(|&n| n <= isize::MAX as usize)).is_none() {
        bail!(Runtime, "numel: integer multiplication overflow");
    }
    Ok(out)
}

impl Tensor {
    /// A tensor over the same storage through another layout.
    pub(crate) fn view_with(&self, layout: Layout) -> Tensor {
        let mut t = Tensor::from_parts(self.0.storage.clone(), layout, self.dtype());
        Arc::get_mut(&mut t.0).expect("fresh tensor").is_view = true;
        t
    }

    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor> {
        let shape_i: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        self.reshape_infer(&shape_i)
    }

    /// `reshape`: a view when the strides allow, else a copy.
    pub fn reshape_infer(&self, shape: &[isize]) -> Result<Tensor> {
        let replay = || {
            let shape = shape.to_vec();
            move |x: &[&Tensor]| x[0].reshape_infer_eager(&shape)
        };
        traced("reshape", NodeKind::Opaque, &[self], || self.reshape_infer_eager(shape), replay)
    }

    fn reshape_infer_eager(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        if let Some(layout) = self.layout().reshape_view(&shape) {
            return Ok(self.record_view(layout, ViewBackward0 { self_sym_sizes: self.shape().to_vec() }));
        }
        let copy = self.contiguous()?;
        let layout = Layout::contiguous(&shape);
        Ok(copy.record_view(layout, UnsafeViewBackward0 { self_sym_sizes: self.shape().to_vec() }))
    }

    /// `view`: never copies.
    pub fn view(&self, shape: &[isize]) -> Result<Tensor> {
        let replay = || {
            let shape = shape.to_vec();
            move |x: &[&Tensor]| x[0].view_eager(&shape)
        };
        traced("view", NodeKind::Opaque, &[self], || self.view_eager(shape), replay)
    }

    fn view_eager(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        match self.layout().reshape_view(&shape) {
            Some(layout) => Ok(self.record_view(layout, ViewBackward0 { self_sym_sizes: self.shape().to_vec() })),
            None => bail!(
                Runtime,
                "view size is not compatible with input tensor's size and stride (at least one \
                dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ),
        }
    }

    /// Reshapes the result of an internal step (matmul's batching, kron) without a copy, as a view must
    /// (torch's `_unsafe_view`: its error when the strides do not allow it).
    pub(crate) fn unsafe_view(&self, shape: &[usize]) -> Result<Tensor> {
        let Some(layout) = self.layout().reshape_view(shape) else {
            bail!(
                Runtime,
                "view size is not compatible with input tensor's size and stride (at least one \
                dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        };
        Ok(self.record_view(layout, UnsafeViewBackward0 { self_sym_sizes: self.shape().to_vec() }))
    }

    fn record_view<R: Backward>(&self, layout: Layout, rule: R) -> Tensor {
        record(self.view_with(layout), &[self], |_| rule)
    }

    pub fn transpose(&self, dim0: isize, dim1: isize) -> Result<Tensor> {
        let replay = || move |x: &[&Tensor]| x[0].transpose_eager(dim0, dim1);
        traced("transpose", NodeKind::Opaque, &[self], || self.transpose_eager(dim0, dim1), replay)
    }

    fn transpose_eager(&self, dim0: isize, dim1: isize) -> Result<Tensor> {
        let (d0, d1) = (wrap_dim(dim0, self.ndim())?, wrap_dim(dim1, self.ndim())?);
        if self.ndim() == 0 {
            return Ok(self.record_view(self.layout().clone(), TransposeBackward0 { dim0: 0, dim1: 0 }));
        }
        Ok(self.record_view(self.layout().transpose(d0, d1), TransposeBackward0 { dim0: d0, dim1: d1 }))
    }

    pub fn t(&self) -> Result<Tensor> {
        let replay = || move |x: &[&Tensor]| x[0].t_eager();
        traced("t", NodeKind::Opaque, &[self], || self.t_eager(), replay)
    }

    fn t_eager(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            bail!(Runtime, "t() expects a tensor with <= 2 dimensions, but self is {}D", self.ndim());
        }
        let layout = if self.ndim() == 2 { self.layout().transpose(0, 1) } else { self.layout().clone() };
        Ok(self.record_view(layout, TBackward0))
    }

    pub fn permute(&self, dims: &[isize]) -> Result<Tensor> {
        let replay = || {
            let dims = dims.to_vec();
            move |x: &[&Tensor]| x[0].permute_eager(&dims)
        };
        traced("permute", NodeKind::Opaque, &[self], || self.permute_eager(dims), replay)
    }

    fn permute_eager(&self, dims: &[isize]) -> Result<Tensor> {
        if dims.len() != self.ndim() {
            bail!(
                Runtime,
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the \
                    desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.ndim(),
                dims.len()
            );
        }
        let mut perm = Vec::with_capacity(dims.len());
        for &d in dims {
            let w = wrap_dim(d, self.ndim())?;
            if perm.contains(&w) {
                bail!(Runtime, "permute(): duplicate dims are not allowed.");
            }
            perm.push(w);
        }
        Ok(self.record_view(self.layout().permute(&perm), PermuteBackward0 { dims: perm }))
    }

    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        let replay = || move |x: &[&Tensor]| x[0].unsqueeze_eager(dim);
        traced("unsqueeze", NodeKind::Opaque, &[self], || self.unsqueeze_eager(dim), replay)
    }

    fn unsqueeze_eager(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        Ok(self.record_view(self.layout().unsqueeze(d), UnsqueezeBackward0 { dim: d }))
    }

    /// `squeeze()`: drops every size-1 dim.
    pub fn squeeze(&self) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| x[0].squeeze_eager();
        traced("squeeze", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn squeeze_eager(&self) -> Result<Tensor> {
        let dims: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape()[d] == 1).collect();
        Ok(self.record_view(self.layout().squeeze(&dims), SqueezeBackward0 { self_sym_sizes: self.shape().to_vec() }))
    }

    /// `squeeze(dim)`: drops that dim if its size is 1.
    pub fn squeeze_dim(&self, dim: isize) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].squeeze_dim_eager(dim);
        traced("squeeze", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn squeeze_dim_eager(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let dims: Vec<usize> = if d < self.ndim() { vec![d] } else { vec![] };
        Ok(self.record_view(
            self.layout().squeeze(&dims),
            SqueezeBackward1 { dim: d, self_sym_sizes: self.shape().to_vec() },
        ))
    }

    /// A fresh result with the size-1 `dim` dropped, recorded as torch's in-place `squeeze_(dim)` on it
    /// (`matmul` of a vector and a matrix does that).
    pub(crate) fn squeezed_in_place(&self, dim: usize) -> Tensor {
        self.record_view(self.layout().squeeze(&[dim]), SqueezeBackward4 { dim, self_sym_sizes: self.shape().to_vec() })
    }

    /// A fresh result with a size-1 dim inserted at `dim`, recorded as torch's in-place `unsqueeze_(dim)`
    /// on it (`quantile` of a tensor of q does that).
    pub(crate) fn unsqueezed_in_place(&self, dim: usize) -> Tensor {
        self.record_view(self.layout().unsqueeze(dim), UnsqueezeBackward1 { dim })
    }

    /// A fresh result with dims `dim0` and `dim1` swapped, recorded as torch's in-place `transpose_`.
    pub(crate) fn transposed_in_place(&self, dim0: usize, dim1: usize) -> Tensor {
        self.record_view(self.layout().transpose(dim0, dim1), TransposeBackward1 { dim0, dim1 })
    }

    /// `expand(*sizes)`, where -1 keeps a dim's size.
    pub fn expand_infer(&self, sizes: &[isize]) -> Result<Tensor> {
        let lead = sizes.len() as isize - self.ndim() as isize;
        let mut shape = Vec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            let i = i as isize;
            shape.push(match s {
                -1 if i < lead => bail!(
                    Runtime,
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                ),
                -1 => self.shape()[(i - lead) as usize],
                s if s < 0 => bail!(Runtime, "Trying to create tensor with negative dimension {s}: {sizes:?}"),
                s => s as usize,
            });
        }
        self.expand(&shape)
    }

    pub fn expand(&self, shape: &[usize]) -> Result<Tensor> {
        let replay = || {
            let shape = shape.to_vec();
            move |x: &[&Tensor]| x[0].expand_eager(&shape)
        };
        traced("expand", NodeKind::Opaque, &[self], || self.expand_eager(shape), replay)
    }

    fn expand_eager(&self, shape: &[usize]) -> Result<Tensor> {
        crate::layout::check_numel(shape)?;
        let layout = self.layout().broadcast_to(shape)?;
        Ok(self.record_view(layout, ExpandBackward0 { self_sym_sizes: self.shape().to_vec() }))
    }

    /// `unfold(dimension, size, step)`: every window of `size` elements along `dimension`, `step`
    /// apart, as a new last dim; a view (windows may overlap).
    pub fn unfold(&self, dimension: isize, size: usize, step: isize) -> Result<Tensor> {
        let d = wrap_dim(dimension, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if size > n {
            bail!(Runtime, "maximum size for tensor at dimension {d} is {n} but size is {size}");
        }
        if step <= 0 {
            bail!(Runtime, "step is {step} but must be > 0");
        }
        let layout = unfold_layout(self.layout(), d, size, step as usize);
        let rule = UnfoldBackward0 { self_sym_sizes: self.shape().to_vec(), dimension: d, size, step: step as usize };
        Ok(self.record_view(layout, rule))
    }

    /// `Tensor.detach()` called from Python: `detach`, captured (each replay detaches its operand anew).
    pub fn detach_op(&self) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| Ok(x[0].detach());
        traced("detach", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    /// `x[index]` along `dim` (negative indices count from the end).
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].select_eager(dim, index);
        traced("select", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn select_eager(&self, dim: isize, index: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(
                Index,
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ \
                to convert a 0-dim tensor to a number"
            );
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as isize;
        if index < -size || index >= size {
            bail!(Index, "index {index} is out of bounds for dimension {d} with size {size}");
        }
        let i = if index < 0 { index + size } else { index } as usize;
        let rule = SelectBackward0 { self_sym_sizes: self.shape().to_vec(), dim: d, index: i };
        Ok(self.record_view(self.layout().select(d, i), rule))
    }

    /// `start..end` by `step` along `dim`, bounds already clamped to the dim.
    pub fn slice(&self, dim: usize, start: usize, end: usize, step: usize) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].slice_eager(dim, start, end, step);
        traced("slice", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn slice_eager(&self, dim: usize, start: usize, end: usize, step: usize) -> Result<Tensor> {
        if dim >= self.ndim() || step == 0 || start > self.shape()[dim] || end > self.shape()[dim] {
            bail!(
                Index,
                "slice {start}:{end}:{step} is out of range for dimension {dim} of a tensor with shape {:?}",
                self.shape()
            );
        }
        let rule = SliceBackward0 { self_sym_sizes: self.shape().to_vec(), dim, start, end, step };
        Ok(self.record_view(self.layout().slice(dim, start, end.max(start), step), rule))
    }

    /// `squeeze(dims)`: drops those of `dims` whose size is 1.
    pub fn squeeze_dims(&self, dims: &[isize]) -> Result<Tensor> {
        let dims = dims.to_vec();
        let eager = move |x: &[&Tensor]| x[0].squeeze_dims_eager(&dims);
        let replay = eager.clone();
        traced("squeeze", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn squeeze_dims_eager(&self, dims: &[isize]) -> Result<Tensor> {
        let mut wrapped = Vec::with_capacity(dims.len());
        for &d in dims {
            wrapped.push(wrap_dim(d, self.ndim().max(1))?);
        }
        let dropped: Vec<usize> = (0..self.ndim()).filter(|d| wrapped.contains(d) && self.shape()[*d] == 1).collect();
        wrapped.sort_unstable();
        let rule = SqueezeBackward2 { dim: wrapped, self_sym_sizes: self.shape().to_vec() };
        Ok(self.record_view(self.layout().squeeze(&dropped), rule))
    }

    /// `as_strided(size, stride, storage_offset)`: the elements of this tensor's storage at those strides from
    /// `storage_offset` (this tensor's own by default), as a view, with torch's checks. Recorded (its gradient
    /// scattered back, AsStridedBackward0) when the region lies within this tensor's own elements laid out
    /// row-major; a tensor that needs no gradient may read any of its storage, as in torch.
    pub fn as_strided(&self, shape: &[usize], strides: &[isize], storage_offset: Option<usize>) -> Result<Tensor> {
        if shape.len() != strides.len() {
            bail!(Runtime, "mismatch in length of strides and shape");
        }
        if strides.iter().any(|&s| s < 0) {
            bail!(Runtime, "as_strided: Negative strides are not supported at the moment, got strides: {strides:?}");
        }
        let offset = storage_offset.unwrap_or(self.storage_offset());
        let strides: Vec<usize> = strides.iter().map(|&s| s as usize).collect();
        let region = Layout { shape: shape.to_vec(), strides, offset };
        let (needed, held) = (region.storage_extent(), self.storage_numel());
        if needed > held {
            let itemsize = self.dtype().itemsize();
            bail!(
                Runtime,
                "setStorage: sizes {shape:?}, strides {:?}, storage offset {offset}, and itemsize {itemsize} requiring \
                    a storage size of {} are out of bounds for storage of size {}",
                region.strides,
                needed * itemsize,
                held * itemsize
            );
        }
        let own = self.is_contiguous() && offset >= self.storage_offset();
        let relative = Layout { offset: offset.saturating_sub(self.storage_offset()), ..region.clone() };
        if own && relative.storage_extent() <= self.numel() {
            return self.as_strided_view(&relative);
        }
        if self.requires_grad() && grad_mode::is_enabled() {
            bail!(
                Runtime,
                "as_strided of a tensor that requires grad: ferrograd differentiates it only over the tensor's own \
                    elements of a row-major tensor (got sizes {shape:?}, strides {:?}, storage offset {offset})",
                region.strides
            );
        }
        Ok(self.view_with(region))
    }

    /// The region `geom` of this tensor read as contiguous, as a view.
    pub fn as_strided_view(&self, geom: &Layout) -> Result<Tensor> {
        if geom.storage_extent() > self.numel() {
            bail!(Runtime, "region {:?} lies outside a tensor of shape {:?}", geom, self.shape());
        }
        let base = self.contiguous()?;
        let layout = Layout { offset: base.storage_offset() + geom.offset, ..geom.clone() };
        let rule = AsStridedBackward0 { self_sym_sizes: self.shape().to_vec(), self_geometry: geom.clone() };
        Ok(base.record_view(layout, rule))
    }
}

/// The layout of `unfold(dim, size, step)` over `l` (a 0-dim `l` unfolds to one window of one).
pub fn unfold_layout(l: &Layout, dim: usize, size: usize, step: usize) -> Layout {
    if l.ndim() == 0 {
        return Layout { shape: vec![size], strides: vec![1], offset: l.offset };
    }
    let mut shape = l.shape.clone();
    let mut strides = l.strides.clone();
    shape[dim] = (l.shape[dim] - size) / step + 1;
    strides[dim] = l.strides[dim] * step;
    shape.push(size);
    strides.push(l.strides[dim]);
    Layout { shape, strides, offset: l.offset }
}

/// Rules of views that only reshape: the gradient is reshaped back to the input's sizes.
macro_rules! reshape_rules {
    ($($(#[$doc:meta])* $rule:ident { $($field:ident: $ty:ty),* })*) => {$(
        crate::backward_rule! {
            $(#[$doc])*
            pub struct $rule {
                $($field: $ty,)*
                self_sym_sizes: Vec<usize>,
            }
        }
        impl Backward for $rule {
            fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
                one(g.reshape(&self.self_sym_sizes))
            }
        }
    )*};
}
reshape_rules! {
    /// `view(shape)`.
    ViewBackward0 {}
    /// `reshape` through a copy.
    UnsafeViewBackward0 {}
    /// `squeeze()`.
    SqueezeBackward0 {}
    /// `squeeze(dim)`.
    SqueezeBackward1 { dim: usize }
    /// `squeeze(dims)`.
    SqueezeBackward2 { dim: Vec<usize> }
    /// `squeeze_(dim)`, in place.
    SqueezeBackward4 { dim: usize }
}

crate::backward_rule! {
    /// `transpose(dim0, dim1)`.
    pub struct TransposeBackward0 {
        dim0: usize,
        dim1: usize,
    }
}
impl Backward for TransposeBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.transpose(self.dim0 as isize, self.dim1 as isize))
    }
}

crate::backward_rule! {
    /// `transpose_(dim0, dim1)`, in place.
    pub struct TransposeBackward1 {
        dim0: usize,
        dim1: usize,
    }
}
impl Backward for TransposeBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.transpose(self.dim0 as isize, self.dim1 as isize))
    }
}

crate::backward_rule! {
    /// `t()`.
    pub struct TBackward0;
}
impl Backward for TBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.t())
    }
}

crate::backward_rule! {
    /// `permute(dims)`: the inverse permutation.
    pub struct PermuteBackward0 {
        dims: Vec<usize>,
    }
}
impl Backward for PermuteBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let mut inverse = vec![0isize; self.dims.len()];
        for (i, &p) in self.dims.iter().enumerate() {
            inverse[p] = i as isize;
        }
        one(g.permute(&inverse))
    }
}

crate::backward_rule! {
    /// `unsqueeze(dim)`.
    pub struct UnsqueezeBackward0 {
        dim: usize,
    }
}
impl Backward for UnsqueezeBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.squeeze_dim(self.dim as isize))
    }
}

crate::backward_rule! {
    /// `unsqueeze_(dim)`, in place.
    pub struct UnsqueezeBackward1 {
        dim: usize,
    }
}
impl Backward for UnsqueezeBackward1 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.squeeze_dim(self.dim as isize))
    }
}

crate::backward_rule! {
    /// `expand(sizes)`: the gradient summed over the broadcast dims.
    pub struct ExpandBackward0 {
        self_sym_sizes: Vec<usize>,
    }
}
impl Backward for ExpandBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.sum_to_size(&self.self_sym_sizes))
    }
}

crate::backward_rule! {
    /// `select(dim, index)`: the gradient written into zeros at that index.
    pub struct SelectBackward0 {
        self_sym_sizes: Vec<usize>,
        dim: usize,
        index: usize,
    }
}
impl Backward for SelectBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.select_backward(&self.self_sym_sizes, self.dim, self.index))
    }
}

crate::backward_rule! {
    /// A slice `start..end` by `step` along `dim`: the gradient written into zeros there.
    pub struct SliceBackward0 {
        self_sym_sizes: Vec<usize>,
        dim: usize,
        start: usize,
        end: usize,
        step: usize,
    }
}
impl Backward for SliceBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.slice_backward(&self.self_sym_sizes, self.dim, self.start, self.end, self.step))
    }
}

crate::backward_rule! {
    /// `unfold(dimension, size, step)`: overlapping windows, so their gradients add up.
    pub struct UnfoldBackward0 {
        self_sym_sizes: Vec<usize>,
        dimension: usize,
        size: usize,
        step: usize,
    }
}
impl Backward for UnfoldBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let shape = &self.self_sym_sizes;
        let geom = unfold_layout(&Layout::contiguous(shape), self.dimension, self.size, self.step);
        let pos = Tensor::region_positions(&geom);
        let node = UnfoldBackwardBackward0 { dim: self.dimension, size: self.size, step: self.step };
        one(Tensor::zeros(shape, g.dtype()).put_flat(pos, g, true, node))
    }
}

crate::backward_rule! {
    /// `unfold`'s gradient, recorded (double backward).
    pub struct UnfoldBackwardBackward0 { dim: usize, size: usize, step: usize }
}

crate::backward_rule! {
    /// The region `self_geometry` of a contiguous tensor of `self_sym_sizes`, as a view.
    pub struct AsStridedBackward0 {
        self_sym_sizes: Vec<usize>,
        self_geometry: Layout,
    }
}
impl Backward for AsStridedBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let geom = &self.self_geometry;
        if !geom.may_overlap() {
            return one(Tensor::zeros(&self.self_sym_sizes, g.dtype()).copy_slices(geom, g));
        }
        // an element read at several positions (sliding windows) takes the sum of their gradients
        let positions = Tensor::from_vec(element_positions(geom), &[geom.numel()])?;
        let numel = crate::layout::numel(&self.self_sym_sizes);
        let flat = Tensor::zeros(&[numel], g.dtype()).index_add(0, &positions, &g.reshape(&[geom.numel()])?, 1.0)?;
        one(flat.reshape(&self.self_sym_sizes))
    }
}

/// The storage position of each element of `geom`, in row-major order.
fn element_positions(geom: &Layout) -> Vec<i64> {
    let mut positions = vec![geom.offset as i64];
    for (&size, &stride) in geom.shape.iter().zip(&geom.strides) {
        positions = positions.iter().flat_map(|&p| (0..size).map(move |i| p + (i * stride) as i64)).collect();
    }
    positions
}
