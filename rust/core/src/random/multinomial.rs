//! `multinomial` as PyTorch's CPU code draws it. Without replacement, or for one sample, it is the
//! exponential race: q = p / E with E ~ Exp(1) drawn for every category (`exponential_` on a tensor
//! like the weights), then the arg max of each row, or its `n` largest in order. With replacement, a
//! float64 uniform per sample is looked up by binary search in the row's normalised cumulative sums
//! (kept in the weights' dtype, float32 for the 16-bit ones).
use super::{exponential, Generator};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;

/// `multinomial(probs, n, replacement)`: rows of `probs` (1-D or 2-D, unnormalised weights) → int64 indices.
pub fn multinomial(gen: &Mutex<Generator>, probs: &Tensor, num_samples: usize, replacement: bool) -> Result<Tensor> {
    if probs.ndim() == 0 || probs.ndim() > 2 {
        bail!(Runtime, "prob_dist must be 1 or 2 dim");
    }
    if !probs.dtype().is_float() {
        bail!(Runtime, "multinomial only supports floating-point dtypes for input, got: {}", probs.dtype().name());
    }
    if num_samples == 0 {
        bail!(Runtime, "cannot sample n_sample <= 0 samples");
    }
    let cats = *probs.shape().last().unwrap();
    let rows = if probs.ndim() == 2 { probs.shape()[0] } else { 1 };
    if !replacement && num_samples > cats {
        bail!(Runtime, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    }
    if cats > 1 << 24 {
        bail!(Runtime, "number of categories cannot exceed 2^24");
    }
    crate::alloc::check_new_shape(&[rows, num_samples], 8)?;
    let w = probs.to_vec::<f64>();
    if w.iter().any(|&x| x < 0.0 || !x.is_finite()) {
        bail!(Runtime, "probability tensor contains either `inf`, `nan` or element < 0");
    }
    if w.chunks(cats.max(1)).any(|row| row.iter().sum::<f64>() <= 0.0) {
        bail!(Runtime, "invalid multinomial distribution (sum of probabilities <= 0)");
    }
    let out = if !replacement || num_samples == 1 {
        let e = exponential(gen, probs.shape(), probs.dtype(), 1.0)?.to_vec::<f64>();
        race(&w, &e, cats, num_samples, probs.dtype() == DType::F64)
    } else if probs.dtype() == DType::F64 {
        with_replacement::<f64>(&mut gen.lock(), &w, cats, num_samples)
    } else {
        with_replacement::<f32>(&mut gen.lock(), &w, cats, num_samples)
    };
    let shape: Vec<usize> = if probs.ndim() == 2 { vec![rows, num_samples] } else { vec![num_samples] };
    Tensor::from_vec(out, &shape)
}

/// The `n` largest of p / e in each row, largest first (ties: the lower index first); the quotient
/// rounded as PyTorch's division in the weights' dtype rounds it.
fn race(w: &[f64], e: &[f64], cats: usize, n: usize, wide: bool) -> Vec<i64> {
    let mut out = Vec::with_capacity(w.len() / cats * n);
    for (row, exp) in w.chunks_exact(cats).zip(e.chunks_exact(cats)) {
        let q: Vec<f64> =
            row.iter().zip(exp).map(|(&p, &x)| if wide { p / x } else { (p as f32 / x as f32) as f64 }).collect();
        let mut order: Vec<usize> = (0..cats).collect();
        order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
        out.extend(order[..n].iter().map(|&i| i as i64));
    }
    out
}

/// A float type the cumulative sums are kept in.
trait CumFloat: Copy + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    fn of(x: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn wide(self) -> f64;
}

macro_rules! cum_float {
    ($t:ty) => {
        impl CumFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn of(x: f64) -> Self {
                x as $t
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn wide(self) -> f64 {
                self as f64
            }
        }
    };
}
cum_float!(f32);
cum_float!(f64);

fn with_replacement<F: CumFloat>(g: &mut Generator, w: &[f64], cats: usize, n: usize) -> Vec<i64> {
    let mut out = Vec::with_capacity(w.len() / cats * n);
    let mut cum = vec![F::ZERO; cats];
    for row in w.chunks_exact(cats) {
        let mut sum = F::ZERO;
        for (c, &x) in cum.iter_mut().zip(row) {
            sum = sum.add(F::of(x));
            *c = sum;
        }
        for c in cum.iter_mut() {
            *c = c.div(sum);
        }
        cum[cats - 1] = F::ONE;
        for _ in 0..n {
            let u = g.uniform();
            // the first slot whose cumulative sum is not below u
            let (mut left, mut right) = (0, cats);
            while right > left {
                let mid = left + (right - left) / 2;
                if cum[mid].wide() < u {
                    left = mid + 1;
                } else {
                    right = mid;
                }
            }
            out.push(left as i64);
        }
    }
    out
}
