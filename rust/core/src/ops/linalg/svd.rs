//! `linalg.svd`: A = U diag(S) Vh by one-sided Jacobi, and PyTorch's backward rule for it.
use super::batch::{check_float, eye, mt, to_tensor};
use super::factor::svd_tall;
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// `linalg.svd(A, full_matrices)`: (U, S, Vh) of each m×n matrix, S descending; with
    /// `full_matrices` U is m×m and Vh n×n, else m×k and k×n (k = min(m, n)).
    pub fn linalg_svd(&self, full_matrices: bool) -> Result<(Tensor, Tensor, Tensor)> {
        if self.ndim() < 2 {
            bail!(Runtime, "linalg.svd: The input tensor A must have at least 2 dimensions.");
        }
        check_float(self, "linalg.svd")?;
        let nd = self.ndim();
        let (m, n) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        let k = m.min(n);
        let (u_cols, vh_rows) = if full_matrices { (m, n) } else { (k, k) };
        let batch = &self.shape()[..nd - 2];
        let count: usize = batch.iter().product();
        let values = self.to_vec::<f64>();
        let (mut us, mut ss, mut vhs) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..count {
            let a = &values[b * m * n..(b + 1) * m * n];
            if m >= n {
                let (u, s, v) = svd_tall(a, m, n, u_cols);
                us.extend(u);
                ss.extend(s);
                // Vh = Vᵀ (n×n, n = k)
                vhs.extend((0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| v[j * n + i]));
            } else {
                // Aᵀ = V S Uᵀ: its left factor (n×vh_rows) is Vhᵀ, its right one (m×m) is U
                let at: Vec<f64> =
                    (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a[i * n + j]).collect();
                let (v, s, u) = svd_tall(&at, n, m, vh_rows);
                us.extend(u);
                ss.extend(s);
                vhs.extend((0..vh_rows).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| v[j * vh_rows + i]));
            }
        }
        let shape = |r: usize, c: usize| [batch, &[r, c]].concat();
        let u = to_tensor(us, &shape(m, u_cols), self.dtype())?;
        let s = to_tensor(ss, &[batch, &[k]].concat(), self.dtype())?;
        let vh = to_tensor(vhs, &shape(vh_rows, n), self.dtype())?;
        let rule = LinalgSvdBackward0 { full_matrices, a: SavedTensor::input(self) };
        let mut out = record_outputs(vec![u, s, vh], &[self], rule).into_iter();
        let mut next = || out.next().expect("three outputs");
        Ok((next(), next(), next()))
    }
}

crate::backward_rule! {
    /// `linalg.svd`, PyTorch's rule for real inputs (`svd_backward`): with E = S_j² - S_i²,
    /// dA = U [ (skew(Uᵀ gU) S + S skew(Vᵀ gV)) / E + diag(gS) ] Vh plus the terms for the
    /// columns of U (or V) beyond k. Only the first k singular vectors enter it (as in PyTorch with
    /// `full_matrices`). The factorization is redone from the saved input.
    pub struct LinalgSvdBackward0 {
        full_matrices: bool,
        a: SavedTensor,
    }
}
impl Backward for LinalgSvdBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None, None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let grad = |i: usize| grads.get(i).cloned().flatten();
        let (gu, gs, gvh) = (grad(0), grad(1), grad(2));
        if gu.is_none() && gs.is_none() && gvh.is_none() {
            return Ok(vec![None]);
        }
        let a = ctx.unpack(&self.a)?;
        let (u, s, vh) = a.linalg_svd(false)?;
        let nd = a.ndim();
        let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
        let k = m.min(n) as isize;
        // with full_matrices only the first k columns of U (rows of Vh) carry a gradient
        let narrow_k = |t: Tensor, dim: isize| if self.full_matrices { t.narrow(dim, 0, k) } else { Ok(t) };
        let gu = gu.map(|t| narrow_k(t, -1)).transpose()?;
        let gv = gvh.map(|t| narrow_k(t, -2).and_then(|t| mt(&t))).transpose()?;
        let v = mt(&vh)?;
        let skew = |x: Tensor| -> Result<Tensor> { x.sub(&mt(&x)?) };
        let s_row = s.unsqueeze(-2)?;
        let s_col = s.unsqueeze(-1)?;
        let identity = eye(k as usize, s.dtype())?;
        let s2 = s.mul(&s)?;
        let gaps = s2.unsqueeze(-2)?.sub(&s2.unsqueeze(-1)?)?.add(&identity)?;
        let mut inner = match (&gu, &gv) {
            (Some(gu), Some(gv)) => {
                let uu = skew(mt(&u)?.matmul(gu)?)?.mul(&s_row)?;
                let vv = s_col.mul(&skew(mt(&v)?.matmul(gv)?)?)?;
                Some(uu.add(&vv)?.div(&gaps)?)
            }
            (Some(gu), None) => Some(skew(mt(&u)?.matmul(gu)?)?.div(&gaps)?.mul(&s_row)?),
            (None, Some(gv)) => Some(s_col.mul(&skew(mt(&v)?.matmul(gv)?)?)?.div(&gaps)?),
            (None, None) => None,
        };
        if let Some(gs) = &gs {
            let diag = gs.unsqueeze(-2)?.mul(&identity)?;
            inner = Some(match inner {
                Some(t) => t.add(&diag)?,
                None => diag,
            });
        }
        let inner = inner.expect("a gradient for one output at least");
        let ga = match (&gu, &gv) {
            (Some(gu), _) if m > n => {
                let g_sinv = gu.div(&s_row)?;
                let ga = u.matmul(&inner)?.add(&g_sinv)?.sub(&u.matmul(&mt(&u)?.matmul(&g_sinv)?)?)?;
                ga.matmul(&vh)?
            }
            (_, Some(gv)) if n > m => {
                let g_sinv_t = mt(&gv.div(&s_row)?)?;
                let ga = inner.matmul(&vh)?.add(&g_sinv_t)?.sub(&g_sinv_t.matmul(&v)?.matmul(&vh)?)?;
                u.matmul(&ga)?
            }
            _ => u.matmul(&inner.matmul(&vh)?)?,
        };
        Ok(vec![Some(ga)])
    }
}
