//! `linalg.matrix_exp`: e^A by scaling and squaring with the degree-13 Padé approximant (Higham
//! 2005, the method behind PyTorch's), per matrix of a batch; and PyTorch's backward rule for it.
use super::batch::{check_float, mt, square_batch, to_tensor};
use super::factor::lu;
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

/// The largest 1-norm for which the degree-13 Padé approximant is accurate to float64's rounding
/// (Higham 2005, table 2.3); larger matrices are halved s times first.
const THETA_13: f64 = 5.371920351148152;
/// The coefficients b₀…b₁₃ of the degree-13 Padé approximant of eˣ.
const PADE_13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];

fn matmul(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            if aik != 0.0 {
                for j in 0..n {
                    out[i * n + j] += aik * b[k * n + j];
                }
            }
        }
    }
    out
}

/// Σ cᵢ Mᵢ of n×n matrices, plus `identity_coeff` · I.
fn combine(terms: &[(f64, &[f64])], identity_coeff: f64, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for &(c, m) in terms {
        for (o, v) in out.iter_mut().zip(m) {
            *o += c * v;
        }
    }
    for i in 0..n {
        out[i * n + i] += identity_coeff;
    }
    out
}

/// e^A of one row-major n×n matrix.
fn expm(a: &[f64], n: usize) -> Vec<f64> {
    if n == 1 {
        // torch takes a 1×1 matrix's exponential elementwise: [[inf]] gives [[inf]], [[-inf]] [[0]]
        return vec![a[0].exp()];
    }
    let norm1 = (0..n).map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>()).fold(0.0, f64::max);
    // an infinite norm would ask for endless squarings; torch's result is NaN throughout
    if !norm1.is_finite() {
        return vec![f64::NAN; n * n];
    }
    let squarings = if norm1 > THETA_13 { (norm1 / THETA_13).log2().ceil() as i32 } else { 0 };
    let scale = 0.5f64.powi(squarings);
    let a: Vec<f64> = a.iter().map(|v| v * scale).collect();
    let b = &PADE_13;
    let a2 = matmul(&a, &a, n);
    let a4 = matmul(&a2, &a2, n);
    let a6 = matmul(&a4, &a2, n);
    // U = A [A⁶(b₁₃A⁶ + b₁₁A⁴ + b₉A²) + b₇A⁶ + b₅A⁴ + b₃A² + b₁I], V likewise with the even coefficients
    let u_inner = matmul(&a6, &combine(&[(b[13], &a6), (b[11], &a4), (b[9], &a2)], 0.0, n), n);
    let u = matmul(&a, &combine(&[(1.0, &u_inner), (b[7], &a6), (b[5], &a4), (b[3], &a2)], b[1], n), n);
    let v_inner = matmul(&a6, &combine(&[(b[12], &a6), (b[10], &a4), (b[8], &a2)], 0.0, n), n);
    let v = combine(&[(1.0, &v_inner), (b[6], &a6), (b[4], &a4), (b[2], &a2)], b[0], n);
    // (V - U)⁻¹ (V + U)
    let q = combine(&[(1.0, &v), (-1.0, &u)], 0.0, n);
    let p = combine(&[(1.0, &v), (1.0, &u)], 0.0, n);
    let mut r = lu(&q, n).solve(&p, n, n);
    for _ in 0..squarings {
        r = matmul(&r, &r, n);
    }
    r
}

impl Tensor {
    /// `linalg.matrix_exp(A)`: the exponential of each square matrix.
    pub fn matrix_exp(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            bail!(Runtime, "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
        }
        check_float(self, "linalg.matrix_exp")?;
        let batch = square_batch(self, "linalg.matrix_exp")?;
        let n = batch.n;
        let mut out = Vec::with_capacity(batch.values.len());
        for i in 0..batch.count() {
            out.extend(expm(batch.matrix(i), n));
        }
        let out = to_tensor(out, self.shape(), self.dtype())?;
        Ok(record(out, &[self], |_| LinalgMatrixExpBackward0 { self_: SavedTensor::input(self) }))
    }
}

crate::backward_rule! {
    /// `linalg.matrix_exp`: the gradient is the upper-right block of exp([[Aᵀ, g], [0, Aᵀ]])
    /// (PyTorch's `backward_analytic_function_of_a_matrix`), itself differentiable.
    pub struct LinalgMatrixExpBackward0 {
        self_: SavedTensor,
    }
}
impl Backward for LinalgMatrixExpBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let a_t = mt(&ctx.unpack(&self.self_)?)?;
        let n = a_t.shape()[a_t.ndim() - 1] as isize;
        let top = Tensor::cat(&[a_t.clone(), g.clone()], -1)?;
        let bottom = Tensor::cat(&[Tensor::zeros(a_t.shape(), a_t.dtype()), a_t], -1)?;
        let block = Tensor::cat(&[top, bottom], -2)?;
        one(block.matrix_exp()?.narrow(-2, 0, n)?.narrow(-1, n, n))
    }
}
