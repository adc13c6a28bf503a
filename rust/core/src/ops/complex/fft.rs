//! The discrete Fourier transforms `torch.fft` is made of (rustfft), torch's three primitives over a list of
//! dims: complex to complex (`_fft_c2c`), real to complex (`_fft_r2c`, the forward transform, optionally only
//! the non-negative frequencies of the last dim) and complex to real (`_fft_c2r`, the inverse transform of a
//! Hermitian half-spectrum). The Python facade pads, trims, conjugates and picks the scale.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::element::Float;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;
use rustfft::num_complex::Complex;
use rustfft::{FftDirection, FftNum, FftPlanner};

/// What one row's transform is: its direction, and how the row's input (`m` pairs) becomes its output.
#[derive(Clone, Copy)]
enum Row {
    /// `m` pairs in, `m` out.
    C2C { forward: bool },
    /// A real signal's `m` points (as pairs with zero imaginary parts) forward; the first `out` frequencies kept.
    R2C,
    /// The `n / 2 + 1` non-negative frequencies of a real signal of `n` points, inverse: `n` pairs whose real
    /// parts are the signal.
    C2R,
}

/// The geometry of one dim's rows in a dense tensor of (re, im) pairs: `outer` blocks of `m` rows of `inner`
/// pairs, a row being the `m` pairs `inner` apart.
#[derive(Clone, Copy)]
struct Rows {
    outer: usize,
    m: usize,
    inner: usize,
}

/// Each row of `pairs` (laid out as `rows` says) transformed as `kind` says into `out` pairs, times `scale`, in
/// the same layout with `out` in place of `m`; the outer blocks in parallel.
fn transform_rows<T: Float + FftNum>(pairs: &[T], rows: Rows, out: usize, kind: Row, scale: f64) -> Vec<T> {
    let Rows { outer, m, inner } = rows;
    let n = if matches!(kind, Row::C2R) { out } else { m };
    let forward = !matches!(kind, Row::C2R | Row::C2C { forward: false });
    let direction = if forward { FftDirection::Forward } else { FftDirection::Inverse };
    let plan = FftPlanner::<T>::new().plan_fft(n, direction);
    let scale = <T as crate::element::Element>::from_f64(scale);
    let mut values = vec![T::ZERO; outer * out * inner * 2];
    // a few tasks per thread; one task for a small transform
    let blocks_per_task = if outer * inner * n < 1 << 15 {
        outer.max(1)
    } else {
        outer.div_ceil(4 * crate::kernels::threads::threads()).max(1)
    };
    let task = |c: usize, chunk: &mut [T]| {
        let zero = Complex::new(T::ZERO, T::ZERO);
        let mut row = vec![zero; n];
        let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
        for (b, dst) in chunk.chunks_exact_mut(out * inner * 2).enumerate() {
            let src = &pairs[(c * blocks_per_task + b) * m * inner * 2..][..m * inner * 2];
            for i in 0..inner {
                for (k, c) in row.iter_mut().take(m).enumerate() {
                    let at = (k * inner + i) * 2;
                    *c = Complex::new(src[at], src[at + 1]);
                }
                if matches!(kind, Row::C2R) {
                    // the zero (and an even length's Nyquist) frequency of a real signal is real: its imaginary
                    // part is dropped exactly, as torch's; the negative frequencies are the positive ones'
                    // conjugates
                    row[0].im = T::ZERO;
                    if n % 2 == 0 {
                        row[n / 2].im = T::ZERO;
                    }
                    for k in 1..n - n / 2 {
                        row[n - k] = row[k].conj();
                    }
                }
                plan.process_with_scratch(&mut row, &mut scratch);
                if matches!(kind, Row::R2C) {
                    row[0].im = T::ZERO;
                    if n % 2 == 0 {
                        row[n / 2].im = T::ZERO;
                    }
                }
                for (k, c) in row[..out].iter().enumerate() {
                    let at = (k * inner + i) * 2;
                    dst[at] = c.re * scale;
                    dst[at + 1] = c.im * scale;
                }
            }
        }
    };
    crate::kernels::threads::par_chunks_mut(&mut values, blocks_per_task * out * inner * 2, &task);
    values
}

