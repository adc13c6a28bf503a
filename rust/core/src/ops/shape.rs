//! Joining and splitting: cat, stack, split/unbind (views sharing one multi-output node), diagonal.
use crate::autograd::{one, record, record_outputs, AsField, Backward, Ctx, Field, Grads};
use crate::bail;
use crate::compile::traced_many;
use crate::compile::{traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise::write_rows_into;
use crate::kernels::{split, threads};
use crate::layout::{numel, wrap_dim, Layout};
use crate::tensor::Tensor;
use crate::with_dtype;

/// What a `Split` node stands for (its PyTorch name and how its gradient is reassembled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitKind {
    Split,
    SplitWithSizes,
    Unbind,
}

/// `cat` of inputs of the output's dtype along `d`: the output is `outer` rows, each the inputs' blocks side by side,
/// copied block by block into the uninitialized output (no zero fill first, no walk by element), rows split across
/// the threads when large. Three [8, 32, 64] float32 along the last dim: 38 -> 6 µs (torch 8). A strided or
/// broadcast input is written into its region row by row (`write_rows_into`).
fn join_blocks<T: Element>(inputs: &[&Tensor], shape: &[usize], d: usize) -> Vec<T> {
    let n = numel(shape);
    let outer: usize = shape[..d].iter().product();
    let row = n.checked_div(outer).unwrap_or(0);
    let inner: usize = shape[d + 1..].iter().product();
    let mut out: Vec<T> = crate::pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    // whole rows per task (cat along dim 0 is one row: its block is split instead)
    let tasks = if n >= split::COPY_ELEMENTS { 4 * threads::threads() } else { 1 };
    let rows_per_task = outer.div_ceil(tasks);
    let mut start = 0;
    for t in inputs {
        // an empty output has empty blocks only
        let block = t.numel().checked_div(outer).unwrap_or(0);
        if block == 0 {
            continue;
        }
        t.with_data(|l, x: &[T]| {
            let Some(range) = l.contiguous_range() else {
                // a strided or broadcast input: its rows read in place, written into its region of the output
                let region = Layout::contiguous(shape).slice(d, start / inner, start / inner + t.shape()[d], 1);
                // SAFETY: the region is a slice of the row-major output along `d`: each index has a slot of its own
                return unsafe { write_rows_into(dst, &region, x, l) };
            };
            let x = &x[range];
            if outer == 1 {
                let piece = block.div_ceil(tasks);
                threads::par_chunks_mut(&mut dst[start..start + block], piece, &|c, part| {
                    part.write_copy_of_slice(&x[c * piece..c * piece + part.len()]);
                });
                return;
            }
            threads::par_chunks_mut(dst, rows_per_task * row, &|c, rows| {
                let first = c * rows_per_task;
                for (r, out_row) in rows.chunks_exact_mut(row).enumerate() {
                    let o = first + r;
                    out_row[start..start + block].write_copy_of_slice(&x[o * block..(o + 1) * block]);
                }
            });
        });
        start += block;
    }
    // SAFETY: the inputs' blocks tile each row (their sizes along `d` sum to the output's), so every slot is written.
    unsafe { out.set_len(n) };
    out
}

