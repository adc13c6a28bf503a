//! Dense factorizations of one row-major n×n float64 matrix: LU with partial pivoting, Cholesky,
//! and the cyclic Jacobi eigenvalue method for symmetric matrices. Float32 inputs are factored in
//! float64 and rounded back, which is at least as accurate as LAPACK's single precision.

/// An LU factorization `P A = L U` (L unit lower, U upper, both in `lu`) for det and slogdet.
pub struct Lu {
    pub lu: Vec<f64>,
    /// `perm[i]`: the row of A that row i of `lu` came from.
    pub perm: Vec<usize>,
    /// +1 or -1: the sign of the permutation.
    pub perm_sign: f64,
}

pub fn lu(a: &[f64], n: usize) -> Lu {
    let mut lu = a.to_vec();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut perm_sign = 1.0;
    for k in 0..n {
        // the largest magnitude in column k at or below the diagonal (NaN wins, so it propagates)
        let mut p = k;
        for i in k + 1..n {
            let (v, best) = (lu[i * n + k].abs(), lu[p * n + k].abs());
            if v > best || (v.is_nan() && !best.is_nan()) {
                p = i;
            }
        }
        if p != k {
            for j in 0..n {
                lu.swap(k * n + j, p * n + j);
            }
            perm.swap(k, p);
            perm_sign = -perm_sign;
        }
        let pivot = lu[k * n + k];
        if pivot == 0.0 {
            continue;
        }
        for i in k + 1..n {
            let factor = lu[i * n + k] / pivot;
            lu[i * n + k] = factor;
            if factor != 0.0 {
                for j in k + 1..n {
                    lu[i * n + j] -= factor * lu[k * n + j];
                }
            }
        }
    }
    Lu { lu, perm, perm_sign }
}

impl Lu {
    /// Solves `A X = B` for a row-major n×k `b` (U must have no zero pivot).
    pub fn solve(&self, b: &[f64], n: usize, k: usize) -> Vec<f64> {
        let mut x = vec![0.0; n * k];
        for i in 0..n {
            x[i * k..(i + 1) * k].copy_from_slice(&b[self.perm[i] * k..(self.perm[i] + 1) * k]);
        }
        for i in 0..n {
            for r in 0..i {
                let l = self.lu[i * n + r];
                if l != 0.0 {
                    for c in 0..k {
                        x[i * k + c] -= l * x[r * k + c];
                    }
                }
            }
        }
        for i in (0..n).rev() {
            for r in i + 1..n {
                let u = self.lu[i * n + r];
                if u != 0.0 {
                    for c in 0..k {
                        x[i * k + c] -= u * x[r * k + c];
                    }
                }
            }
            let d = self.lu[i * n + i];
            for c in 0..k {
                x[i * k + c] /= d;
            }
        }
        x
    }

    /// (sign, log |det|) from U's diagonal: (0, -inf) for a singular matrix.
    pub fn slogdet(&self, n: usize) -> (f64, f64) {
        let (mut sign, mut log_abs) = (self.perm_sign, 0.0);
        for i in 0..n {
            let d = self.lu[i * n + i];
            if d == 0.0 {
                return (0.0, f64::NEG_INFINITY);
            }
            sign *= d.signum();
            log_abs += d.abs().ln();
        }
        (sign, log_abs)
    }

    /// The determinant as the product of U's diagonal (no logarithms: exact for small integers).
    pub fn det(&self, n: usize) -> f64 {
        (0..n).fold(self.perm_sign, |acc, i| acc * self.lu[i * n + i])
    }
}

