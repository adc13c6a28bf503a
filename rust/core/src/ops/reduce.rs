//! Reductions: sum, mean, norm, all, any, and the sum back down to a broadcast input's shape.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::element::Element as _;
use crate::error::Result;
use crate::kernels::reduce::fold;
use crate::layout::{wrap_dim, Layout};
use crate::tensor::Tensor;

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

pub(crate) fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if dims.contains(&i) { keepdim.then_some(1) } else { Some(d) })
        .collect()
}

/// Sum over `dims`, accumulating floats in f64 (accurate for any length).
fn sum_kernel(x: &Tensor, dims: &[usize]) -> Vec<f64> {
    if dims.is_empty() {
        return x.to_vec::<f64>();
    }
    // A broadcast (stride-0) dim repeats its values: summing it is a multiplication (the common case
    // of a gradient expanded from a reduction, summed back down to a broadcast input's shape).
    let l = x.layout();
    let repeated: Vec<usize> = dims.iter().copied().filter(|&d| l.strides[d] == 0 && l.shape[d] > 1).collect();
    if !repeated.is_empty() {
        let factor: usize = repeated.iter().map(|&d| l.shape[d]).product();
        let mut shape = l.shape.clone();
        for &d in &repeated {
            shape[d] = 1;
        }
        let once =
            Tensor::from_storage(x.storage().clone(), Layout { shape, strides: l.strides.clone(), offset: l.offset })
                .expect("a sub-layout of a valid layout");
        let mut sums = sum_kernel(&once, dims);
        sums.iter_mut().for_each(|v| *v *= factor as f64);
        return sums;
    }
    if let Some((r, outer, n, inner)) = dense_block(x.layout(), dims) {
        return crate::with_dtype!(x.dtype(), T => {
            x.with_data(|_, v: &[T]| crate::kernels::sum::sum_block(&v[r], outer, n, inner))
        });
    }
    crate::with_dtype!(x.dtype(), T => x.with_data(|l, v: &[T]| fold(l, v, dims, 0.0f64, |a, b| a + b.to_f64())))
}

/// Where the blocked, threaded sum kernel can read `l`'s data in place: its range, and the
/// (outer, summed, inner) block. Either `l` is contiguous with adjacent `dims`, or it is a dense
/// permutation (x.T) whose dims, put in memory order, are — when the kept dims keep their order
/// there, so the sums come out in the order of the result.
fn dense_block(l: &Layout, dims: &[usize]) -> Option<(std::ops::Range<usize>, usize, usize, usize)> {
    let in_place = |l: &Layout, dims: &[usize]| {
        let (outer, n, inner) = crate::kernels::sum::as_block(l, dims)?;
        Some((l.contiguous_range()?, outer, n, inner))
    };
    if let Some(block) = in_place(l, dims) {
        return Some(block);
    }
    let perm = l.memory_order()?;
    let kept: Vec<usize> = perm.iter().copied().filter(|d| !dims.contains(d)).collect();
    if !kept.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    let moved: Vec<usize> = (0..perm.len()).filter(|&i| dims.contains(&perm[i])).collect();
    in_place(&l.permute(&perm), &moved)
}

