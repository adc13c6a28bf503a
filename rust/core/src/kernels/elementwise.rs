//! Elementwise maps over any layout, with a fast path for contiguous operands.
use crate::element::Element;
use crate::iter::{collapse, for_each_offsets, for_each_row, for_each_row_in, row_len};
use crate::kernels::threads::{items_per_task, par_for, OutPtr};
use crate::kernels::{simd, transpose};
use crate::layout::Layout;
use crate::pool;
use std::mem::MaybeUninit;

/// `f` applied to every element of a strided input, written contiguously.
pub fn map1<T: Element, U: Element>(l: &Layout, x: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U> {
    if let Some(r) = l.contiguous_range() {
        return simd::map_slice(&x[r], f);
    }
    let n = l.numel();
    let mut out = pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    let (shape, [strides]) = collapse(&l.shape, [&l.strides]);
    if let Some(p) = unit_dim_before_last(&shape, &strides) {
        map_transposed_slabs(dst, &x[l.offset..], &shape, &strides, p, &f);
        // Safety: the slabs' tiles write all n slots.
        unsafe { out.set_len(n) };
        return out;
    }
    // split across the threads when large: one thread walking a permuted or broadcast layout ran at a fraction of
    // the memory's speed (stacking three transposed [64, 16, 128] float32: 237 µs, torch 32)
    let slots = OutPtr(dst.as_mut_ptr());
    par_pieces(&l.shape, [&l.strides], [l.offset], |pos, [i], len, [step]| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let slots = slots;
        // SAFETY: the pieces are disjoint runs of the n slots (`par_pieces`), and `out` outlives the walk.
        let o = unsafe { std::slice::from_raw_parts_mut(slots.0.add(pos), len) };
        gather_into(o, x, i, step, &f);
    });
    // Safety: the pieces cover each of the n output slots once.
    unsafe { out.set_len(n) };
    out
}

/// Walks `shape`'s elements over N operands in row-major order, split into parts of whole elements (a row is cut
/// where a part ends), in parallel when there are many: `piece(pos, offsets, len, steps)` for each piece of a row,
/// `pos` being its first element's place in row-major order. So a layout that collapses into a few long rows (a
/// slice with a step is one row) is split too: walked as whole rows, `a[:, ::2]` of 1000² float32 ran on one thread.
fn par_pieces<const N: usize>(
    shape: &[usize],
    strides: [&[usize]; N],
    offsets: [usize; N],
    piece: impl Fn(usize, [usize; N], usize, [usize; N]) + Sync,
) {
    let n: usize = shape.iter().product();
    if n == 0 {
        return;
    }
    let row = row_len(shape, strides).max(1);
    let chunk = if n >= simd::PARALLEL_ABOVE { items_per_task(n, true) } else { n };
    par_for(n.div_ceil(chunk), &|c| {
        let (first, end) = (c * chunk, ((c + 1) * chunk).min(n));
        let mut r = first / row;
        for_each_row_in(shape, strides, offsets, r..(end - 1) / row + 1, |at, len, steps| {
            let start = r * row;
            let (lo, hi) = (first.max(start) - start, end.min(start + len) - start);
            piece(start + lo, std::array::from_fn(|k| at[k] + lo * steps[k]), hi - lo, steps);
            r += 1;
        });
    });
}

/// `o[k] = f(x[at + k·step])` for every slot of `o`.
#[inline(always)]
fn gather_into<T: Element, U: Element>(o: &mut [MaybeUninit<U>], x: &[T], at: usize, step: usize, f: &impl Fn(T) -> U) {
    let len = o.len();
    if len == 0 {
        return;
    }
    let x = &x[at..=at + (len - 1) * step]; // one bounds check per piece: every read below is inside
    match step {
        1 => simd::map_into(o, x, f),
        // a broadcast row: one value
        0 => {
            let v = f(x[0]);
            o.iter_mut().for_each(|slot| {
                slot.write(v);
            });
        }
        _ => o.iter_mut().zip(x.iter().step_by(step)).for_each(|(slot, &v)| {
            slot.write(f(v));
        }),
    }
}