/// The lower Cholesky factor of the symmetric matrix whose lower triangle is `a`, and LAPACK's `info`:
/// 0, or the order of the first leading minor that is not positive-definite. As LAPACK's unblocked
/// `potf2`, a failure leaves the columns before it factored, the failing diagonal element holding the
/// non-positive value, and the rest of the lower triangle as it was in `a`.
pub fn cholesky(a: &[f64], n: usize) -> (Vec<f64>, usize) {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        l[i * n..i * n + i + 1].copy_from_slice(&a[i * n..i * n + i + 1]);
    }
    for j in 0..n {
        let mut d = l[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        // NaN is refused too, as LAPACK's potrf does
        if d.is_nan() || d <= 0.0 {
            l[j * n + j] = d;
            return (l, j + 1);
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = l[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    (l, 0)
}

/// Eigenvalues (ascending) and eigenvectors (columns of the row-major n×n result) of the symmetric
/// matrix `a`, by cyclic Jacobi rotations until the off-diagonal part is negligible. Each
/// eigenvector's sign is fixed so its largest-magnitude entry is positive (a deterministic gauge).
pub fn eigh(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut m = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    // rounding left in an off-diagonal element after a rotation is relative to the whole matrix
    let floor = f64::EPSILON * 1e-2 * a.iter().map(|x| x * x).sum::<f64>().sqrt();
    const MAX_SWEEPS: usize = 100;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let apq = m[p * n + q];
                // below rounding next to its diagonal: already zero as far as float64 can tell
                let near = f64::EPSILON * (m[p * n + p] * m[q * n + q]).abs().sqrt();
                if !apq.is_finite() || apq.abs() <= near.max(floor) {
                    continue;
                }
                rotated = true;
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (mkp, mkq) = (m[k * n + p], m[k * n + q]);
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for k in 0..n {
                    let (mpk, mqk) = (m[p * n + k], m[q * n + k]);
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| m[i * n + i].total_cmp(&m[j * n + j]));
    let values = order.iter().map(|&i| m[i * n + i]).collect();
    let mut vectors = vec![0.0; n * n];
    for (col, &src) in order.iter().enumerate() {
        let largest = (0..n).map(|r| v[r * n + src]).fold(0.0f64, |b, x| if x.abs() > b.abs() { x } else { b });
        let sign = if largest < 0.0 { -1.0 } else { 1.0 };
        for r in 0..n {
            vectors[r * n + col] = sign * v[r * n + src];
        }
    }
    (values, vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_and_finds_determinant() {
        let a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let f = lu(&a, 3);
        assert!((f.det(3) - (-5.0)).abs() < 1e-12);
        let x = f.solve(&[3.0, 2.0, 4.0], 3, 1);
        for (got, want) in x.iter().zip([1.0, 1.0, 1.0]) {
            assert!((got - want).abs() < 1e-12);
        }
    }

    #[test]
    fn cholesky_refuses_indefinite() {
        assert_eq!(cholesky(&[1.0, 0.0, 0.0, -1.0], 2), (vec![1.0, 0.0, 0.0, -1.0], 2));
        assert_eq!(cholesky(&[4.0, 2.0, 2.0, 5.0], 2), (vec![2.0, 0.0, 1.0, 2.0], 0));
    }

    #[test]
    fn jacobi_eigh_diagonalizes() {
        let (w, v) = eigh(&[2.0, 1.0, 1.0, 2.0], 2);
        assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((v[1].abs() - s).abs() < 1e-12 && (v[3] - s).abs() < 1e-12);
    }
}

/// The thin SVD of a row-major r×c matrix with r ≥ c by one-sided Jacobi rotations: (U as r×`u_cols`
/// row-major, singular values descending, V as c×c row-major with the right singular vectors as
/// columns). `u_cols` (c or r) columns of U are returned, those past the rank completed to an
/// orthonormal set.
pub fn svd_tall(a: &[f64], r: usize, c: usize, u_cols: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut u = a.to_vec();
    let mut v = vec![0.0; c * c];
    for i in 0..c {
        v[i * c + i] = 1.0;
    }
    // a dot product of r terms carries about sqrt(r) roundings; columns below the whole matrix's
    // rounding level are left alone (their singular values are zero as far as float64 can tell)
    let tol = f64::EPSILON * (r as f64).sqrt();
    let tiny = (f64::EPSILON * a.iter().map(|x| x * x).sum::<f64>().sqrt()).powi(2);
    const MAX_SWEEPS: usize = 100;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..c {
            for q in p + 1..c {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for i in 0..r {
                    let (x, y) = (u[i * c + p], u[i * c + q]);
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if !gamma.is_finite() || gamma.abs() <= tol * (alpha * beta).sqrt() || alpha.min(beta) <= tiny {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (zeta * zeta + 1.0).sqrt());
                let cs = 1.0 / (t * t + 1.0).sqrt();
                let sn = cs * t;
                for (m, cols, rows) in [(&mut u, c, r), (&mut v, c, c)] {
                    for i in 0..rows {
                        let (x, y) = (m[i * cols + p], m[i * cols + q]);
                        m[i * cols + p] = cs * x - sn * y;
                        m[i * cols + q] = sn * x + cs * y;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = (0..c).map(|j| (0..r).map(|i| u[i * c + j] * u[i * c + j]).sum::<f64>().sqrt()).collect();
    let mut order: Vec<usize> = (0..c).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let mut u_out = vec![0.0; r * u_cols];
    let mut v_out = vec![0.0; c * c];
    let largest = s.first().copied().unwrap_or(0.0);
    let mut filled = vec![false; u_cols];
    for (col, &src) in order.iter().enumerate() {
        for i in 0..c {
            v_out[i * c + col] = v[i * c + src];
        }
        // a column of (numerically) zero norm carries no direction: completed below
        if s[col] > largest * f64::EPSILON * (r as f64) && s[col] > 0.0 {
            for i in 0..r {
                u_out[i * u_cols + col] = u[i * c + src] / s[col];
            }
            filled[col] = true;
        }
    }
    complete_orthonormal(&mut u_out, r, u_cols, &filled);
    (u_out, s, v_out)
}

/// Fills the columns of the row-major r×cols `q` not marked `filled` with unit vectors orthogonal to
/// every other column (Gram-Schmidt, twice, over the standard basis).
fn complete_orthonormal(q: &mut [f64], r: usize, cols: usize, filled: &[bool]) {
    let mut done: Vec<usize> = (0..cols).filter(|&j| filled[j]).collect();
    let mut candidate = 0;
    for j in (0..cols).filter(|&j| !filled[j]) {
        while candidate < r {
            let mut x = vec![0.0; r];
            x[candidate] = 1.0;
            candidate += 1;
            for _ in 0..2 {
                for &k in &done {
                    let dot: f64 = (0..r).map(|i| q[i * cols + k] * x[i]).sum();
                    for (i, xi) in x.iter_mut().enumerate() {
                        *xi -= dot * q[i * cols + k];
                    }
                }
            }
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 1e-8 {
                for i in 0..r {
                    q[i * cols + j] = x[i] / norm;
                }
                done.push(j);
                break;
            }
        }
    }
}

#[cfg(test)]
mod svd_tests {
    use super::*;

    #[test]
    fn jacobi_svd_reconstructs_and_completes() {
        let a = [3.0, 0.0, 0.0, 4.0, 0.0, 0.0];
        let (u, s, v) = svd_tall(&a, 3, 2, 3);
        assert!((s[0] - 4.0).abs() < 1e-12 && (s[1] - 3.0).abs() < 1e-12);
        for i in 0..3 {
            for j in 0..2 {
                let back: f64 = (0..2).map(|k| u[i * 3 + k] * s[k] * v[j * 2 + k]).sum();
                assert!((back - a[i * 2 + j]).abs() < 1e-12);
            }
        }
        // the third column of U is the missing unit vector
        assert!((u[2 * 3 + 2].abs() - 1.0).abs() < 1e-12);
    }
}

#[cfg(test)]
mod convergence_tests {
    use super::*;

    /// A pseudo-random n×n matrix (a fixed linear congruential sequence in [-1, 1)).
    fn matrix(n: usize) -> Vec<f64> {
        let mut state = 12345u64;
        (0..n * n)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    #[test]
    fn jacobi_eigh_and_svd_converge_on_a_64x64_matrix() {
        let n = 64;
        let a = matrix(n);
        let sym: Vec<f64> = (0..n * n).map(|k| a[k] + a[(k % n) * n + k / n]).collect();
        let (w, v) = eigh(&sym, n);
        // A v = w v for every pair
        for col in 0..n {
            for row in 0..n {
                let av: f64 = (0..n).map(|k| sym[row * n + k] * v[k * n + col]).sum();
                assert!((av - w[col] * v[row * n + col]).abs() < 1e-10);
            }
        }
        let (u, s, vv) = svd_tall(&a, n, n, n);
        for i in 0..n {
            for j in 0..n {
                let back: f64 = (0..n).map(|k| u[i * n + k] * s[k] * vv[j * n + k]).sum();
                assert!((back - a[i * n + j]).abs() < 1e-10);
            }
        }
    }
}