impl Tensor {
    /// Concatenates along `dim` without recording (shared by cat and stack).
    fn cat_data(tensors: &[Tensor], dim: isize, func: &str) -> Result<(Tensor, usize, Vec<Option<usize>>)> {
        if tensors.is_empty() {
            bail!(Value, "{func}(): expected a non-empty list of Tensors");
        }
        // legacy rule: 1-D empty tensors are skipped
        let kept: Vec<&Tensor> = tensors.iter().filter(|t| !(t.ndim() == 1 && t.numel() == 0)).collect();
        let reference = kept.first().copied().unwrap_or(&tensors[0]);
        if reference.ndim() == 0 {
            bail!(Runtime, "zero-dimensional tensor (at position 0) cannot be concatenated");
        }
        let d = wrap_dim(dim, reference.ndim())?;
        let mut dtype = tensors[0].dtype();
        for t in tensors {
            dtype = crate::promote_types(dtype, t.dtype());
        }
        let mut shape = reference.shape().to_vec();
        shape[d] = 0;
        for (i, t) in tensors.iter().enumerate() {
            if t.ndim() == 1 && t.numel() == 0 {
                continue;
            }
            if t.ndim() != reference.ndim() {
                if t.ndim() == 0 {
                    bail!(Runtime, "zero-dimensional tensor (at position {i}) cannot be concatenated");
                }
                bail!(
                    Runtime,
                    "Tensors must have same number of dimensions: got {} and {}",
                    reference.ndim(),
                    t.ndim()
                );
            }
            for k in 0..shape.len() {
                if k != d && t.shape()[k] != reference.shape()[k] {
                    bail!(
                        Runtime,
                        "Sizes of tensors must match except in dimension {d}. Expected size {} but got \
                        size {} for tensor number {i} in the list.",
                        reference.shape()[k],
                        t.shape()[k]
                    );
                }
            }
            shape[d] += t.shape()[d];
        }
        // None: a skipped (1-D empty) input
        let sizes: Vec<Option<usize>> =
            tensors.iter().map(|t| if t.ndim() == 1 && t.numel() == 0 { None } else { Some(t.shape()[d]) }).collect();
        let out = with_dtype!(dtype, T => {
            // an input of another dtype is cast first (a new row-major tensor); strided ones are read in place
            let cast: Vec<Tensor> = kept
                .iter()
                .map(|t| match t.dtype() == dtype {
                    true => Ok((*t).clone()),
                    false => Tensor::from_vec(t.to_vec::<T>(), t.shape()),
                })
                .collect::<Result<_>>()?;
            let cast: Vec<&Tensor> = cast.iter().collect();
            Tensor::from_vec(join_blocks::<T>(&cast, &shape, d), &shape)?
        });
        Ok((out, d, sizes))
    }

    pub fn cat(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| Tensor::cat_eager(&x.iter().map(|&t| t.clone()).collect::<Vec<_>>(), dim);
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        traced("cat", NodeKind::Opaque, &inputs, || Tensor::cat_eager(tensors, dim), || eager)
    }

    fn cat_eager(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        if tensors.iter().any(Tensor::is_complex) {
            return Tensor::complex_joined(tensors, dim, false);
        }
        let (out, d, sizes) = Tensor::cat_data(tensors, dim, "torch.cat")?;
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        Ok(record(out, &inputs, |_| CatBackward0 { dim: d, sizes }))
    }

    pub fn stack(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| Tensor::stack_eager(&x.iter().map(|&t| t.clone()).collect::<Vec<_>>(), dim);
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        traced("stack", NodeKind::Opaque, &inputs, || Tensor::stack_eager(tensors, dim), || eager)
    }

    fn stack_eager(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        if tensors.iter().any(Tensor::is_complex) {
            return Tensor::complex_joined(tensors, dim, true);
        }
        if tensors.is_empty() {
            bail!(Runtime, "stack expects a non-empty TensorList");
        }
        for (i, t) in tensors.iter().enumerate() {
            if t.shape() != tensors[0].shape() {
                bail!(
                    Runtime,
                    "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                    tensors[0].shape(),
                    t.shape()
                );
            }
        }
        let d = wrap_dim(dim, tensors[0].ndim() + 1)?;
        let expanded: Vec<Tensor> = tensors.iter().map(|t| t.detach().unsqueeze(d as isize)).collect::<Result<_>>()?;
        let (out, _, _) = Tensor::cat_data(&expanded, d as isize, "stack")?;
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        Ok(record(out, &inputs, |_| StackBackward0 { dim: d }))
    }

    /// Views of consecutive pieces of `sizes` along `dim` (or, for `Unbind`, each index along it),
    /// all outputs of one node.
    pub fn split_views(&self, sizes: &[usize], dim: usize, kind: SplitKind) -> Result<Vec<Tensor>> {
        let sizes = sizes.to_vec();
        let eager = move |x: &[&Tensor]| x[0].split_views_eager(&sizes, dim, kind);
        let replay = eager.clone();
        let name = match kind {
            SplitKind::Split => "split",
            SplitKind::SplitWithSizes => "split_with_sizes",
            SplitKind::Unbind => "unbind",
        };
        traced_many(name, &[self], || eager(&[self]), || replay)
    }

