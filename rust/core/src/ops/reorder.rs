//! Ops that copy a tensor's rows, picked, reordered or cut to a band: flip and roll (each dim read in order, reversed
//! or rolled), tril/triu, and the row gathers of `index_select` on dim 0 and `embedding`. Each writes whole rows,
//! split across the threads, where a position per element (`index::positions`, ~10 ns an element) made a
//! 1000×1000 float32 flip 1.7 ms and a tril 11 ms (torch: 0.19 and 0.34). Their gradients are the same ops on
//! the gradient, as torch's formulas: `grad.flip(dims)`, `grad.roll(-shifts, dims)`, `grad.tril(diagonal)`.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::split::COPY_ELEMENTS;
use crate::kernels::threads::{items_per_task, par_chunks_mut};
use crate::layout::{for_each_index, numel, wrap_dim, wrap_sized_dim};
use crate::tensor::Tensor;
use crate::with_dtype;
use std::mem::MaybeUninit;

/// A new buffer of `rows` rows of `row` elements, `fill(r, out_row)` writing every element of row r; the rows split
/// across the threads from `COPY_ELEMENTS` elements.
pub(crate) fn build_rows<T: Element>(
    rows: usize,
    row: usize,
    fill: &(dyn Fn(usize, &mut [MaybeUninit<T>]) + Sync),
) -> Vec<T> {
    build_rows_with(rows, row, rows * row >= COPY_ELEMENTS, fill)
}

/// `build_rows`, split across the threads when `parallel` (for rows that cost more than their copy).
pub(crate) fn build_rows_with<T: Element>(
    rows: usize,
    row: usize,
    parallel: bool,
    fill: &(dyn Fn(usize, &mut [MaybeUninit<T>]) + Sync),
) -> Vec<T> {
    let n = rows * row;
    let mut out: Vec<T> = crate::pool::take(n);
    if row > 0 {
        let per_task = items_per_task(rows, parallel);
        par_chunks_mut(&mut out.spare_capacity_mut()[..n], per_task * row, &|c, part| {
            for (r, out_row) in part.chunks_exact_mut(row).enumerate() {
                fill(c * per_task + r, out_row);
            }
        });
    }
    // SAFETY: the tasks' parts tile the n slots by whole rows, and `fill` writes each row whole.
    unsafe { out.set_len(n) };
    out
}

/// Zeros of `shape` read as rows of `row` elements, with row k of `g` (contiguous, `rows.len()` rows) added into row
/// `rows[k]` (negative: nowhere): the unrecorded gradient of a row gather (`embedding`, `t[index]`, `t[mask]`).
pub(crate) fn add_rows_into_zeros(shape: &[usize], row: usize, rows: &[i64], g: &Tensor) -> Result<Tensor> {
    let g = g.contiguous()?;
    with_dtype!(g.dtype(), T => {
        let mut out = crate::pool::filled(numel(shape), T::ZERO);
        g.with_data(|l, gs: &[T]| {
            let gs = &gs[l.contiguous_range().expect("contiguous")];
            for (&r, src) in rows.iter().zip(gs.chunks_exact(row.max(1))) {
                if r >= 0 {
                    let dst = &mut out[r as usize * row..][..row];
                    dst.iter_mut().zip(src).for_each(|(d, &v)| *d = T::add(*d, v));
                }
            }
        });
        Tensor::from_vec(out, shape)
    })
}

/// How an output index along one dim reads its source: flip's and roll's maps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DimMap {
    InOrder,
    /// `out[i] = src[n - 1 - i]`
    Reversed,
    /// `out[i] = src[(i - shift) mod n]`, shift in 0..n
    Rolled(usize),
}

impl DimMap {
    /// The source index of output index `i` of a dim of `n`.
    fn source(self, i: usize, n: usize) -> usize {
        match self {
            DimMap::InOrder => i,
            DimMap::Reversed => n - 1 - i,
            DimMap::Rolled(shift) => (i + n - shift) % n,
        }
    }
}

