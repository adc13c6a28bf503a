//! LU with partial pivoting of (batches of) m×n matrices, as LAPACK's `getrf` computes it: the compact
//! factors, the 1-based int32 row interchanges and `info` (the first zero pivot); `lu_unpack` to
//! (P, L, U); `linalg.lu`; and their backward rules (PyTorch's `linalg_lu_backward`).
use super::batch::mt;
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::{record, record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// One matrix's factorization: `lu` holds L (unit lower, below the diagonal) and U, row-major m×n.
pub(super) struct Getrf {
    pub lu: Vec<f64>,
    /// LAPACK's `ipiv`: row i was interchanged with row `pivots[i] - 1`.
    pub pivots: Vec<i32>,
    /// LAPACK's `info`: the 1-based index of the first exactly-zero pivot, 0 if none.
    pub info: i32,
}

/// LAPACK's unblocked `getf2` on a row-major m×n matrix: in column j the pivot is the first entry of
/// largest magnitude at or below the diagonal (`idamax`: a NaN wins only where it comes first), rows are
/// swapped over the full width, the column below is scaled by the pivot's reciprocal and the trailing
/// block updated; a zero pivot is recorded in `info` and its column left unscaled.
pub(super) fn getrf(a: &[f64], m: usize, n: usize) -> Getrf {
    let mut lu = a.to_vec();
    let k = m.min(n);
    let mut pivots = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        let mut p = j;
        let mut largest = lu[j * n + j].abs();
        for i in j + 1..m {
            let v = lu[i * n + j].abs();
            if v > largest {
                (p, largest) = (i, v);
            }
        }
        pivots.push(p as i32 + 1);
        let pivot = lu[p * n + j];
        if pivot != 0.0 {
            if p != j {
                for c in 0..n {
                    lu.swap(j * n + c, p * n + c);
                }
            }
            // getf2 multiplies by the reciprocal unless that would overflow
            if pivot.abs() >= f64::MIN_POSITIVE {
                let r = 1.0 / pivot;
                for i in j + 1..m {
                    lu[i * n + j] *= r;
                }
            } else {
                for i in j + 1..m {
                    lu[i * n + j] /= pivot;
                }
            }
        } else if info == 0 {
            info = j as i32 + 1;
        }
        for i in j + 1..m {
            let factor = lu[i * n + j];
            for c in j + 1..n {
                lu[i * n + c] -= factor * lu[j * n + c];
            }
        }
    }
    Getrf { lu, pivots, info }
}

/// The permutation of rows the pivots describe: row i of L U is row `perm[i]` of A.
fn permutation(pivots: &[i32], m: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..m).collect();
    for (j, &p) in pivots.iter().enumerate() {
        perm.swap(j, p as usize - 1);
    }
    perm
}

fn last_two(t: &Tensor) -> (usize, usize) {
    (t.shape()[t.ndim() - 2], t.shape()[t.ndim() - 1])
}

/// Values of `shape` as a tensor of `dtype` (any dtype: P and L of an integer LU stay integers).
fn from_f64(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::from_vec(values, shape)?.to_dtype(dtype)
}

/// P (…, m, m) from 1-based pivots (…, k), in `dtype`; a pivot outside 1..=m is PyTorch's error.
pub(super) fn permutation_matrix(pivots: &Tensor, m: usize, dtype: DType) -> Result<Tensor> {
    let piv = pivots.to_vec::<i32>();
    if piv.iter().any(|&p| p < 1 || p as usize > m) {
        bail!(
            Runtime,
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the \
             result of lu_factor?"
        );
    }
    let k = pivots.shape().last().copied().unwrap_or(0);
    let count = pivots.numel().checked_div(k).unwrap_or_else(|| pivots.shape()[..pivots.ndim() - 1].iter().product());
    let mut out = vec![0.0; count * m * m];
    for b in 0..count {
        let perm = permutation(&piv[b * k..(b + 1) * k], m);
        for (i, &row) in perm.iter().enumerate() {
            out[b * m * m + row * m + i] = 1.0;
        }
    }
    let shape = [&pivots.shape()[..pivots.ndim() - 1], &[m, m]].concat();
    from_f64(out, &shape, dtype)
}