    fn split_views_eager(&self, sizes: &[usize], dim: usize, kind: SplitKind) -> Result<Vec<Tensor>> {
        let mut outs = Vec::with_capacity(sizes.len());
        let mut start = 0;
        for &n in sizes {
            let layout = if kind == SplitKind::Unbind {
                self.layout().select(dim, start)
            } else {
                self.layout().slice(dim, start, start + n, 1)
            };
            outs.push(self.view_with(layout));
            start += n;
        }
        if start != self.shape()[dim] {
            bail!(
                Runtime,
                "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at \
                dimension {dim}), but got split_sizes={sizes:?}",
                self.shape()[dim]
            );
        }
        let rule = SplitBackward { kind, self_sym_sizes: self.shape().to_vec(), dim, split_sizes: sizes.to_vec() };
        Ok(record_outputs(outs, &[self], rule))
    }

    pub fn split_size(&self, size: isize, dim: isize) -> Result<Vec<Tensor>> {
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() == 0 {
            bail!(Runtime, "split expects at least a 1-dimensional tensor");
        }
        if size < 0 {
            bail!(Runtime, "split expects split_size be non-negative, but got split_size={size}");
        }
        let n = self.shape()[d];
        let size = size as usize;
        if size == 0 && n != 0 {
            bail!(Runtime, "split_size can only be 0 if dimension size is 0, but got dimension size of {n}");
        }
        let count = if size == 0 { 1 } else { n.div_ceil(size).max(1) };
        let sizes: Vec<usize> = (0..count).map(|i| size.min(n - (i * size).min(n))).collect();
        self.split_views(&sizes, d, SplitKind::Split)
    }

    /// `split([sizes], dim)`: views of consecutive pieces of those sizes along `dim`.
    pub fn split_with_sizes(&self, sizes: &[isize], dim: isize) -> Result<Vec<Tensor>> {
        let d = wrap_dim(dim, self.ndim())?;
        if sizes.iter().any(|&x| x < 0) {
            bail!(
                Runtime,
                "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes:?}"
            );
        }
        if self.ndim() == 0 {
            bail!(Runtime, "split_with_sizes expects at least a 1-dimensional tensor");
        }
        let sizes: Vec<usize> = sizes.iter().map(|&x| x as usize).collect();
        let n = self.shape()[d];
        if sizes.iter().try_fold(0usize, |a, &x| a.checked_add(x)) != Some(n) {
            bail!(
                Runtime,
                "split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension \
                {d}), but got split_sizes={sizes:?}"
            );
        }
        self.split_views(&sizes, d, SplitKind::SplitWithSizes)
    }