/// Rows `picks` of `src` (rows of `row` elements), each read through `within`. An embedding lookup of 8192 rows of
/// 256 float32 took 848 µs on one thread (torch: 458 on two).
pub(crate) fn gather_rows<T: Element>(src: &[T], row: usize, picks: &[usize], within: DimMap) -> Vec<T> {
    gather_runs(src, row, picks.len(), &|r| picks[r] * row, within)
}

/// `rows` runs of `row` elements of `src`, run r from element `start(r)`, each read through `within`.
fn gather_runs<T: Element>(
    src: &[T],
    row: usize,
    rows: usize,
    start: &(dyn Fn(usize) -> usize + Sync),
    within: DimMap,
) -> Vec<T> {
    build_rows(rows, row, &|r, out_row| {
        let src_row = &src[start(r)..start(r) + row];
        match within {
            DimMap::InOrder => _ = out_row.write_copy_of_slice(src_row),
            DimMap::Reversed => reverse_into(out_row, src_row),
            DimMap::Rolled(shift) => {
                let (head, tail) = out_row.split_at_mut(shift);
                head.write_copy_of_slice(&src_row[row - shift..]);
                tail.write_copy_of_slice(&src_row[..row - shift]);
            }
        }
    })
}

/// `out` = `src` reversed, sixteen elements at a time through an array (one shuffle each). A reversed zip went an
/// element at a time in rows of 128 (measured on 1M float32: 478 µs in rows of 128, 162 in rows of 1000; this way
/// 207 and 152; a copy then `reverse()` in place 217 and 274).
fn reverse_into<T: Element>(out: &mut [MaybeUninit<T>], src: &[T]) {
    const BLOCK: usize = 16;
    let n = src.len();
    let blocks = n / BLOCK;
    for (b, out) in out.chunks_exact_mut(BLOCK).take(blocks).enumerate() {
        let mut block: [T; BLOCK] = src[n - (b + 1) * BLOCK..n - b * BLOCK].try_into().expect("a block of 16");
        block.reverse();
        out.write_copy_of_slice(&block);
    }
    for (o, &x) in out[blocks * BLOCK..].iter_mut().zip(src[..n - blocks * BLOCK].iter().rev()) {
        o.write(x);
    }
}

/// `src` (rows of `cols` units of `unit` elements; `rows` rows a matrix) with the units outside each row's
/// `kept(i)` columns (i: the row within its matrix) zeroed.
fn band_rows<T: Element>(
    src: &[T],
    rows: usize,
    cols: usize,
    unit: usize,
    kept: impl Fn(usize) -> std::ops::Range<usize> + Sync,
) -> Vec<T> {
    let row = cols * unit;
    let all_rows = src.len().checked_div(row).unwrap_or(0);
    build_rows(all_rows, row, &|r, out_row| {
        let keep = kept(r % rows);
        let (a, b) = (keep.start * unit, keep.end * unit);
        out_row[..a].fill(MaybeUninit::new(T::ZERO));
        out_row[a..b].write_copy_of_slice(&src[r * row + a..r * row + b]);
        out_row[b..].fill(MaybeUninit::new(T::ZERO));
    })
}