pub(crate) fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    crate::with_dtype!(dtype, T => Tensor::from_vec(crate::kernels::simd::map_slice(&values, T::from_f64), shape))
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
        let op = move || {
            if all {
                BackwardOp::Sum { shape: input_shape }
            } else {
                BackwardOp::SumDim { shape: input_shape, dims, keepdim }
            }
        };
        Ok(record(out, &[self], op, |_| vec![]))
    }

    pub fn mean(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(
                Runtime,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. \
                    Got: {}",
                self.dtype().scalar_type_name()
            );
        }
        let all = dims.is_none();
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let count = dims.iter().map(|&d| self.shape()[d]).product::<usize>() as f64;
        let sums = sum_kernel(self, &dims);
        let out = from_f64s(sums.into_iter().map(|s| s / count).collect(), &shape, self.dtype())?;
        let input_shape = self.shape().to_vec();
        let op = move || {
            if all {
                BackwardOp::Mean { shape: input_shape }
            } else {
                BackwardOp::MeanDim { shape: input_shape, dims, keepdim }
            }
        };
        Ok(record(out, &[self], op, |_| vec![]))
    }

    /// `all(dim, keepdim)` (`is_all`) or `any`: bool results (uint8 for a uint8 input, as torch);
    /// `dims` None reduces every dim.
    pub fn all_any(&self, dims: Option<&[isize]>, keepdim: bool, is_all: bool) -> Result<Tensor> {
        let dims = reduction_dims(dims, self.ndim())?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let v = self.with_data(|l, x: &[bool]| {
            if is_all {
                fold(l, x, &dims, true, |a, b| a && b)
            } else {
                fold(l, x, &dims, false, |a, b| a || b)
            }
        });
        let out = Tensor::from_vec(v, &shape)?;
        Ok(if self.dtype() == DType::U8 { out.cast_detached(DType::U8) } else { out })
    }

    pub fn all(&self) -> Result<Tensor> {
        self.all_any(None, false, true)
    }

    pub fn any(&self) -> Result<Tensor> {
        self.all_any(None, false, false)
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
        if summed.shape() == shape {
            Ok(summed)
        } else {
            summed.reshape(shape)
        }
    }
}

/// Whether `v` replaces the running extreme `a` (NaN wins and then stays; ties keep the first).
#[inline(always)]
fn better<T: crate::element::Element>(v: T, a: T, is_max: bool) -> bool {
    #[allow(clippy::eq_op)]
    let (v_nan, a_nan) = (v != v, a != a);
    if a_nan {
        return false;
    }
    if v_nan {
        return true;
    }
    if is_max {
        v > a
    } else {
        v < a
    }
}

/// The extreme of each group and its position within the group (dims must hold one dim for a
/// meaningful index).
fn extreme_kernel<T: crate::element::Element>(x: &Tensor, dims: &[usize], is_max: bool) -> (Vec<T>, Vec<i64>) {
    let acc = x.with_data(|l, v: &[T]| {
        fold(l, v, dims, (None::<T>, 0i64, 0i64), |(best, at, n), v| match best {
            Some(b) if !better(v, b, is_max) => (Some(b), at, n + 1),
            _ => (Some(v), n, n + 1),
        })
    });
    acc.into_iter().map(|(b, at, _)| (b.unwrap_or_default(), at)).unzip()
}

/// 0, 1, ..., n-1 along `dim` of an `ndim`-dim tensor (size 1 elsewhere).
fn positions(n: usize, dim: usize, ndim: usize) -> Result<Tensor> {
    let mut shape = vec![1; ndim];
    shape[dim] = n;
    Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), &shape)
}

impl Tensor {
    fn check_nonempty_reduction(&self, name: &str, dims: &[usize], all: bool) -> Result<()> {
        if self.numel() == 0 {
            if all {
                bail!(
                    Runtime,
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the \
                    reduction dim with the 'dim' argument."
                );
            }
            if let Some(d) = dims.iter().find(|&&d| self.shape()[d] == 0) {
                bail!(Index, "{name}(): Expected reduction dim {d} to have non-zero size.");
            }
        }
        Ok(())
    }

    /// amax/amin (`dims` None: all) and max()/min() without a dim (`all_name`); the gradient is
    /// shared evenly among tied extremes.
    pub fn amax_amin(&self, dims: Option<&[isize]>, keepdim: bool, is_max: bool, full_form: bool) -> Result<Tensor> {
        let all = dims.is_none() || dims.is_some_and(|d| d.is_empty());
        let dims = reduction_dims(if all { None } else { dims }, self.ndim())?;
        let name = match (full_form, is_max) {
            (true, true) => "max",
            (true, false) => "min",
            (false, true) => "amax",
            (false, false) => "amin",
        };
        self.check_nonempty_reduction(name, &dims, all)?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = crate::with_dtype!(self.dtype(), T => {
            Tensor::from_vec(extreme_kernel::<T>(self, &dims, is_max).0, &shape)?
        });
        let input_shape = self.shape().to_vec();
        let op = move || BackwardOp::Extreme { shape: input_shape, dims, keepdim, is_max, full_form };
        Ok(record(out, &[self], op, |out| vec![SavedTensor::input(self), SavedTensor::output(out)]))
    }