    /// `chunk(chunks, dim)`: at most `chunks` views of equal size along `dim` (the last may be smaller).
    pub fn chunk(&self, chunks: isize, dim: isize) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            bail!(Runtime, "chunk expects at least a 1-dimensional tensor");
        }
        if chunks <= 0 {
            bail!(Runtime, "chunk expects `chunks` to be greater than 0, got: {chunks}");
        }
        let n = self.shape()[wrap_dim(dim, self.ndim())?] as isize;
        if n == 0 {
            // an empty dim gives `chunks` empty pieces, as torch's chunk (split_with_sizes of zeros)
            crate::alloc::check_piece_count(chunks as usize)?;
            return self.split_with_sizes(&vec![0; chunks as usize], dim);
        }
        let size = (n + chunks - 1) / chunks;
        self.split_size(size, dim)
    }

    /// `diag(k)`: a matrix with a vector on diagonal `k`, or a copy of a matrix's diagonal `k`.
    pub fn diag(&self, k: isize) -> Result<Tensor> {
        match self.ndim() {
            1 => self.diag_embed(k, 0, 1),
            2 => self.diagonal_copy(k),
            n => bail!(Runtime, "diag(): Supports 1D or 2D tensors. Got {n}D"),
        }
    }

    pub fn unbind(&self, dim: isize) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            bail!(Runtime, "Dimension specified as 0 but tensor has no dimensions");
        }
        let d = wrap_dim(dim, self.ndim())?;
        self.split_views(&vec![1; self.shape()[d]], d, SplitKind::Unbind)
    }

    /// `diagonal(offset, dim1, dim2)`: a view.
    pub fn diagonal(&self, offset: isize, dim1: isize, dim2: isize) -> Result<Tensor> {
        let (d1, d2) = (wrap_dim(dim1, self.ndim())?, wrap_dim(dim2, self.ndim())?);
        if d1 == d2 {
            bail!(Runtime, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let layout = diagonal_layout(self.layout(), offset, d1, d2);
        let rule = DiagonalBackward { copy: false, self_sym_sizes: self.shape().to_vec(), offset, dim1: d1, dim2: d2 };
        Ok(record(self.view_with(layout), &[self], |_| rule))
    }

    /// `diag(input, k)` of a 2-D tensor: a copy of the diagonal.
    pub fn diagonal_copy(&self, offset: isize) -> Result<Tensor> {
        let layout = diagonal_layout(self.layout(), offset, 0, 1);
        let out = self.view_with(layout).contiguous_copy()?;
        let rule = DiagonalBackward { copy: true, self_sym_sizes: self.shape().to_vec(), offset, dim1: 0, dim2: 1 };
        Ok(record(out, &[self], |_| rule))
    }
}

/// The layout of diagonal `offset` between dims `d1` and `d2`, appended as the last dim.
pub fn diagonal_layout(l: &Layout, offset: isize, d1: usize, d2: usize) -> Layout {
    let (n1, n2) = (l.shape[d1] as isize, l.shape[d2] as isize);
    let len = if offset >= 0 { n1.min(n2 - offset) } else { (n1 + offset).min(n2) }.max(0) as usize;
    let mut offset_elems = l.offset;
    if len > 0 {
        offset_elems += if offset >= 0 { offset as usize * l.strides[d2] } else { (-offset) as usize * l.strides[d1] };
    }
    let stride = l.strides[d1] + l.strides[d2];
    let mut shape = Vec::new();
    let mut strides = Vec::new();
    for k in 0..l.ndim() {
        if k != d1 && k != d2 {
            shape.push(l.shape[k]);
            strides.push(l.strides[k]);
        }
    }
    shape.push(len);
    strides.push(stride);
    Layout { shape, strides, offset: offset_elems }
}

impl AsField for SplitKind {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    /// `cat(tensors, dim)`: each input gets its slice of the gradient; `sizes[i]` is input i's size
    /// along `dim`, None for a skipped 1-D empty input.
    pub struct CatBackward0 {
        dim: usize,
        sizes: Vec<Option<usize>>,
    }
}
impl AsField for Vec<Option<usize>> {
    fn as_field(&self) -> Field<'_> {
        Field::Ints(self.iter().map(|n| n.map_or(0, |n| n as i64)).collect())
    }
}
impl Backward for CatBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let mut start = 0;
        let mut out = Vec::with_capacity(self.sizes.len());
        for (i, size) in self.sizes.iter().enumerate() {
            let Some(n) = *size else {
                out.push(ctx.grad_if(i, || Ok(Tensor::zeros(&[0], g.dtype())))?);
                continue;
            };
            out.push(ctx.grad_if(i, || g.slice(self.dim, start, start + n, 1))?);
            start += n;
        }
        Ok(out)
    }
}

