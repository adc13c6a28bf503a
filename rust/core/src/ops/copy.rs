//! Copies: clone, contiguous, dtype conversion, writes into a region of a tensor, and the dense
//! in-place writes that `.grad` accumulation and the optimizers' updates use.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::compile::{traced, NodeKind};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise::copy_into;
use crate::layout::{numel, Layout};
use crate::ops::formula::c;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};
use std::sync::Arc;

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
    /// The in-place op that makes this write (`copy_`, `add_`, ...): a captured write's node name.
    pub fn inplace_name(self) -> &'static str {
        match self {
            DenseWrite::Copy => "copy_",
            DenseWrite::Add => "add_",
            DenseWrite::Sub => "sub_",
            DenseWrite::Mul => "mul_",
            DenseWrite::Div => "div_",
        }
    }

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
    /// A fresh contiguous copy with no history.
    pub fn contiguous_copy(&self) -> Result<Tensor> {
        if self.is_meta() {
            return Tensor::meta(self.shape(), self.dtype());
        }
        if self.is_complex() {
            // the pairs copied, read as complex again
            return self.detach().view_as_real()?.contiguous_copy()?.view_as_complex().map(|t| t.detach());
        }
        with_dtype!(self.dtype(), T => Tensor::from_vec(self.to_vec::<T>(), self.shape()))
    }

    /// This tensor's values in row-major order, without history: itself when contiguous, else a copy. For kernels
    /// that read contiguous rows: a strided input copied once (split across the threads) costs a fraction of a walk
    /// through its layout element by element (`amax(-1)` of one of `unbind`'s [64, 16, 128] float32 views: 385 µs that
    /// way, torch 12).
    pub(crate) fn row_major(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.detach());
        }
        self.contiguous_copy()
    }

    /// Whether this handle is the only way to its memory: no other handle, no view, not borrowed
    /// (from numpy), and the whole storage laid out densely from its start.
    pub(crate) fn is_unique_dense(&self) -> bool {
        Arc::strong_count(&self.0) == 1
            && Arc::strong_count(&self.0.storage) == 1
            && self.is_contiguous()
            && self.storage_offset() == 0
            && self.numel() == self.storage_numel()
            && self.0.storage.is_owned()
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
        let eager = |x: &[&Tensor]| x[0].clone_tensor_eager();
        traced("clone", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn clone_tensor_eager(&self) -> Result<Tensor> {
        let out = self.map_in_memory_order(|x| x.contiguous_copy())?;
        Ok(record(out, &[self], |_| CloneBackward0))
    }

    /// `is_contiguous(memory_format=channels_last)`: whether the dims lie in memory densely in `order`.
    pub fn is_contiguous_in_order(&self, order: &[usize]) -> bool {
        self.layout().permute(order).is_contiguous()
    }

    /// `contiguous(memory_format=channels_last)`, `clone(memory_format=...)`: a copy whose dims lie in memory
    /// in `order` (channels_last: N, H, W, C), recorded as a clone as in PyTorch; unless `always_copy`, self
    /// when it is laid out so already.
    pub fn contiguous_in_order(&self, order: &[usize], always_copy: bool) -> Result<Tensor> {
        let permuted = Tensor::from_parts(self.storage().clone(), self.layout().permute(order), self.dtype());
        if !always_copy && permuted.is_contiguous() {
            return Ok(self.clone());
        }
        let dense = permuted.contiguous_copy()?;
        let mut inverse = vec![0; order.len()];
        for (i, &d) in order.iter().enumerate() {
            inverse[d] = i;
        }
        let out = Tensor::from_parts(dense.storage().clone(), dense.layout().permute(&inverse), dense.dtype());
        Ok(record(out, &[self], |_| CloneBackward0))
    }

    /// `contiguous()`: self when row-major already, else a row-major copy (recorded as a clone, as
    /// in PyTorch).
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        let eager = |x: &[&Tensor]| x[0].contiguous_eager();
        traced("contiguous", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn contiguous_eager(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        let out = self.contiguous_copy()?;
        Ok(record(out, &[self], |_| CloneBackward0))
    }
    /// Zeros of `shape` with this tensor written where `select(dim, index)` would read.
    pub fn select_backward(&self, shape: &[usize], dim: usize, index: usize) -> Result<Tensor> {
        let target = Layout::contiguous(shape).select(dim, index);
        let out = self.scatter_into_zeros(shape, &target)?;
        Ok(record(out, &[self], |_| SelectBackwardBackward0 { dim, index }))
    }

    pub fn slice_backward(&self, shape: &[usize], dim: usize, start: usize, end: usize, step: usize) -> Result<Tensor> {
        let target = Layout::contiguous(shape).slice(dim, start, end.max(start), step);
        let out = self.scatter_into_zeros(shape, &target)?;
        Ok(record(out, &[self], |_| SliceBackwardBackward0 { dim, start, end, step }))
    }

    fn scatter_into_zeros(&self, shape: &[usize], target: &Layout) -> Result<Tensor> {
        if target.shape != self.shape() {
            bail!(Runtime, "gradient of shape {:?} does not fit the view {:?}", self.shape(), target.shape);
        }
        if self.is_complex() {
            // the pairs scattered into zero pairs
            let mut pair_shape = shape.to_vec();
            pair_shape.push(2);
            let pairs = self.detach().view_as_real()?.scatter_into_zeros(&pair_shape, &target.as_pairs())?;
            return pairs.view_as_complex().map(|t| t.detach());
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
        Ok(record(out, &[self, src], |_| CopySlices { geom: geom.clone() }))
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

    /// Whether `write_dense` applies: both contiguous, of one shape and dtype, in different storages.
    pub(crate) fn dense_fits(&self, other: &Tensor) -> bool {
        self.dtype() == other.dtype()
            && self.shape() == other.shape()
            && self.is_contiguous()
            && other.is_contiguous()
            && !self.same_storage(other)
    }

    /// `self = other` or `self op= other` in one threaded SIMD pass, when both are contiguous, of one
    /// shape and dtype, in different storages; false, with nothing written, otherwise.
    pub(crate) fn write_dense(&self, other: &Tensor, how: DenseWrite) -> bool {
        if !self.dense_fits(other) {
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

    /// Whether `write_dense_scalar` applies: a contiguous float32/float64 tensor and a real 0-d operand in another
    /// storage (a Python number, or a 0-d tensor, which the out-of-place op also reads in this dtype).
    pub(crate) fn dense_scalar_fits(&self, other: &Tensor) -> bool {
        matches!(self.dtype(), DType::F32 | DType::F64)
            && other.ndim() == 0
            && !other.is_complex()
            && other.dtype() != DType::Bool
            && self.is_contiguous()
            && !self.same_storage(other)
    }

    /// `self op= value` in one threaded SIMD pass (`x.mul_(0.9)` in a hand-written optimizer), when
    /// `dense_scalar_fits`; false, with nothing written, otherwise.
    pub(crate) fn write_dense_scalar(&self, other: &Tensor, how: DenseWrite) -> bool {
        if how == DenseWrite::Copy || !self.dense_scalar_fits(other) {
            return false;
        }
        match self.dtype() {
            DType::F32 => self.update_dense(other.to_vec::<f32>()[0], how),
            _ => self.update_dense(other.to_vec::<f64>()[0], how),
        }
    }

    fn update_dense<T: crate::element::Float>(&self, v: T, how: DenseWrite) -> bool {
        match how {
            DenseWrite::Copy => false,
            DenseWrite::Add => self.map_dense_inplace(|a: T| a + v),
            DenseWrite::Sub => self.map_dense_inplace(|a: T| a - v),
            DenseWrite::Mul => self.map_dense_inplace(|a: T| a * v),
            DenseWrite::Div => self.map_dense_inplace(|a: T| a / v),
        }
    }

    /// `x = f(x)` over this contiguous tensor's elements in one threaded pass, bumping its version; false, with
    /// nothing written, if it is not contiguous `T`.
    pub(crate) fn map_dense_inplace<T: Element>(&self, f: impl Fn(T) -> T + Sync) -> bool {
        let Some(range) = self.layout().contiguous_range() else { return false };
        let written = {
            let mut guard = self.0.storage.write();
            match T::data_mut(&mut guard) {
                Some(d) => {
                    // a zero-sized "source" for update_slice's (destination, source) loop: no memory behind it
                    let none: Vec<()> = vec![(); range.len()];
                    crate::kernels::simd::update_slice(&mut d.as_mut_slice()[range], &none, |v, ()| f(v));
                    true
                }
                None => false,
            }
        };
        if written {
            self.0.storage.bump_version();
        }
        written
    }

    /// Writes `src` (broadcast to this shape, cast to this dtype) through this tensor's layout.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        if self.is_complex() {
            // the pairs written: `src` in this dtype (a real one with zero imaginary parts), broadcast
            let src = src.detach().to_dtype(self.dtype())?.expand(self.shape())?;
            return self.detach().view_as_real()?.copy_from(&src.view_as_real()?);
        }
        if src.is_complex() {
            // a real tensor holds no imaginary part: refused rather than dropped
            return Err(crate::dtype::complex_refusal(src.dtype()));
        }
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
    /// A copy in another dtype; differentiable between float dtypes.
    /// `to('meta', dtype)` of any tensor (and `to(dtype)` of a meta one): a meta tensor in this tensor's memory
    /// order, recorded as torch records the copy.
    pub fn to_meta_device(&self, dtype: DType) -> Result<Tensor> {
        let out = self.to_meta(dtype)?;
        if !dtype.is_float() && !dtype.is_complex() {
            return Ok(out);
        }
        Ok(record(out, &[self], |_| ToCopyBackward0 { self_dtype: self.dtype() }))
    }

    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].to_dtype_eager(dtype);
        traced("_to_copy", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn to_dtype_eager(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        if self.is_meta() {
            return self.to_meta_device(dtype);
        }
        if dtype.is_complex() || self.is_complex() {
            let out = self.detach().complex_cast(dtype)?;
            return Ok(record(out, &[self], |_| ToCopyBackward0 { self_dtype: self.dtype() }));
        }
        let out =
            self.map_in_memory_order(|x| with_dtype!(dtype, T => Tensor::from_vec(x.to_vec::<T>(), x.shape())))?;
        if !dtype.is_float() {
            return Ok(out);
        }
        Ok(record(out, &[self], |_| ToCopyBackward0 { self_dtype: self.dtype() }))
    }
}

crate::backward_rule! {
    /// `clone()` and `contiguous()`.
    pub struct CloneBackward0;
}
impl Backward for CloneBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(Ok(g.clone()))
    }
}

crate::backward_rule! {
    /// A conversion between float (or complex) dtypes: the gradient converted back.
    pub struct ToCopyBackward0 {
        self_dtype: DType,
    }
}
impl Backward for ToCopyBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        if g.is_complex() && !self.self_dtype.is_complex() {
            // a real tensor made complex: the real part of its gradient (torch's convention)
            return one(g.real_part()?.to_dtype(self.self_dtype));
        }
        one(g.to_dtype(self.self_dtype))
    }
}

crate::backward_rule! {
    /// `select_backward` (zeros with `g` at one index), differentiated again.
    pub struct SelectBackwardBackward0 {
        dim: usize,
        index: usize,
    }
}
impl Backward for SelectBackwardBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.select(self.dim as isize, self.index as isize))
    }
}

crate::backward_rule! {
    /// `slice_backward`, differentiated again.
    pub struct SliceBackwardBackward0 {
        dim: usize,
        start: usize,
        end: usize,
        step: usize,
    }
}
impl Backward for SliceBackwardBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.slice(self.dim, self.start, self.end, self.step))
    }
}

crate::backward_rule! {
    /// `base[geom] = src` out of place: writing into a slice of a tensor that is part of a graph.
    pub struct CopySlices {
        geom: Layout,
    }
}
impl Backward for CopySlices {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![
            ctx.grad_if(0, || g.copy_slices(&self.geom, &c(0.0)))?,
            ctx.grad_if(1, || g.as_strided_view(&self.geom))?,
        ])
    }
}
