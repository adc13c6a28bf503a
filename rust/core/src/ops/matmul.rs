//! Matrix products with PyTorch's dispatch rules for `matmul`.
use crate::autocast::{self, Policy};
use crate::autograd::{record, Backward, Ctx, Grads, MatrixStrides, SavedTensor};
use crate::compile::{traced, NodeKind};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::matmul::{matmul_into, matmul_into_serial, MatRef, PARALLEL_MACS};
use crate::layout::{broadcast_shapes, Layout};
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

fn check_dtypes(a: &Tensor, b: &Tensor, what: &str) -> Result<()> {
    if a.dtype() != b.dtype() {
        bail!(
            Runtime,
            "expected {what} to have the same dtype, but got: {} != {}",
            torch_scalar_name(a.dtype()),
            torch_scalar_name(b.dtype())
        );
    }
    if a.dtype() == DType::Bool {
        bail!(Runtime, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    }
    Ok(())
}

fn torch_scalar_name(d: DType) -> &'static str {
    d.cpp_name()
}

fn mat(l: &Layout, batch_dim: Option<usize>, b: usize) -> MatRef {
    let n = l.ndim();
    let offset = l.offset + batch_dim.map_or(0, |d| b * l.strides[d]);
    MatRef { offset, row_stride: l.strides[n - 2], col_stride: l.strides[n - 1] }
}

/// (batch) × (m×k) · (k×n) for 2-D or equal-batch 3-D operands.
fn batched_product(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.is_complex() {
        return complex_product(a, b);
    }
    let batched = a.ndim() == 3;
    let (m, k, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1], b.shape()[b.ndim() - 1]);
    let batch = if batched { a.shape()[0] } else { 1 };
    let shape: Vec<usize> = if batched { vec![batch, m, n] } else { vec![m, n] };
    let compute = a.dtype().compute();
    if compute != a.dtype() {
        // halves accumulate in float32, narrow ints in int64 (then wrap), as PyTorch's CPU kernels do
        let out = batched_product(&a.cast_detached(compute), &b.cast_detached(compute))?;
        return Ok(out.cast_detached(a.dtype()));
    }
    with_dtype!(a.dtype(), T => {
        let len = batch * m * n;
        let mut out: Vec<T> = crate::pool::take(len);
        let dst = &mut out.spare_capacity_mut()[..len];
        a.with_data(|la, xa: &[T]| {
            b.with_data(|lb, xb: &[T]| {
                let bd = batched.then_some(0);
                let per = (m * n).max(1);
                if batch >= 2 * crate::kernels::threads::threads() && batch * m * n * k >= PARALLEL_MACS {
                    // many products: one per task, each on one thread
                    let product = |i, chunk: &mut _| {
                        matmul_into_serial(chunk, xa, mat(la, bd, i), xb, mat(lb, bd, i), m, k, n)
                    };
                    crate::kernels::threads::par_chunks_mut(dst, per, &product);
                } else {
                    for (i, chunk) in dst.chunks_mut(per).enumerate() {
                        matmul_into(chunk, xa, mat(la, bd, i), xb, mat(lb, bd, i), m, k, n);
                    }
                }
            })
        });
        // Safety: each of the `batch` products wrote all m·n elements of its chunk.
        unsafe { out.set_len(len) };
        Tensor::from_vec(out, &shape)
    })
}

/// `batched_product` of complex operands: four real products of their parts (no history).
fn complex_product(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let ((ar, ai), (br, bi)) = (a.detach().parts()?, b.detach().parts()?);
    let re = batched_product(&ar, &br)?.sub(&batched_product(&ai, &bi)?)?;
    let im = batched_product(&ar, &bi)?.add(&batched_product(&ai, &br)?)?;
    Tensor::complex(&re, &im)
}