/// The complex tensor `x` (no history) with every row along dim `d` transformed as `kind` into `out` pairs.
fn along(x: &Tensor, d: usize, out: usize, kind: Row, scale: f64) -> Result<Tensor> {
    let x = x.contiguous()?;
    let shape = x.shape();
    let rows = Rows { outer: shape[..d].iter().product(), m: shape[d], inner: shape[d + 1..].iter().product() };
    let mut pair_shape = shape.to_vec();
    pair_shape[d] = out;
    pair_shape.push(2);
    let pairs = x.view_as_real()?;
    let values = if x.numel() == 0 {
        Tensor::zeros(&pair_shape, pairs.dtype())
    } else {
        crate::with_float_dtype!(
            pairs.dtype(),
            T => {
                let v = pairs.with_data(|layout, data: &[T]| {
                    let dense = &data[layout.contiguous_range().expect("a contiguous tensor's pairs")];
                    transform_rows::<T>(dense, rows, out, kind, scale)
                });
                Tensor::from_vec(v, &pair_shape)?
            },
            return Err(crate::dtype::complex_refusal(x.dtype()))
        )
    };
    values.view_as_complex()
}

/// `dims` wrapped, checked unique and non-empty over a tensor of `ndim` dims (at least one).
fn wrapped(dims: &[isize], ndim: usize, op: &str) -> Result<Vec<usize>> {
    if ndim == 0 || dims.is_empty() {
        crate::bail!(Runtime, "{op} expects at least one dim over a tensor with at least one dim");
    }
    let dims = dims.iter().map(|&d| wrap_dim(d, ndim)).collect::<Result<Vec<_>>>()?;
    if (1..dims.len()).any(|i| dims[..i].contains(&dims[i])) {
        crate::bail!(Runtime, "FFT dims must be unique");
    }
    Ok(dims)
}

impl Tensor {
    /// The transform of this complex tensor over `dims` (forward: e^{-2 pi i jk/n}; inverse: e^{+...}, not
    /// divided by n), times `scale`: torch's `_fft_c2c`, recorded as its FftC2CBackward0.
    pub fn fft_c2c(&self, dims: &[isize], forward: bool, scale: f64) -> Result<Tensor> {
        if !self.is_complex() {
            crate::bail!(Runtime, "_fft_c2c expects a complex input tensor, but got {}", self.dtype().name());
        }
        let dims = wrapped(dims, self.ndim(), "_fft_c2c")?;
        let mut out = self.detach();
        for (i, &d) in dims.iter().enumerate() {
            let s = if i + 1 == dims.len() { scale } else { 1.0 };
            out = along(&out, d, self.shape()[d], Row::C2C { forward }, s)?;
        }
        Ok(record(out, &[self], |_| FftC2CBackward0 { dim: dims, forward, scale }))
    }

    /// The forward transform of this real (float32/float64) tensor over `dims`, times `scale`, as a complex
    /// tensor: only the `n / 2 + 1` non-negative frequencies of the last of `dims` when `onesided` (the others are
    /// their conjugates). torch's `_fft_r2c`, recorded as its FftR2CBackward0.
    pub fn fft_r2c(&self, dims: &[isize], scale: f64, onesided: bool) -> Result<Tensor> {
        if !matches!(self.dtype(), crate::dtype::DType::F32 | crate::dtype::DType::F64) {
            crate::bail!(Runtime, "_fft_r2c expects a real floating point input, but got {}", self.dtype().name());
        }
        let dims = wrapped(dims, self.ndim(), "_fft_r2c")?;
        let (&halved, others) = dims.split_last().expect("dims are non-empty");
        let n = self.shape()[halved];
        let complex = self.detach().complex_cast(self.dtype().to_complex())?;
        // the halved dim first, so its real frequencies are exactly real before the other dims mix them
        let keep = if onesided { n / 2 + 1 } else { n };
        let single = others.is_empty();
        let mut out = along(&complex, halved, keep, Row::R2C, if single { scale } else { 1.0 })?;
        for (i, &d) in others.iter().enumerate() {
            let s = if i + 1 == others.len() { scale } else { 1.0 };
            out = along(&out, d, self.shape()[d], Row::C2C { forward: true }, s)?;
        }
        Ok(record(out, &[self], |_| FftR2CBackward0 { dim: dims, scale, onesided, last_size: n }))
    }

