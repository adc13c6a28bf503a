//! The general (non-symmetric) eigenproblem of one row-major n×n complex matrix: Householder reduction to
//! Hessenberg form, then the complex Schur form by single-shift QR (Wilkinson shifts, an exceptional shift every
//! tenth step without deflation), then the eigenvectors of the triangular factor by back substitution, as
//! LAPACK's zgeev does (zgehrd, zhseqr, ztrevc). Real inputs take the same path in complex arithmetic.
use rustfft::num_complex::Complex;

pub type C = Complex<f64>;

/// Iterations allowed per eigenvalue before giving up (LAPACK's zlahqr allows 30).
const MAX_STEPS_PER_VALUE: usize = 30;

/// Eigenvalues (in the order the Schur form deflates them) and, when asked, unit-norm eigenvectors as the
/// columns of a row-major matrix, each turned so that its largest component is real and positive. `None` when
/// the QR iteration did not converge.
pub fn eig(a: &[C], n: usize, vectors: bool) -> Option<(Vec<C>, Vec<C>)> {
    // scaled to a largest modulus of 1, so that no sum of squares below overflows or underflows (zgeev scales
    // matrices outside its safe range too); the eigenvalues are scaled back, the eigenvectors are unchanged
    let scale = a.iter().map(|z| z.norm()).fold(0.0, f64::max);
    if scale == 0.0 {
        let vectors = if vectors { identity(n) } else { Vec::new() };
        return Some((vec![C::new(0.0, 0.0); n], vectors));
    }
    let mut h: Vec<C> = a.iter().map(|&z| z / scale).collect();
    // Qᴴ rather than Q is accumulated: each rotation or reflection is then applied to rows, along memory
    let mut qh = if vectors { identity(n) } else { Vec::new() };
    hessenberg(&mut h, &mut qh, n, vectors);
    schur(&mut h, &mut qh, n, vectors)?;
    let values: Vec<C> = (0..n).map(|i| h[i * n + i] * scale).collect();
    if !vectors {
        return Some((values, Vec::new()));
    }
    Some((values, triangular_eigenvectors(&h, &qh, n)))
}

fn identity(n: usize) -> Vec<C> {
    let mut m = vec![C::new(0.0, 0.0); n * n];
    for i in 0..n {
        m[i * n + i] = C::new(1.0, 0.0);
    }
    m
}

/// H := P H P with Householder reflections P zeroing below the subdiagonal, column by column; Qᴴ := P Qᴴ.
fn hessenberg(h: &mut [C], qh: &mut [C], n: usize, vectors: bool) {
    let mut v = vec![C::new(0.0, 0.0); n];
    for k in 0..n.saturating_sub(2) {
        let norm = (k + 1..n).map(|i| h[i * n + k].norm_sqr()).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let x0 = h[(k + 1) * n + k];
        let phase = if x0.norm() == 0.0 { C::new(1.0, 0.0) } else { x0 / x0.norm() };
        // v = x + phase |x| e1 (no cancellation), scaled to unit norm
        for i in k + 1..n {
            v[i] = h[i * n + k];
        }
        v[k + 1] += phase * norm;
        let vnorm = (k + 1..n).map(|i| v[i].norm_sqr()).sum::<f64>().sqrt();
        for vi in &mut v[k + 1..n] {
            *vi /= vnorm;
        }
        reflect_rows(h, n, &v, k + 1);
        reflect_columns(h, n, n, &v, k + 1);
        if vectors {
            reflect_rows(qh, n, &v, k + 1);
        }
        for i in k + 2..n {
            h[i * n + k] = C::new(0.0, 0.0);
        }
    }
}

/// M := (I - 2 v vᴴ) M over rows `from..n` of M (n columns), a row at a time so the updates run along memory.
fn reflect_rows(m: &mut [C], n: usize, v: &[C], from: usize) {
    let mut dots = vec![C::new(0.0, 0.0); n];
    for i in from..n {
        let vi = v[i].conj() * 2.0;
        for (d, x) in dots.iter_mut().zip(&m[i * n..(i + 1) * n]) {
            *d += vi * *x;
        }
    }
    for i in from..n {
        let vi = v[i];
        for (x, d) in m[i * n..(i + 1) * n].iter_mut().zip(&dots) {
            *x -= vi * *d;
        }
    }
}

