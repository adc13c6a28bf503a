//! Matrix products through the `gemm` crate, which reads strides directly (transposes cost nothing).
use crate::element::Element;
use crate::kernels::threads::{par_for, OutPtr};
use crate::DType;
use std::mem::MaybeUninit;

/// One strided matrix operand: element offset plus row and column strides.
#[derive(Clone, Copy)]
pub struct MatRef {
    pub offset: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

pub(crate) use crate::kernels::split::MATMUL_MACS as PARALLEL_MACS;

/// Work run over each part of a product's output as soon as that part is final, on the thread that made it and
/// while it is still in cache (`compile`'s epilogues): `(first, part)` is the output's elements
/// `first..first + part.len()`. A part is a band of whole rows, or one row's share of a band of columns; the
/// parts cover the output once, and different parts may be handed to different threads at once.
pub type Epilogue<'a, T> = &'a (dyn Fn(usize, &[T]) + Sync);

/// `out[m×n] (contiguous) = a[m×k] · b[k×n]`, on the threads of the pool when large. Every element of
/// `out` is written, none read, so it may start uninitialized (no zero-fill pass).
pub fn matmul_into<T: Element>(
    out: &mut [MaybeUninit<T>],
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
) {
    let parallel = m * n * k >= PARALLEL_MACS;
    matmul_block(out, a, ma, b, mb, m, k, n, parallel)
}

/// As `matmul_into`, on the calling thread only (for callers that already split work across threads).
pub fn matmul_into_serial<T: Element>(
    out: &mut [MaybeUninit<T>],
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
) {
    matmul_block(out, a, ma, b, mb, m, k, n, false)
}

/// `out[m×n] (contiguous) += a[m×k] · b[k×n]`, on the threads of the pool when large: a bias or a
/// partial sum preloaded in `out` is added inside the product, with no second pass over memory. `then` runs over each
/// part of `out` once it holds its final values.
pub fn matmul_acc_into<T: Element>(
    out: &mut [T],
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
    then: Option<Epilogue<'_, T>>,
) {
    assert!(m.checked_mul(n).is_some_and(|mn| out.len() >= mn), "matmul output too small");
    let parallel = m * n * k >= PARALLEL_MACS;
    // Safety: MaybeUninit<T> has T's layout; an initialised slice is a valid one of MaybeUninit<T>.
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<T>>(), out.len()) };
    product(dst, a, ma, b, mb, m, k, n, parallel, true, then)
}

fn matmul_block<T: Element>(
    out: &mut [MaybeUninit<T>],
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
    parallel: bool,
) {
    assert!(m.checked_mul(n).is_some_and(|mn| out.len() >= mn), "matmul output too small");
    product(out, a, ma, b, mb, m, k, n, parallel, false, None)
}