/// A strided input copied into row-major order: `map1` with the identity, except that a transposed
/// float32 matrix goes through `transpose_f32` (8×8 AVX register blocks, split across threads), which
/// takes `x.T.contiguous()` on 512² from 285 to 78 µs on two cores (PyTorch 143), 1024² from 1,345 to 260.
pub fn dense_copy<T: Element>(l: &Layout, x: &[T]) -> Vec<T> {
    if transpose::handles::<T>() && l.contiguous_range().is_none() {
        let (shape, [strides]) = collapse(&l.shape, [&l.strides]);
        // the source read as a matrix of `cols` rows, `col_stride` apart, of `rows` elements each
        if let (&[rows, cols], &[1, col_stride]) = (shape.as_slice(), strides.as_slice()) {
            if col_stride >= rows {
                if let Some(out) = transpose::transposed_copy(&x[l.offset..], cols, rows, col_stride) {
                    return out;
                }
            }
        }
    }
    map1(l, x, |v| v)
}

/// The dim read at stride 1 by a (collapsed) layout whose last dim is not: a transposed matrix, or a permutation such
/// as a [128, 16, 64] tensor's `permute(2, 1, 0)`, whose rows walked in order read one element per cache line.
fn unit_dim_before_last(shape: &[usize], strides: &[usize]) -> Option<usize> {
    let last = shape.len().checked_sub(1)?;
    if last == 0 || strides[last] <= 1 {
        return None;
    }
    strides[..last].iter().position(|&s| s == 1)
}

/// `dst[.., r, .., c] = f(x[.., r, .., c])` for a layout read at stride 1 along dim `p` (`r`) and not along the last
/// (`c`): a transposed read of each slab of those two dims (one slab for a matrix; one for every index of the other
/// dims of a permutation, the slabs split across the threads), done in tiles of 64 rows by 16 columns, so that the
/// 16 source cache lines a tile reads stay in cache while its rows are written. Walking output rows in order read
/// one element per cache line: `x.T.contiguous()` on 1024² float32 took 4.6 ms that way. Measured on a standalone
/// copy (1024², 512×784, 4096²): 1.1 / 0.27 / 37 ms against 4.0 / 0.29 / 66 ms for 32×32 tiles written column by
/// column, whose writes 4 KiB apart evict each other. The permuted [64, 16, 128] float32 above was copied in 200 µs
/// by rows, 85 µs by slabs (torch's `contiguous()`: 182).
fn map_transposed_slabs<T: Element, U: Element>(
    dst: &mut [MaybeUninit<U>],
    x: &[T],
    shape: &[usize],
    strides: &[usize],
    p: usize,
    f: &(impl Fn(T) -> U + Sync),
) {
    const ROWS: usize = 64;
    const COLS: usize = 16;
    let last = shape.len() - 1;
    let out_strides = crate::layout::contiguous_strides(shape);
    let others: Vec<usize> = (0..last).filter(|&d| d != p).collect();
    let slabs: usize = others.iter().map(|&d| shape[d]).product();
    let (rows, cols, col_stride) = (shape[p], shape[last], strides[last]);
    let per_task = items_per_task(slabs, dst.len() >= simd::PARALLEL_ABOVE);
    let (slots, dst_len) = (OutPtr(dst.as_mut_ptr()), dst.len());
    par_for(slabs.div_ceil(per_task), &|t| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let slots = slots;
        for slab in t * per_task..((t + 1) * per_task).min(slabs) {
            let (mut rest, mut src, mut at) = (slab, 0, 0);
            for &d in others.iter().rev() {
                let i = rest % shape[d];
                rest /= shape[d];
                src += i * strides[d];
                at += i * out_strides[d];
            }
            for r0 in (0..rows).step_by(ROWS) {
                for c0 in (0..cols).step_by(COLS) {
                    let c1 = (c0 + COLS).min(cols);
                    for r in r0..(r0 + ROWS).min(rows) {
                        let o = at + r * out_strides[p] + c0;
                        assert!(o + (c1 - c0) <= dst_len, "a slab's row leaves the output");
                        // SAFETY: inside `dst` (asserted); each (slab, row, column) is its own slot, written once.
                        let run = unsafe { std::slice::from_raw_parts_mut(slots.0.add(o), c1 - c0) };
                        for (k, slot) in run.iter_mut().enumerate() {
                            slot.write(f(x[src + (c0 + k) * col_stride + r]));
                        }
                    }
                }
            }
        }
    });
}

