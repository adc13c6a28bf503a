//! Views (sharing storage) and the copies that stand in where a view is impossible.
use crate::autograd::{record, BackwardOp};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise::copy_into;
use crate::layout::{numel, wrap_dim, Layout};
use crate::tensor::Tensor;
use crate::{bail, with_dtype};
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
            d => known *= d as usize,
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match infer {
        Some(i) if known != 0 && numel_in.is_multiple_of(known) => out[i] = numel_in / known,
        None if known == numel_in => {}
        _ => bail!(Runtime, "shape '{:?}' is invalid for input of size {}", shape, numel_in),
    }
    Ok(out)
}

/// What `write_dense` does with each pair of elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenseWrite {
    Copy,
    Add,
    Sub,
    Mul,
    Div,
}

impl DenseWrite {
    /// The out-of-place result this write stores into `a`: `a op b`, or for `Copy`, `b` broadcast to
    /// `a`'s shape in `a`'s dtype. In-place ops fall back to it where no dense write applies.
    pub fn result(self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        match self {
            DenseWrite::Copy => b.expand(a.shape())?.to_dtype(a.dtype()),
            DenseWrite::Add => a.add(b),
            DenseWrite::Sub => a.sub(b),
            DenseWrite::Mul => a.mul(b),
            DenseWrite::Div => a.div(b),
        }
    }
}

impl Tensor {
    /// A tensor over the same storage through another layout.
    pub(crate) fn view_with(&self, layout: Layout) -> Tensor {
        let mut t = Tensor::from_parts(self.0.storage.clone(), layout, self.dtype());
        Arc::get_mut(&mut t.0).expect("fresh tensor").is_view = true;
        t
    }

    /// A fresh contiguous copy with no history.
    pub fn contiguous_copy(&self) -> Result<Tensor> {
        with_dtype!(self.dtype(), T => Tensor::from_vec(self.to_vec::<T>(), self.shape()))
    }

    /// Whether this handle is the only way to its memory: no other handle, no view, not borrowed
    /// (from numpy), and the whole storage laid out densely from its start.
    pub(crate) fn is_unique_dense(&self) -> bool {
        Arc::strong_count(&self.0) == 1
            && Arc::strong_count(&self.0.storage) == 1
            && self.is_contiguous()
            && self.storage_offset() == 0
            && self.numel() == self.0.storage.read().len()
            && with_dtype!(self.dtype(), T => T::data(&self.0.storage.read()).is_some_and(|d| d.is_owned()))
    }

    /// The gradient itself when nothing else can see its memory, else a private contiguous copy.
    pub(crate) fn detach_unique(self) -> Tensor {
        if self.is_unique_dense() {
            self.detach()
        } else {
            self.contiguous_copy().expect("copy of a valid tensor")
        }
    }

    /// `clone()`: a copy in this tensor's memory order (PyTorch's `preserve_format`), so `x.T.clone()`
    /// keeps `x.T`'s strides; a layout with gaps or repeats comes out dense in the order of its strides.
    pub fn clone_tensor(&self) -> Result<Tensor> {
        let out = self.map_in_memory_order(|x| x.contiguous_copy())?;
        Ok(record(out, &[self], || BackwardOp::Clone, |_| vec![]))
    }

