//! Fast sums over a block of adjacent dims of a contiguous tensor, read as (outer, n, inner):
//! rows of the inner block are added into f64 accumulators (vectorizable, and accurate for any n),
//! spread over threads when the tensor is large.
use crate::element::Element;
use crate::layout::Layout;
use crate::pool;
use rayon::prelude::*;

/// Elements above which a sum is split across threads.
const PARALLEL_ABOVE: usize = 1 << 18;
const LANES: usize = 8;

/// `(outer, n, inner)` when `dims` (sorted) are adjacent dims of a contiguous layout.
pub fn as_block(l: &Layout, dims: &[usize]) -> Option<(usize, usize, usize)> {
    l.contiguous_range()?;
    let (&first, &last) = (dims.first()?, dims.last()?);
    if last - first + 1 != dims.len() {
        return None;
    }
    let outer = l.shape[..first].iter().product();
    let n = l.shape[first..=last].iter().product();
    let inner = l.shape[last + 1..].iter().product();
    Some((outer, n, inner))
}

/// Sum of a contiguous run, in eight f64 lanes.
fn sum_run<T: Element>(x: &[T]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            acc[k] += c[k].to_f64();
        }
    }
    acc.iter().sum::<f64>() + rest.iter().map(|v| v.to_f64()).sum::<f64>()
}

/// `acc[j] += Σ_k x[k * inner + j]` for the `n` rows of one outer index.
fn add_rows<T: Element>(acc: &mut [f64], x: &[T], n: usize, inner: usize, cols: std::ops::Range<usize>) {
    for k in 0..n {
        let row = &x[k * inner + cols.start..k * inner + cols.end];
        for (a, v) in acc.iter_mut().zip(row) {
            *a += v.to_f64();
        }
    }
}

/// Sums `x` (contiguous, `outer * n * inner` elements from `x[0]`) over the middle axis.
pub fn sum_block<T: Element>(x: &[T], outer: usize, n: usize, inner: usize) -> Vec<f64> {
    let parallel = outer * n * inner >= PARALLEL_ABOVE;
    let mut out = pool::filled(outer * inner, 0.0f64);
    if inner == 1 {
        let row_sum = |(o, slot): (usize, &mut f64)| *slot = sum_run(&x[o * n..(o + 1) * n]);
        if parallel && outer > 1 {
            out.par_iter_mut().enumerate().for_each(row_sum);
        } else if parallel {
            // one long run: split it, then add the parts
            let parts: Vec<f64> = x[..n].par_chunks(n.div_ceil(8).max(1)).map(sum_run).collect();
            out[0] = parts.iter().sum();
        } else {
            out.iter_mut().enumerate().for_each(row_sum);
        }
        return out;
    }
    for o in 0..outer {
        let block = &x[o * n * inner..(o + 1) * n * inner];
        let acc = &mut out[o * inner..(o + 1) * inner];
        if parallel && inner >= 64 {
            // columns split across threads, each adding all rows of its columns
            let width = inner.div_ceil(rayon::current_num_threads() * 4).max(16);
            acc.par_chunks_mut(width).enumerate().for_each(|(c, cols)| {
                let start = c * width;
                add_rows(cols, block, n, inner, start..start + cols.len());
            });
        } else {
            add_rows(acc, block, n, inner, 0..inner);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sums_match_naive_for_each_axis() {
        let shape = [3usize, 700, 5];
        let x: Vec<f32> = (0..3 * 700 * 5).map(|i| ((i * 37) % 101) as f32 * 0.25 - 7.0).collect();
        let l = Layout::contiguous(&shape);
        for dims in [vec![0usize], vec![1], vec![2], vec![0, 1], vec![1, 2], vec![0, 1, 2]] {
            let (o, n, i) = as_block(&l, &dims).unwrap();
            let got = sum_block(&x, o, n, i);
            let want = crate::kernels::reduce::fold(&l, &x, &dims, 0.0f64, |a, v| a + v as f64);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-9 * w.abs().max(1.0), "{dims:?}: {g} vs {w}");
            }
        }
        assert!(as_block(&l, &[0, 2]).is_none());
        assert!(as_block(&l.transpose(0, 1), &[0]).is_none());
    }

    #[test]
    fn large_sums_split_across_threads_agree() {
        let x: Vec<f32> = (0..(1 << 20)).map(|i| (i % 7) as f32).collect();
        let whole = sum_block(&x, 1, 1 << 20, 1)[0];
        assert_eq!(whole, x.iter().map(|&v| v as f64).sum::<f64>());
        let cols = sum_block(&x, 1, 1024, 1024);
        let want: Vec<f64> = (0..1024).map(|j| (0..1024).map(|k| x[k * 1024 + j] as f64).sum()).collect();
        assert_eq!(cols, want);
    }
}