/// `slice_kernel(out, x)` (a hand-vectorized loop) over any layout: strided data is gathered into a
/// contiguous copy first, so every element goes through the same kernel and a layout never changes
/// a result.
pub fn map1_by<T: Element, U: Element>(
    l: &Layout,
    x: &[T],
    slice_kernel: impl Fn(&mut [std::mem::MaybeUninit<U>], &[T]) + Sync,
) -> Vec<U> {
    match l.contiguous_range() {
        Some(r) => simd::map_slice_by(&x[r], slice_kernel),
        None => {
            let dense = dense_copy(l, x);
            let out = simd::map_slice_by(&dense, slice_kernel);
            pool::give(dense);
            out
        }
    }
}

/// `f` over two inputs whose layouts are already broadcast to the same shape.
pub fn map2<A: Element, B: Element, U: Element>(
    la: &Layout,
    a: &[A],
    lb: &Layout,
    b: &[B],
    f: impl Fn(A, B) -> U + Sync,
) -> Vec<U> {
    debug_assert_eq!(la.shape, lb.shape);
    match (la.contiguous_range(), lb.contiguous_range()) {
        (Some(ra), Some(rb)) => return simd::zip_slices(&a[ra], &b[rb], f),
        (Some(ra), None) if lb.strides.iter().all(|&s| s == 0) => {
            let y = b[lb.offset];
            return simd::map_slice(&a[ra], |x| f(x, y));
        }
        (None, Some(rb)) if la.strides.iter().all(|&s| s == 0) => {
            let x = a[la.offset];
            return simd::map_slice(&b[rb], |y| f(x, y));
        }
        _ => {}
    }
    let n = la.numel();
    let mut out: Vec<U> = pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= simd::PARALLEL_ABOVE && la.shape.len() > 1 && la.shape[0] > 1 {
        // split along the first dim: each thread fills its own slab of the (contiguous) output
        let rows = la.shape[0];
        let per_task = rows.div_ceil(crate::kernels::threads::threads() * 4).max(1);
        let row_len = n / rows;
        crate::kernels::threads::par_chunks_mut(dst, per_task * row_len, &|c, slab| {
            let first = c * per_task;
            let slab_rows = slab.len() / row_len;
            let part = |l: &Layout| {
                let mut shape = l.shape.clone();
                shape[0] = slab_rows;
                Layout { shape, strides: l.strides.clone(), offset: l.offset + first * l.strides[0] }
            };
            fill_rows(slab, &part(la), a, &part(lb), b, &f);
        });
    } else {
        fill_rows(dst, la, a, lb, b, &f);
    }
    // Safety: the row walk writes each of the n output slots once, in order.
    unsafe { out.set_len(n) };
    out
}

/// Row by row, each row a vectorized loop for the common patterns (both operands running, or one
/// broadcast along the row).
fn fill_rows<A: Element, B: Element, U: Element>(
    dst: &mut [std::mem::MaybeUninit<U>],
    la: &Layout,
    a: &[A],
    lb: &Layout,
    b: &[B],
    f: &(impl Fn(A, B) -> U + Sync),
) {
    let mut pos = 0;
    for_each_row(&la.shape, [&la.strides, &lb.strides], [la.offset, lb.offset], |[i, j], len, [si, sj]| {
        let o = &mut dst[pos..pos + len];
        pos += len;
        match (si, sj) {
            (1, 1) => simd::zip_into(o, &a[i..i + len], &b[j..j + len], f),
            (1, 0) => {
                let y = b[j];
                simd::map_into(o, &a[i..i + len], &|x| f(x, y))
            }
            (0, 1) => {
                let x = a[i];
                simd::map_into(o, &b[j..j + len], &|y| f(x, y))
            }
            _ => {
                for (k, slot) in o.iter_mut().enumerate() {
                    slot.write(f(a[i + k * si], b[j + k * sj]));
                }
            }
        }
    });
    debug_assert_eq!(pos, dst.len());
}