/// M := M (I - 2 v vᴴ) over columns `from..n` of the `rows` rows of M.
fn reflect_columns(m: &mut [C], rows: usize, n: usize, v: &[C], from: usize) {
    for r in 0..rows {
        let row = &mut m[r * n..(r + 1) * n];
        let dot: C = (from..n).map(|j| row[j] * v[j]).sum::<C>() * 2.0;
        for j in from..n {
            row[j] -= dot * v[j].conj();
        }
    }
}

/// `a / b` scaled by the larger part of b (Smith's algorithm), so that a tiny divisor does not underflow |b|².
fn divide(a: C, b: C) -> C {
    if b.re.abs() >= b.im.abs() {
        let ratio = b.im / b.re;
        let denominator = b.re + b.im * ratio;
        C::new((a.re + a.im * ratio) / denominator, (a.im - a.re * ratio) / denominator)
    } else {
        let ratio = b.re / b.im;
        let denominator = b.re * ratio + b.im;
        C::new((a.re * ratio + a.im) / denominator, (a.im * ratio - a.re) / denominator)
    }
}

/// A rotation [[c, s], [-s̄, c]] (c real) taking (a, b) to (r, 0).
#[derive(Clone, Copy)]
struct Givens {
    c: f64,
    s: C,
}

impl Givens {
    fn zeroing(a: C, b: C) -> Givens {
        let (abs_a, abs_b) = (a.norm(), b.norm());
        if abs_b == 0.0 {
            return Givens { c: 1.0, s: C::new(0.0, 0.0) };
        }
        if abs_a == 0.0 {
            return Givens { c: 0.0, s: C::new(1.0, 0.0) };
        }
        let r = abs_a.hypot(abs_b);
        Givens { c: abs_a / r, s: (a / abs_a) * b.conj() / r }
    }
    /// Rows i and i+1 of M (columns `cols`) := G applied from the left.
    fn rows(self, m: &mut [C], n: usize, i: usize, cols: std::ops::Range<usize>) {
        for j in cols {
            let (x, y) = (m[i * n + j], m[(i + 1) * n + j]);
            m[i * n + j] = x * self.c + self.s * y;
            m[(i + 1) * n + j] = -self.s.conj() * x + y * self.c;
        }
    }
    /// Columns i and i+1 of M (rows `rows`) := M Gᴴ.
    fn columns(self, m: &mut [C], n: usize, i: usize, rows: std::ops::Range<usize>) {
        for r in rows {
            let (x, y) = (m[r * n + i], m[r * n + i + 1]);
            m[r * n + i] = x * self.c + y * self.s.conj();
            m[r * n + i + 1] = -x * self.s + y * self.c;
        }
    }
}

/// The eigenvalue of [[a, b], [c, d]] nearer d (Wilkinson's shift).
fn wilkinson(a: C, b: C, c: C, d: C) -> C {
    let half = (a - d) * 0.5;
    let root = (half * half + b * c).sqrt();
    let (plus, minus) = (d + half + root, d + half - root);
    if (plus - d).norm() <= (minus - d).norm() {
        plus
    } else {
        minus
    }
}

/// Reduces the Hessenberg `h` to upper triangular T = Qᴴ H Q in place (Qᴴ accumulated in `qh` when `vectors`).
fn schur(h: &mut [C], qh: &mut [C], n: usize, vectors: bool) -> Option<()> {
    let scale = h.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let mut hi = n.saturating_sub(1);
    let (mut steps, mut budget) = (0usize, MAX_STEPS_PER_VALUE * n.max(1));
    let mut rotations = Vec::with_capacity(n);
    while hi > 0 {
        let mut lo = hi;
        while lo > 0 {
            let diagonal = h[(lo - 1) * n + lo - 1].norm() + h[lo * n + lo].norm();
            let reference = if diagonal == 0.0 { scale } else { diagonal };
            if h[lo * n + lo - 1].norm() <= f64::EPSILON * reference {
                h[lo * n + lo - 1] = C::new(0.0, 0.0);
                break;
            }
            lo -= 1;
        }
        if lo == hi {
            hi -= 1;
            steps = 0;
            continue;
        }
        if budget == 0 {
            return None;
        }
        budget -= 1;
        steps += 1;
        let shift = if steps % 10 == 0 {
            // an exceptional shift breaks the cycles a Wilkinson shift can fall into
            h[hi * n + hi] + h[hi * n + hi - 1].norm() * 0.75
        } else {
            let at = |r: usize, c: usize| h[r * n + c];
            wilkinson(at(hi - 1, hi - 1), at(hi - 1, hi), at(hi, hi - 1), at(hi, hi))
        };
        for k in lo..=hi {
            h[k * n + k] -= shift;
        }
        rotations.clear();
        for k in lo..hi {
            let g = Givens::zeroing(h[k * n + k], h[(k + 1) * n + k]);
            // without eigenvectors only the active block matters (LAPACK's wantt = false)
            g.rows(h, n, k, k..if vectors { n } else { hi + 1 });
            h[(k + 1) * n + k] = C::new(0.0, 0.0);
            rotations.push(g);
        }
        for (k, g) in (lo..hi).zip(rotations.iter()) {
            g.columns(h, n, k, if vectors { 0 } else { lo }..(k + 2).min(hi + 1));
            if vectors {
                g.rows(qh, n, k, 0..n);
            }
        }
        for k in lo..=hi {
            h[k * n + k] += shift;
        }
    }
    Some(())
}

