//! `linalg.qr`: A = Q R by Householder reflections (`householder.rs`) per matrix of a batch, and
//! PyTorch's backward rule for it.
use super::batch::{check_float, mt, to_tensor};
use super::householder::householder_qr;
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

/// `linalg.qr`'s `mode`: which factors are computed and how wide Q is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QrMode {
    /// Q m×k, R k×n (k = min(m, n)).
    Reduced,
    /// Q m×m, R m×n.
    Complete,
    /// R only (k×n); Q is an empty tensor.
    R,
}

impl QrMode {
    fn parse(mode: &str) -> Result<QrMode> {
        Ok(match mode {
            "reduced" => QrMode::Reduced,
            "complete" => QrMode::Complete,
            "r" => QrMode::R,
            _ => bail!(
                Runtime,
                "qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
            ),
        })
    }
    fn name(self) -> &'static str {
        match self {
            QrMode::Reduced => "reduced",
            QrMode::Complete => "complete",
            QrMode::R => "r",
        }
    }
}

impl crate::autograd::AsField for QrMode {
    fn as_field(&self) -> crate::autograd::Field<'_> {
        crate::autograd::Field::Str(self.name())
    }
}

impl Tensor {
    /// `linalg.qr(A, mode)`: (Q, R) of each m×n matrix, R upper triangular with LAPACK's signs;
    /// `mode` is "reduced", "complete" or "r".
    pub fn linalg_qr(&self, mode: &str) -> Result<(Tensor, Tensor)> {
        self.qr_with(QrMode::parse(mode)?)
    }

    fn qr_with(&self, mode: QrMode) -> Result<(Tensor, Tensor)> {
        if self.ndim() < 2 {
            bail!(Runtime, "linalg.qr: The input tensor A must have at least 2 dimensions.");
        }
        if self.dtype().is_float() && !matches!(self.dtype(), crate::dtype::DType::F32 | crate::dtype::DType::F64) {
            bail!(NotImplemented, "\"geqrf_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        check_float(self, "linalg.qr")?;
        let nd = self.ndim();
        let (m, n) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        let k = m.min(n);
        let (q_cols, r_rows) = match mode {
            QrMode::Reduced | QrMode::R => (k, k),
            QrMode::Complete => (m, m),
        };
        let batch = &self.shape()[..nd - 2];
        let count: usize = batch.iter().product();
        let values = self.to_vec::<f64>();
        let (mut qs, mut rs) = (Vec::new(), Vec::with_capacity(count * r_rows * n));
        for b in 0..count {
            let f = householder_qr(&values[b * m * n..(b + 1) * m * n], m, n);
            if mode != QrMode::R {
                qs.extend(f.q(q_cols));
            }
            rs.extend(f.r(r_rows));
        }
        let q_shape = if mode == QrMode::R { vec![0] } else { [batch, &[m, q_cols]].concat() };
        let q = to_tensor(qs, &q_shape, self.dtype())?;
        let r = to_tensor(rs, &[batch, &[r_rows, n]].concat(), self.dtype())?;
        let rule = LinalgQrBackward0 { mode, a: SavedTensor::input(self) };
        let mut out = record_outputs(vec![q, r], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

/// The gradient of a square-or-tall QR (m ≥ n, Q m×n, R n×n): with M = gR Rᵀ - Qᵀ gQ,
/// dA = (gQ + Q syminvadj(triu(M))) R⁻ᵀ (PyTorch's `linalg_qr_backward`).
fn tall_backward(gq: Option<&Tensor>, gr: Option<&Tensor>, q: &Tensor, r: &Tensor) -> Result<Tensor> {
    let m = match (gr, gq) {
        (Some(gr), Some(gq)) => gr.matmul(&mt(r)?)?.sub(&mt(q)?.matmul(gq)?)?,
        (Some(gr), None) => gr.matmul(&mt(r)?)?,
        (None, Some(gq)) => mt(q)?.matmul(gq)?.neg()?,
        (None, None) => unreachable!("called with a gradient"),
    };
    let upper = m.tri(0, true)?;
    // X + Xᴴ with the diagonal counted once
    let sym = upper.add(&mt(&upper.tri(1, true)?)?)?;
    let mut b = q.matmul(&sym)?;
    if let Some(gq) = gq {
        b = b.add(gq)?;
    }
    // B R⁻ᵀ, i.e. the X with X Rᵀ = B
    mt(&r.linalg_solve(&mt(&b)?)?)
}

crate::backward_rule! {
    /// `linalg.qr`: for m ≥ n the rule above; for m < n, A = [X Y] with X = Q U and R = [U V],
    /// V = Qᵀ Y: dY = Q gV and X's rule with gQ + Y gVᵀ. Undefined (PyTorch's errors) without Q
    /// (mode 'r') and for a complete Q of a tall matrix. The factorization is redone from the input.
    pub struct LinalgQrBackward0 {
        mode: QrMode,
        a: SavedTensor,
    }
}
impl Backward for LinalgQrBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        if self.mode == QrMode::R {
            bail!(
                Runtime,
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use \
                 linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            );
        }
        let a = ctx.unpack(&self.a)?;
        let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
        if self.mode == QrMode::Complete && m > n {
            bail!(Runtime, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        }
        let (gq, gr) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        if gq.is_none() && gr.is_none() {
            return Ok(vec![None]);
        }
        let (q, r) = a.qr_with(self.mode)?;
        if m >= n {
            return Ok(vec![Some(tall_backward(gq.as_ref(), gr.as_ref(), &q, &r)?)]);
        }
        let (mi, rest) = (m as isize, (n - m) as isize);
        let u = r.narrow(-1, 0, mi)?;
        let y = a.narrow(-1, mi, rest)?;
        let (gu, gv) = match &gr {
            Some(gr) => (Some(gr.narrow(-1, 0, mi)?), Some(gr.narrow(-1, mi, rest)?)),
            None => (None, None),
        };
        let gq = match (&gq, &gv) {
            (Some(gq), Some(gv)) => Some(gq.add(&y.matmul(&mt(gv)?)?)?),
            (None, Some(gv)) => Some(y.matmul(&mt(gv)?)?),
            (gq, None) => gq.clone(),
        };
        let gx = tall_backward(gq.as_ref(), gu.as_ref(), &q, &u)?;
        let gy = match &gv {
            Some(gv) => q.matmul(gv)?,
            None => Tensor::zeros(y.shape(), gx.dtype()),
        };
        Ok(vec![Some(Tensor::cat(&[gx, gy], -1)?)])
    }
}