/// `f` over three broadcast inputs (used by `where`).
pub fn map3<A: Element, B: Element, C: Element, U: Element>(
    l: [&Layout; 3],
    a: &[A],
    b: &[B],
    c: &[C],
    f: impl Fn(A, B, C) -> U + Sync,
) -> Vec<U> {
    // An operand that is neither a run nor one value (strided, or broadcast along some dims only) is gathered into a
    // run first (`dense_copy`, split across the threads). Walked element by element with the others, `where` over
    // views of [64, 16, 128] float32 took 970 µs (torch 305).
    let (mut ga, mut gb, mut gc) = (None, None, None);
    let out = map3_dense(
        l[0].numel(),
        Dense::read(l[0], a, &mut ga).blocks(),
        Dense::read(l[1], b, &mut gb).blocks(),
        Dense::read(l[2], c, &mut gc).blocks(),
        f,
    );
    // the copies back to the pool (their buffers are reused by the next call's)
    ga.into_iter().for_each(pool::give);
    gb.into_iter().for_each(pool::give);
    gc.into_iter().for_each(pool::give);
    out
}

/// Elements per block of `map3_dense`: a broadcast value is repeated once into a block this long and read from there.
const DENSE_BLOCK: usize = 1024;

/// An operand `map3` reads without walking its layout: its contiguous elements, or one value broadcast everywhere
/// (a Python number, a 0-dim weight). The walk pushed one element at a time: `lerp(a, b, 0.3)` over 1000×1000
/// float32 took 2.6 ms, torch 0.27.
enum Dense<'a, T> {
    Run(&'a [T]),
    Value(T),
}

impl<'a, T: Element> Dense<'a, T> {
    fn of(l: &Layout, x: &'a [T]) -> Option<Self> {
        match l.contiguous_range() {
            Some(r) => Some(Dense::Run(&x[r])),
            None if l.numel() > 0 && l.strides.iter().all(|&s| s == 0) => Some(Dense::Value(x[l.offset])),
            None => None,
        }
    }

    /// The operand read in place, or else its elements copied into a run (`copy`, kept by the caller).
    fn read(l: &Layout, x: &'a [T], copy: &'a mut Option<Vec<T>>) -> Self {
        Dense::of(l, x).unwrap_or_else(|| Dense::Run(copy.insert(dense_copy(l, x))))
    }

    /// The operand as blocks: its run, or a block of its value to read again and again.
    fn blocks(self) -> Blocks<'a, T> {
        match self {
            Dense::Run(r) => Blocks::Run(r),
            Dense::Value(v) => Blocks::Repeated(Box::new([v; DENSE_BLOCK])),
        }
    }
}

enum Blocks<'a, T> {
    Run(&'a [T]),
    Repeated(Box<[T; DENSE_BLOCK]>),
}

impl<T> Blocks<'_, T> {
    fn block(&self, start: usize, len: usize) -> &[T] {
        match self {
            Blocks::Run(r) => &r[start..start + len],
            Blocks::Repeated(v) => &v[..len],
        }
    }
}

/// `map3` over operands read as blocks: vectorized, and split across the threads when large (one thread, an element
/// at a time through three zipped iterators, `addcmul` of 1M float32 took 0.38 ms, torch 0.30).
fn map3_dense<A: Element, B: Element, C: Element, U: Element>(
    n: usize,
    a: Blocks<'_, A>,
    b: Blocks<'_, B>,
    c: Blocks<'_, C>,
    f: impl Fn(A, B, C) -> U + Sync,
) -> Vec<U> {
    let mut out: Vec<U> = pool::take(n);
    let fill = |start: usize, part: &mut [MaybeUninit<U>]| {
        for (k, o) in part.chunks_mut(DENSE_BLOCK).enumerate() {
            let (at, len) = (start + k * DENSE_BLOCK, o.len());
            simd::zip3_into(o, a.block(at, len), b.block(at, len), c.block(at, len), &f);
        }
    };
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= simd::PARALLEL_ABOVE {
        // whole blocks a task, so a broadcast value's block is read from its start
        let chunk = crate::kernels::threads::items_per_task(n, true).next_multiple_of(DENSE_BLOCK);
        crate::kernels::threads::par_chunks_mut(dst, chunk, &|t, part| fill(t * chunk, part));
    } else {
        fill(0, dst);
    }
    // SAFETY: every one of the n slots was written above, block by block.
    unsafe { out.set_len(n) };
    out
}