/// (L, U) from the compact LU (…, m, n), with differentiable ops: L = tril(LU[…, :k], -1) + I, U =
/// triu(LU[…, :k, :]).
pub(super) fn unpack_factors(lu: &Tensor) -> Result<(Tensor, Tensor)> {
    let (m, n) = last_two(lu);
    let k = m.min(n);
    let mut unit = vec![0.0; m * k];
    for i in 0..k {
        unit[i * k + i] = 1.0;
    }
    let l = lu.narrow(-1, 0, k as isize)?.tri(-1, false)?.add(&from_f64(unit, &[m, k], lu.dtype())?)?;
    let u = lu.narrow(-2, 0, k as isize)?.tri(0, true)?;
    Ok((l, u))
}

/// PyTorch's checks of an input to factor: at least 2-D (`func` names the function in the message) and
/// float32/float64 (`lu_cpu`'s dispatch error otherwise).
fn check_input(a: &Tensor, func: &str) -> Result<()> {
    if a.ndim() < 2 {
        bail!(Runtime, "{func}: Expected tensor with 2 or more dimensions. Got size: {:?} instead", a.shape());
    }
    if !matches!(a.dtype(), DType::F32 | DType::F64) {
        bail!(NotImplemented, "\"lu_cpu\" not implemented for '{}'", a.dtype().scalar_type_name());
    }
    Ok(())
}