impl Tensor {
    /// A new contiguous tensor of `out_shape` (this tensor's size) holding this tensor's elements with each dim d
    /// read through `maps[d]`: `out[i] = self[(maps[d].source(i_d))_d]`.
    fn remapped(&self, maps: &[DimMap], out_shape: &[usize]) -> Result<Tensor> {
        if self.is_complex() {
            // the (re, im) pairs as a last dim of their own, read in order
            let mut maps = maps.to_vec();
            maps.push(DimMap::InOrder);
            let mut pair_shape = out_shape.to_vec();
            pair_shape.push(2);
            return self.detach().view_as_real()?.remapped(&maps, &pair_shape)?.view_as_complex();
        }
        let shape = self.shape().to_vec();
        if shape.is_empty() {
            return self.reshape(&[1])?.remapped(&[DimMap::InOrder], out_shape);
        }
        // rows read in place when their elements are adjacent (one of `unbind`'s views), else from a copy
        let x = if self.layout().strides.last() == Some(&1) { self.detach() } else { self.detach().contiguous()? };
        let l = x.layout();
        // trailing dims read in order and adjacent in memory make one row (flip(0) of a [128, 16, 64] float32 tensor
        // copies rows of 1024, not of 64: a permutation's flip(-1) went 27 → 14 µs, torch 9–13)
        let mut first = shape.len() - 1;
        while first > 0
            && maps[first] == DimMap::InOrder
            && maps[first - 1] == DimMap::InOrder
            && l.strides[first - 1] == l.strides[first] * shape[first]
        {
            first -= 1;
        }
        let (lead, row) = (&shape[..first], shape[first..].iter().product::<usize>());
        // where each output row's source row starts
        let mut starts = Vec::with_capacity(numel(lead));
        if row > 0 {
            for_each_index(lead, |i| {
                let along = i.iter().enumerate().map(|(k, &a)| maps[k].source(a, lead[k]) * l.strides[k]);
                starts.push(l.offset + along.sum::<usize>());
            });
        }
        with_dtype!(x.dtype(), T => x.with_data(|_, data: &[T]| {
            Tensor::from_vec(gather_runs(data, row, starts.len(), &|r| starts[r], maps[shape.len() - 1]), out_shape)
        }))
    }

    pub fn flip(&self, dims: &[isize]) -> Result<Tensor> {
        let dims = dims.to_vec();
        let eager = move |x: &[&Tensor]| x[0].flip_eager(&dims);
        let replay = eager.clone();
        traced("flip", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn flip_eager(&self, dims: &[isize]) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        let mut maps = vec![DimMap::InOrder; shape.len()];
        for &d in dims {
            let w = wrap_dim(d, self.ndim())?;
            // (dim 0 or -1 of a 0-dim tensor names the tensor itself: nothing to reverse)
            if w < shape.len() {
                if maps[w] == DimMap::Reversed {
                    bail!(Runtime, "dim {w} appears multiple times in the list of dims");
                }
                maps[w] = DimMap::Reversed;
            } else if dims.len() > 1 {
                bail!(Runtime, "dim {w} appears multiple times in the list of dims");
            }
        }
        // laid out as the input is (torch's rule for flip's output: `x.T.flip(0)` comes back transposed), which also
        // reads a dense permutation front to back
        let out = Tensor::in_memory_order_by(&[self], self.shape(), |x, shape, perm| match perm {
            Some(perm) => x[0].remapped(&perm.iter().map(|&d| maps[d]).collect::<Vec<_>>(), shape),
            None => x[0].remapped(&maps, shape),
        })?;
        let dims = dims.iter().map(|&d| d as i64).collect();
        Ok(record(out, &[self], |_| FlipBackward0 { dims }))
    }

    /// `fliplr()`: reversed along dim 1.
    pub fn fliplr(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            bail!(Runtime, "Input must be >= 2-d.");
        }
        self.flip(&[1])
    }

    /// `flipud()`: reversed along dim 0.
    pub fn flipud(&self) -> Result<Tensor> {
        if self.ndim() < 1 {
            bail!(Runtime, "Input must be >= 1-d.");
        }
        self.flip(&[0])
    }

