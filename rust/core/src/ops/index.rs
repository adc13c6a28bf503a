//! Ops that read or write elements at computed positions: advanced indexing, gather/scatter, take, repeat,
//! masked_select, index_select. Each is one of two primitives over the contiguous (row-major) element order, so one
//! pair of backward rules serves them all:
//! - `take_flat`: `out[i] = self[pos[i]]` (0 where `pos[i] < 0`); its gradient puts `g` back, adding;
//! - `put_flat`: `self` with `src[i]` written (or added) at `pos[i]`.
//!
//! Each op names its node by a struct of torch's saved arguments (`GatherBackward0 { dim, index, .. }`), declared
//! with `backward_rule!` beside the op; the shared rule carries it, so `grad_fn` shows the op's own name and
//! `_saved_*` fields while the positions stay internal. Ops that copy whole rows (flip, roll, tril) are in
//! `reorder.rs`.
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Fields, Grads, RuleName, SavedTensor};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::layout::{for_each_index, numel, wrap_dim, Layout};
use crate::ops::reorder::{build_rows, gather_rows, DimMap};
use crate::tensor::Tensor;
use crate::with_dtype;
use std::sync::Arc;

/// Flat row-major positions into a tensor; negative means "no element" (reads as 0, writes nowhere).
pub type Positions = Arc<Vec<i64>>;

/// The positions of complex elements' (re, im) pairs in the same tensor read as reals (`view_as_real`'s).
fn pair_positions(pos: &[i64]) -> Positions {
    Arc::new(pos.iter().flat_map(|&p| if p < 0 { [-1, -1] } else { [2 * p, 2 * p + 1] }).collect())
}

/// A complex tensor's shape read as reals: a last dim of 2.
fn pair_shape(shape: &[usize]) -> Vec<usize> {
    let mut s = shape.to_vec();
    s.push(2);
    s
}

/// `dst = src` for an index of a few dims, element by element: `copy_from_slice` (a call to memmove for a length
/// known only at run time) was a fifth of a flip's time, made for every element.
#[inline(always)]
fn copy_index(dst: &mut [usize], src: &[usize]) {
    match (dst, src) {
        ([a], [x]) => *a = *x,
        ([a, b], [x, y]) => (*a, *b) = (*x, *y),
        ([a, b, c], [x, y, z]) => (*a, *b, *c) = (*x, *y, *z),
        ([a, b, c, d], [x, y, z, w]) => (*a, *b, *c, *d) = (*x, *y, *z, *w),
        (dst, src) => dst.copy_from_slice(src),
    }
}

/// Positions of the elements of `geom` (a region of a contiguous tensor) in row-major order, with
/// `src(idx, s)` writing into `s` the index of `geom` each output index `idx` reads, or returning false for "no
/// element". When the two have one rank, `s` holds `idx` on each call, so a map writes only the dims it moves.
pub(crate) fn positions(
    out_shape: &[usize],
    geom: &Layout,
    mut src: impl FnMut(&[usize], &mut Vec<usize>) -> bool,
) -> Positions {
    let mut out = crate::pool::take(numel(out_shape));
    let mut s = vec![0usize; geom.ndim()];
    let strides = &geom.strides[..];
    let same_rank = s.len() == out_shape.len();
    for_each_index(out_shape, |i| {
        if same_rank {
            copy_index(&mut s, i);
        }
        let at = if src(i, &mut s) {
            let mut at = geom.offset;
            for k in 0..strides.len().min(s.len()) {
                at += s[k] * strides[k];
            }
            at as i64
        } else {
            -1
        };
        out.push(at);
    });
    Arc::new(out)
}

fn index_values(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.dtype() != crate::DType::I64 {
        bail!(Runtime, "{what}(): Expected dtype int32 or int64 for index");
    }
    Ok(t.to_vec::<i64>())
}

pub(crate) fn wrap_index(i: i64, size: usize, dim: usize) -> Result<usize> {
    let n = size as i64;
    if i < -n || i >= n {
        bail!(Index, "index {i} is out of bounds for dimension {dim} with size {size}");
    }
    Ok(if i < 0 { i + n } else { i } as usize)
}

impl Tensor {
    /// `out[i] = self[pos[i]]` over this tensor's row-major elements, shaped `shape`, recorded as `node`.
    pub fn take_flat<N: IndexMapNode>(&self, pos: Positions, shape: &[usize], node: N) -> Result<Tensor> {
        let out = self.take_values(&pos, shape)?;
        let mut kept = Some(pos);
        let out = record(out, &[self], |_| TakeFlatBackward {
            node,
            self_sym_sizes: self.shape().to_vec(),
            positions: kept.take().expect("recorded once"),
        });
        // unrecorded: the positions' buffer goes back to the pool, so the next call's is not faulted in afresh
        if let Some(pos) = kept.and_then(|p| Arc::try_unwrap(p).ok()) {
            crate::pool::give(pos);
        }
        Ok(out)
    }