fn refuse_no_pivoting(pivot: bool) -> Result<()> {
    if !pivot {
        bail!(Runtime, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
    }
    Ok(())
}

/// The factorizations of every matrix of `a`: (LU values, pivots, infos).
fn factor_batch(a: &Tensor) -> (Vec<f64>, Vec<i32>, Vec<i32>) {
    let (m, n) = last_two(a);
    let values = a.to_vec::<f64>();
    let count = a.shape()[..a.ndim() - 2].iter().product::<usize>();
    let (mut lu, mut pivots, mut infos) = (Vec::with_capacity(values.len()), Vec::new(), Vec::with_capacity(count));
    for b in 0..count {
        let f = getrf(&values[b * m * n..(b + 1) * m * n], m, n);
        lu.extend(f.lu);
        pivots.extend(f.pivots);
        infos.push(f.info);
    }
    (lu, pivots, infos)
}

impl Tensor {
    /// `linalg.lu_factor_ex(A, pivot=pivot, check_errors=check_errors)`: (LU, pivots, info); `func`
    /// names the caller in the dimension error (PyTorch says "torch.lu_factor" there for all of them) and
    /// in the singular-matrix error `check_errors` raises.
    pub fn linalg_lu_factor_ex(&self, pivot: bool, check_errors: bool, func: &str) -> Result<(Tensor, Tensor, Tensor)> {
        check_input(self, "torch.lu_factor")?;
        refuse_no_pivoting(pivot)?;
        let (m, n) = last_two(self);
        let batch = &self.shape()[..self.ndim() - 2];
        let (lu, pivots, infos) = factor_batch(self);
        if check_errors {
            if let Some((i, &info)) = infos.iter().enumerate().find(|(_, &info)| info > 0) {
                let element = if batch.is_empty() { String::new() } else { format!("(Batch element {i}): ") };
                return Err(Error::Runtime(format!(
                    "{func}: {element}U[{info},{info}] is zero and using it on lu_solve would result in a division \
                     by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) \
                     or linalg.lu_factor_ex(A, pivot)"
                )));
            }
        }
        let lu = from_f64(lu, self.shape(), self.dtype())?;
        let pivots = Tensor::from_vec(pivots, &[batch, &[m.min(n)]].concat())?;
        let infos = Tensor::from_vec(infos, batch)?;
        let lu = record(lu, &[self], |out| LinalgLuFactorExBackward0 {
            LU: SavedTensor::output(out),
            pivot,
            pivots: SavedTensor::input(&pivots),
        });
        Ok((lu, pivots, infos))
    }

    /// `linalg.lu(A, pivot=pivot)`: (P, L, U) with A = P L U, L m×k unit lower and U k×n upper.
    pub fn linalg_lu(&self, pivot: bool) -> Result<(Tensor, Tensor, Tensor)> {
        check_input(self, "linalg.lu")?;
        refuse_no_pivoting(pivot)?;
        let (p, l, u) = {
            let _no_grad = GradModeGuard::new(false);
            let (lu, pivots, _) = self.linalg_lu_factor_ex(pivot, false, "linalg.lu")?;
            let (l, u) = unpack_factors(&lu)?;
            (permutation_matrix(&pivots, last_two(self).0, self.dtype())?, l, u)
        };
        let rule = LinalgLuBackward0 { a: SavedTensor::input(self), pivot };
        let mut out = record_outputs(vec![l, u], &[self], rule).into_iter();
        Ok((p, out.next().expect("two outputs"), out.next().expect("two outputs")))
    }

    /// `lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)`: (P, L, U), each an empty tensor when
    /// not asked for.
    pub fn lu_unpack(
        &self,
        pivots: &Tensor,
        unpack_data: bool,
        unpack_pivots: bool,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let lu = self;
        if lu.ndim() < 2 {
            bail!(
                Runtime,
                "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {:?} instead",
                lu.shape()
            );
        }
        let (m, n) = last_two(lu);
        let want = [&lu.shape()[..lu.ndim() - 2], &[m.min(n)]].concat();
        if pivots.shape() != want.as_slice() {
            bail!(Value, "Expected LU_pivots to have shape {:?} but got {:?} instead.", want, pivots.shape());
        }
        if pivots.dtype() != DType::I32 {
            bail!(
                Runtime,
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\nNote: this \
                 function is intended to be used with the output produced by torch.linalg.lu_factor"
            );
        }
        let empty = || Tensor::zeros(&[0], lu.dtype());
        let p = if unpack_pivots { permutation_matrix(pivots, m, lu.dtype())? } else { empty() };
        if !unpack_data {
            return Ok((p, empty(), empty()));
        }
        let (l, u) = {
            let _no_grad = GradModeGuard::new(false);
            unpack_factors(lu)?
        };
        let rule = LuUnpackBackward0 { LU_data_sym_argsize_minus_1: n as i64, LU_data_sym_argsize_minus_2: m as i64 };
        let mut out = record_outputs(vec![l, u], &[lu], rule).into_iter();
        Ok((p, out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

/// gA for A = P L U from gL (m×k) and gU (k×n), either possibly absent. With k = min(m, n):
/// square: gA = P L⁻ᵀ (tril(Lᵀ gL, -1) + triu(gU Uᵀ)) U⁻ᵀ; wide (U = [U₁ U₂]): the square rule for
/// [L, U₁] with Lᵀ gL less gU₂ U₂ᵀ, and P L⁻ᵀ gU₂ for the last n - m columns; tall (L = [L₁; L₂]):
/// the square rule for [L₁, U] with gU Uᵀ less L₂ᵀ gL₂, and gL₂ U⁻ᵀ for the last m - n rows.
pub(super) fn lu_backward(
    gl: Option<&Tensor>,
    gu: Option<&Tensor>,
    p: &Tensor,
    l: &Tensor,
    u: &Tensor,
) -> Result<Tensor> {
    let (m, n) = (l.shape()[l.ndim() - 2], u.shape()[u.ndim() - 1]);
    let k = m.min(n) as isize;
    let add = |a: Option<Tensor>, b: Option<Tensor>| -> Result<Option<Tensor>> {
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(a.add(&b)?),
            (a, b) => a.or(b),
        })
    };
    // the square part's L₁, U₁ and the extra terms of the wide / tall cases
    let (l1, u1) = (l.narrow(-2, 0, k)?, u.narrow(-1, 0, k)?);
    let (gl1, gu1) = (gl.map(|g| g.narrow(-2, 0, k)).transpose()?, gu.map(|g| g.narrow(-1, 0, k)).transpose()?);
    let mut lower = gl1.map(|g| mt(&l1)?.matmul(&g)).transpose()?;
    let mut upper = gu1.map(|g| g.matmul(&mt(&u1)?)).transpose()?;
    let (mut wide_rest, mut tall_rest) = (None, None);
    if (n as isize) > k {
        if let Some(gu) = gu {
            let (u2, gu2) = (u.narrow(-1, k, n as isize - k)?, gu.narrow(-1, k, n as isize - k)?);
            lower = add(lower, Some(gu2.matmul(&mt(&u2)?)?.neg()?))?;
            wide_rest = Some(gu2);
        }
    } else if (m as isize) > k {
        if let Some(gl) = gl {
            let (l2, gl2) = (l.narrow(-2, k, m as isize - k)?, gl.narrow(-2, k, m as isize - k)?);
            upper = add(upper, Some(mt(&l2)?.matmul(&gl2)?.neg()?))?;
            tall_rest = Some(gl2);
        }
    }
    let inner = add(lower.map(|t| t.tri(-1, false)).transpose()?, upper.map(|t| t.tri(0, true)).transpose()?)?;
    let inner = match inner {
        Some(t) => t,
        None => Tensor::zeros(&[k as usize, k as usize], l.dtype()),
    };
    // L₁⁻ᵀ M U₁⁻ᵀ: Y U₁ᵀ = M, then L₁ᵀ X = Y
    let y = mt(&u1)?.linalg_solve_triangular(&inner, false, false, false)?;
    let mut ga = mt(&l1)?.linalg_solve_triangular(&y, true, true, true)?;
    if (n as isize) > k {
        let rest = match wide_rest {
            Some(gu2) => mt(&l1)?.linalg_solve_triangular(&gu2, true, true, true)?,
            None => {
                Tensor::zeros(&[m, n - m], l.dtype()).expand(&[&ga.shape()[..ga.ndim() - 2], &[m, n - m]].concat())?
            }
        };
        ga = Tensor::cat(&[ga, rest], -1)?;
    } else if (m as isize) > k {
        let rest = match tall_rest {
            Some(gl2) => mt(&u1)?.linalg_solve_triangular(&gl2, false, false, false)?,
            None => {
                Tensor::zeros(&[m - n, n], l.dtype()).expand(&[&ga.shape()[..ga.ndim() - 2], &[m - n, n]].concat())?
            }
        };
        ga = Tensor::cat(&[ga, rest], -2)?;
    }
    p.matmul(&ga)
}

crate::backward_rule! {
    /// `linalg.lu_factor_ex`: the gradient of the packed factors is that of (L, U) through
    /// `lu_backward`, the strictly lower part going to L and the upper part to U.
    #[allow(non_snake_case)]
    pub struct LinalgLuFactorExBackward0 {
        LU: SavedTensor,
        pivot: bool,
        pivots: SavedTensor,
    }
}
impl Backward for LinalgLuFactorExBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (lu, pivots) = (ctx.unpack(&self.LU)?, ctx.unpack(&self.pivots)?);
        let (m, n) = last_two(&lu);
        let k = m.min(n) as isize;
        let (l, u) = unpack_factors(&lu)?;
        let p = permutation_matrix(&pivots, m, lu.dtype())?;
        let gl = g.narrow(-1, 0, k)?.tri(-1, false)?;
        let gu = g.narrow(-2, 0, k)?.tri(0, true)?;
        Ok(vec![Some(lu_backward(Some(&gl), Some(&gu), &p, &l, &u)?)])
    }
}

crate::backward_rule! {
    /// `linalg.lu`: `lu_backward` of (gL, gU). The factorization is redone from the saved input (PyTorch
    /// keeps P, L and U; a node's second output cannot be kept as a saved output here), so a recorded
    /// backward differentiates through it.
    pub struct LinalgLuBackward0 {
        a: SavedTensor,
        pivot: bool,
    }
}
impl Backward for LinalgLuBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (gl, gu) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        if gl.is_none() && gu.is_none() {
            return Ok(vec![None]);
        }
        let a = ctx.unpack(&self.a)?;
        let (lu, pivots, _) = a.linalg_lu_factor_ex(self.pivot, false, "linalg.lu")?;
        let (l, u) = unpack_factors(&lu)?;
        let p = permutation_matrix(&pivots, last_two(&a).0, a.dtype())?;
        Ok(vec![Some(lu_backward(gl.as_ref(), gu.as_ref(), &p, &l, &u)?)])
    }
}