    /// max/min along one dim: (values, indices of the first extreme); the gradient goes to that index.
    pub fn max_min_dim(&self, dim: isize, keepdim: bool, is_max: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let dims: Vec<usize> = if self.ndim() == 0 { vec![] } else { vec![d] };
        self.check_nonempty_reduction(if is_max { "max" } else { "min" }, &dims, false)?;
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let (values, indices) = crate::with_dtype!(self.dtype(), T => {
            let (v, i) = extreme_kernel::<T>(self, &dims, is_max);
            (Tensor::from_vec(v, &shape)?, Tensor::from_vec(i, &shape)?)
        });
        let input_shape = self.shape().to_vec();
        let op = || BackwardOp::IndexedExtreme { shape: input_shape, dim: dims.first().copied(), keepdim, is_max };
        let values = record(values, &[self], op, |_| vec![SavedTensor::input(&indices)]);
        Ok((values, indices))
    }

    /// argmax/argmin: over all elements (flattened) when `dim` is None.
    pub fn argmax_argmin(&self, dim: Option<isize>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let name = if is_max { "argmax" } else { "argmin" };
        match dim {
            None => {
                if self.numel() == 0 {
                    bail!(Index, "{name}(): Expected reduction dim to be specified for input.numel() == 0.");
                }
                let flat = self.detach().reshape(&[self.numel()])?;
                let i = flat.max_min_dim(0, false, is_max)?.1;
                if keepdim {
                    i.reshape(&vec![1; self.ndim()])
                } else {
                    Ok(i)
                }
            }
            Some(d) => {
                let w = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 && self.shape()[w] == 0 {
                    bail!(Index, "{name}(): Expected reduction dim {w} to have non-zero size.");
                }
                Ok(self.detach().max_min_dim(d, keepdim, is_max)?.1)
            }
        }
    }

    /// `prod` over all elements or one dim; ints and bools multiply to int64.
    pub fn prod(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        let all = dim.is_none();
        let dims = match dim {
            None => reduction_dims(None, self.ndim())?,
            Some(d) => reduction_dims(Some(&[d]), self.ndim())?,
        };
        let shape = reduced_shape(self.shape(), &dims, keepdim);
        let out = if self.dtype().is_float() {
            from_f64s(self.with_data(|l, v: &[f64]| fold(l, v, &dims, 1.0, |a, b| a * b)), &shape, self.dtype())?
        } else {
            Tensor::from_vec(self.with_data(|l, v: &[i64]| fold(l, v, &dims, 1i64, |a, b| a.wrapping_mul(b))), &shape)?
        };
        let input_shape = self.shape().to_vec();
        let op = move || BackwardOp::Prod { shape: input_shape, dims, keepdim, all };
        Ok(record(out, &[self], op, |out| vec![SavedTensor::input(self), SavedTensor::output(out)]))
    }