    /// `take_flat`'s values, unrecorded.
    pub(crate) fn take_values(&self, pos: &Positions, shape: &[usize]) -> Result<Tensor> {
        if pos.len() != numel(shape) {
            bail!(Runtime, "take_flat: {} positions for shape {:?}", pos.len(), shape);
        }
        let n = self.numel() as i64;
        if pos.iter().any(|&p| p >= n) {
            bail!(Runtime, "take_flat: position out of range");
        }
        if self.is_complex() {
            // a complex element moves as its (re, im) pair
            let pairs = self.detach().view_as_real()?.contiguous()?;
            return pairs.take_values(&pair_positions(pos), &pair_shape(shape))?.view_as_complex();
        }
        self.take_flat_real(pos, shape)
    }

    fn take_flat_real(&self, pos: &Positions, shape: &[usize]) -> Result<Tensor> {
        Ok(with_dtype!(self.dtype(), T => {
            let take = |src: &[T]| -> Vec<T> {
                let mut out = crate::pool::take(pos.len());
                out.extend(pos.iter().map(|&p| if p < 0 { T::ZERO } else { src[p as usize] }));
                out
            };
            // a contiguous source is read in place: picking a few rows of a large tensor (a batch of a
            // dataset) costs the rows, not a copy of the whole tensor
            let v = self.with_data(|layout, data: &[T]| match layout.contiguous_range() {
                Some(range) => take(&data[range]),
                None => take(&crate::kernels::elementwise::map1(layout, data, |x| x)),
            });
            Tensor::from_vec(v, shape)?
        }))
    }

