//! The discrete Fourier transform of a complex tensor along one dim (rustfft), the primitive `torch.fft`'s
//! complex-to-complex transforms are made of (the Python facade pads, trims and picks the scale).
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::element::Float;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use rustfft::num_complex::Complex;
use rustfft::{FftDirection, FftNum, FftPlanner};

/// Each row of `n` (re, im) pairs in `pairs` transformed in place, then multiplied by `scale`.
fn transform_rows<T: Float + FftNum>(pairs: &mut [T], n: usize, forward: bool, scale: f64) {
    let direction = if forward { FftDirection::Forward } else { FftDirection::Inverse };
    let plan = FftPlanner::<T>::new().plan_fft(n, direction);
    let scale = <T as crate::element::Element>::from_f64(scale);
    let mut row = vec![Complex::new(T::ZERO, T::ZERO); n];
    for chunk in pairs.chunks_exact_mut(2 * n) {
        for (c, p) in row.iter_mut().zip(chunk.chunks_exact(2)) {
            *c = Complex::new(p[0], p[1]);
        }
        plan.process(&mut row);
        for (c, p) in row.iter().zip(chunk.chunks_exact_mut(2)) {
            p[0] = c.re * scale;
            p[1] = c.im * scale;
        }
    }
}

impl Tensor {
    /// The transform of this complex tensor along `dim` (forward: e^{-2 pi i jk/n}; inverse: e^{+...}, not divided
    /// by n), times `scale`: torch's `_fft_c2c` for one dim. Recorded as torch's FftC2CBackward0.
    pub fn fft_c2c(&self, dim: isize, forward: bool, scale: f64) -> Result<Tensor> {
        if !self.is_complex() {
            crate::bail!(Runtime, "_fft_c2c expects a complex input tensor, but got {}", self.dtype().name());
        }
        let d = wrap_dim(dim, self.ndim().max(1))?;
        let n = self.shape().get(d).copied().unwrap_or(1);
        // the transformed dim last, dense: each row of n pairs is one transform
        let last = self.ndim().saturating_sub(1) as isize;
        let moved = self.detach().movedim(&[d as isize], &[last])?.contiguous()?;
        let pairs = moved.view_as_real()?;
        let values = if n == 0 || self.numel() == 0 {
            pairs.contiguous_copy()?
        } else {
            crate::with_float_dtype!(
                pairs.dtype(),
                T => {
                    let mut v = pairs.to_vec::<T>();
                    transform_rows::<T>(&mut v, n, forward, scale);
                    Tensor::from_vec(v, pairs.shape())?
                },
                return Err(crate::dtype::complex_refusal(self.dtype()))
            )
        };
        let out = values.view_as_complex()?.movedim(&[last], &[d as isize])?.contiguous()?;
        Ok(record(out, &[self], |_| FftC2CBackward0 { dim: d, forward, scale }))
    }
}

crate::backward_rule! {
    /// One dim's complex transform: the gradient transformed the other way with the same scale (the adjoint of a
    /// scaled DFT matrix).
    pub struct FftC2CBackward0 {
        dim: usize,
        forward: bool,
        scale: f64,
    }
}
impl Backward for FftC2CBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.fft_c2c(self.dim as isize, !self.forward, self.scale))
    }
}