    /// var (`std` = false) or std with `correction` (1: unbiased), over `dims` (None: all).
    pub fn var_std(&self, dims: Option<&[isize]>, correction: f64, keepdim: bool, std: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "std and var only support floating point and complex dtypes");
        }
        let dims = reduction_dims(dims, self.ndim())?;
        let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
        let n = dims.iter().map(|&d| self.shape()[d]).product::<usize>() as f64;
        let x = self.detach();
        let dev = x.sub(&x.mean(Some(&idims), true)?)?;
        let var = dev.mul(&dev)?.sum(Some(&idims), keepdim)?.div(&Tensor::scalar((n - correction).max(0.0)))?;
        let out = if std { var.sqrt()? } else { var };
        let op = move || BackwardOp::VarStd { dims, keepdim, correction, std };
        Ok(record(out, &[self], op, |out| vec![SavedTensor::input(self), SavedTensor::output(out)]))
    }

    /// log(sum(exp(x))) over `dims`, shifted by the max for stability.
    pub fn logsumexp(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let x = if self.dtype().is_float() { self.detach() } else { self.to_dtype(DType::F32)? };
        let dims_u = reduction_dims(Some(dims), self.ndim())?;
        let idims: Vec<isize> = dims_u.iter().map(|&d| d as isize).collect();
        let out = if x.numel() == 0 {
            x.sum(Some(&idims), keepdim)?.log()?
        } else {
            let m = x.amax_amin(Some(&idims), true, true, false)?;
            // an infinite max would make x - m NaN: shift by 0 there instead
            let m = Tensor::where_(&m.float_class(1)?, &Tensor::scalar(0.0), &m)?;
            let s = x.sub(&m)?.exp()?.sum(Some(&idims), true)?.log()?.add(&m)?;
            if keepdim {
                s
            } else {
                squeeze_dims(&s, &dims_u)?
            }
        };
        let op = move || BackwardOp::Logsumexp { dims: dims_u, keepdim };
        Ok(record(out, &[self], op, |out| vec![SavedTensor::input(self), SavedTensor::output(out)]))
    }

    /// Running sum along `dim` (from the end when `reverse`); ints and bools sum to int64.
    pub fn cumsum(&self, dim: isize, reverse: bool) -> Result<Tensor> {
        let (d, out) = self.scan(dim, reverse, 0.0, |a, b| a + b, 0, i64::wrapping_add)?;
        Ok(record(out, &[self], move || BackwardOp::Cumsum { dim: d, reverse }, |_| vec![]))
    }

    /// Running product along `dim`; ints and bools multiply to int64.
    pub fn cumprod(&self, dim: isize) -> Result<Tensor> {
        let (d, out) = self.scan(dim, false, 1.0, |a, b| a * b, 1, i64::wrapping_mul)?;
        Ok(record(
            out,
            &[self],
            move || BackwardOp::Cumprod { dim: d },
            |out| vec![SavedTensor::input(self), SavedTensor::output(out)],
        ))
    }

    /// A running fold along `dim` (floats in f64, the rest in int64); returns the wrapped dim too.
    fn scan(
        &self,
        dim: isize,
        reverse: bool,
        float_init: f64,
        float_f: fn(f64, f64) -> f64,
        int_init: i64,
        int_f: fn(i64, i64) -> i64,
    ) -> Result<(usize, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let shape = self.shape().to_vec();
        let n = if shape.is_empty() { 1 } else { shape[d] };
        let inner: usize = shape.iter().skip(d + 1).product();
        fn run<T: Copy>(x: &mut [T], n: usize, inner: usize, reverse: bool, init: T, f: fn(T, T) -> T) {
            let outer = x.len().checked_div(n * inner).unwrap_or(0);
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = init;
                    for k in 0..n {
                        let k = if reverse { n - 1 - k } else { k };
                        let p = (o * n + k) * inner + i;
                        acc = f(acc, x[p]);
                        x[p] = acc;
                    }
                }
            }
        }
        let out = if self.dtype().is_float() {
            let mut v = self.to_vec::<f64>();
            run(&mut v, n, inner, reverse, float_init, float_f);
            from_f64s(v, &shape, self.dtype())?
        } else {
            let mut v = self.to_vec::<i64>();
            run(&mut v, n, inner, reverse, int_init, int_f);
            Tensor::from_vec(v, &shape)?
        };
        Ok((d, out))
    }
}

fn squeeze_dims(t: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let mut t = t.clone();
    for &d in dims.iter().rev() {
        t = t.squeeze_dim(d as isize)?;
    }
    Ok(t)
}

pub(crate) fn positions_along(n: usize, dim: usize, ndim: usize) -> Result<Tensor> {
    positions(n, dim, ndim)
}