    /// `take(index)`: the elements at int64 `index`'s row-major positions (negative counts from the end),
    /// shaped as `index`; the gradient is put back, adding (TakeBackward0).
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        if index.dtype() != crate::DType::I64 {
            bail!(Runtime, "take(): Expected a long tensor for index, but got {}", index.dtype().scalar_type_name());
        }
        let n = self.numel() as i64;
        let idx = index.to_vec::<i64>();
        if n == 0 && !idx.is_empty() {
            bail!(Index, "take(): tried to take from an empty tensor");
        }
        if let Some(&bad) = idx.iter().find(|&&i| i < -n || i >= n) {
            bail!(Index, "out of range: tried to access index {bad} on a tensor of {n} elements.");
        }
        let pos: Vec<i64> = idx.iter().map(|&i| if i < 0 { i + n } else { i }).collect();
        self.take_flat(Arc::new(pos), index.shape(), TakeBackward0 { index: SavedTensor::input(index) })
    }

    /// A contiguous copy of this tensor with `src`'s row-major elements written (or added, when
    /// `accumulate`) at `pos`, recorded as `node`. `src` has one element per position.
    pub fn put_flat<N: IndexMapNode>(&self, pos: Positions, src: &Tensor, accumulate: bool, node: N) -> Result<Tensor> {
        let out = self.put_values(&pos, src, accumulate)?;
        let rule =
            |_: &Tensor| PutFlatBackward { node, positions: pos, accumulate, src_sym_sizes: src.shape().to_vec() };
        Ok(record(out, &[self, src], rule))
    }

    /// `put_flat`'s values, unrecorded.
    pub(crate) fn put_values(&self, pos: &Positions, src: &Tensor, accumulate: bool) -> Result<Tensor> {
        if pos.len() != src.numel() {
            bail!(
                Runtime,
                "shape mismatch: value tensor of {} elements cannot be put into {} positions",
                src.numel(),
                pos.len()
            );
        }
        let n = self.numel() as i64;
        if pos.iter().any(|&p| p >= n) {
            bail!(Runtime, "put_flat: position out of range");
        }
        if self.is_complex() {
            let pairs = self.detach().view_as_real()?;
            let src_pairs = src.detach().to_dtype(self.dtype())?.view_as_real()?;
            return pairs.put_values(&pair_positions(pos), &src_pairs, accumulate)?.view_as_complex();
        }
        self.put_flat_real(pos, src, accumulate)
    }

    fn put_flat_real(&self, pos: &Positions, src: &Tensor, accumulate: bool) -> Result<Tensor> {
        Ok(with_dtype!(self.dtype(), T => {
            let mut v = self.to_vec::<T>();
            let s = src.to_vec::<T>();
            for (&p, &x) in pos.iter().zip(&s) {
                if p >= 0 {
                    let p = p as usize;
                    v[p] = if accumulate { T::add(v[p], x) } else { x };
                }
            }
            Tensor::from_vec(v, self.shape())?
        }))
    }

    /// Zeros of `shape` with `src`'s row-major elements added at `pos` (negative: nowhere): the
    /// gradient of a gather, as `zeros.put_flat(.., true, ..)` computes it but in one pass and without
    /// a node, for backward passes that are not recorded (max_pool2d's and embedding's, per step).
    pub fn scatter_add_into_zeros(shape: &[usize], pos: &[i64], src: &Tensor) -> Result<Tensor> {
        let n = numel(shape);
        if pos.len() != src.numel() || pos.iter().any(|&p| p >= n as i64) {
            bail!(Runtime, "scatter_add_into_zeros: {} positions for {} elements", pos.len(), src.numel());
        }
        if src.is_complex() {
            let pairs = src.view_as_real()?;
            let summed = Tensor::scatter_add_into_zeros(&pair_shape(shape), &pair_positions(pos), &pairs)?;
            return summed.view_as_complex();
        }
        with_dtype!(src.dtype(), T => {
            let mut out = crate::pool::filled(n, T::ZERO);
            src.contiguous()?.with_data(|l, s: &[T]| {
                let s = &s[l.contiguous_range().expect("contiguous")];
                for (&p, &v) in pos.iter().zip(s) {
                    if p >= 0 {
                        out[p as usize] = T::add(out[p as usize], v);
                    }
                }
            });
            Tensor::from_vec(out, shape)
        })
    }

    pub fn repeat(&self, repeats: &[isize]) -> Result<Tensor> {
        let repeats = repeats.to_vec();
        let eager = move |x: &[&Tensor]| x[0].repeat_eager(&repeats);
        let replay = eager.clone();
        traced("repeat", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn repeat_eager(&self, repeats: &[isize]) -> Result<Tensor> {
        if repeats.len() < self.ndim() {
            bail!(
                Runtime,
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
            );
        }
        if let Some(&r) = repeats.iter().find(|&&r| r < 0) {
            bail!(Runtime, "Trying to create tensor with negative dimension {r}: {repeats:?}");
        }
        let in_shape = self.shape().to_vec();
        // as torch: each dim split in (repeat, size), the input broadcast along the repeats and copied once (the
        // gather by position this replaces took 346 µs for [8, 32, 64] repeated (1, 1, 3), torch 17)
        let (split_in, split_out) = repeat_split(repeats, &in_shape);
        let out_shape: Vec<usize> = split_out.chunks_exact(2).map(|p| p[0].saturating_mul(p[1])).collect();
        crate::alloc::check_new_shape(&out_shape, self.dtype().itemsize())?;
        let out = self.detach().reshape(&split_in)?.expand(&split_out)?.contiguous()?.reshape(&out_shape)?;
        Ok(record(out, &[self], |_| RepeatBackward0 { repeats: repeats.to_vec(), self_sym_sizes: in_shape }))
    }

    /// `tile(dims)`: `repeat` with `dims` padded with leading 1s to this tensor's rank, as NumPy.
    pub fn tile(&self, dims: &[isize]) -> Result<Tensor> {
        let mut reps = vec![1; self.ndim().saturating_sub(dims.len())];
        reps.extend_from_slice(dims);
        self.repeat(&reps)
    }

    /// `take_along_dim(indices, dim)`: `gather` after broadcasting the two over every other dim; with
    /// no dim, of the flattened tensor: a view, as torch's, so an input that cannot be viewed flat is an error.
    pub fn take_along_dim(&self, indices: &Tensor, dim: Option<isize>) -> Result<Tensor> {
        let Some(dim) = dim else {
            return self.view(&[-1])?.gather(0, &indices.view(&[-1])?);
        };
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() != indices.ndim() {
            bail!(
                Runtime,
                "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} \
                dimensions for input, and {} dimensions for indices",
                self.ndim(),
                indices.ndim()
            );
        }
        let (mut sa, mut si) = (self.shape().to_vec(), indices.shape().to_vec());
        sa[d] = 1;
        si[d] = 1;
        let b = crate::layout::broadcast_shapes(&sa, &si)?;
        let (mut ta, mut ti) = (b.clone(), b);
        ta[d] = self.shape()[d];
        ti[d] = indices.shape()[d];
        let a = if self.shape() == ta.as_slice() { self.clone() } else { self.expand(&ta)? };
        let i = if indices.shape() == ti.as_slice() { indices.clone() } else { indices.expand(&ti)? };
        a.gather(d as isize, &i)
    }

    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].index_select_eager(dim, x[1]);
        traced("index_select", NodeKind::Opaque, &[self, index], || eager(&[self, index]), || eager)
    }

    fn index_select_eager(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        if index.ndim() > 1 {
            bail!(Index, "index_select(): Index is supposed to be a vector");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let idx = index_values(index, "index_select")?;
        let size = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        // torch's index_select takes no negative indices
        if idx.iter().any(|&i| i < 0 || i as usize >= size) {
            bail!(Index, "index out of range in self");
        }
        let idx: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
        let in_shape = self.shape().to_vec();
        let mut out_shape = in_shape.clone();
        if self.ndim() > 0 {
            out_shape[d] = idx.len();
        }
        let recorded = self.requires_grad() && crate::autograd::grad_mode::is_enabled();
        if self.ndim() > 0 && !recorded && !self.is_complex() && !self.is_meta() {
            return self.selected_along(d, &idx, &out_shape);
        }
        let geom = Layout::contiguous(&in_shape);
        let pos = positions(&out_shape, &geom, |i, s| {
            if !s.is_empty() {
                s[d] = idx[i[d]];
            }
            true
        });
        let node = IndexSelectBackward0 { dim: d, index: SavedTensor::input(index), self_sym_sizes: in_shape.clone() };
        self.take_flat(pos, &out_shape, node)
    }

    /// `index_select`'s values along `d`, unrecorded: for each block of the dims before `d`, the picked slices (of
    /// the dims after it) one after another, copied from the row-major data (a strided input copied first). Through
    /// the positions of every element, `index_select(-1)` of a [64, 16, 128] float32 view took 590 µs (torch 62).
    fn selected_along(&self, d: usize, idx: &[usize], out_shape: &[usize]) -> Result<Tensor> {
        let x = self.row_major()?;
        let (size, inner) = (self.shape()[d], self.shape()[d + 1..].iter().product::<usize>());
        let (outer, k) = (self.shape()[..d].iter().product::<usize>(), idx.len());
        with_dtype!(self.dtype(), T => x.with_data(|l, data: &[T]| {
            let src = &data[l.contiguous_range().expect("row-major")];
            let values = if inner == 1 {
                // one element a pick: a row of picks per block
                build_rows(outer, k, &|o, row| {
                    let block = &src[o * size..(o + 1) * size];
                    row.iter_mut().zip(idx).for_each(|(slot, &j)| _ = slot.write(block[j]));
                })
            } else {
                build_rows(outer * k, inner, &|r, piece| {
                    let at = ((r / k) * size + idx[r % k]) * inner;
                    piece.write_copy_of_slice(&src[at..at + inner]);
                })
            };
            Tensor::from_vec(values, out_shape)
        }))
    }

    /// Rows `idx` of a contiguous tensor, copied row by row (a batch of a dataset); None when strided.
    pub(crate) fn copy_rows(&self, idx: &[usize], out_shape: &[usize]) -> Option<Result<Tensor>> {
        let row: usize = self.shape()[1..].iter().product();
        with_dtype!(self.dtype(), T => {
            let rows = self.with_data(|layout, data: &[T]| {
                Some(gather_rows(&data[layout.contiguous_range()?], row, idx, DimMap::InOrder))
            });
            rows.map(|v| Tensor::from_vec(v, out_shape))
        })
    }

    /// Positions for scatter along `dim` with `index` (same ndim as self).
    fn along_dim_positions(&self, dim: usize, index: &Tensor, what: &str) -> Result<Positions> {
        crate::ops::along_dim::check_index_shape(self.shape(), index, dim, what)?;
        let idx = index_values(index, what)?;
        let in_shape = self.shape().to_vec();
        let size = if self.ndim() == 0 { 1 } else { in_shape[dim] };
        let mut err = None;
        // row by row of the index: the position of each index element's coordinates, with `dim` read from it (a
        // call of `positions`' closure per element made a 1000×1000 gather 12 ms)
        let strides = crate::layout::contiguous_strides(&in_shape);
        let mut pos: Vec<i64> = crate::pool::take(idx.len());
        match index.shape().split_last() {
            Some((&row, lead)) if self.ndim() > 0 && row > 0 => {
                let last = lead.len();
                let along = if dim == last { 0 } else { strides[last] };
                let mut rows = idx.chunks_exact(row);
                for_each_index(lead, |i| {
                    let base: usize =
                        i.iter().enumerate().filter(|&(k, _)| k != dim).map(|(k, &a)| a * strides[k]).sum();
                    let values = rows.next().expect("one index row per lead index");
                    pos.extend(values.iter().enumerate().map(|(j, &v)| {
                        // not counted from the end: torch's scatter takes no negative index
                        let w = if (0..size as i64).contains(&v) {
                            v as usize
                        } else {
                            err = err.or(Some(v));
                            0
                        };
                        (base + j * along + w * strides[dim]) as i64
                    }));
                });
            }
            // a 0-dim input: every index element reads it
            _ => pos.resize(idx.len(), 0),
        }
        let pos: Positions = Arc::new(pos);
        if let Some(v) = err {
            bail!(Runtime, "index {v} is out of bounds for dimension {dim} with size {size}");
        }
        Ok(pos)
    }

    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].gather_eager(dim, x[1]);
        traced("gather", NodeKind::Opaque, &[self, index], || eager(&[self, index]), || eager)
    }

    fn gather_eager(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.gather_recorded(wrap_dim(dim, self.ndim())?, index)
    }

    /// `scatter(dim, index, src)` (`reduce_add = false`) or `scatter_add`; `src` is cut to index's shape.
    pub fn scatter(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        reduce_add: bool,
        scalar_src: bool,
    ) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let pos = self.along_dim_positions(d, index, "scatter")?;
        let src = if scalar_src {
            src.to_dtype(self.dtype())?.expand(index.shape())?
        } else {
            if src.ndim() != index.ndim() {
                bail!(Runtime, "Index tensor must have the same number of dimensions as src tensor");
            }
            let mut s = src.clone();
            for (k, (&a, &b)) in index.shape().iter().zip(src.shape()).enumerate() {
                if a > b {
                    bail!(
                        Runtime,
                        "Size does not match at dimension {k} expected index {:?} to be no larger than src {:?}",
                        index.shape(),
                        src.shape()
                    );
                }
                if a < b {
                    s = s.slice(k, 0, a, 1)?;
                }
            }
            s
        };
        let index = SavedTensor::input(index);
        match (reduce_add, scalar_src) {
            (true, _) => self.put_flat(pos, &src, true, ScatterAddBackward0 { dim: d }),
            (false, true) => self.put_flat(pos, &src, false, ScatterBackward1 { dim: d, index }),
            (false, false) => self.put_flat(pos, &src, false, ScatterBackward0 { dim: d, index }),
        }
    }

    /// `index_add(dim, index, source, alpha)`.
    pub fn index_add(&self, dim: isize, index: &Tensor, source: &Tensor, alpha: f64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        if index.ndim() > 1 {
            bail!(Index, "index_add_(): Index is supposed to be a vector");
        }
        let idx = index_values(index, "index_add")?;
        let size = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        let idx: Vec<usize> = idx.iter().map(|&i| wrap_index(i, size, d)).collect::<Result<_>>()?;
        let mut src_shape = self.shape().to_vec();
        if self.ndim() > 0 {
            src_shape[d] = idx.len();
        }
        if source.shape() != src_shape.as_slice() && !(source.ndim() == 0 && idx.len() == 1 && self.ndim() <= 1) {
            bail!(
                Runtime,
                "index_add_(): Source/destination tensor must have same slice shapes. Destination slice \
                shape: {:?} at dimension {d} and source slice shape: {:?} at dimension 0.",
                self.shape(),
                source.shape()
            );
        }
        let geom = Layout::contiguous(self.shape());
        let pos = positions(&src_shape, &geom, |i, s| {
            if !s.is_empty() {
                s[d] = idx[i[d]];
            }
            true
        });
        let src = if alpha == 1.0 { source.clone() } else { source.mul(&Tensor::scalar(alpha))? };
        let node = IndexAddBackward0 { alpha, dim: d, source_dim: source.ndim() };
        self.put_flat(pos, &src.reshape(&src_shape)?, true, node)
    }

    /// Positions for `t[adv...]` where `geom` is the basic-indexed region of a contiguous tensor and
    /// `adv` gives (dim of geom, index tensor) for each advanced index; returns the result's shape too.
    pub fn advanced_positions(geom: &Layout, adv: &[(usize, Tensor)]) -> Result<(Positions, Vec<usize>)> {
        let mut bshape: Vec<usize> = vec![];
        for (_, t) in adv {
            bshape = crate::layout::broadcast_shapes(&bshape, t.shape()).map_err(|_| {
                let shapes: Vec<String> = adv.iter().map(|(_, t)| format!("{:?}", t.shape())).collect();
                crate::Error::Index(format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    shapes.join(", ")
                ))
            })?;
        }
        let mut idx_vals = Vec::new();
        for (d, t) in adv {
            let v = t.expand(&bshape)?.to_vec::<i64>();
            let size = geom.shape[*d];
            let v: Vec<usize> = v.iter().map(|&i| wrap_index(i, size, *d)).collect::<Result<_>>()?;
            idx_vals.push(v);
        }
        let dims: Vec<usize> = adv.iter().map(|(d, _)| *d).collect();
        let consecutive = dims.windows(2).all(|w| w[1] == w[0] + 1);
        let rest: Vec<usize> = (0..geom.ndim()).filter(|d| !dims.contains(d)).collect();
        // the result's dims: (geom dim or None for a broadcast dim), in order
        let first = dims[0];
        let mut layout_dims: Vec<Option<usize>> = Vec::new();
        if consecutive {
            layout_dims.extend(rest.iter().filter(|&&d| d < first).map(|&d| Some(d)));
            layout_dims.extend(bshape.iter().map(|_| None));
            layout_dims.extend(rest.iter().filter(|&&d| d > first).map(|&d| Some(d)));
        } else {
            layout_dims.extend(bshape.iter().map(|_| None));
            layout_dims.extend(rest.iter().map(|&d| Some(d)));
        }
        let mut out_shape = Vec::new();
        let mut b = 0;
        for ld in &layout_dims {
            match ld {
                Some(d) => out_shape.push(geom.shape[*d]),
                None => {
                    out_shape.push(bshape[b]);
                    b += 1;
                }
            }
        }
        let bstrides = crate::layout::contiguous_strides(&bshape);
        let pos = positions(&out_shape, geom, |i, s| {
            let mut bflat = 0;
            let mut bi = 0;
            for (k, ld) in layout_dims.iter().enumerate() {
                match ld {
                    Some(d) => s[*d] = i[k],
                    None => {
                        bflat += i[k] * bstrides[bi];
                        bi += 1;
                    }
                }
            }
            for (j, &d) in dims.iter().enumerate() {
                s[d] = idx_vals[j][bflat];
            }
            true
        });
        Ok((pos, out_shape))
    }

    /// Indices of the nonzero (true) elements: shape [count, ndim], int64.
    /// `nonzero(as_tuple=True)`: the indices of the nonzero elements, one int64 tensor per dim.
    pub fn nonzero_per_dim(&self) -> Result<Vec<Tensor>> {
        let nz = self.nonzero()?;
        if self.ndim() == 0 {
            // torch's one index of a 0-d tensor: [0] if it is nonzero, else empty
            return Ok(vec![Tensor::zeros(&[nz.shape()[0]], crate::DType::I64)]);
        }
        // views of the index list, each dim's indices contiguous (as torch's, whose `_base` is the list)
        (0..self.ndim()).map(|d| nz.select(1, d as isize)).collect()
    }

    pub fn nonzero(&self) -> Result<Tensor> {
        let mask = self.to_vec::<bool>();
        let shape = self.shape().to_vec();
        if shape.is_empty() {
            return Tensor::from_vec(Vec::<i64>::new(), &[if mask.first() == Some(&true) { 1 } else { 0 }, 0]);
        }
        let d = shape.len();
        let out = crate::kernels::nonzero::nonzero_indices(&mask, &shape, |n| {
            crate::alloc::check_new_shape(&[n, d], 8).map(|_| ())
        })?;
        let n = out.len() / d;
        // torch's layout: the buffer of each dim's indices in turn, seen as [n, d] with strides (1, n)
        let storage = Arc::new(crate::storage::Storage::new(<i64 as Element>::into_buffer(out)));
        Tensor::from_storage(storage, Layout { shape: vec![n, d], strides: vec![1, n], offset: 0 })
    }

    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        if mask.dtype() != crate::DType::Bool {
            bail!(Runtime, "masked_select: expected BoolTensor for mask");
        }
        let shape = crate::layout::broadcast_shapes(self.shape(), mask.shape())?;
        let x = if self.shape() == shape.as_slice() { self.clone() } else { self.expand(&shape)? };
        let m = mask.expand(&shape)?.to_vec::<bool>();
        let pos: Vec<i64> = m.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i as i64).collect();
        let n = pos.len();
        x.take_flat(Arc::new(pos), &[n], MaskedSelectBackward0 { mask: SavedTensor::input(mask) })
    }

    /// `masked_fill(mask, value)` with a 0-dim `value` (a number, or a 0-dim tensor that gets a gradient).
    pub fn masked_fill(&self, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| x[0].masked_fill_eager(x[1], x[2]);
        traced("masked_fill", NodeKind::Opaque, &[self, mask, value], || eager(&[self, mask, value]), || eager)
    }

    fn masked_fill_eager(&self, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
        if mask.dtype() != crate::DType::Bool {
            bail!(Runtime, "masked_fill_ only supports boolean masks, but got mask with dtype {}", mask.dtype().name());
        }
        if value.ndim() != 0 {
            bail!(
                Runtime,
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                value.ndim()
            );
        }
        // out of place, torch broadcasts `self` and `mask` together (the in-place form only `mask`)
        let shape = crate::layout::broadcast_shapes(self.shape(), mask.shape())?;
        if shape.as_slice() != self.shape() {
            return self.expand(&shape)?.masked_fill(mask, value);
        }
        if value.is_complex() && !self.is_complex() {
            let name = self.dtype().written_type_name();
            bail!(Runtime, "value cannot be converted to type {name} without overflow");
        }
        if value.0.wrapped_number && !value.is_complex() {
            value.item()?.check_fits(self.dtype())?;
        }
        // `where(mask, value, self)`'s one pass (through positions and a written copy, a 1000×1000 float32 took
        // 5.8 ms; torch 2.4)
        let v = value.detach().to_dtype(self.dtype())?;
        let out = if self.is_complex() {
            let (v, x) = (v.view_as_real()?, self.detach().view_as_real()?);
            Tensor::selected(&mask.unsqueeze(-1)?, &v, &x, x.dtype())?.view_as_complex()?
        } else {
            Tensor::selected(mask, &v, self, self.dtype())?
        };
        // torch's overloads: a number value (0), a tensor value (1)
        let mask = SavedTensor::input(mask);
        if value.0.wrapped_number {
            Ok(record(out, &[self], |_| MaskedFillBackward0 { mask }))
        } else {
            Ok(record(out, &[self, value], |_| MaskedFillBackward1 { mask }))
        }
    }

    /// The element positions of a region of this tensor's contiguous form (for `t[region] = ...`).
    pub fn region_positions(geom: &Layout) -> Positions {
        let shape = geom.shape.clone();
        positions(&shape, geom, |_, _| true)
    }
}