impl Tensor {
    /// `torch.mm` (autocast: lower precision).
    pub fn mm(&self, other: &Tensor) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| autocast::run2(Policy::LowerPrecision, x[0], x[1], |a, b| a.mm_uncast(b));
        traced("mm", NodeKind::Opaque, &[self, other], || eager(&[self, other]), || eager)
    }
    /// `torch.bmm` (autocast: lower precision).
    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| autocast::run2(Policy::LowerPrecision, x[0], x[1], |a, b| a.bmm_uncast(b));
        traced("bmm", NodeKind::Opaque, &[self, other], || eager(&[self, other]), || eager)
    }
    /// `torch.matmul` (autocast: lower precision).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| autocast::run2(Policy::LowerPrecision, x[0], x[1], |a, b| a.matmul_uncast(b));
        traced("matmul", NodeKind::Opaque, &[self, other], || eager(&[self, other]), || eager)
    }

    fn mm_uncast(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 {
            bail!(Runtime, "self must be a matrix");
        }
        if other.ndim() != 2 {
            bail!(Runtime, "mat2 must be a matrix");
        }
        if self.shape()[1] != other.shape()[0] {
            bail!(
                Runtime,
                "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                self.shape()[0],
                self.shape()[1],
                other.shape()[0],
                other.shape()[1]
            );
        }
        check_dtypes(self, other, "m1 and m2")?;
        let out = batched_product(self, other)?;
        Ok(record(out, &[self, other], |_| MmBackward0 {
            self_: other.requires_grad().then(|| SavedTensor::input(self)),
            self_sym_sizes: matrix(self.shape()),
            self_sym_strides: self.requires_grad().then(|| matrix(self.strides())),
            mat2: self.requires_grad().then(|| SavedTensor::input(other)),
            mat2_sym_sizes: matrix(other.shape()),
            mat2_sym_strides: other.requires_grad().then(|| matrix(other.strides())),
        }))
    }

    fn bmm_uncast(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 3 {
            bail!(Runtime, "batch1 must be a 3D tensor");
        }
        if other.ndim() != 3 {
            bail!(Runtime, "batch2 must be a 3D tensor");
        }
        let (s, o) = (self.shape(), other.shape());
        if o[0] != s[0] || o[1] != s[2] {
            bail!(
                Runtime,
                "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                s[0],
                s[2],
                o[0],
                o[1]
            );
        }
        check_dtypes(self, other, "scalar type")?;
        let out = batched_product(self, other)?;
        Ok(record(out, &[self, other], |_| BmmBackward0 {
            self_: SavedTensor::input(self),
            mat2: SavedTensor::input(other),
        }))
    }

    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 || vec.ndim() != 1 {
            bail!(Runtime, "vector + matrix @ vector expected, got 1, {}, {}", self.ndim(), vec.ndim());
        }
        if self.shape()[1] != vec.shape()[0] {
            bail!(
                Runtime,
                "size mismatch, got input ({}), mat ({}x{}), vec ({})",
                self.shape()[0],
                self.shape()[0],
                self.shape()[1],
                vec.shape()[0]
            );
        }
        check_dtypes(self, vec, "m1 and m2")?;
        let col = vec.detach().unsqueeze(1)?;
        let out = batched_product(&self.detach(), &col)?.detach().reshape(&[self.shape()[0]])?;
        Ok(record(out, &[self, vec], |_| MvBackward0 { self_: SavedTensor::input(self), vec: SavedTensor::input(vec) }))
    }

    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            bail!(Runtime, "1D tensors expected, but got {}D and {}D tensors", self.ndim(), other.ndim());
        }
        if self.shape()[0] != other.shape()[0] {
            bail!(
                Runtime,
                "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of \
                elements, but got {} and {} elements respectively",
                self.shape()[0],
                other.shape()[0],
                self.shape()[0],
                other.shape()[0]
            );
        }
        check_dtypes(self, other, "both vectors")?;
        let row = self.detach().unsqueeze(0)?;
        let col = other.detach().unsqueeze(1)?;
        let out = batched_product(&row, &col)?.detach().reshape(&[])?;
        let rule = |_: &Tensor| DotBackward0 { self_: SavedTensor::input(self), tensor: SavedTensor::input(other) };
        Ok(record(out, &[self, other], rule))
    }

    /// Whether every dim but the last merges into one without a copy (the last may have any stride), as
    /// PyTorch's `should_fold` checks it (strides compared as they are, size-1 dims included).
    fn folds_to_rows(&self) -> bool {
        let (shape, strides) = (self.shape(), self.strides());
        let n = shape.len();
        self.numel() == 0 || (0..n.saturating_sub(2)).all(|i| strides[i] == strides[i + 1] * shape[i + 1])
    }

    /// `torch.matmul`: 1-D operands are promoted to matrices and back; batch dims broadcast.
    fn matmul_uncast(&self, other: &Tensor) -> Result<Tensor> {
        let (da, db) = (self.ndim(), other.ndim());
        if da == 0 || db == 0 {
            bail!(Runtime, "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D");
        }
        match (da, db) {
            (1, 1) => self.dot(other),
            (2, 1) => self.mv(other),
            (1, 2) => Ok(self.unsqueeze(0)?.mm(other)?.squeezed_in_place(0)),
            (2, 2) => self.mm(other),
            (_, 2)
                if self.shape()[da - 1] == other.shape()[0]
                    && (other.requires_grad() || self.is_contiguous() || self.folds_to_rows()) =>
            {
                // as PyTorch (`should_fold`), a batch of matrices times one matrix is folded into one product:
                // always when the matrix needs its gradient, else when the batch dims fold without a copy
                // (and whenever contiguous, as before: `is_contiguous` ignores the strides of size-1 dims,
                // which `folds_to_rows` compares)
                let k = self.shape()[da - 1];
                let rows = self.shape()[..da - 1].iter().product::<usize>();
                let mut shape = self.shape()[..da - 1].to_vec();
                shape.push(other.shape()[1]);
                self.reshape(&[rows, k])?.mm(other)?.unsafe_view(&shape)
            }
            _ => {
                let a = if da == 1 { self.unsqueeze(0)? } else { self.clone() };
                let b = if db == 1 { other.unsqueeze(1)? } else { other.clone() };
                let (m, k) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
                let (k2, n) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
                if k != k2 {
                    let batch_a: usize = a.shape()[..a.ndim() - 2].iter().product();
                    bail!(
                        Runtime,
                        "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                        batch_a * m,
                        k,
                        k2,
                        n
                    );
                }
                let batch = broadcast_shapes(&a.shape()[..a.ndim() - 2], &b.shape()[..b.ndim() - 2])?;
                let nb: usize = batch.iter().product();
                let expand_to = |t: &Tensor, rows: usize, cols: usize| -> Result<Tensor> {
                    let mut shape = batch.clone();
                    shape.extend([rows, cols]);
                    let e = if t.shape() == shape.as_slice() { t.clone() } else { t.expand(&shape)? };
                    e.reshape(&[nb, rows, cols])
                };
                let out = expand_to(&a, m, k)?.bmm(&expand_to(&b, k, n)?)?;
                let mut shape = batch.clone();
                if da > 1 {
                    shape.push(m);
                }
                if db > 1 {
                    shape.push(n);
                }
                out.unsafe_view(&shape)
            }
        }
    }
}

