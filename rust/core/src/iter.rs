//! Walking strided layouts: dims that are contiguous for every operand are merged, and the innermost
//! dim runs as a plain loop, so a kernel costs one closure call per element and no index math.

/// Merges adjacent dims that every operand can walk as one, and drops size-1 dims.
pub(crate) fn collapse<const N: usize>(shape: &[usize], strides: [&[usize]; N]) -> (Vec<usize>, [Vec<usize>; N]) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out_strides: [Vec<usize>; N] = std::array::from_fn(|_| Vec::with_capacity(shape.len()));
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        if let Some(&last) = out_shape.last() {
            let mergeable = (0..N).all(|k| *out_strides[k].last().unwrap() == strides[k][d] * shape[d]);
            if mergeable {
                *out_shape.last_mut().unwrap() = last * shape[d];
                for k in 0..N {
                    *out_strides[k].last_mut().unwrap() = strides[k][d];
                }
                continue;
            }
        }
        out_shape.push(shape[d]);
        for k in 0..N {
            out_strides[k].push(strides[k][d]);
        }
    }
    (out_shape, out_strides)
}

/// Calls `f` with the storage offsets of each of the N operands, for every index of `shape` in
/// row-major order.
#[inline]
pub fn for_each_offsets<const N: usize>(
    shape: &[usize],
    strides: [&[usize]; N],
    offsets: [usize; N],
    mut f: impl FnMut([usize; N]),
) {
    for_each_row(shape, strides, offsets, |base, len, inner_strides| {
        let mut offs = base;
        for _ in 0..len {
            f(offs);
            for k in 0..N {
                offs[k] += inner_strides[k];
            }
        }
    });
}

/// One call per innermost row: `f(offsets, len, inner_strides)`, so kernels can run the row as a plain
/// (vectorizable) loop. A 0-dim layout is one row of one element; an empty one has no rows.
pub fn for_each_row<const N: usize>(
    shape: &[usize],
    strides: [&[usize]; N],
    offsets: [usize; N],
    f: impl FnMut([usize; N], usize, [usize; N]),
) {
    for_each_row_in(shape, strides, offsets, 0..usize::MAX, f)
}

/// `for_each_row` over the rows numbered `rows` only (in row-major order, rows of the innermost dim left after
/// `collapse`: `row_len` gives their length), so that threads can walk a layout's rows in parts.
pub fn for_each_row_in<const N: usize>(
    shape: &[usize],
    strides: [&[usize]; N],
    offsets: [usize; N],
    rows: std::ops::Range<usize>,
    mut f: impl FnMut([usize; N], usize, [usize; N]),
) {
    if shape.contains(&0) || rows.is_empty() {
        return;
    }
    let (shape, strides) = collapse(shape, strides);
    if shape.is_empty() {
        if rows.start == 0 {
            f(offsets, 1, [0; N]);
        }
        return;
    }
    let nd = shape.len();
    let inner = shape[nd - 1];
    let inner_strides: [usize; N] = std::array::from_fn(|k| strides[k][nd - 1]);
    // the index and offsets of the first row
    let mut index = vec![0usize; nd - 1];
    let mut base = offsets;
    let mut first = rows.start;
    for d in (0..nd - 1).rev() {
        index[d] = first % shape[d];
        first /= shape[d];
        for k in 0..N {
            base[k] += index[d] * strides[k][d];
        }
    }
    if first > 0 {
        return; // past the last row
    }
    let mut left = rows.len();
    loop {
        f(base, inner, inner_strides);
        left -= 1;
        if left == 0 {
            return;
        }
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            for k in 0..N {
                base[k] += strides[k][d];
            }
            if index[d] < shape[d] {
                break;
            }
            for k in 0..N {
                base[k] -= strides[k][d] * shape[d];
            }
            index[d] = 0;
        }
    }
}

/// The length of the rows `for_each_row` walks over these operands (1 for a 0-dim layout, 0 for an empty one).
pub fn row_len<const N: usize>(shape: &[usize], strides: [&[usize]; N]) -> usize {
    if shape.contains(&0) {
        return 0;
    }
    let (shape, _) = collapse(shape, strides);
    shape.last().copied().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_transposed_in_row_major_order() {
        // a 2x3 row-major buffer read as its 3x2 transpose
        let mut seen = vec![];
        for_each_offsets(&[3, 2], [&[1, 3]], [0], |[o]| seen.push(o));
        assert_eq!(seen, vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn merges_contiguous_dims_and_handles_scalars() {
        let mut seen = vec![];
        for_each_offsets(&[2, 2], [&[2, 1], &[0, 0]], [4, 7], |[a, b]| seen.push((a, b)));
        assert_eq!(seen, vec![(4, 7), (5, 7), (6, 7), (7, 7)]);
        let mut n = 0;
        for_each_offsets(&[], [&[]], [3], |[o]| {
            assert_eq!(o, 3);
            n += 1
        });
        assert_eq!(n, 1);
        for_each_offsets(&[2, 0], [&[1, 1]], [0], |_| panic!("empty"));
    }

    #[test]
    fn rows_cover_the_same_offsets() {
        let (shape, sa, sb) = ([3usize, 4, 5], [20usize, 5, 1], [0usize, 1, 0]);
        let mut by_elem = vec![];
        for_each_offsets(&shape, [&sa, &sb], [2, 1], |o| by_elem.push(o));
        let mut by_row = vec![];
        for_each_row(&shape, [&sa, &sb], [2, 1], |o, len, st| {
            for i in 0..len {
                by_row.push([o[0] + i * st[0], o[1] + i * st[1]]);
            }
        });
        assert_eq!(by_elem, by_row);
    }

    #[test]
    fn rows_in_parts_cover_the_whole_walk() {
        let (shape, sa, sb) = ([3usize, 4, 5], [50usize, 11, 2], [0usize, 1, 0]);
        let mut whole = vec![];
        for_each_row(&shape, [&sa, &sb], [2, 1], |o, len, st| whole.push((o, len, st)));
        assert_eq!(row_len(&shape, [&sa, &sb]), 5);
        for cut in [0, 1, 5, 11, 12] {
            let mut parts = vec![];
            for rows in [0..cut, cut..12, 12..20] {
                for_each_row_in(&shape, [&sa, &sb], [2, 1], rows, |o, len, st| parts.push((o, len, st)));
            }
            assert_eq!(parts, whole, "cut at {cut}");
        }
        let mut scalar = vec![];
        for_each_row_in(&[], [&[]], [3], 1..2, |o, _, _| scalar.push(o));
        assert!(scalar.is_empty());
        for_each_row_in(&[], [&[]], [3], 0..1, |o, _, _| scalar.push(o));
        assert_eq!(scalar, vec![[3]]);
    }
}