impl AsField for Positions {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

/// What an index-map op's node shows: torch's saved arguments (`_saved_*`), and through its struct's name
/// (`backward_rule!`) the `grad_fn` name; the positions are the shared rule's own.
pub trait IndexMapNode: Fields + RuleName + Send + Sync + 'static {}
impl<N: Fields + RuleName + Send + Sync + 'static> IndexMapNode for N {}

/// `out = input_flat[positions]` (flip, roll, repeat, tril, gather, advanced indexing, ...): the gradient added
/// back at the positions it was read from. Shown as its op's `node`.
pub struct TakeFlatBackward<N> {
    pub(crate) node: N,
    pub(crate) self_sym_sizes: Vec<usize>,
    pub(crate) positions: Positions,
}
impl<N: IndexMapNode> Fields for TakeFlatBackward<N> {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>)) {
        self.node.fields(visit);
    }
}
impl<N: IndexMapNode> RuleName for TakeFlatBackward<N> {
    fn rule_name(&self) -> &'static str {
        self.node.rule_name()
    }
}
impl<N: IndexMapNode> Backward for TakeFlatBackward<N> {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        if !crate::autograd::grad_mode::is_enabled() {
            return one(Tensor::scatter_add_into_zeros(&self.self_sym_sizes, &self.positions, g));
        }
        let zeros = Tensor::zeros(&self.self_sym_sizes, g.dtype());
        one(zeros.put_flat(self.positions.clone(), g, true, IndexPutBackward0::gradient_write(true)))
    }
}

