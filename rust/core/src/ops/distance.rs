//! p-norm distances: `dist` (of two tensors, broadcast), `cdist` (between the rows of two batches of
//! matrices) and `pdist` (between the rows of one matrix, upper triangle). Each is one node whose gradient
//! is the vector norm's, taken over the differences.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::error::Result;
use crate::ops::norm::{vector_norm_grad, NormOrder};
use crate::tensor::Tensor;

/// The last dim: the coordinates of a point.
const COORDINATES: isize = -1;

fn check_p(name: &str, p: f64) -> Result<()> {
    if p < 0.0 {
        bail!(Runtime, "{name} only supports non-negative p values");
    }
    Ok(())
}

impl Tensor {
    /// `dist(other, p)`: the p-norm of `self - other` (broadcast), as one DistBackward0 node.
    pub fn dist(&self, other: &Tensor, p: f64) -> Result<Tensor> {
        let difference = self.detach().sub(&other.detach())?;
        if !difference.dtype().is_float() {
            bail!(
                NotImplemented,
                "norm(): input dtype should be either floating point or complex. Got {} instead.",
                difference.dtype().scalar_type_name()
            );
        }
        let out = difference.vector_norm(NormOrder::from_p(p), None, false)?;
        let rule = |out: &Tensor| DistBackward0 {
            other: SavedTensor::input(other),
            p,
            result: SavedTensor::output(out),
            self_: SavedTensor::input(self),
        };
        Ok(record(out, &[self, other], rule))
    }

    /// `cdist(x1, x2, p)`: the p-norm distance between each row of `x1` (..., P, M) and each row of `x2`
    /// (..., R, M), shaped (..., P, R) with the batch dims broadcast.
    pub fn cdist(&self, x2: &Tensor, p: f64) -> Result<Tensor> {
        let x1 = self;
        if !x1.dtype().is_float() || !x2.dtype().is_float() {
            let bad = if x1.dtype().is_float() { ("X2", x2) } else { ("X1", x1) };
            bail!(
                Runtime,
                "cdist only supports floating-point dtypes, {} got: {}",
                bad.0,
                bad.1.dtype().scalar_type_name()
            );
        }
        check_p("cdist", p)?;
        for (name, x) in [("X1", x1), ("X2", x2)] {
            if x.ndim() < 2 {
                bail!(Runtime, "cdist only supports at least 2D tensors, {name} got: {}D", x.ndim());
            }
        }
        let (m1, m2) = (x1.shape()[x1.ndim() - 1], x2.shape()[x2.ndim() - 1]);
        if m1 != m2 {
            bail!(Runtime, "X1 and X2 must have the same number of columns. X1: {m1} X2: {m2}");
        }
        let out = pairwise_norms(&x1.detach(), &x2.detach(), p)?;
        let rule = |out: &Tensor| CdistBackward0 {
            p,
            result: SavedTensor::output(out),
            x1: SavedTensor::input(x1),
            x2: SavedTensor::input(x2),
        };
        Ok(record(out, &[x1, x2], rule))
    }

    /// `pdist(p)`: the p-norm distances between the rows of an (N, M) matrix, for each pair i < j in
    /// row-major order (N (N - 1) / 2 of them).
    pub fn pdist(&self, p: f64) -> Result<Tensor> {
        if self.ndim() != 2 {
            bail!(Runtime, "pdist only supports 2D tensors, got: {}D", self.ndim());
        }
        if !self.dtype().is_float() {
            bail!(Runtime, "pdist only supports floating-point dtypes");
        }
        check_p("pdist", p)?;
        let n = self.shape()[0];
        let (rows, cols) = upper_pairs(n)?;
        let x = self.detach();
        let out = if rows.numel() == 0 {
            Tensor::zeros(&[0], self.dtype())
        } else {
            let difference = x.index_select(0, &rows)?.sub(&x.index_select(0, &cols)?)?;
            difference.vector_norm(NormOrder::from_p(p), Some(&[COORDINATES]), false)?
        };
        let rule =
            |out: &Tensor| PdistBackward0 { p, result: SavedTensor::output(out), self_: SavedTensor::input(self) };
        Ok(record(out, &[self], rule))
    }
}

/// The (i, j) row pairs with i < j of an n-row matrix, in row-major order, as int64 index tensors.
fn upper_pairs(n: usize) -> Result<(Tensor, Tensor)> {
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in i + 1..n {
            rows.push(i as i64);
            cols.push(j as i64);
        }
    }
    let count = rows.len();
    Ok((Tensor::from_vec(rows, &[count])?, Tensor::from_vec(cols, &[count])?))
}

