//! Matrix products through the `gemm` crate, which reads strides directly (transposes cost nothing).
use crate::element::Element;
use crate::DType;

/// One strided matrix operand: element offset plus row and column strides.
#[derive(Clone, Copy)]
pub struct MatRef {
    pub offset: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

/// `out[m×n] (contiguous) = a[m×k] · b[k×n]`.
pub fn matmul_into<T: Element>(out: &mut [T], a: &[T], ma: MatRef, b: &[T], mb: MatRef, m: usize, k: usize, n: usize) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        out.iter_mut().for_each(|v| *v = T::ZERO);
        return;
    }
    match T::DTYPE {
        DType::F32 | DType::F64 => {
            let threads = if m * n * k >= 64 * 64 * 64 { 2 } else { 1 };
            let par = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
            // Safety: offsets and strides come from layouts validated against these slices' lengths;
            // `out` is a fresh contiguous m×n buffer.
            unsafe {
                gemm::gemm(
                    m, n, k,
                    out.as_mut_ptr(), 1, n as isize, false,
                    a.as_ptr().add(ma.offset), ma.col_stride as isize, ma.row_stride as isize,
                    b.as_ptr().add(mb.offset), mb.col_stride as isize, mb.row_stride as isize,
                    T::ZERO, T::ONE, false, false, false, par,
                );
            }
        }
        _ => {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = T::ZERO;
                    for p in 0..k {
                        let x = a[ma.offset + i * ma.row_stride + p * ma.col_stride];
                        let y = b[mb.offset + p * mb.row_stride + j * mb.col_stride];
                        acc = T::add(acc, T::mul(x, y));
                    }
                    out[i * n + j] = acc;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_with_transposed_operand_matches_naive() {
        let a: Vec<f32> = (0..6).map(|v| v as f32).collect(); // 2x3
        let b: Vec<f32> = (0..6).map(|v| v as f32).collect(); // read as 3x2 transposed of 2x3
        let mut out = vec![0.0f32; 4];
        let ma = MatRef { offset: 0, row_stride: 3, col_stride: 1 };
        let mb = MatRef { offset: 0, row_stride: 1, col_stride: 3 };
        matmul_into(&mut out, &a, ma, &b, mb, 2, 3, 2);
        assert_eq!(out, vec![5.0, 14.0, 14.0, 50.0]);
        let ai: Vec<i64> = (0..6).collect();
        let mut oi = vec![0i64; 4];
        matmul_into(&mut oi, &ai, ma, &ai, mb, 2, 3, 2);
        assert_eq!(oi, vec![5, 14, 14, 50]);
    }
}