/// `out = input` with `src` written or added at `positions` (scatter, index_put, masked_fill, ...). Shown as its
/// op's `node`.
pub struct PutFlatBackward<N> {
    node: N,
    positions: Positions,
    accumulate: bool,
    src_sym_sizes: Vec<usize>,
}
impl<N: IndexMapNode> Fields for PutFlatBackward<N> {
    fn fields(&self, visit: &mut dyn FnMut(&'static str, Field<'_>)) {
        self.node.fields(visit);
    }
}
impl<N: IndexMapNode> RuleName for PutFlatBackward<N> {
    fn rule_name(&self) -> &'static str {
        self.node.rule_name()
    }
}
impl<N: IndexMapNode> Backward for PutFlatBackward<N> {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let pos = &self.positions;
        Ok(vec![
            ctx.grad_if(0, || {
                if self.accumulate {
                    Ok(g.clone())
                } else {
                    let zeros = Tensor::zeros(&self.src_sym_sizes, g.dtype());
                    g.put_flat(pos.clone(), &zeros, false, IndexPutBackward0::gradient_write(false))
                }
            })?,
            ctx.grad_if(1, || g.take_flat(pos.clone(), &self.src_sym_sizes, IndexBackward0::of(g)))?,
        ])
    }
}

// The nodes of this file's ops, with torch's saved arguments (the index tensors kept as saved inputs; `self` is
// not kept where the rule needs only its size).
crate::backward_rule! {
    pub struct RepeatBackward0 { repeats: Vec<isize>, self_sym_sizes: Vec<usize> }
}
impl Backward for RepeatBackward0 {
    /// Each copy's gradient added back: the gradient split as the forward split its output, summed over the repeats.
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (_, split_out) = repeat_split(&self.repeats, &self.self_sym_sizes);
        let repeat_dims: Vec<isize> = (0..self.repeats.len() as isize).map(|d| 2 * d).collect();
        one(g.reshape(&split_out)?.sum(Some(&repeat_dims), false)?.reshape(&self.self_sym_sizes))
    }
}

