//! What every factorization op shares: PyTorch's input checks and messages, the batch of matrices
//! as float64 rows, and the result back in the input's dtype.
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `a`'s matrices (any layout, float32 or float64) as one row-major float64 buffer.
pub(super) struct Batch {
    pub values: Vec<f64>,
    /// The leading (batch) dimensions.
    pub dims: Vec<usize>,
    pub n: usize,
}

impl Batch {
    pub fn count(&self) -> usize {
        self.dims.iter().product()
    }
    pub fn matrix(&self, i: usize) -> &[f64] {
        let size = self.n * self.n;
        &self.values[i * size..(i + 1) * size]
    }
}

/// Refuses integer, bool and half-precision inputs as PyTorch does.
pub(super) fn check_float(a: &Tensor, func: &str) -> Result<()> {
    match a.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        DType::F16 | DType::BF16 => {
            bail!(NotImplemented, "{func}: Low precision dtypes not supported. Got {}", a.dtype().scalar_type_name())
        }
        d => bail!(
            NotImplemented,
            "{func}: Expected a floating point or complex tensor as input. Got {}",
            d.scalar_type_name()
        ),
    }
}

/// The batch of square float matrices in `a`, after PyTorch's checks for `func` (e.g. "linalg.inv").
pub(super) fn square_batch(a: &Tensor, func: &str) -> Result<Batch> {
    if a.ndim() < 2 {
        bail!(Runtime, "{func}: The input tensor A must have at least 2 dimensions.");
    }
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    if m != n {
        bail!(Runtime, "{func}: A must be batches of square matrices, but they are {m} by {n} matrices");
    }
    check_float(a, func)?;
    Ok(Batch { values: a.to_vec::<f64>(), dims: a.shape()[..a.ndim() - 2].to_vec(), n })
}

/// PyTorch's prefix naming the failing matrix of a batched input.
pub(super) fn batch_element(batch: &Batch, i: usize) -> String {
    if batch.dims.is_empty() {
        String::new()
    } else {
        format!("(Batch element {i}): ")
    }
}

/// float64 results of shape `shape` as a tensor of `dtype` (float32 rounds).
pub(super) fn to_tensor(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::F32 => Tensor::from_vec(values.into_iter().map(|v| v as f32).collect::<Vec<f32>>(), shape),
        _ => Tensor::from_vec(values, shape),
    }
}

/// `shape` with its last two dimensions swapped: the matrix transpose `mT`.
pub(super) fn mt(t: &Tensor) -> Result<Tensor> {
    t.transpose(-2, -1)
}

/// The n×n identity in `dtype` (a constant for formulas).
pub(super) fn eye(n: usize, dtype: DType) -> Result<Tensor> {
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    to_tensor(v, &[n, n], dtype)
}
