//! `linalg.lstsq`: the minimum-norm least-squares solution of A X = B per matrix of a batch (from the
//! SVD, with LAPACK's rank rule), the outputs PyTorch's CPU drivers give, and PyTorch's backward
//! rule for the solution (through the pseudo-inverse).
use super::batch::{check_float, mt, to_tensor};
use super::factor::svd_tall;
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// The LAPACK driver PyTorch would call: it decides which outputs are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Driver {
    /// QR, full rank assumed: no rank, no singular values.
    Gels,
    /// QR with column pivoting (the CPU default): the rank, no residuals.
    Gelsy,
    /// The SVD: the rank and the singular values.
    Gelsd,
    Gelss,
}

impl Driver {
    fn parse(driver: Option<&str>) -> Result<Driver> {
        Ok(match driver {
            None | Some("gelsy") => Driver::Gelsy,
            Some("gels") => Driver::Gels,
            Some("gelsd") => Driver::Gelsd,
            Some("gelss") => Driver::Gelss,
            Some(_) => {
                bail!(Runtime, "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
            }
        })
    }
    fn has_rank(self) -> bool {
        self != Driver::Gels
    }
    fn has_singular_values(self) -> bool {
        matches!(self, Driver::Gelsd | Driver::Gelss)
    }
}

/// One matrix's minimum-norm solution: X (n×k row-major), the singular values, the rank.
fn min_norm_solve(a: &[f64], m: usize, n: usize, b: &[f64], k: usize, rcond: f64) -> (Vec<f64>, Vec<f64>, usize) {
    let r = m.min(n);
    // A = U S Vᵀ with U m×r and V n×r (row-major)
    let (u, s, v) = if m >= n {
        svd_tall(a, m, n, n)
    } else {
        let at: Vec<f64> = (0..n * m).map(|idx| a[(idx % m) * n + idx / m]).collect();
        let (v, s, u) = svd_tall(&at, n, m, m);
        (u, s, v)
    };
    let largest = s.first().copied().unwrap_or(0.0);
    // LAPACK's rule (gelsd/gelss): singular values at or below rcond · largest count as zero
    let rank = s.iter().filter(|&&x| x > rcond * largest).count();
    let mut x = vec![0.0; n * k];
    for (t, &st) in s.iter().enumerate().take(rank) {
        for c in 0..k {
            let ub: f64 = (0..m).map(|i| u[i * r + t] * b[i * k + c]).sum::<f64>() / st;
            for row in 0..n {
                x[row * k + c] += v[row * r + t] * ub;
            }
        }
    }
    (x, s, rank)
}

impl Tensor {
    /// `linalg.lstsq(A, B, rcond, driver=driver)`: (solution, residuals, rank, singular_values) as
    /// PyTorch returns them on CPU. B is a (batch of) vector(s) when it has one dimension less than A.
    pub fn linalg_lstsq(
        &self,
        b: &Tensor,
        rcond: Option<f64>,
        driver: Option<&str>,
    ) -> Result<(Tensor, Tensor, Tensor, Tensor)> {
        let a = self;
        if a.ndim() < 2 {
            bail!(Runtime, "torch.linalg.lstsq: input must have at least 2 dimensions.");
        }
        if b.ndim() < 1 {
            bail!(Runtime, "torch.linalg.lstsq: other must have at least 1 dimension.");
        }
        if a.dtype() != b.dtype() {
            bail!(
                Runtime,
                "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype {} and \
                 other's dtype {}",
                a.dtype().scalar_type_name(),
                b.dtype().scalar_type_name()
            );
        }
        let dim_diff = a.ndim() as isize - b.ndim() as isize;
        if !(0..=1).contains(&dim_diff) {
            bail!(
                Runtime,
                "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - \
                 other.dim()) <= 1"
            );
        }
        let vector = dim_diff == 1;
        let b_mat = if vector { b.unsqueeze(-1)? } else { b.clone() };
        let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
        // the batch dimensions broadcast first (PyTorch reports a mismatch there before the rows)
        let batch = broadcast_shapes(&a.shape()[..a.ndim() - 2], &b_mat.shape()[..b_mat.ndim() - 2])?;
        if b_mat.shape()[b_mat.ndim() - 2] != m {
            let which = if vector { "other.size(-1)" } else { "other.size(-2)" };
            bail!(Runtime, "torch.linalg.lstsq: input.size(-2) should match {which}");
        }
        let driver_kind = Driver::parse(driver)?;
        if !matches!(a.dtype(), DType::F32 | DType::F64) {
            bail!(Runtime, "This function doesn't handle types other than float and double");
        }
        check_float(a, "linalg.lstsq")?;
        let k = b_mat.shape()[b_mat.ndim() - 1];
        let a_vals = a.expand(&[batch.as_slice(), &[m, n]].concat())?.to_vec::<f64>();
        let b_vals = b_mat.expand(&[batch.as_slice(), &[m, k]].concat())?.to_vec::<f64>();
        let eps = if a.dtype() == DType::F32 { f32::EPSILON as f64 } else { f64::EPSILON };
        let rcond = rcond.unwrap_or(eps * m.max(n) as f64);
        let count: usize = batch.iter().product();
        let (mut xs, mut svals, mut ranks) = (Vec::new(), Vec::new(), Vec::new());
        let mut residuals = Vec::new();
        for i in 0..count {
            let a_i = &a_vals[i * m * n..(i + 1) * m * n];
            let b_i = &b_vals[i * m * k..(i + 1) * m * k];
            let (x, s, rank) = min_norm_solve(a_i, m, n, b_i, k, rcond);
            // ‖A X - B‖² per column: what LAPACK leaves in rows n..m of its solution when A has full rank
            for c in 0..k {
                let sq: f64 = (0..m)
                    .map(|row| (0..n).map(|j| a_i[row * n + j] * x[j * k + c]).sum::<f64>() - b_i[row * k + c])
                    .map(|d| d * d)
                    .sum();
                residuals.push(sq);
            }
            xs.extend(x);
            svals.extend(s);
            ranks.push(rank as i64);
        }
        let full_rank = ranks.iter().all(|&r| r as usize == n);
        let with_residuals = m > n
            && match driver_kind {
                Driver::Gelsy => false,
                Driver::Gels => true,
                Driver::Gelsd | Driver::Gelss => full_rank,
            };
        let dtype = a.dtype();
        let x_shape = [batch.as_slice(), &[n, k]].concat();
        let mut solution = to_tensor(xs, &x_shape, dtype)?;
        if vector {
            solution = solution.squeeze_dim(-1)?;
        }
        let residuals = if with_residuals {
            to_tensor(residuals, &[batch.as_slice(), &[k]].concat(), dtype)?
        } else {
            Tensor::zeros(&[0], dtype)
        };
        let rank =
            if driver_kind.has_rank() { Tensor::from_vec(ranks, &batch)? } else { Tensor::zeros(&[0], DType::I64) };
        let singular_values = if driver_kind.has_singular_values() {
            to_tensor(svals, &[batch.as_slice(), &[m.min(n)]].concat(), dtype)?
        } else {
            Tensor::zeros(&[0], dtype)
        };
        let rule = LinalgLstsqBackward0 { self_: SavedTensor::input(a), b: SavedTensor::input(b) };
        let mut out = record_outputs(vec![solution, residuals], &[a, b], rule).into_iter();
        let (solution, residuals) = (out.next().expect("two outputs"), out.next().expect("two outputs"));
        Ok((solution, residuals, rank, singular_values))
    }
}

/// The pseudo-inverse V S⁺ Uᵀ with `linalg.pinv`'s default cut-off (eps · max(m, n) · largest).
fn pinv(a: &Tensor) -> Result<Tensor> {
    let (u, s, vh) = a.linalg_svd(false)?;
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let eps = if a.dtype() == DType::F32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let largest = if s.shape()[s.ndim() - 1] == 0 {
        s.sum(Some(&[-1]), true)?
    } else {
        s.amax_amin(Some(&[-1]), true, true, false)?
    };
    let keep = s.gt(&largest.mul(&Tensor::scalar(eps * m.max(n) as f64))?)?;
    let s_inv = Tensor::where_(&keep, &Tensor::scalar(1.0).div(&s)?, &Tensor::scalar(0.0))?;
    mt(&vh)?.mul(&s_inv.unsqueeze(-2)?)?.matmul(&mt(&u)?)
}

/// PyTorch's `pinv_backward`: the gradient of A⁺ for a gradient `g` of it.
fn pinv_backward(g: &Tensor, pinv_a: &Tensor, a: &Tensor) -> Result<Tensor> {
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let (pinv_t, g_t) = (mt(pinv_a)?, mt(g)?);
    if m <= n {
        let k = g_t.matmul(pinv_a)?;
        let k_pinv_t = k.matmul(&pinv_t)?;
        mt(&pinv_a.matmul(&k)?)?
            .neg()?
            .add(&k_pinv_t)?
            .sub(&a.matmul(pinv_a)?.matmul(&k_pinv_t)?)?
            .add(&pinv_t.matmul(pinv_a)?.matmul(&g_t.sub(&k.matmul(a)?)?)?)
    } else {
        let k = pinv_a.matmul(&g_t)?;
        let pinv_t_k = pinv_t.matmul(&k)?;
        mt(&k.matmul(pinv_a)?)?
            .neg()?
            .add(&g_t.sub(&a.matmul(&k)?)?.matmul(pinv_a)?.matmul(&pinv_t)?)?
            .add(&pinv_t_k)?
            .sub(&pinv_t_k.matmul(pinv_a)?.matmul(a)?)
    }
}

crate::backward_rule! {
    /// `linalg.lstsq`: the solution is A⁺ B, so dB = A⁺ᵀ gX and dA = pinv_backward(gX Bᵀ) (PyTorch's
    /// `linalg_lstsq_backward`; the residuals get no gradient there either).
    pub struct LinalgLstsqBackward0 {
        self_: SavedTensor,
        b: SavedTensor,
    }
}
impl Backward for LinalgLstsqBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let Some(Some(gx)) = grads.first() else { return Ok(vec![None, None]) };
        let (a, b) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.b)?);
        let vector = a.ndim() == b.ndim() + 1;
        let (gx, b) = if vector { (gx.unsqueeze(-1)?, b.unsqueeze(-1)?) } else { (gx.clone(), b) };
        let pinv_a = pinv(&a)?;
        let ga = ctx.grad_if(0, || pinv_backward(&gx.matmul(&mt(&b)?)?, &pinv_a, &a))?;
        let gb = ctx.grad_if(1, || {
            let gb = mt(&pinv_a)?.matmul(&gx)?;
            if vector {
                gb.squeeze_dim(-1)
            } else {
                Ok(gb)
            }
        })?;
        Ok(vec![ga, gb])
    }
}
