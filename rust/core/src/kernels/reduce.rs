//! Reductions over any set of dims: the kept dims are walked outside, the reduced ones inside, so each
//! output element is one run of consecutive visits.
use crate::element::Element;
use crate::iter::for_each_offsets;
use crate::layout::Layout;

/// Folds the elements of `x` over `dims` (sorted, unique), one accumulator per kept index.
pub fn fold<T: Element, A: Copy>(l: &Layout, x: &[T], dims: &[usize], init: A, f: impl Fn(A, T) -> A) -> Vec<A> {
    let kept: Vec<usize> = (0..l.ndim()).filter(|d| !dims.contains(d)).collect();
    let order: Vec<usize> = kept.iter().chain(dims).copied().collect();
    let p = l.permute(&order);
    let out_len = crate::layout::numel(&kept.iter().map(|&d| l.shape[d]).collect::<Vec<_>>());
    let group: usize = dims.iter().map(|&d| l.shape[d]).product();
    crate::pool::ensure_fits::<A>(out_len);
    let mut out = vec![init; out_len];
    if group == 0 {
        return out;
    }
    if let (Some(r), true) = (l.contiguous_range(), dims.iter().enumerate().all(|(i, &d)| d == kept.len() + i)) {
        // reduced dims are the trailing ones of a contiguous tensor: plain chunks
        for (acc, chunk) in out.iter_mut().zip(x[r].chunks_exact(group)) {
            *acc = chunk.iter().fold(*acc, |a, &v| f(a, v));
        }
        return out;
    }
    let mut seen = 0usize;
    for_each_offsets(&p.shape, [&p.strides], [p.offset], |[o]| {
        let slot = &mut out[seen / group];
        *slot = f(*slot, x[o]);
        seen += 1;
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_each_axis() {
        let x: Vec<f64> = (0..6).map(|v| v as f64).collect();
        let l = Layout::contiguous(&[2, 3]);
        assert_eq!(fold(&l, &x, &[0], 0.0, |a, v| a + v), vec![3.0, 5.0, 7.0]);
        assert_eq!(fold(&l, &x, &[1], 0.0, |a, v| a + v), vec![3.0, 12.0]);
        assert_eq!(fold(&l, &x, &[0, 1], 0.0, |a, v| a + v), vec![15.0]);
        assert_eq!(fold(&l.transpose(0, 1), &x, &[1], 0.0, |a, v| a + v), vec![3.0, 5.0, 7.0]);
    }
}