/// The differences x1[..., i, :] - x2[..., j, :] shaped (..., P, R, M).
fn pairwise_differences(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    x1.unsqueeze(-2)?.sub(&x2.unsqueeze(-3)?)
}

/// The gradient of each pair's norm over its differences `difference` (the coordinates last), `g` and
/// `norm` with that dim kept: the vector norm's, except that for p = inf every coordinate at the largest
/// magnitude gets the whole gradient (torch's `_cdist_backward`/`_pdist_backward` do not share it).
fn pairwise_norm_grad(g: &Tensor, difference: &Tensor, norm: &Tensor, p: f64) -> Result<Tensor> {
    let last = difference.ndim() - 1;
    let ord = NormOrder::from_p(p);
    if ord == NormOrder::Max {
        let at_max = difference.abs()?.eq(norm)?;
        return difference.sign()?.mul(&at_max)?.mul(g);
    }
    vector_norm_grad(g, difference, norm, ord, &[last])
}

fn pairwise_norms(x1: &Tensor, x2: &Tensor, p: f64) -> Result<Tensor> {
    pairwise_differences(x1, x2)?.vector_norm(NormOrder::from_p(p), Some(&[COORDINATES]), false)
}

crate::backward_rule! {
    /// `dist(self, other, p)`: the norm's gradient over `self - other`, summed back to each operand.
    pub struct DistBackward0 {
        other: SavedTensor,
        p: f64,
        result: SavedTensor,
        self_: SavedTensor,
    }
}
impl Backward for DistBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.other)?, ctx.unpack(&self.result)?);
        let difference = a.sub(&b)?;
        let kept = vec![1; difference.ndim()];
        let dims: Vec<usize> = (0..difference.ndim()).collect();
        let grad =
            vector_norm_grad(&g.reshape(&kept)?, &difference, &out.reshape(&kept)?, NormOrder::from_p(self.p), &dims)?;
        Ok(vec![
            ctx.grad_if(0, || grad.sum_to_size(a.shape()))?,
            ctx.grad_if(1, || grad.neg()?.sum_to_size(b.shape()))?,
        ])
    }
}

crate::backward_rule! {
    /// `cdist(x1, x2, p)`: the norm's gradient over each pair's difference, summed over the other rows.
    pub struct CdistBackward0 {
        p: f64,
        result: SavedTensor,
        x1: SavedTensor,
        x2: SavedTensor,
    }
}
impl Backward for CdistBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x1, x2, out) = (ctx.unpack(&self.x1)?, ctx.unpack(&self.x2)?, ctx.unpack(&self.result)?);
        let difference = pairwise_differences(&x1, &x2)?;
        let grad = pairwise_norm_grad(&g.unsqueeze(COORDINATES)?, &difference, &out.unsqueeze(COORDINATES)?, self.p)?;
        // (..., P, R, M): summed over R for x1 and over P for x2
        Ok(vec![
            ctx.grad_if(0, || grad.sum(Some(&[-2]), false)?.sum_to_size(x1.shape()))?,
            ctx.grad_if(1, || grad.neg()?.sum(Some(&[-3]), false)?.sum_to_size(x2.shape()))?,
        ])
    }
}

crate::backward_rule! {
    /// `pdist(self, p)`: the norm's gradient over each pair's difference, added to both rows.
    pub struct PdistBackward0 {
        p: f64,
        result: SavedTensor,
        self_: SavedTensor,
    }
}
impl Backward for PdistBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, out) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.result)?);
        let (rows, cols) = upper_pairs(x.shape()[0])?;
        if rows.numel() == 0 {
            return Ok(vec![Some(Tensor::zeros(x.shape(), g.dtype()))]);
        }
        let difference = x.index_select(0, &rows)?.sub(&x.index_select(0, &cols)?)?;
        let grad = pairwise_norm_grad(&g.unsqueeze(COORDINATES)?, &difference, &out.unsqueeze(COORDINATES)?, self.p)?;
        let zeros = Tensor::zeros(x.shape(), g.dtype());
        let onto_rows = zeros.index_add(0, &rows, &grad, 1.0)?;
        Ok(vec![Some(onto_rows.index_add(0, &cols, &grad, -1.0)?)])
    }
}