/// The product into `out`, which is read and added to when `accumulate` (then it must be initialised); `then`
/// runs over each part once it is final.
#[allow(clippy::too_many_arguments)]
fn product<T: Element>(
    out: &mut [MaybeUninit<T>],
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
    parallel: bool,
    accumulate: bool,
    then: Option<Epilogue<'_, T>>,
) {
    if m == 0 || n == 0 {
        return;
    }
    // the whole output as one part, once every element is written (the paths without bands)
    let whole = |out: &mut [MaybeUninit<T>]| {
        if let Some(then) = then {
            // Safety: every element of out[..m * n] is initialised by now (written, or given initialised to accumulate)
            then(0, unsafe { std::slice::from_raw_parts(out.as_ptr().cast::<T>(), m * n) });
        }
    };
    if k == 0 {
        if !accumulate {
            out[..m * n].iter_mut().for_each(|v| {
                v.write(T::ZERO);
            });
        }
        return whole(out);
    }
    // the bounds gemm, which reads through raw pointers, relies on (the callers are safe public functions)
    check_operand(a.len(), ma, m, k, "left operand");
    check_operand(b.len(), mb, k, n, "right operand");
    match T::DTYPE {
        DType::F32 | DType::F64 => {
            // One single-threaded gemm per thread on its own block of rows (or columns, whichever side is
            // longer): measured 20-40% faster than gemm's own threading at MLP sizes (128×784 · 784×512),
            // most where the right operand is transposed.
            let dense = dense_rhs(ma, b, mb, m, k, n);
            let (b, mb) = match &dense {
                Some(v) => (&v[..], MatRef { offset: 0, row_stride: n, col_stride: 1 }),
                None => (b, mb),
            };
            let threads = crate::kernels::threads::threads();
            let by_rows = split_by_rows(mb, m, n);
            let parts = if parallel { threads.min(if by_rows { m } else { n } / 32).max(1) } else { 1 };
            let dst = OutPtr(out.as_mut_ptr().cast::<T>());
            let block = |p: usize| {
                // rebinds the whole wrapper so the closure captures it (Send), not its raw pointer field
                #[allow(clippy::redundant_locals)]
                let dst = dst;
                if by_rows {
                    let (r0, r1) = (m * p / parts, m * (p + 1) / parts);
                    let ma = MatRef { offset: ma.offset + r0 * ma.row_stride, ..ma };
                    // Safety: rows r0..r1 of `out` belong to this part alone.
                    unsafe { gemm_serial(dst.0.add(r0 * n), n, a, ma, b, mb, r1 - r0, k, n, accumulate) }
                    if let Some(then) = then {
                        // Safety: this part's rows, all written just above, and written by no one else
                        then(r0 * n, unsafe { std::slice::from_raw_parts(dst.0.add(r0 * n), (r1 - r0) * n) });
                    }
                } else {
                    let (c0, c1) = (n * p / parts, n * (p + 1) / parts);
                    let mb = MatRef { offset: mb.offset + c0 * mb.col_stride, ..mb };
                    // Safety: columns c0..c1 of `out` belong to this part alone.
                    unsafe { gemm_serial(dst.0.add(c0), n, a, ma, b, mb, m, k, c1 - c0, accumulate) }
                    if let Some(then) = then {
                        for i in 0..m {
                            // Safety: row i's columns c0..c1, written just above, and written by no one else
                            then(i * n + c0, unsafe { std::slice::from_raw_parts(dst.0.add(i * n + c0), c1 - c0) });
                        }
                    }
                }
            };
            if parts == 1 {
                block(0)
            } else {
                par_for(parts, &block)
            }
            if let Some(v) = dense {
                crate::pool::give(v);
            }
        }
        _ => {
            for i in 0..m {
                for j in 0..n {
                    // Safety: with `accumulate` the caller passed an initialised output
                    let mut acc = if accumulate { unsafe { out[i * n + j].assume_init() } } else { T::ZERO };
                    for p in 0..k {
                        let x = a[ma.offset + i * ma.row_stride + p * ma.col_stride];
                        let y = b[mb.offset + p * mb.row_stride + j * mb.col_stride];
                        acc = T::add(acc, T::mul(x, y));
                    }
                    out[i * n + j].write(acc);
                }
            }
            whole(out)
        }
    }
}

/// Whether a product split across threads gives each thread a band of rows (or else of columns). The
/// longer side, except that with a row-major right operand rows win from 256 up: on two Zen 4 cores,
/// `g.T @ x` (a Linear's weight gradient, 512×128·128×784) took 480 µs in row bands against 538 in
/// column bands, 384×128·128×784 357 against 531, 512×512·512×1024 2.46 against 2.64 ms, and no shape
/// of 256 rows or more ran over 3 % slower; below that, and with a transposed right operand (where
/// column bands won by up to 20 %), the longer side stays.
fn split_by_rows(mb: MatRef, m: usize, n: usize) -> bool {
    m >= n || (mb.col_stride == 1 && m >= 256)
}

/// Panics unless every element of the `rows × cols` operand `r` (both at least 1) lies in a slice of `len`.
fn check_operand(len: usize, r: MatRef, rows: usize, cols: usize, what: &str) {
    let last = (rows - 1)
        .checked_mul(r.row_stride)
        .and_then(|v| v.checked_add((cols - 1).checked_mul(r.col_stride)?))
        .and_then(|v| v.checked_add(r.offset));
    assert!(last.is_some_and(|last| last < len), "matmul {what} out of bounds");
}

/// A float32 right operand stored transposed (`b` = wᵀ of a row-major w, as in `x @ w.T`, every
/// Linear's forward) as a contiguous k×n copy, when gemm would read it slowly. gemm repacks such an
/// operand with a strided gather per block, and when its rows are a multiple of 1 KiB apart those reads
/// collide in cache: on two cores 128×512·512×512 took 556 µs against 304 µs from a contiguous operand
/// and 370 µs copied first, 256×256·256×64 52 → 44 µs. At other strides the two layouts ran within
/// 15 % and the copy cost more than it saved (64×400·400×120: 38 µs as it is, 60 copied; 128×784·784×512
/// 558 against 583; 32×128·128×512 30 against 45), so those, and products under 32 rows or columns,
/// stay as they are.
fn dense_rhs<T: Element>(ma: MatRef, b: &[T], mb: MatRef, m: usize, k: usize, n: usize) -> Option<Vec<T>> {
    // the columns of b as rows of k one after another: not a broadcast (column stride 0), whose rows overlap
    let transposed = mb.row_stride == 1 && mb.col_stride >= k.max(2);
    if !transposed || ma.col_stride != 1 || m < 32 || n < 32 || !mb.col_stride.is_multiple_of(256) {
        return None;
    }
    // None unless float32
    crate::kernels::transpose::transposed_copy(&b[mb.offset..], n, k, mb.col_stride)
}