crate::backward_rule! {
    /// `stack(tensors, dim)`: each input gets its index along `dim`.
    pub struct StackBackward0 {
        dim: usize,
    }
}
impl Backward for StackBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let d = self.dim;
        (0..g.shape()[d]).map(|i| ctx.grad_if(i, || g.select(d as isize, i as isize))).collect()
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.kind) {
        SplitKind::Split => "SplitBackward0",
        SplitKind::SplitWithSizes => "SplitWithSizesBackward0",
        SplitKind::Unbind => "UnbindBackward0",
    };
    /// One node for all the views of a split/chunk/unbind; outputs without a gradient count as zeros.
    pub struct SplitBackward {
        kind: SplitKind,
        self_sym_sizes: Vec<usize>,
        dim: usize,
        split_sizes: Vec<usize>,
    }
}
impl Backward for SplitBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone())])
    }
    fn apply_outputs(&self, _: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        Ok(vec![split_grad(grads, &self.self_sym_sizes, self.dim, &self.split_sizes, self.kind)?])
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.copy) {
        true => "DiagonalBackward0_copy",
        false => "DiagonalBackward0",
    };
    /// `diagonal(offset, dim1, dim2)` (a view), or `diag` of a matrix (a copy: `DiagonalBackward0_copy`).
    pub struct DiagonalBackward {
        copy: bool,
        self_sym_sizes: Vec<usize>,
        offset: isize,
        dim1: usize,
        dim2: usize,
    }
}
impl Backward for DiagonalBackward {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let shape = &self.self_sym_sizes;
        let geom = diagonal_layout(&Layout::contiguous(shape), self.offset, self.dim1, self.dim2);
        one(Tensor::zeros(shape, g.dtype()).copy_slices(&geom, g))
    }
}

fn split_grad(
    grads: &[Option<Tensor>],
    shape: &[usize],
    dim: usize,
    sizes: &[usize],
    kind: SplitKind,
) -> Result<Option<Tensor>> {
    let Some(dtype) = grads.iter().flatten().next().map(|g| g.dtype()) else { return Ok(None) };
    let parts: Vec<Tensor> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| match grads.get(i).cloned().flatten() {
            Some(g) => g,
            None => {
                let mut s = shape.to_vec();
                if kind == SplitKind::Unbind {
                    s.remove(dim);
                } else {
                    s[dim] = n;
                }
                Tensor::zeros(&s, dtype)
            }
        })
        .collect();
    Ok(Some(if kind == SplitKind::Unbind {
        Tensor::stack(&parts, dim as isize)?
    } else {
        Tensor::cat(&parts, dim as isize)?
    }))
}

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    /// Each input transposed twice (the same values, no longer contiguous) takes the general walk.
    fn strided(t: &Tensor) -> Tensor {
        let n = t.ndim() as isize;
        t.transpose(0, n - 1).unwrap().contiguous().unwrap().transpose(0, n - 1).unwrap()
    }

    #[test]
    fn contiguous_blocks_join_as_the_general_walk_does() {
        let make = |shape: &[usize], seed: usize| {
            let n = shape.iter().product::<usize>();
            Tensor::from_vec((0..n).map(|i| ((i * 7 + seed * 13) % 101) as f32 - 50.0).collect::<Vec<f32>>(), shape)
                .unwrap()
        };
        // small and past the threaded size, along each dim, a zero-size piece among them
        for (shapes, dim) in [
            (vec![[8, 32, 64], [8, 32, 64], [8, 32, 64]], 2),
            (vec![[8, 32, 64], [8, 5, 64], [8, 0, 64]], 1),
            (vec![[500, 200, 3], [100, 200, 3], [1, 200, 3]], 0),
            (vec![[300, 200, 3], [300, 200, 1], [300, 200, 6]], 2),
            (vec![[2, 1000, 70], [2, 999, 70]], 1),
        ] {
            let parts: Vec<Tensor> = shapes.iter().enumerate().map(|(i, s)| make(s, i)).collect();
            let joined = Tensor::cat(&parts, dim).unwrap();
            assert!(parts.iter().all(|p| p.layout().contiguous_range().is_some()));
            let walked = Tensor::cat(&parts.iter().map(strided).collect::<Vec<_>>(), dim).unwrap();
            assert!(parts.iter().map(strided).all(|p| p.numel() < 2 || p.layout().contiguous_range().is_none()));
            assert_eq!(joined.shape(), walked.shape());
            assert_eq!(joined.to_vec::<f32>(), walked.to_vec::<f32>(), "{shapes:?} along {dim}");
        }
    }
}