/// `src` read through `sl` and written into the uninitialized `dst` through `dl` (the same shape), a row (or a piece
/// of one) at a time, split across the threads when large (`par_pieces`). `cat`'s strided and broadcast inputs go
/// straight into their place this way: copied dense first, then joined, stacking three transposed [64, 16, 128]
/// float32 took 69 µs, three broadcast ones 150 (torch 36 and 30).
///
/// # Safety
/// `dl` never maps two indices to one slot (a region of a row-major layout: a slice of it along one dim), since the
/// pieces are written from several threads at once.
pub(crate) unsafe fn write_rows_into<T: Element>(dst: &mut [MaybeUninit<T>], dl: &Layout, src: &[T], sl: &Layout) {
    debug_assert_eq!(dl.shape, sl.shape);
    let (slots, dst_len) = (OutPtr(dst.as_mut_ptr()), dst.len());
    let strides = [&dl.strides[..], &sl.strides[..]];
    par_pieces(&dl.shape, strides, [dl.offset, sl.offset], |_, [o, i], len, [o_step, i_step]| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let slots = slots;
        assert!(o + (len - 1) * o_step < dst_len, "write_rows_into: the destination layout leaves `dst`");
        if o_step == 1 {
            // SAFETY: the piece's slots are inside `dst` (asserted), and `dl` maps each index to a slot of its own (the
            // caller's contract), so no other piece writes them; `dst` stays borrowed until the walk returns.
            let d = unsafe { std::slice::from_raw_parts_mut(slots.0.add(o), len) };
            return gather_into(d, src, i, i_step, &|v| v);
        }
        let src = &src[i..=i + (len - 1) * i_step];
        for k in 0..len {
            // SAFETY: as above: inside `dst`, and no other piece writes this slot.
            unsafe { (*slots.0.add(o + k * o_step)).write(src[k * i_step]) };
        }
    });
}