    /// `contiguous()`: self when row-major already, else a row-major copy (recorded as a clone, as
    /// in PyTorch).
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        let out = self.contiguous_copy()?;
        Ok(record(out, &[self], || BackwardOp::Clone, |_| vec![]))
    }

    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor> {
        let shape_i: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        self.reshape_infer(&shape_i)
    }

    /// `reshape`: a view when the strides allow, else a copy.
    pub fn reshape_infer(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        if let Some(layout) = self.layout().reshape_view(&shape) {
            return Ok(self.record_view(layout, BackwardOp::View { shape: self.shape().to_vec() }));
        }
        let copy = self.contiguous()?;
        let layout = Layout::contiguous(&shape);
        Ok(copy.record_view(layout, BackwardOp::UnsafeView { shape: self.shape().to_vec() }))
    }

    /// `view`: never copies.
    pub fn view(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        match self.layout().reshape_view(&shape) {
            Some(layout) => Ok(self.record_view(layout, BackwardOp::View { shape: self.shape().to_vec() })),
            None => bail!(
                Runtime,
                "view size is not compatible with input tensor's size and stride (at least one \
                dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ),
        }
    }

    /// Reshapes a contiguous result of an internal step (matmul's batching) without a copy.
    pub(crate) fn unsafe_view(&self, shape: &[usize]) -> Result<Tensor> {
        let layout = self.contiguous()?.layout().reshape_view(shape).expect("contiguous reshape");
        Ok(self.record_view(layout, BackwardOp::UnsafeView { shape: self.shape().to_vec() }))
    }

    fn record_view(&self, layout: Layout, op: BackwardOp) -> Tensor {
        record(self.view_with(layout), &[self], || op, |_| vec![])
    }

    pub fn transpose(&self, dim0: isize, dim1: isize) -> Result<Tensor> {
        let (d0, d1) = (wrap_dim(dim0, self.ndim())?, wrap_dim(dim1, self.ndim())?);
        if self.ndim() == 0 {
            return Ok(self.record_view(self.layout().clone(), BackwardOp::Transpose { dim0: 0, dim1: 0 }));
        }
        Ok(self.record_view(self.layout().transpose(d0, d1), BackwardOp::Transpose { dim0: d0, dim1: d1 }))
    }

    pub fn t(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            bail!(Runtime, "t() expects a tensor with <= 2 dimensions, but self is {}D", self.ndim());
        }
        let layout = if self.ndim() == 2 { self.layout().transpose(0, 1) } else { self.layout().clone() };
        Ok(self.record_view(layout, BackwardOp::T))
    }

    pub fn permute(&self, dims: &[isize]) -> Result<Tensor> {
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
        Ok(self.record_view(self.layout().permute(&perm), BackwardOp::Permute { perm }))
    }

    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        Ok(self.record_view(self.layout().unsqueeze(d), BackwardOp::Unsqueeze { dim: d }))
    }

    /// `squeeze()`: drops every size-1 dim.
    pub fn squeeze(&self) -> Result<Tensor> {
        let dims: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape()[d] == 1).collect();
        Ok(self.record_view(
            self.layout().squeeze(&dims),
            BackwardOp::Squeeze { shape: self.shape().to_vec(), overload: 0 },
        ))
    }

    /// `squeeze(dim)`: drops that dim if its size is 1.
    pub fn squeeze_dim(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let dims: Vec<usize> = if d < self.ndim() { vec![d] } else { vec![] };
        Ok(self.record_view(
            self.layout().squeeze(&dims),
            BackwardOp::Squeeze { shape: self.shape().to_vec(), overload: 1 },
        ))
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
        let layout = self.layout().broadcast_to(shape)?;
        Ok(self.record_view(layout, BackwardOp::Expand { shape: self.shape().to_vec() }))
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
        let op = BackwardOp::Unfold { shape: self.shape().to_vec(), dim: d, size, step: step as usize };
        Ok(self.record_view(layout, op))
    }

    /// `x[index]` along `dim` (negative indices count from the end).
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
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
        let op = BackwardOp::Select { shape: self.shape().to_vec(), dim: d, index: i };
        Ok(self.record_view(self.layout().select(d, i), op))
    }

    /// `start..end` by `step` along `dim`, bounds already clamped to the dim.
    pub fn slice(&self, dim: usize, start: usize, end: usize, step: usize) -> Result<Tensor> {
        if dim >= self.ndim() || step == 0 || start > self.shape()[dim] || end > self.shape()[dim] {
            bail!(
                Index,
                "slice {start}:{end}:{step} is out of range for dimension {dim} of a tensor with shape {:?}",
                self.shape()
            );
        }
        let op = BackwardOp::Slice { shape: self.shape().to_vec(), dim, start, end, step };
        Ok(self.record_view(self.layout().slice(dim, start, end.max(start), step), op))
    }

    /// Zeros of `shape` with this tensor written where `select(dim, index)` would read.
    pub fn select_backward(&self, shape: &[usize], dim: usize, index: usize) -> Result<Tensor> {
        let target = Layout::contiguous(shape).select(dim, index);
        let out = self.scatter_into_zeros(shape, &target)?;
        Ok(record(out, &[self], || BackwardOp::SelectBackward { dim, index }, |_| vec![]))
    }

    pub fn slice_backward(&self, shape: &[usize], dim: usize, start: usize, end: usize, step: usize) -> Result<Tensor> {
        let target = Layout::contiguous(shape).slice(dim, start, end.max(start), step);
        let out = self.scatter_into_zeros(shape, &target)?;
        Ok(record(out, &[self], || BackwardOp::SliceBackward { dim, start, end, step }, |_| vec![]))
    }

    fn scatter_into_zeros(&self, shape: &[usize], target: &Layout) -> Result<Tensor> {
        if target.shape != self.shape() {
            bail!(Runtime, "gradient of shape {:?} does not fit the view {:?}", self.shape(), target.shape);
        }
        with_dtype!(self.dtype(), T => {
            let mut out = crate::pool::filled(numel(shape), T::ZERO);
            self.with_data(|l, x: &[T]| copy_into(&mut out, target, x, l));
            Tensor::from_vec(out, shape)
        })
    }

    /// This tensor (read as contiguous) with the region `geom` replaced by `src`, broadcast: the
    /// out-of-place form of `t[index] = src`.
    pub fn copy_slices(&self, geom: &Layout, src: &Tensor) -> Result<Tensor> {
        if geom.storage_extent() > self.numel() {
            bail!(Runtime, "region {:?} lies outside a tensor of shape {:?}", geom, self.shape());
        }
        let out = self.contiguous_copy()?;
        let region = Tensor::from_parts(out.0.storage.clone(), geom.clone(), out.dtype());
        region.copy_from(src)?;
        let geom = geom.clone();
        Ok(record(out, &[self, src], || BackwardOp::CopySlices { geom }, |_| vec![]))
    }

    /// The region `geom` of this tensor read as contiguous, as a view.
    pub fn as_strided_view(&self, geom: &Layout) -> Result<Tensor> {
        if geom.storage_extent() > self.numel() {
            bail!(Runtime, "region {:?} lies outside a tensor of shape {:?}", geom, self.shape());
        }
        let base = self.contiguous()?;
        let layout = Layout { offset: base.storage_offset() + geom.offset, ..geom.clone() };
        let op = BackwardOp::AsStrided { shape: self.shape().to_vec(), geom: geom.clone() };
        Ok(base.record_view(layout, op))
    }

    /// Adds `other` into this tensor's memory (broadcasting it), bumping the version: `.grad += g`.
    pub(crate) fn add_assign_data(&self, other: &Tensor) -> Result<()> {
        if self.add_dense_in_place(other) {
            return Ok(());
        }
        let sum = self.detach().add(&other.detach())?.to_dtype(self.dtype())?;
        self.copy_from(&sum)
    }

    /// `self += other` in one pass over both, when they are contiguous floats of one shape and dtype in
    /// different storages (the usual gradient sum); false, with nothing written, otherwise.
    pub(crate) fn add_dense_in_place(&self, other: &Tensor) -> bool {
        self.dtype().is_float() && self.write_dense(other, DenseWrite::Add)
    }

    /// `self = other` or `self op= other` in one threaded SIMD pass, when both are contiguous, of one
    /// shape and dtype, in different storages; false, with nothing written, otherwise.
    pub(crate) fn write_dense(&self, other: &Tensor, how: DenseWrite) -> bool {
        let fits = self.dtype() == other.dtype()
            && self.shape() == other.shape()
            && self.is_contiguous()
            && other.is_contiguous()
            && !self.same_storage(other);
        if !fits {
            return false;
        }
        let (rd, rs) = (
            self.layout().contiguous_range().expect("contiguous"),
            other.layout().contiguous_range().expect("contiguous"),
        );
        let written = with_dtype!(self.dtype(), T => {
            let src_guard = other.0.storage.read();
            let mut dst_guard = self.0.storage.write();
            match (T::data(&src_guard), T::data_mut(&mut dst_guard)) {
                (Some(s), Some(d)) => {
                    let (d, s) = (&mut d.as_mut_slice()[rd], &s.as_slice()[rs]);
                    use crate::kernels::simd::update_slice;
                    match how {
                        DenseWrite::Copy => update_slice(d, s, |_, v| v),
                        DenseWrite::Add => update_slice(d, s, T::add),
                        DenseWrite::Sub => update_slice(d, s, T::sub),
                        DenseWrite::Mul => update_slice(d, s, T::mul),
                        DenseWrite::Div => update_slice(d, s, T::div),
                    }
                    true
                }
                _ => false,
            }
        });
        if written {
            self.0.storage.bump_version();
        }
        written
    }

    /// Writes `src` (broadcast to this shape, cast to this dtype) through this tensor's layout.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        if self.write_dense(src, DenseWrite::Copy) {
            return Ok(());
        }
        let src_layout = src.layout().broadcast_to(self.shape())?;
        // Read first: `src` may alias this storage.
        let values = with_dtype!(self.dtype(), T => {
            let v: Vec<T> = src.with_data(|l, x: &[T]| {
                let l = l.broadcast_to(self.shape()).unwrap_or_else(|_| src_layout.clone());
                crate::kernels::elementwise::map1(&l, x, |v| v)
            });
            T::into_buffer(v)
        });
        let dense = Tensor::from_buffer(values, self.shape());
        with_dtype!(self.dtype(), T => {
            let src_guard = dense.0.storage.read();
            let s = T::data(&src_guard).expect("dtype").as_slice();
            let mut dst_guard = self.0.storage.write();
            let d = T::data_mut(&mut dst_guard).expect("dtype").as_mut_slice();
            copy_into(d, self.layout(), s, &Layout::contiguous(self.shape()));
        });
        self.0.storage.bump_version();
        Ok(())
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