    /// The inverse transform over `dims`, times `scale`, of the Hermitian spectrum whose non-negative
    /// frequencies along the last of `dims` this complex tensor holds (`last_size / 2 + 1` of them): the real
    /// signal, `last_size` points along that dim. torch's `_fft_c2r`, recorded as its FftC2RBackward0.
    pub fn fft_c2r(&self, dims: &[isize], scale: f64, last_size: usize) -> Result<Tensor> {
        if !self.is_complex() {
            crate::bail!(Runtime, "_fft_c2r expects a complex input tensor, but got {}", self.dtype().name());
        }
        let dims = wrapped(dims, self.ndim(), "_fft_c2r")?;
        let (&halved, others) = dims.split_last().expect("dims are non-empty");
        if last_size == 0 || self.shape()[halved] != last_size / 2 + 1 {
            crate::bail!(Runtime, "Invalid number of data points ({last_size}) specified");
        }
        let mut out = self.detach();
        for &d in others {
            out = along(&out, d, self.shape()[d], Row::C2C { forward: false }, 1.0)?;
        }
        let out = along(&out, halved, last_size, Row::C2R, scale)?.real_part()?.contiguous()?;
        Ok(record(out, &[self], |_| FftC2RBackward0 { dim: dims, scale }))
    }
}

crate::backward_rule! {
    /// `_fft_c2c`: the gradient transformed the other way with the same scale (the adjoint of a scaled DFT
    /// matrix).
    pub struct FftC2CBackward0 {
        dim: Vec<usize>,
        forward: bool,
        scale: f64,
    }
}
impl Backward for FftC2CBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let dims: Vec<isize> = self.dim.iter().map(|&d| d as isize).collect();
        one(g.fft_c2c(&dims, !self.forward, self.scale))
    }
}

crate::backward_rule! {
    /// `_fft_r2c`: the gradient (zero for the dropped negative frequencies) transformed back, its real part.
    pub struct FftR2CBackward0 {
        dim: Vec<usize>,
        scale: f64,
        onesided: bool,
        last_size: usize,
    }
}
impl Backward for FftR2CBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let halved = *self.dim.last().expect("dims are non-empty");
        let mut g = g.clone();
        if self.onesided && g.shape()[halved] < self.last_size {
            let mut shape = g.shape().to_vec();
            shape[halved] = self.last_size - shape[halved];
            let zeros = Tensor::complex_full(&shape, 0.0, 0.0, g.dtype())?;
            g = Tensor::cat(&[g, zeros], halved as isize)?;
        }
        let dims: Vec<isize> = self.dim.iter().map(|&d| d as isize).collect();
        one(g.fft_c2c(&dims, false, self.scale)?.real_part()?.contiguous())
    }
}

crate::backward_rule! {
    /// `_fft_c2r`: the gradient's forward real transform, the frequencies that stand for two (a positive one and
    /// its conjugate) doubled.
    pub struct FftC2RBackward0 {
        dim: Vec<usize>,
        scale: f64,
    }
}
impl Backward for FftC2RBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let halved = *self.dim.last().expect("dims are non-empty");
        let dims: Vec<isize> = self.dim.iter().map(|&d| d as isize).collect();
        let gi = g.fft_r2c(&dims, self.scale, true)?;
        let (n, m) = (g.shape()[halved], gi.shape()[halved]);
        let doubled = n - m;
        if doubled == 0 {
            return Ok(vec![Some(gi)]);
        }
        let weights: Vec<f64> = (0..m).map(|k| if (1..=doubled).contains(&k) { 2.0 } else { 1.0 }).collect();
        let mut shape = vec![1; gi.ndim()];
        shape[halved] = m;
        let weights = Tensor::from_vec(weights, &shape)?.to_dtype(g.dtype())?;
        one(gi.mul(&weights))
    }
}