crate::backward_rule! {
    /// `lu_unpack`: gLU = tril(gL, -1) + triu(gU), each placed in its part of the m×n LU.
    #[allow(non_snake_case)]
    pub struct LuUnpackBackward0 {
        LU_data_sym_argsize_minus_1: i64,
        LU_data_sym_argsize_minus_2: i64,
    }
}
impl Backward for LuUnpackBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, _ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (n, m) = (self.LU_data_sym_argsize_minus_1 as usize, self.LU_data_sym_argsize_minus_2 as usize);
        let k = m.min(n);
        // each factor's part, zero-padded to m×n: L (m×k) on the left, U (k×n) on top
        let pad = |t: Tensor, rows: usize, cols: usize| -> Result<Tensor> {
            let batch = t.shape()[..t.ndim() - 2].to_vec();
            let t = if cols < n {
                let zeros =
                    Tensor::zeros(&[rows, n - cols], t.dtype()).expand(&[&batch[..], &[rows, n - cols]].concat())?;
                Tensor::cat(&[t, zeros], -1)?
            } else {
                t
            };
            if rows < m {
                let zeros = Tensor::zeros(&[m - rows, n], t.dtype()).expand(&[&batch[..], &[m - rows, n]].concat())?;
                Tensor::cat(&[t, zeros], -2)
            } else {
                Ok(t)
            }
        };
        let gl = grads.first().cloned().flatten().map(|g| pad(g.tri(-1, false)?, m, k)).transpose()?;
        let gu = grads.get(1).cloned().flatten().map(|g| pad(g.tri(0, true)?, k, n)).transpose()?;
        Ok(vec![match (gl, gu) {
            (Some(a), Some(b)) => Some(a.add(&b)?),
            (a, b) => a.or(b),
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getrf_pivots_as_lapack() {
        let f = getrf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0], 3, 3);
        assert_eq!(f.pivots, vec![3, 3, 3]);
        assert_eq!(f.info, 0);
        assert!((f.lu[8] + 0.5).abs() < 1e-12);
        // a zero column: no interchange, the first zero pivot reported
        let f = getrf(&[0.0, 1.0, 0.0, 4.0], 2, 2);
        assert_eq!((f.pivots, f.info), (vec![1, 2], 1));
        // a NaN loses to a finite magnitude unless it comes first (idamax)
        assert_eq!(getrf(&[2.0, 1.0, f64::NAN, 3.0], 2, 2).pivots[0], 1);
        assert_eq!(getrf(&[f64::NAN, 1.0, 2.0, 3.0], 2, 2).pivots[0], 1);
    }

    #[test]
    fn getrf_rectangular() {
        let f = getrf(&[1.0, 2.0, 3.0, 4.0, 5.0, 7.0], 3, 2);
        assert_eq!(f.pivots, vec![3, 3]);
        let f = getrf(&[1.0, 2.0, 5.0, 3.0, 4.0, 1.0], 2, 3);
        assert_eq!(f.pivots, vec![2, 2]);
        assert!((f.lu[5] - 14.0 / 3.0).abs() < 1e-12);
    }
}