    pub fn roll(&self, shifts: &[isize], dims: &[isize]) -> Result<Tensor> {
        let (shifts, dims) = (shifts.to_vec(), dims.to_vec());
        let eager = move |x: &[&Tensor]| x[0].roll_eager(&shifts, &dims);
        let replay = eager.clone();
        traced("roll", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn roll_eager(&self, shifts: &[isize], dims: &[isize]) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        let node = || RollBackward0 { dims: dims.to_vec(), shifts: shifts.to_vec() };
        let rolled =
            |n: usize, shift: isize| DimMap::Rolled(if n == 0 { 0 } else { shift.rem_euclid(n as isize) as usize });
        if shifts.is_empty() {
            bail!(Runtime, "`shifts` required");
        }
        if dims.is_empty() && shifts.len() == 1 {
            // the tensor rolled as one flat run
            let n = self.numel();
            let out = self.reshape(&[n])?.remapped(&[rolled(n, shifts[0])], &shape)?;
            return Ok(record(out, &[self], |_| node()));
        }
        if shifts.len() != dims.len() {
            bail!(Runtime, "shifts and dimensions must align. shifts: {}, dims:{}", shifts.len(), dims.len());
        }
        // a dim named twice rolls by the sum of its shifts, as torch's rolls one pair after another
        let mut total = vec![0isize; shape.len()];
        let mut rolled_dims = vec![false; shape.len()];
        for (&s, &d) in shifts.iter().zip(dims) {
            let d = wrap_sized_dim(d, self.ndim())?;
            // (a 0-dim tensor's dim 0 is the tensor itself: nothing moves)
            if d < shape.len() {
                total[d] = total[d].wrapping_add(s);
                rolled_dims[d] = true;
            }
        }
        let maps: Vec<DimMap> = (0..shape.len())
            .map(|d| if rolled_dims[d] { rolled(shape[d], total[d]) } else { DimMap::InOrder })
            .collect();
        let out = self.remapped(&maps, &shape)?;
        Ok(record(out, &[self], |_| node()))
    }

    /// `tril(k)` (`upper = false`) or `triu(k)`.
    pub fn tri(&self, k: isize, upper: bool) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].tri_eager(k, upper);
        traced(if upper { "triu" } else { "tril" }, NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn tri_eager(&self, k: isize, upper: bool) -> Result<Tensor> {
        if self.ndim() < 2 {
            bail!(Runtime, "{}: input tensor must have at least 2 dimensions", if upper { "triu" } else { "tril" });
        }
        let out = self.banded(k, upper)?;
        if upper {
            Ok(record(out, &[self], |_| TriuBackward0 { diagonal: k }))
        } else {
            Ok(record(out, &[self], |_| TrilBackward0 { diagonal: k }))
        }
    }

    /// `tril`'s (`triu`'s) values: a copy with the elements above (below) diagonal k zeroed.
    fn banded(&self, k: isize, upper: bool) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        // a complex element is a pair of reals
        let (x, unit) = if self.is_complex() { (self.detach().view_as_real()?, 2) } else { (self.detach(), 1) };
        let x = x.contiguous()?;
        // row i keeps the columns j with j - i <= k (tril) or j - i >= k (triu)
        let edge = |i: usize| (i as isize).saturating_add(k).clamp(-1, cols as isize);
        let kept = |i: usize| {
            if upper {
                edge(i).max(0) as usize..cols
            } else {
                0..(edge(i) + 1).clamp(0, cols as isize) as usize
            }
        };
        let out = with_dtype!(x.dtype(), T => x.with_data(|l, data: &[T]| {
            let src = &data[l.contiguous_range().expect("a contiguous tensor")];
            Tensor::from_vec(band_rows(src, rows, cols, unit, kept), x.shape())
        })?);
        if unit == 2 {
            out.view_as_complex()
        } else {
            Ok(out)
        }
    }
}

crate::backward_rule! {
    pub struct FlipBackward0 { dims: Vec<i64> }
}
impl Backward for FlipBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.flip(&self.dims.iter().map(|&d| d as isize).collect::<Vec<_>>()))
    }
}
crate::backward_rule! {
    pub struct RollBackward0 { dims: Vec<isize>, shifts: Vec<isize> }
}
impl Backward for RollBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.roll(&self.shifts.iter().map(|&s| s.wrapping_neg()).collect::<Vec<_>>(), &self.dims))
    }
}
crate::backward_rule! {
    pub struct TrilBackward0 { diagonal: isize }
}
impl Backward for TrilBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.tri(self.diagonal, false))
    }
}
crate::backward_rule! {
    pub struct TriuBackward0 { diagonal: isize }
}
impl Backward for TriuBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.tri(self.diagonal, true))
    }
}
