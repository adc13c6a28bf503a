//! Reductions: sum, mean, norm, all, any, and the sum back down to a broadcast input's shape.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::dtype::DType;
use crate::element::Element as _;
use crate::error::Result;
use crate::kernels::reduce::fold;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use crate::bail;

/// Wraps, sorts and checks a list of dims; `None` means every dim.
pub(crate) fn reduction_dims(dims: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(dims) = dims else { return Ok((0..ndim).collect()) };
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if out.contains(&w) {
            bail!(Runtime, "dim {w} appears multiple times in the list of dims");
        }
        out.push(w);
    }
    out.retain(|&d| d < ndim); // dim 0 of a 0-dim tensor reduces nothing
    out.sort_unstable();
    Ok(out)
}

fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if dims.contains(&i) { keepdim.then_some(1) } else { Some(d) })
        .collect()
}

/// Sum over `dims`, accumulating floats in f64 (accurate for any length).
fn sum_kernel(x: &Tensor, dims: &[usize]) -> Vec<f64> {
    x.with_data(|l, v: &[f64]| fold(l, v, dims, 0.0, |a, b| a + b))
}

fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    crate::with_dtype!(dtype, T => Tensor::from_vec(values.into_iter().map(T::from_f64).collect(), shape))
}

impl Tensor {
    /// `sum(dim=dims, keepdim)`; ints and bools sum to int64.
    pub fn sum(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let all = dims.is_none();
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = if self.dtype().is_float() {
            from_f64s(sum_kernel(self, &dims), &shape, self.dtype())?
        } else {
            let v = self.with_data(|l, x: &[i64]| fold(l, x, &dims, 0i64, |a, b| a.wrapping_add(b)));
            Tensor::from_vec(v, &shape)?
        };
        let input_shape = self.shape().to_vec();
        let op = move || if all { BackwardOp::Sum { shape: input_shape } } else { BackwardOp::SumDim { shape: input_shape, dims, keepdim } };
        Ok(record(out, &[self], op, |_| vec![]))
    }

    pub fn mean(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                Runtime,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                match self.dtype() { DType::Bool => "Bool", _ => "Long" }
            );
        }
        let all = dims.is_none();
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let count = dims.iter().map(|&d| self.shape()[d]).product::<usize>() as f64;
        let sums = sum_kernel(self, &dims);
        let out = from_f64s(sums.into_iter().map(|s| s / count).collect(), &shape, self.dtype())?;
        let input_shape = self.shape().to_vec();
        let op = move || if all { BackwardOp::Mean { shape: input_shape } } else { BackwardOp::MeanDim { shape: input_shape, dims, keepdim } };
        Ok(record(out, &[self], op, |_| vec![]))
    }

    /// The 2-norm of all elements.
    pub fn norm(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(Runtime, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}", match self.dtype() { DType::Bool => "Bool", _ => "Long" });
        }
        let dims: Vec<usize> = (0..self.ndim()).collect();
        let ss = self.with_data(|l, x: &[f64]| fold(l, x, &dims, 0.0, |a, b| a + b * b));
        let out = from_f64s(ss.into_iter().map(f64::sqrt).collect(), &[], self.dtype())?;
        Ok(record(out, &[self], || BackwardOp::Norm, |out| vec![SavedTensor::input(self), SavedTensor::output(out)]))
    }

    pub fn all(&self) -> Result<Tensor> {
        let dims: Vec<usize> = (0..self.ndim()).collect();
        Tensor::from_vec(self.with_data(|l, x: &[bool]| fold(l, x, &dims, true, |a, b| a && b)), &[])
    }

    pub fn any(&self) -> Result<Tensor> {
        let dims: Vec<usize> = (0..self.ndim()).collect();
        Tensor::from_vec(self.with_data(|l, x: &[bool]| fold(l, x, &dims, false, |a, b| a || b)), &[])
    }

    /// Sums a broadcast gradient back to `shape` (which must broadcast to this tensor's shape).
    pub fn sum_to_size(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let lead = match self.ndim().checked_sub(shape.len()) {
            Some(lead) => lead,
            None => bail!(Runtime, "size {{{:?}}} is not expandable to size {{{:?}}}.", shape, self.shape()),
        };
        let mut dims: Vec<isize> = (0..lead as isize).collect();
        for (i, &want) in shape.iter().enumerate() {
            let have = self.shape()[lead + i];
            if want == 1 && have != 1 {
                dims.push((lead + i) as isize);
            } else if want != have {
                bail!(Runtime, "size {{{:?}}} is not expandable to size {{{:?}}}.", shape, self.shape());
            }
        }
        let summed = if dims.is_empty() { self.clone() } else { self.sum(Some(&dims), true)? };
        if summed.shape() == shape { Ok(summed) } else { summed.reshape(shape) }
    }
}
