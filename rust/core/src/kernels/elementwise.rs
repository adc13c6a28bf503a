//! Elementwise maps over any layout, with a fast path for contiguous operands.
use crate::element::Element;
use crate::iter::{for_each_offsets, for_each_row};
use crate::layout::Layout;
use crate::kernels::simd;
use crate::pool;

/// `f` applied to every element of a strided input, written contiguously.
pub fn map1<T: Element, U: Element>(l: &Layout, x: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U> {
    if let Some(r) = l.contiguous_range() {
        return simd::map_slice(&x[r], f);
    }
    let mut out = pool::take(l.numel());
    for_each_offsets(&l.shape, [&l.strides], [l.offset], |[o]| out.push(f(x[o])));
    out
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
    let mut out = pool::take(la.numel());
    // row by row, with the common broadcast patterns as plain loops
    for_each_row(&la.shape, [&la.strides, &lb.strides], [la.offset, lb.offset], |[i, j], len, [si, sj]| match (si, sj) {
        (1, 1) => out.extend(a[i..i + len].iter().zip(&b[j..j + len]).map(|(&x, &y)| f(x, y))),
        (1, 0) => {
            let y = b[j];
            out.extend(a[i..i + len].iter().map(|&x| f(x, y)))
        }
        (0, 1) => {
            let x = a[i];
            out.extend(b[j..j + len].iter().map(|&y| f(x, y)))
        }
        _ => out.extend((0..len).map(|k| f(a[i + k * si], b[j + k * sj]))),
    });
    out
}

/// `f` over three broadcast inputs (used by `where`).
pub fn map3<A: Element, B: Element, C: Element, U: Element>(
    l: [&Layout; 3],
    a: &[A],
    b: &[B],
    c: &[C],
    f: impl Fn(A, B, C) -> U,
) -> Vec<U> {
    let mut out = pool::take(l[0].numel());
    for_each_offsets(
        &l[0].shape,
        [&l[0].strides, &l[1].strides, &l[2].strides],
        [l[0].offset, l[1].offset, l[2].offset],
        |[i, j, k]| out.push(f(a[i], b[j], c[k])),
    );
    out
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
}