crate::backward_rule! {
    /// `self @ mat2` of two matrices. Each factor is kept only for the other's gradient; the sizes and
    /// strides are PyTorch's fields of this node (what `grad_fn._saved_*` shows).
    pub struct MmBackward0 {
        self_: Option<SavedTensor>,
        self_sym_sizes: [usize; 2],
        self_sym_strides: MatrixStrides,
        mat2: Option<SavedTensor>,
        mat2_sym_sizes: [usize; 2],
        mat2_sym_strides: MatrixStrides,
    }
}
impl Backward for MmBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        matrix_grads(ctx, g, (&self.self_, self.self_sym_strides), (&self.mat2, self.mat2_sym_strides), 0)
    }
}

/// The first two entries of a matrix's sizes or strides.
pub(crate) fn matrix(v: &[usize]) -> [usize; 2] {
    [v[0], v[1]]
}

/// The gradients of `a @ b` (inputs `first` and `first + 1` of the node), each from the other factor.
pub(crate) fn matrix_grads(
    ctx: &Ctx<'_>,
    g: &Tensor,
    (a, a_strides): (&Option<SavedTensor>, MatrixStrides),
    (b, b_strides): (&Option<SavedTensor>, MatrixStrides),
    first: usize,
) -> Result<Grads> {
    // each gradient in its factor's memory order, as PyTorch's mm_mat1/mm_mat2_backward: `linear`'s
    // transposed weight gets (gᵀ a)ᵀ, so the weight's gradient arrives row-major and AccumulateGrad keeps it
    // as it is instead of copying it out of a transposed view (a tenth of an MLP's training step)
    let ga = ctx.grad_if(first, || {
        // the other factor conjugated for complex operands (torch's rule; a real one is its own conjugate)
        let b = ctx.unpack_opt(b)?.expect("saved when needed").conj()?;
        if column_major(a_strides, g.shape()[0]) {
            b.mm(&g.t()?)?.t()
        } else {
            g.mm(&b.t()?)
        }
    })?;
    let gb = ctx.grad_if(first + 1, || {
        let a = ctx.unpack_opt(a)?.expect("saved when needed").conj()?;
        if column_major(b_strides, a.shape()[1]) {
            g.t()?.mm(&a)?.t()
        } else {
            a.t()?.mm(g)
        }
    })?;
    Ok(vec![ga, gb])
}

/// Whether a matrix of `rows` rows with these strides is stored column by column (a transposed view).
fn column_major(strides: MatrixStrides, rows: usize) -> bool {
    strides.is_some_and(|[s0, s1]| s0 == 1 && s1 == rows && rows != 1)
}

crate::backward_rule! {
    /// `self @ mat2` of two batches of matrices.
    pub struct BmmBackward0 {
        self_: SavedTensor,
        mat2: SavedTensor,
    }
}
impl Backward for BmmBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack(&self.self_)?.conj()?, ctx.unpack(&self.mat2)?.conj()?);
        Ok(vec![ctx.grad_if(0, || g.bmm(&b.transpose(1, 2)?))?, ctx.grad_if(1, || a.transpose(1, 2)?.bmm(g))?])
    }
}

crate::backward_rule! {
    /// `self @ vec`, a matrix times a vector.
    pub struct MvBackward0 {
        self_: SavedTensor,
        vec: SavedTensor,
    }
}
impl Backward for MvBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, v) = (ctx.unpack(&self.self_)?.conj()?, ctx.unpack(&self.vec)?.conj()?);
        Ok(vec![ctx.grad_if(0, || g.unsqueeze(1)?.mm(&v.unsqueeze(0)?))?, ctx.grad_if(1, || a.t()?.mv(g))?])
    }
}

crate::backward_rule! {
    /// The dot product of two vectors.
    pub struct DotBackward0 {
        self_: SavedTensor,
        tensor: SavedTensor,
    }
}
impl Backward for DotBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (a, b) = (ctx.unpack(&self.self_)?.conj()?, ctx.unpack(&self.tensor)?.conj()?);
        Ok(vec![ctx.grad_if(0, || g.mul(&b))?, ctx.grad_if(1, || g.mul(&a))?])
    }
}
