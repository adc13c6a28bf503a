//! `linalg.eig` and `linalg.eigvals`: eigenvalues and eigenvectors of general square matrices (complex results
//! for real or complex inputs, `schur.rs`), and PyTorch's rule LinalgEigBackward0.
use super::batch::{eye, mt};
use super::schur::{eig, C};
use crate::autograd::{grad_mode, record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::threads::par_chunks_mut;
use crate::tensor::Tensor;

/// The matrices of `a` as complex numbers, after PyTorch's checks for `func` ("linalg.eig").
fn complex_batch(a: &Tensor, func: &str) -> Result<(Vec<C>, usize)> {
    if a.ndim() < 2 {
        bail!(Runtime, "{func}: The input tensor A must have at least 2 dimensions.");
    }
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    if m != n {
        bail!(Runtime, "{func}: A must be batches of square matrices, but they are {m} by {n} matrices");
    }
    let values = match a.dtype() {
        DType::F32 | DType::F64 => a.to_vec::<f64>().into_iter().map(|x| C::new(x, 0.0)).collect(),
        DType::C64 | DType::C128 => a.complex_values()?.into_iter().map(|(re, im)| C::new(re, im)).collect(),
        DType::F16 | DType::BF16 => {
            bail!(NotImplemented, "\"linalg_eig_out_cpu\" not implemented for '{}'", a.dtype().scalar_type_name())
        }
        d => bail!(Runtime, "Unknown Complex ScalarType for {}", d.scalar_type_name()),
    };
    Ok((values, n))
}

/// The complex dtype of `dtype`'s precision.
fn complex_of(dtype: DType) -> DType {
    match dtype {
        DType::F32 | DType::C64 => DType::C64,
        _ => DType::C128,
    }
}

/// Complex `values` (row-major) as a tensor of `shape` and complex `dtype`.
fn complex_tensor(values: &[C], shape: &[usize], dtype: DType) -> Result<Tensor> {
    let mut pair_shape = shape.to_vec();
    pair_shape.push(2);
    let pairs = if dtype == DType::C64 {
        Tensor::from_vec(values.iter().flat_map(|z| [z.re as f32, z.im as f32]).collect::<Vec<f32>>(), &pair_shape)?
    } else {
        Tensor::from_vec(values.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<f64>>(), &pair_shape)?
    };
    pairs.view_as_complex()
}

/// A real matrix's spectrum, as LAPACK's dgeev gives it: the eigenvalues within rounding of the real axis (the
/// complex iteration leaves them parts of order ε‖A‖) made real with real eigenvectors, and each remaining
/// eigenvalue of positive imaginary part paired with its nearest mirror image, made its exact conjugate with the
/// conjugate eigenvector (A v = λ v gives A v̄ = λ̄ v̄ for a real A).
fn real_structure(a: &[C], w: &mut [C], v: &mut [C], n: usize) {
    let scale = a.iter().map(|z| z.re.abs()).fold(0.0, f64::max);
    let tolerance = 16.0 * n as f64 * f64::EPSILON * scale;
    let vectors = !v.is_empty();
    let mut paired = vec![false; n];
    for k in 0..n {
        if w[k].im.abs() <= tolerance {
            w[k].im = 0.0;
            paired[k] = true;
            if vectors {
                let norm = (0..n).map(|r| v[r * n + k].re * v[r * n + k].re).sum::<f64>().sqrt();
                for r in 0..n {
                    v[r * n + k] = C::new(v[r * n + k].re / norm, 0.0);
                }
            }
        }
    }
    for k in 0..n {
        if paired[k] || w[k].im < 0.0 {
            continue;
        }
        let mirror = (0..n)
            .filter(|&j| !paired[j] && w[j].im < 0.0)
            .min_by(|&x, &y| (w[x] - w[k].conj()).norm().total_cmp(&(w[y] - w[k].conj()).norm()));
        if let Some(j) = mirror {
            paired[k] = true;
            paired[j] = true;
            w[j] = w[k].conj();
            if vectors {
                for r in 0..n {
                    v[r * n + j] = v[r * n + k].conj();
                }
            }
        }
    }
}

/// Each matrix's eigenvalues and (when `vectors`) eigenvectors, the matrices spread over threads; a NaN or
/// infinite input gives NaN results (`eigvals`' answer; `eig` refuses such input first).
fn decompose_all(values: &[C], n: usize, count: usize, vectors: bool, real: bool) -> Result<(Vec<C>, Vec<C>)> {
    let mut results: Vec<Option<(Vec<C>, Vec<C>)>> = vec![None; count];
    let size = n * n;
    par_chunks_mut(&mut results, 1, &|i, slot| {
        let a = &values[i * size..(i + 1) * size];
        slot[0] = if a.iter().all(|z| z.re.is_finite() && z.im.is_finite()) {
            eig(a, n, vectors).map(|(mut w, mut v)| {
                if real {
                    real_structure(a, &mut w, &mut v, n);
                }
                (w, v)
            })
        } else {
            let nan = C::new(f64::NAN, f64::NAN);
            Some((vec![nan; n], if vectors { vec![nan; size] } else { Vec::new() }))
        };
    });
    let (mut w, mut v) = (Vec::with_capacity(count * n), Vec::with_capacity(if vectors { count * size } else { 0 }));
    for (i, result) in results.into_iter().enumerate() {
        let Some((wi, vi)) = result else {
            let prefix = if count > 1 { format!("(Batch element {i}): ") } else { String::new() };
            bail!(
                LinAlg,
                "linalg.eig: {prefix}The algorithm failed to converge because the input matrix is ill-conditioned \
                 or has too many repeated eigenvalues."
            );
        };
        w.extend(wi);
        v.extend(vi);
    }
    Ok((w, v))
}

impl Tensor {
    /// `linalg.eig(A)`: (eigenvalues, eigenvectors) of each square matrix, both complex; the eigenvectors are
    /// columns of norm 1, each turned so that its largest component is real and positive.
    pub fn linalg_eig(&self) -> Result<(Tensor, Tensor)> {
        let (values, n) = complex_batch(self, "linalg.eig")?;
        if values.iter().any(|z| !(z.re.is_finite() && z.im.is_finite())) {
            bail!(Runtime, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
        }
        let batch = &self.shape()[..self.ndim() - 2];
        let count = batch.iter().product();
        let (w, v) = decompose_all(&values, n, count, true, !self.is_complex())?;
        let dtype = complex_of(self.dtype());
        let w = complex_tensor(&w, &self.shape()[..self.ndim() - 1], dtype)?;
        let v = complex_tensor(&v, self.shape(), dtype)?;
        let rule = LinalgEigBackward0 { self_: SavedTensor::input(self) };
        let mut out = record_outputs(vec![w, v], &[self], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }

    /// `linalg.eigvals(A)`: the eigenvalues `linalg.eig` gives; through `eig` (and its rule) when A requires
    /// grad, as PyTorch does.
    pub fn linalg_eigvals(&self) -> Result<Tensor> {
        if self.requires_grad() && grad_mode::is_enabled() {
            return Ok(self.linalg_eig()?.0);
        }
        let (values, n) = complex_batch(self, "linalg.eigvals")?;
        let count = self.shape()[..self.ndim() - 2].iter().product();
        let (w, _) = decompose_all(&values, n, count, false, !self.is_complex())?;
        complex_tensor(&w, &self.shape()[..self.ndim() - 1], complex_of(self.dtype()))
    }
}

/// V⁻¹ of each complex matrix in `v` (Gauss-Jordan, partial pivoting).
fn inverses(v: &Tensor) -> Result<Tensor> {
    let n = v.shape()[v.ndim() - 1];
    if n == 0 {
        return Ok(v.clone());
    }
    let values: Vec<C> = v.complex_values()?.into_iter().map(|(re, im)| C::new(re, im)).collect();
    let mut out = Vec::with_capacity(values.len());
    for m in values.chunks(n * n) {
        let mut a = m.to_vec();
        let mut inv: Vec<C> = (0..n * n).map(|i| C::new(if i % (n + 1) == 0 { 1.0 } else { 0.0 }, 0.0)).collect();
        for k in 0..n {
            let p = (k..n).max_by(|&x, &y| a[x * n + k].norm().total_cmp(&a[y * n + k].norm())).expect("k < n");
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
                inv.swap(k * n + j, p * n + j);
            }
            let pivot = a[k * n + k];
            for j in 0..n {
                a[k * n + j] /= pivot;
                inv[k * n + j] /= pivot;
            }
            for i in (0..n).filter(|&i| i != k) {
                let f = a[i * n + k];
                if f.norm() != 0.0 {
                    for j in 0..n {
                        let (akj, ikj) = (a[k * n + j], inv[k * n + j]);
                        a[i * n + j] -= f * akj;
                        inv[i * n + j] -= f * ikj;
                    }
                }
            }
        }
        out.extend(inv);
    }
    complex_tensor(&out, v.shape(), v.dtype())
}

crate::backward_rule! {
    /// `linalg.eig`: gA = V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V diag(re diag(Vᴴ gV))) / (L̄ⱼ - L̄ᵢ)) Vᴴ, PyTorch's formula
    /// (the real part for a real A). The factorization is redone from the saved input (the eigenvectors cannot
    /// be kept as a saved output).
    pub struct LinalgEigBackward0 {
        self_: SavedTensor,
    }
}
impl Backward for LinalgEigBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (gl, gv) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        if gl.is_none() && gv.is_none() {
            return Ok(vec![None]);
        }
        if grad_mode::is_enabled() {
            // V⁻ᴴ is computed as a constant here, so a recorded backward would differentiate wrongly
            bail!(NotImplemented, "the derivative of linalg.eig's backward (create_graph=True) is not implemented");
        }
        let a = ctx.unpack(&self.self_)?;
        let (l, v) = a.detach().linalg_eig()?;
        let n = l.shape()[l.ndim() - 1];
        let identity = eye(n, l.dtype().component())?;
        let vh = mt(&v)?.conj()?;
        let mut inner = match &gv {
            Some(gv) => {
                let vh_gv = vh.matmul(&gv.to_dtype(v.dtype())?)?;
                let diag = vh_gv.diagonal(0, -2, -1)?;
                let worst = diag.contiguous()?.complex_values()?.iter().fold(0.0f64, |m, &(_, im)| m.max(im.abs()));
                if worst.is_nan() || worst > 1e-2 {
                    bail!(
                        Runtime,
                        "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication \
                         by e^{{i phi}}. The specified loss function depends on this quantity, so it is ill-defined."
                    );
                }
                let scaled = v.mul(&diag.real_part()?.unsqueeze(-2)?)?;
                let projected = vh_gv.sub(&vh.matmul(&scaled)?)?;
                let l_conj = l.conj()?;
                // L̄ⱼ - L̄ᵢ off the diagonal, 1 on it (where the result is then zeroed)
                let gaps = l_conj.unsqueeze(-2)?.sub(&l_conj.unsqueeze(-1)?)?.add(&identity)?;
                let off_diagonal = Tensor::scalar(1.0).to_dtype(identity.dtype())?.sub(&identity)?;
                Some(projected.div(&gaps)?.mul(&off_diagonal)?)
            }
            None => None,
        };
        if let Some(gl) = &gl {
            let diag = gl.to_dtype(l.dtype())?.unsqueeze(-2)?.mul(&identity)?;
            inner = Some(match inner {
                Some(t) => t.add(&diag)?,
                None => diag,
            });
        }
        let inner = inner.expect("a gradient for one output at least");
        let v_inv_h = mt(&inverses(&v)?)?.conj()?;
        let grad = v_inv_h.matmul(&inner)?.matmul(&vh)?;
        Ok(vec![Some(if a.is_complex() { grad } else { grad.real_part()?.contiguous()? })])
    }
}