/// Writes `src` (broadcast to `dst_layout`'s shape) into `dst` through `dst_layout`.
pub fn copy_into<T: Element, S: Element>(dst: &mut [T], dl: &Layout, src: &[S], sl: &Layout) {
    debug_assert_eq!(dl.shape, sl.shape);
    if let (Some(rd), Some(rs)) = (dl.contiguous_range(), sl.contiguous_range()) {
        for (d, &s) in dst[rd].iter_mut().zip(&src[rs]) {
            *d = s.cast();
        }
        return;
    }
    for_each_offsets(&dl.shape, [&dl.strides, &sl.strides], [dl.offset, sl.offset], |[i, j]| dst[i] = src[j].cast());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::numel;

    #[test]
    fn map3_reads_runs_and_broadcast_values_as_the_walk_does() {
        // 2500 elements: two full blocks and a partial one; operands contiguous, a broadcast value, or transposed
        map3_matches_the_walk(50, 50);
        // past the threaded size, each thread's part starting at a whole block
        map3_matches_the_walk(simd::PARALLEL_ABOVE / 100 + 3, 101);
    }

    fn map3_matches_the_walk(m: usize, n: usize) {
        let x: Vec<f64> = (0..m * n).map(|v| v as f64 * 0.5).collect();
        let y: Vec<f64> = (0..m * n).map(|v| (v % 7) as f64).collect();
        let run = Layout::contiguous(&[m, n]);
        let value = Layout { shape: vec![m, n], strides: vec![0, 0], offset: 3 };
        let transposed = Layout { shape: vec![m, n], strides: vec![1, m], offset: 0 };
        let f = |a: f64, b: f64, c: f64| a + 2.0 * b - c * c;
        let walk = |l: [&Layout; 3]| {
            let mut out = Vec::new();
            for_each_offsets(
                &l[0].shape,
                [&l[0].strides, &l[1].strides, &l[2].strides],
                [l[0].offset, l[1].offset, l[2].offset],
                |[i, j, k]| out.push(f(x[i], y[j], x[k])),
            );
            out
        };
        for l in [[&run, &run, &run], [&run, &value, &run], [&value, &value, &run], [&run, &transposed, &value]] {
            assert_eq!(map3(l, &x, &y, &x, f), walk(l));
        }
    }

    #[test]
    fn dense_copy_matches_the_identity_map_for_every_transposed_layout() {
        let (m, n) = (37, 53);
        let a: Vec<f32> = (0..m * n).map(|v| v as f32).collect();
        let t = Layout::contiguous(&[m, n]).transpose(0, 1);
        let window = Layout { shape: vec![n - 3, m - 2], strides: vec![1, n], offset: n + 2 };
        // columns overlapping (stride 1 apart, shorter than the output's rows): the generic walk
        let overlapping = Layout { shape: vec![5, 4], strides: vec![1, 2], offset: 0 };
        for l in [t, window, overlapping] {
            assert_eq!(dense_copy(&l, &a), map1(&l, &a, |v| v), "{l:?}");
            let wide: Vec<f64> = a.iter().map(|&v| v as f64).collect();
            assert_eq!(dense_copy(&l, &wide), map1(&l, &wide, |v| v), "{l:?} as f64");
        }
    }

    #[test]
    fn map1_in_parts_matches_the_walk() {
        // past the threaded size: permuted (rows of 7 and of 1), broadcast rows (stride 0) and a scalar broadcast
        let data: Vec<f32> = (0..90_000).map(|v| v as f32).collect();
        let (a, b, c) = (40usize, 25usize, 70usize);
        let layouts = [
            Layout::contiguous(&[a, b, c]).permute(&[1, 0, 2]),
            Layout::contiguous(&[a, b, c]).permute(&[2, 1, 0]),
            Layout { shape: vec![a, b, 7, c], strides: vec![b * c, c, 0, 1], offset: 0 },
            Layout { shape: vec![a * b, 9, 7], strides: vec![c, 1, 0], offset: 3 },
            Layout { shape: vec![300, 200], strides: vec![0, 0], offset: 11 },
            Layout::contiguous(&[a, b, c]).permute(&[2, 0, 1]),
            Layout::contiguous(&[5, 8, 9, 200]).permute(&[1, 3, 0, 2]),
            // a slice with a step: one long row, cut into parts
            Layout { shape: vec![400, 100], strides: vec![200, 2], offset: 1 },
        ];
        for l in layouts {
            let mut want = Vec::new();
            for_each_offsets(&l.shape, [&l.strides], [l.offset], |[i]| want.push(data[i] * 2.0 + 1.0));
            assert!(want.len() >= simd::PARALLEL_ABOVE, "{l:?}");
            assert_eq!(map1(&l, &data, |v| v * 2.0 + 1.0), want, "{l:?}");
        }
    }

    #[test]
    fn rows_written_into_a_region_match_copy_into() {
        // small and past the threaded size; each source strided, broadcast or transposed, each into a middle slice
        // of a row-major output along a leading, middle or last dim
        let data: Vec<f64> = (0..270_000).map(|v| v as f64).collect();
        for (a, b, c) in [(3usize, 4usize, 5usize), (64, 16, 128)] {
            let sources = [
                Layout::contiguous(&[b, a, c]).permute(&[1, 0, 2]),
                Layout::contiguous(&[c, b, a]).permute(&[2, 1, 0]),
                Layout { shape: vec![a, b, c], strides: vec![0, 0, 0], offset: 7 },
                Layout { shape: vec![a, b, c], strides: vec![c, 0, 1], offset: 2 },
                Layout { shape: vec![a, b, c], strides: vec![2 * b * c, 2 * c, 2], offset: 1 },
            ];
            for src in sources {
                for d in 0..3 {
                    let mut shape = src.shape.clone();
                    shape[d] += 3;
                    let region = Layout::contiguous(&shape).slice(d, 2, 2 + src.shape[d], 1);
                    let mut want = vec![-1.0; numel(&shape)];
                    copy_into(&mut want, &region, &data, &src);
                    let mut got: Vec<f64> = vec![-1.0; numel(&shape)];
                    // SAFETY: f64 is valid uninitialized-or-not; the slots outside the region keep their -1
                    let slots = unsafe {
                        std::slice::from_raw_parts_mut(got.as_mut_ptr().cast::<MaybeUninit<f64>>(), got.len())
                    };
                    // SAFETY: the region is a slice of a row-major layout: each index has a slot of its own
                    unsafe { write_rows_into(slots, &region, &data, &src) };
                    assert_eq!(got, want, "{src:?} into dim {d}");
                }
            }
        }
    }

    #[test]
    fn strided_and_broadcast_match_contiguous() {
        let a: Vec<f64> = (0..6).map(|v| v as f64).collect();
        let t = Layout::contiguous(&[2, 3]).transpose(0, 1);
        assert_eq!(map1(&t, &a, |x| x * 2.0), vec![0.0, 6.0, 2.0, 8.0, 4.0, 10.0]);
        let row = Layout::contiguous(&[3]).broadcast_to(&[2, 3]).unwrap();
        let b = [10.0, 20.0, 30.0];
        assert_eq!(map2(&Layout::contiguous(&[2, 3]), &a, &row, &b, |x, y| x + y), vec![10., 21., 32., 13., 24., 35.]);
        let mut dst = vec![0i64; 6];
        copy_into(&mut dst, &Layout::contiguous(&[3, 2]).transpose(0, 1), &a, &Layout::contiguous(&[2, 3]));
        assert_eq!(dst, vec![0, 3, 1, 4, 2, 5]);
    }

    /// Transposed reads (tiled) and other strided reads against an index-by-index walk, with sizes
    /// that are not multiples of the tile, an offset, and an outer stride wider than the rows.
    #[test]
    fn transposed_and_strided_reads_match_a_plain_walk() {
        let data: Vec<f32> = (0..10_000).map(|v| v as f32).collect();
        for (rows, cols) in [(1, 1), (3, 70), (33, 31), (64, 64), (100, 7)] {
            for l in [
                Layout { shape: vec![rows, cols], strides: vec![1, rows], offset: 0 },
                Layout { shape: vec![rows, cols], strides: vec![1, rows + 3], offset: 5 },
                Layout { shape: vec![rows, cols], strides: vec![2, 2 * rows + 1], offset: 1 },
                Layout { shape: vec![2, rows, cols], strides: vec![1, 2, 2 * rows], offset: 0 },
            ] {
                let mut want = Vec::new();
                for_each_offsets(&l.shape, [&l.strides], [l.offset], |[o]| want.push(data[o] * 2.0 + 1.0));
                assert_eq!(map1(&l, &data, |v| v * 2.0 + 1.0), want, "{l:?}");
            }
        }
    }

    /// The threaded row walk (outputs above the threading threshold) against an index-by-index loop,
    /// for each row pattern: both running, one broadcast along the row, transposed (strided rows).
    #[test]
    fn large_broadcasts_split_across_threads_match_a_plain_loop() {
        let (r, c) = (700usize, 300usize); // 210,000 elements: above the threshold, uneven slabs
        let col: Vec<f32> = (0..r).map(|i| i as f32 * 0.5).collect();
        let row: Vec<f32> = (0..c).map(|j| j as f32 - 7.0).collect();
        let full: Vec<f32> = (0..r * c).map(|k| (k % 97) as f32).collect();
        let lcol = Layout::contiguous(&[r, 1]).broadcast_to(&[r, c]).unwrap();
        let lrow = Layout::contiguous(&[1, c]).broadcast_to(&[r, c]).unwrap();
        let lfull = Layout::contiguous(&[r, c]);
        let lt = Layout::contiguous(&[c, r]).transpose(0, 1);
        type Case<'a> = (&'a Layout, &'a [f32], &'a Layout, &'a [f32], Box<dyn Fn(usize, usize) -> f32 + 'a>);
        let cases: [Case; 4] = [
            (&lcol, &col, &lrow, &row, Box::new(|i, j| col[i] - row[j])),
            (&lfull, &full, &lrow, &row, Box::new(|i, j| full[i * c + j] - row[j])),
            (&lrow, &row, &lfull, &full, Box::new(|i, j| row[j] - full[i * c + j])),
            (&lt, &full, &lfull, &full, Box::new(|i, j| full[j * r + i] - full[i * c + j])),
        ];
        for (k, (la, a, lb, b, want)) in cases.iter().enumerate() {
            let got = map2(la, a, lb, b, |x, y| x - y);
            assert_eq!(got.len(), r * c);
            for i in 0..r {
                for j in 0..c {
                    assert_eq!(got[i * c + j], want(i, j), "case {k} at ({i}, {j})");
                }
            }
        }
    }
}
