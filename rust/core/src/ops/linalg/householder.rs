//! QR of one row-major m×n float64 matrix by Householder reflections, step for step as LAPACK's
//! unblocked `geqr2` / `org2r` (what PyTorch calls on CPU for the matrices models use), so R's
//! diagonal signs and Q's columns agree with PyTorch's: a column whose part below the diagonal is
//! zero is left as it is (τ = 0), any other gets β = -sign(α)·‖(α, x)‖ on R's diagonal.

/// The reflectors of A = H₀ H₁ … H₍ₖ₋₁₎ R: R in the upper triangle of `a`, each reflector's vector
/// below the diagonal of its column (its leading 1 implied), and its scale τ.
pub struct Householder {
    pub a: Vec<f64>,
    pub tau: Vec<f64>,
    pub m: usize,
    pub n: usize,
}

/// `geqr2`: the Householder factorization of the row-major m×n `a`.
pub fn householder_qr(a: &[f64], m: usize, n: usize) -> Householder {
    let mut a = a.to_vec();
    let k = m.min(n);
    let mut tau = vec![0.0; k];
    for j in 0..k {
        let alpha = a[j * n + j];
        let xnorm = (j + 1..m).map(|i| a[i * n + j] * a[i * n + j]).sum::<f64>().sqrt();
        if xnorm == 0.0 {
            continue;
        }
        let beta = -alpha.hypot(xnorm).copysign(alpha);
        tau[j] = (beta - alpha) / beta;
        let scale = 1.0 / (alpha - beta);
        for i in j + 1..m {
            a[i * n + j] *= scale;
        }
        a[j * n + j] = beta;
        // H_j = I - τ v vᵀ applied to the columns right of j, from the left
        apply_reflector(&mut a, n, j, j, j + 1..n, tau[j]);
    }
    Householder { a, tau, m, n }
}

/// Applies I - τ v vᵀ to rows `row..m` of the columns `cols` of the row-major `c` (`c_cols`
/// columns), v being column `v_col` of `c` from row `row` down with its first entry taken as 1.
fn apply_reflector(c: &mut [f64], c_cols: usize, row: usize, v_col: usize, cols: std::ops::Range<usize>, tau: f64) {
    if tau == 0.0 {
        return;
    }
    let m = c.len() / c_cols;
    let v = |c: &[f64], i: usize| if i == row { 1.0 } else { c[i * c_cols + v_col] };
    for col in cols {
        let w: f64 = (row..m).map(|i| v(c, i) * c[i * c_cols + col]).sum();
        for i in row..m {
            let vi = v(c, i);
            c[i * c_cols + col] -= tau * w * vi;
        }
    }
}

impl Householder {
    /// R: the first `rows` rows (min(m, n) or m) of the upper triangle, row-major rows×n.
    pub fn r(&self, rows: usize) -> Vec<f64> {
        let n = self.n;
        let mut r = vec![0.0; rows * n];
        for i in 0..rows.min(self.m) {
            for j in i..n {
                r[i * n + j] = self.a[i * n + j];
            }
        }
        r
    }

    /// `org2r`: the first `cols` (min(m, n) or m) columns of Q = H₀ … H₍ₖ₋₁₎, row-major m×cols.
    pub fn q(&self, cols: usize) -> Vec<f64> {
        let (m, n, k) = (self.m, self.n, self.tau.len());
        let mut q = vec![0.0; m * cols];
        for i in 0..m {
            for j in 0..cols.min(k) {
                if i > j {
                    q[i * cols + j] = self.a[i * n + j];
                }
            }
        }
        for j in k..cols {
            q[j * cols + j] = 1.0;
        }
        for j in (0..k).rev() {
            if j + 1 < cols {
                q[j * cols + j] = 1.0;
                apply_reflector(&mut q, cols, j, j, j + 1..cols, self.tau[j]);
            }
            for i in j + 1..m {
                q[i * cols + j] *= -self.tau[j];
            }
            q[j * cols + j] = 1.0 - self.tau[j];
            for i in 0..j {
                q[i * cols + j] = 0.0;
            }
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconstructs_with_lapack_signs() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let f = householder_qr(&a, 3, 2);
        let (q, r) = (f.q(2), f.r(2));
        // LAPACK's R for this matrix: [[-5.9161, -7.4374], [0, 0.8281]]
        assert!((r[0] + 35f64.sqrt()).abs() < 1e-12 && r[3] > 0.0);
        for i in 0..3 {
            for j in 0..2 {
                let back: f64 = (0..2).map(|t| q[i * 2 + t] * r[t * 2 + j]).sum();
                assert!((back - a[i * 2 + j]).abs() < 1e-12);
            }
        }
        let full = f.q(3);
        for c1 in 0..3 {
            for c2 in 0..3 {
                let dot: f64 = (0..3).map(|i| full[i * 3 + c1] * full[i * 3 + c2]).sum();
                assert!((dot - if c1 == c2 { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn zero_columns_keep_their_sign() {
        let f = householder_qr(&[-2.0, 1.0, 0.0, 1.0], 2, 2);
        assert_eq!(f.r(2), vec![-2.0, 1.0, 0.0, 1.0]);
        assert_eq!(f.q(2), vec![1.0, 0.0, 0.0, 1.0]);
    }
}