/// `repeat`'s input shape with a 1 before each size (dims of 1 in front for repeats past its dims), and its output
/// split alike: (repeat, size) for each dim.
fn repeat_split(repeats: &[isize], shape: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let lead = repeats.len() - shape.len();
    let sizes = || (0..repeats.len()).map(|d| if d < lead { 1 } else { shape[d - lead] });
    (sizes().flat_map(|s| [1, s]).collect(), sizes().zip(repeats).flat_map(|(s, &r)| [r as usize, s]).collect())
}
crate::backward_rule! {
    pub struct TakeBackward0 { index: SavedTensor }
}
crate::backward_rule! {
    pub struct IndexSelectBackward0 { dim: usize, index: SavedTensor, self_sym_sizes: Vec<usize> }
}
crate::backward_rule! {
    pub struct MaskedSelectBackward0 { mask: SavedTensor }
}
crate::backward_rule! {
    pub struct ScatterBackward0 { dim: usize, index: SavedTensor }
}
crate::backward_rule! {
    pub struct ScatterBackward1 { dim: usize, index: SavedTensor }
}
crate::backward_rule! {
    pub struct ScatterAddBackward0 { dim: usize }
}
crate::backward_rule! {
    pub struct IndexAddBackward0 { alpha: f64, dim: usize, source_dim: usize }
}
crate::backward_rule! {
    pub struct MaskedFillBackward0 { mask: SavedTensor }
}
crate::backward_rule! {
    pub struct MaskedFillBackward1 { mask: SavedTensor }
}
/// The filled elements pass no gradient back to `self`.
fn unfilled_grad(g: &Tensor, mask: &Tensor) -> Result<Tensor> {
    g.masked_fill(mask, &Tensor::scalar(0.0))
}
impl Backward for MaskedFillBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(unfilled_grad(g, &ctx.unpack(&self.mask)?))
    }
}
impl Backward for MaskedFillBackward1 {
    /// `self` as with a number; the value gets the gradient of every element it was written to, summed.
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let mask = ctx.unpack(&self.mask)?;
        Ok(vec![
            ctx.grad_if(0, || unfilled_grad(g, &mask))?,
            ctx.grad_if(1, || Tensor::where_(&mask, g, &Tensor::scalar(0.0))?.sum(None, false))?,
        ])
    }
}
crate::backward_rule! {
    /// `t[indices]`, advanced indexing (and the gradient of a write, read back).
    pub struct IndexBackward0 { self_sym_sizes: Vec<usize> }
}
impl IndexBackward0 {
    /// The node of a read from `source`.
    pub fn of(source: &Tensor) -> Self {
        IndexBackward0 { self_sym_sizes: source.shape().to_vec() }
    }
}

// `index_put`'s node and rule (its `Backward` is in index_write/put.rs); declared here because every
// recorded gradient write of this file's rules shows it too.
crate::backward_rule! {
    /// `index_put(indices, values, accumulate)`: self's gradient passes where it was kept (everywhere
    /// when accumulating); the values' gradient is read at the positions written, summed down to their shape.
    pub struct IndexPutBackward0 {
        accumulate: bool,
        indices: Vec<SavedTensor>,
        positions: Positions,
        result: Layout,
    }
}
impl IndexPutBackward0 {
    /// The node of a write made by a backward pass (the gradient of a read, put back): no indices of its own.
    pub fn gradient_write(accumulate: bool) -> Self {
        IndexPutBackward0::node(accumulate, &[])
    }

    /// The node shown by another write at these indices (`t[indices] = v`), whose rule is the shared one.
    pub fn node(accumulate: bool, indices: &[Tensor]) -> Self {
        let indices = indices.iter().map(SavedTensor::input).collect();
        IndexPutBackward0 { accumulate, indices, positions: Positions::default(), result: Layout::contiguous(&[]) }
    }
}
