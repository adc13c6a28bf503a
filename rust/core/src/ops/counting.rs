//! Counting ops (no gradient): `bincount`, `histc` and `isin`.
use crate::bail;
use crate::dtype::result_type;
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::{with_dtype, DType};

impl Tensor {
    /// `bincount(weights, minlength)`: how often each value 0..=max occurs in this 1-d tensor of
    /// non-negative integers (int64), or the sum of `weights` at each (their float dtype; float64 for
    /// integer or bool weights); at least `minlength` bins.
    pub fn bincount(&self, weights: Option<&Tensor>, minlength: i64) -> Result<Tensor> {
        if self.dtype().is_float() || self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"bincount_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        if minlength < 0 {
            bail!(Runtime, "minlength should be >= 0");
        }
        let values = self.to_vec_i64();
        if self.ndim() != 1 || values.iter().any(|&v| v < 0) {
            bail!(Runtime, "bincount only supports 1-d non-negative integral inputs.");
        }
        if let Some(w) = weights {
            if w.ndim() != 1 || w.numel() != self.numel() {
                bail!(Runtime, "weights should be 1-d and have the same length as input");
            }
        }
        let bins = values.iter().map(|&v| v.saturating_add(1)).max().unwrap_or(0).max(minlength) as usize;
        crate::alloc::check_new_shape(&[bins], std::mem::size_of::<i64>())?;
        match weights {
            None => {
                let mut counts = vec![0i64; bins];
                for &v in &values {
                    counts[v as usize] += 1;
                }
                Tensor::from_vec(counts, &[bins])
            }
            Some(w) => {
                let dtype = if matches!(w.dtype(), DType::F32 | DType::F64) { w.dtype() } else { DType::F64 };
                let w = w.detach().to_dtype(dtype)?;
                with_dtype!(dtype, T => {
                    let mut sums = vec![T::ZERO; bins];
                    for (&v, &x) in values.iter().zip(&w.to_vec::<T>()) {
                        sums[v as usize] = T::add(sums[v as usize], x);
                    }
                    Tensor::from_vec(sums, &[bins])
                })
            }
        }
    }

    /// This tensor's elements as int64 (integer dtypes only).
    fn to_vec_i64(&self) -> Vec<i64> {
        with_dtype!(self.dtype(), T => self.to_vec::<T>().into_iter().map(Element::to_i64).collect())
    }

    /// `histc(bins, min, max)`: a histogram of `bins` equal bins over [min, max] (the data's extremes when
    /// min == max; widened by 1 each way when those agree too); elements outside it and NaNs are left out,
    /// `max` falls in the last bin. Float inputs only, result in their dtype.
    pub fn histc(&self, bins: i64, min: f64, max: f64) -> Result<Tensor> {
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"histogram_cpu\" not implemented for '{}'", self.dtype().scalar_type_name());
        }
        if bins <= 0 {
            bail!(Runtime, "torch.histogram(): bins must be > 0, but got {bins} for dimension 0");
        }
        let data: Vec<f64> =
            with_dtype!(self.dtype(), T => self.to_vec::<T>().into_iter().map(Element::to_f64).collect());
        let (mut lo, mut hi) = (min, max);
        if lo == hi && !data.is_empty() {
            // torch takes aminmax, where NaN wins
            let any_nan = data.iter().any(|v| v.is_nan());
            lo = if any_nan { f64::NAN } else { data.iter().copied().fold(f64::INFINITY, f64::min) };
            hi = if any_nan { f64::NAN } else { data.iter().copied().fold(f64::NEG_INFINITY, f64::max) };
        }
        if lo == hi {
            lo -= 1.0;
            hi += 1.0;
        }
        if !(lo.is_finite() && hi.is_finite()) {
            let show = |v: f64| if v.is_nan() { "-nan".to_string() } else { crate::ops::quantile::cxx_double(v) };
            bail!(Runtime, "torch.histc: range of [{}, {}] is not finite", show(lo), show(hi));
        }
        if lo > hi {
            bail!(Runtime, "torch.histc: max must be larger than min");
        }
        // checked before any allocation; torch makes the bins + 1 edges first, and its error names their count
        crate::alloc::check_new_shape(&[bins as usize + 1], self.dtype().itemsize())?;
        let counts = with_dtype!(self.dtype(), T => {
            let (lo, hi) = (T::from_f64(lo), T::from_f64(hi));
            let (span, nbins) = (T::sub(hi, lo), T::from_i64(bins));
            let mut counts = vec![T::ZERO; bins as usize];
            for v in self.to_vec::<T>() {
                if !(v >= lo && v <= hi) {
                    continue;
                }
                // torch's linear interpolation, in the input's dtype
                let at = T::div(T::mul(T::sub(v, lo), nbins), span).to_i64().clamp(0, bins - 1) as usize;
                counts[at] = T::add(counts[at], T::ONE);
            }
            Tensor::from_vec(counts, &[bins as usize])?
        });
        Ok(counts)
    }

    /// `isin(elements, test_elements, invert)`: whether each element equals any test element (compared in
    /// their promoted dtype), as bool in `elements`' shape; `invert` negates it.
    pub fn isin(&self, test: &Tensor, invert: bool) -> Result<Tensor> {
        let dtype = result_type(self.promotion_key(), test.promotion_key());
        if self.dtype() == DType::Bool || test.dtype() == DType::Bool {
            bail!(NotImplemented, "Unsupported input type encountered for isin(): Bool");
        }
        let found: Vec<bool> = with_dtype!(dtype, T => {
            let a = self.detach().to_dtype(dtype)?.to_vec::<T>();
            let mut b = test.detach().to_dtype(dtype)?.to_vec::<T>();
            b.retain(|v| !crate::ops::select::is_nan(*v));
            b.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
            // a NaN compares as Less with every test value: never found
            let found = |v: &T| b.binary_search_by(|t| t.partial_cmp(v).unwrap_or(std::cmp::Ordering::Less)).is_ok();
            a.iter().map(|v| found(v) != invert).collect()
        });
        Tensor::from_vec(found, self.shape())
    }
}