/// `dst[m×n] (row stride dst_rs) = a · b` (or `+=` when `accumulate`; otherwise `dst` is never read) by
/// one single-threaded gemm call.
///
/// Safety: offsets and strides keep every element of the operands inside `a` and `b` (`product` checks
/// it), and `dst` has room for `m` rows of `n` elements `dst_rs` apart that no one else writes meanwhile.
unsafe fn gemm_serial<T: Element>(
    dst: *mut T,
    dst_rs: usize,
    a: &[T],
    ma: MatRef,
    b: &[T],
    mb: MatRef,
    m: usize,
    k: usize,
    n: usize,
    accumulate: bool,
) {
    // SAFETY: the caller's contract above: `dst` is valid for m rows of n elements dst_rs apart, written by
    // no one else meanwhile, and read only when `accumulate` (then initialised); `a` and `b` hold every
    // element of their m×k and k×n operands at these offsets and strides (`product` checked it), so both
    // `add`s stay inside their slices. The output is a `&mut` apart from the inputs, so nothing aliases it.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            dst_rs as isize,
            accumulate,
            a.as_ptr().add(ma.offset),
            ma.col_stride as isize,
            ma.row_stride as isize,
            b.as_ptr().add(mb.offset),
            mb.col_stride as isize,
            mb.row_stride as isize,
            if accumulate { T::ONE } else { T::ZERO },
            T::ONE,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a kernel call on a fresh, uninitialized output of `len` elements.
    fn product<T: Element>(len: usize, f: impl FnOnce(&mut [MaybeUninit<T>])) -> Vec<T> {
        let mut v = Vec::with_capacity(len);
        f(&mut v.spare_capacity_mut()[..len]);
        // Safety: the kernels write every element of their output.
        unsafe { v.set_len(len) };
        v
    }

    #[test]
    fn gemm_with_transposed_operand_matches_naive() {
        let a: Vec<f32> = (0..6).map(|v| v as f32).collect(); // 2x3
        let b: Vec<f32> = (0..6).map(|v| v as f32).collect(); // read as 3x2 transposed of 2x3
        let ma = MatRef { offset: 0, row_stride: 3, col_stride: 1 };
        let mb = MatRef { offset: 0, row_stride: 1, col_stride: 3 };
        let out = product(4, |o| matmul_into(o, &a, ma, &b, mb, 2, 3, 2));
        assert_eq!(out, vec![5.0, 14.0, 14.0, 50.0]);
        let ai: Vec<i64> = (0..6).collect();
        let oi = product(4, |o| matmul_into(o, &ai, ma, &ai, mb, 2, 3, 2));
        assert_eq!(oi, vec![5, 14, 14, 50]);
        assert_eq!(product(4, |o| matmul_into(o, &a, ma, &b, mb, 2, 0, 2)), vec![0.0f32; 4]);
    }

    #[test]
    fn blocks_split_across_threads_match_one_serial_call() {
        // tall (rows split), wide (columns split) and wide-but-tall-enough (rows split when the right operand
        // is row-major) products, each with plain and transposed operands
        for (m, k, n) in [(200, 70, 40), (40, 70, 200), (65, 64, 97), (260, 40, 300)] {
            let a: Vec<f64> = (0..m * k).map(|v| ((v * 7) % 11) as f64 - 5.0).collect();
            let b: Vec<f64> = (0..k * n).map(|v| ((v * 5) % 13) as f64 - 6.0).collect();
            for (ma, mb) in [
                (
                    MatRef { offset: 0, row_stride: k, col_stride: 1 },
                    MatRef { offset: 0, row_stride: n, col_stride: 1 },
                ),
                (
                    MatRef { offset: 0, row_stride: 1, col_stride: m },
                    MatRef { offset: 0, row_stride: 1, col_stride: k },
                ),
            ] {
                let serial = product(m * n, |o| matmul_into_serial(o, &a, ma, &b, mb, m, k, n));
                // NaN in the output first: the product must overwrite, never read, what was there
                let mut split = vec![MaybeUninit::new(f64::NAN); m * n];
                matmul_block(&mut split, &a, ma, &b, mb, m, k, n, true);
                // Safety: matmul_block wrote every element
                let split: Vec<f64> = split.into_iter().map(|v| unsafe { v.assume_init() }).collect();
                assert_eq!(split, serial, "{m}x{k}x{n}");
                let naive: Vec<f64> = (0..m * n)
                    .map(|ij| {
                        (0..k)
                            .map(|p| {
                                a[ma.offset + ij / n * ma.row_stride + p * ma.col_stride]
                                    * b[mb.offset + p * mb.row_stride + ij % n * mb.col_stride]
                            })
                            .sum()
                    })
                    .collect();
                assert_eq!(serial, naive, "{m}x{k}x{n}");
            }
        }
    }

    /// float32 right operands stored transposed with rows 1-2 KiB apart (copied dense first), rows
    /// wider than k, an offset, and sizes just below the copy's bounds, against the exact
    /// integer-valued products.
    #[test]
    fn transposed_float32_rhs_copied_dense_matches_naive() {
        for (m, k, n, cs) in [
            (33, 130, 41, 256),
            (64, 256, 32, 256),
            (32, 200, 40, 512),
            (31, 256, 40, 256),
            (70, 256, 9, 256),
            (40, 50, 40, 53),
            // a column broadcast (`v.unsqueeze(1).expand(k, n)`): stride 0, a multiple of 256, never copied
            (40, 64, 40, 0),
        ] {
            let off = 5;
            let a: Vec<f32> = (0..m * k).map(|v| ((v * 7) % 11) as f32 - 5.0).collect();
            let b: Vec<f32> = (0..off + n * cs + k).map(|v| ((v * 5) % 13) as f32 - 6.0).collect();
            let ma = MatRef { offset: 0, row_stride: k, col_stride: 1 };
            let mb = MatRef { offset: off, row_stride: 1, col_stride: cs };
            let want: Vec<f32> =
                (0..m * n).map(|ij| (0..k).map(|p| a[ij / n * k + p] * b[off + p + ij % n * cs]).sum()).collect();
            assert_eq!(product(m * n, |o| matmul_into(o, &a, ma, &b, mb, m, k, n)), want, "{m}x{k}x{n}");
            let mut acc = vec![1.0f32; m * n];
            matmul_acc_into(&mut acc, &a, ma, &b, mb, m, k, n, None);
            assert_eq!(acc, want.iter().map(|v| v + 1.0).collect::<Vec<_>>(), "{m}x{k}x{n} accumulated");
        }
    }

    #[test]
    fn accumulating_product_adds_to_what_out_holds() {
        // small (one thread) and large (split) products, f32 through gemm and i64 through the loop
        for (m, k, n) in [(3, 4, 5), (300, 200, 200)] {
            let a: Vec<f32> = (0..m * k).map(|v| ((v * 7) % 11) as f32 - 5.0).collect();
            let b: Vec<f32> = (0..k * n).map(|v| ((v * 5) % 13) as f32 - 6.0).collect();
            let (ma, mb) = (
                MatRef { offset: 0, row_stride: k, col_stride: 1 },
                MatRef { offset: 0, row_stride: 1, col_stride: k },
            );
            let plain = product(m * n, |o| matmul_into(o, &a, ma, &b, mb, m, k, n));
            let mut acc: Vec<f32> = (0..m * n).map(|v| (v % 3) as f32).collect();
            matmul_acc_into(&mut acc, &a, ma, &b, mb, m, k, n, None);
            let want: Vec<f32> = plain.iter().enumerate().map(|(i, v)| v + (i % 3) as f32).collect();
            assert_eq!(acc, want, "{m}x{k}x{n}");
        }
        let ai: Vec<i64> = (0..6).collect();
        let ma = MatRef { offset: 0, row_stride: 3, col_stride: 1 };
        let mb = MatRef { offset: 0, row_stride: 1, col_stride: 3 };
        let mut acc = vec![1i64, 2, 3, 4];
        matmul_acc_into(&mut acc, &ai, ma, &ai, mb, 2, 3, 2, None);
        assert_eq!(acc, vec![6, 16, 17, 54]);
        matmul_acc_into(&mut acc, &ai, ma, &ai, mb, 2, 0, 2, None);
        assert_eq!(acc, vec![6, 16, 17, 54], "k = 0 adds nothing");
    }
}