/// The eigenvectors Q x of the triangular T = `t` (x solved from (T - tₖₖ I) x = 0 with xₖ = 1, a near-zero
/// pivot replaced by a tiny one as ztrevc does; Q read from `qh` = Qᴴ), normalised as `eig` promises.
fn triangular_eigenvectors(t: &[C], qh: &[C], n: usize) -> Vec<C> {
    let scale = t.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let smallest = (f64::EPSILON * scale).max(f64::MIN_POSITIVE);
    let mut out = vec![C::new(0.0, 0.0); n * n];
    let mut x = vec![C::new(0.0, 0.0); n];
    for k in 0..n {
        let lambda = t[k * n + k];
        x.iter_mut().for_each(|v| *v = C::new(0.0, 0.0));
        x[k] = C::new(1.0, 0.0);
        for i in (0..k).rev() {
            let sum: C = (i + 1..=k).map(|j| t[i * n + j] * x[j]).sum();
            let mut pivot = t[i * n + i] - lambda;
            if pivot.norm() < smallest {
                pivot = C::new(smallest, 0.0);
            }
            x[i] = divide(-sum, pivot);
            // keep the partial solution bounded, as ztrevc rescales
            let big = x[i].norm();
            if big > 1e100 {
                x[..=k].iter_mut().for_each(|v| *v /= big);
            }
        }
        let mut column = vec![C::new(0.0, 0.0); n];
        for (j, xj) in x[..=k].iter().enumerate() {
            for (c, q) in column.iter_mut().zip(&qh[j * n..(j + 1) * n]) {
                *c += q.conj() * *xj;
            }
        }
        let norm = column.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        let largest = column.iter().copied().fold(C::new(0.0, 0.0), |m, z| if z.norm() > m.norm() { z } else { m });
        let turn = if largest.norm() == 0.0 { C::new(1.0, 0.0) } else { largest.conj() / largest.norm() };
        for z in &mut column {
            *z = *z * turn / norm;
        }
        for (r, z) in column.into_iter().enumerate() {
            out[r * n + k] = z;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(a: &[C], n: usize) -> f64 {
        let (w, v) = eig(a, n, true).expect("converges");
        let mut worst: f64 = 0.0;
        for k in 0..n {
            for r in 0..n {
                let av: C = (0..n).map(|j| a[r * n + j] * v[j * n + k]).sum();
                worst = worst.max((av - w[k] * v[r * n + k]).norm());
            }
        }
        worst
    }

    #[test]
    fn rotation_matrix_has_complex_pair() {
        let a: Vec<C> = [0.0, -1.0, 1.0, 0.0].iter().map(|&x| C::new(x, 0.0)).collect();
        let (mut w, _) = eig(&a, 2, false).expect("converges");
        w.sort_by(|x, y| x.im.partial_cmp(&y.im).expect("finite"));
        assert!((w[0] - C::new(0.0, -1.0)).norm() < 1e-14 && (w[1] - C::new(0.0, 1.0)).norm() < 1e-14);
        assert!(residual(&a, 2) < 1e-14);
    }

    #[test]
    fn general_matrices_satisfy_av_equals_vl() {
        // a deterministic, non-symmetric 12×12 complex matrix
        let n = 12;
        let a: Vec<C> = (0..n * n).map(|i| C::new(((i * 37 % 17) as f64) - 8.0, ((i * 11 % 7) as f64) - 3.0)).collect();
        assert!(residual(&a, n) < 1e-10);
        let real: Vec<C> = a.iter().map(|z| C::new(z.re, 0.0)).collect();
        assert!(residual(&real, n) < 1e-10);
    }
}
