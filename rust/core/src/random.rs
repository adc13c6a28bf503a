//! Random generators: xoshiro256** seeded through splitmix64, normals by Box–Muller. There is one
//! default generator (`manual_seed`) and any number of user-made ones (`fg.Generator`); every
//! sampling function takes the generator to draw from. Streams are reproducible under a seed, not
//! bit-identical to PyTorch's (nobody can rely on that).
use crate::bail;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::layout::numel;
use crate::tensor::Tensor;
use crate::with_float_dtype;
use parking_lot::Mutex;
use std::sync::{Arc, LazyLock};

#[derive(Clone)]
pub struct Generator {
    s: [u64; 4],
    initial_seed: u64,
}

/// A generator shared between the core and its Python handles.
pub type SharedGenerator = Arc<Mutex<Generator>>;

/// PyTorch's default seed, reported by `initial_seed()` before any `manual_seed`.
pub const DEFAULT_SEED: u64 = 67280421310721;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Generator {
    pub const fn unseeded() -> Self {
        Generator {
            s: [0x8a5c_d789_635d_2dff, 0x121f_d215_5c47_2f96, 0x0cc5_3a33_1d63_6711, 0x4e1e_4bcf_7d44_2cd3],
            initial_seed: DEFAULT_SEED,
        }
    }

    /// A generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        let mut g = Generator::unseeded();
        g.seed(seed);
        g
    }

    pub fn seed(&mut self, seed: u64) {
        let mut st = seed;
        self.s = std::array::from_fn(|_| splitmix(&mut st));
        self.initial_seed = seed;
    }

    pub fn initial_seed(&self) -> u64 {
        self.initial_seed
    }

    /// The whole state: the four xoshiro words, then the initial seed.
    pub fn state(&self) -> [u64; 5] {
        [self.s[0], self.s[1], self.s[2], self.s[3], self.initial_seed]
    }

    pub fn set_state(&mut self, state: [u64; 5]) -> Result<()> {
        if state[..4].iter().all(|&w| w == 0) {
            bail!(Runtime, "Generator state is invalid (all-zero xoshiro state)");
        }
        self.s = [state[0], state[1], state[2], state[3]];
        self.initial_seed = state[4];
        Ok(())
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]: ln stays finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

static DEFAULT: LazyLock<SharedGenerator> = LazyLock::new(|| Arc::new(Mutex::new(Generator::unseeded())));

/// The generator used when none is given.
pub fn default_generator() -> &'static SharedGenerator {
    &DEFAULT
}

pub fn manual_seed(seed: u64) {
    DEFAULT.lock().seed(seed);
}

fn sample(
    gen: &Mutex<Generator>,
    shape: &[usize],
    dtype: DType,
    what: &str,
    draw: fn(&mut Generator) -> f64,
) -> Result<Tensor> {
    crate::storage::check_new_shape(shape, dtype.itemsize())?;
    let mut g = gen.lock();
    with_float_dtype!(dtype, T => {
        let v: Vec<T> = (0..numel(shape)).map(|_| T::from_f64(draw(&mut g))).collect();
        Tensor::from_vec(v, shape)
    }, bail!(Runtime, "\"{what}\" not implemented for '{}'", dtype.name()))
}

pub fn rand(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    sample(gen, shape, dtype, "check_uniform_bounds", Generator::uniform)
}

pub fn randn(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    sample(gen, shape, dtype, "normal_kernel_cpu", Generator::normal)
}

/// Uniform integers in `[low, high)`, int64.
pub fn randint(gen: &Mutex<Generator>, low: i64, high: i64, shape: &[usize]) -> Result<Tensor> {
    if high <= low {
        bail!(Runtime, "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}");
    }
    crate::storage::check_new_shape(shape, 8)?;
    let span = (high as i128 - low as i128) as u128;
    let mut g = gen.lock();
    let v: Vec<i64> = (0..numel(shape)).map(|_| (low as i128 + (g.next_u64() as u128 % span) as i128) as i64).collect();
    Tensor::from_vec(v, shape)
}

/// A random permutation of `0..n` (Fisher–Yates), int64.
pub fn randperm(gen: &Mutex<Generator>, n: usize) -> Result<Tensor> {
    crate::storage::check_new_shape(&[n], 8)?;
    let mut v: Vec<i64> = (0..n as i64).collect();
    let mut g = gen.lock();
    for i in (1..n).rev() {
        let j = (g.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    Tensor::from_vec(v, &[n])
}

/// `uniform_(from, to)`'s values: U(from, to) of `shape` in `dtype`.
pub fn uniform(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, from: f64, to: f64) -> Result<Tensor> {
    if from > to {
        bail!(Runtime, "uniform_ expects to return a [from, to) range, but found from={from} > to={to}");
    }
    rand(gen, shape, dtype)?.mul(&Tensor::scalar(to - from))?.add(&Tensor::scalar(from))
}

/// `normal_(mean, std)`'s values: N(mean, std²) of `shape` in `dtype`.
pub fn normal(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, mean: f64, std: f64) -> Result<Tensor> {
    if std < 0.0 {
        bail!(Runtime, "normal expects std >= 0.0, but found std {std}");
    }
    randn(gen, shape, dtype)?.mul(&Tensor::scalar(std))?.add(&Tensor::scalar(mean))
}

/// `bernoulli(p)` with one probability: 0/1 of `shape` in `dtype` (an int tensor gets int 0/1, as torch).
pub fn bernoulli_with(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, p: f64) -> Result<Tensor> {
    bernoulli(gen, &Tensor::full(shape, crate::Scalar::Float(p), DType::F64))?.to_dtype(dtype)
}

/// 1 with probability `p` (elementwise), in `p`'s dtype.
pub fn bernoulli(gen: &Mutex<Generator>, p: &Tensor) -> Result<Tensor> {
    let probs = p.to_vec::<f64>();
    if probs.iter().any(|&q| !(0.0..=1.0).contains(&q)) {
        bail!(Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
    let mut g = gen.lock();
    let v: Vec<f64> = probs.iter().map(|&q| if g.uniform() < q { 1.0 } else { 0.0 }).collect();
    drop(g);
    Tensor::from_vec(v, p.shape())?.to_dtype(p.dtype())
}

/// `multinomial(probs, n, replacement)`: rows of `probs` (1-D or 2-D, unnormalised weights) → int64 indices.
pub fn multinomial(gen: &Mutex<Generator>, probs: &Tensor, num_samples: usize, replacement: bool) -> Result<Tensor> {
    if probs.ndim() == 0 || probs.ndim() > 2 {
        bail!(Runtime, "prob_dist must be 1 or 2 dim");
    }
    if !probs.dtype().is_float() {
        bail!(Runtime, "multinomial only supports floating-point dtypes for input, got: {}", probs.dtype().name());
    }
    let cats = *probs.shape().last().unwrap();
    let rows = if probs.ndim() == 2 { probs.shape()[0] } else { 1 };
    if !replacement && num_samples > cats {
        bail!(Runtime, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    }
    if num_samples == 0 {
        bail!(Runtime, "cannot sample n_sample <= 0 samples");
    }
    let w = probs.to_vec::<f64>();
    if w.iter().any(|&x| x < 0.0 || !x.is_finite()) {
        bail!(Runtime, "probability tensor contains either `inf`, `nan` or element < 0");
    }
    let mut g = gen.lock();
    crate::storage::check_new_shape(&[rows, num_samples], 8)?;
    let mut out = Vec::with_capacity(rows * num_samples);
    for r in 0..rows {
        let mut row: Vec<f64> = w[r * cats..(r + 1) * cats].to_vec();
        if row.iter().sum::<f64>() <= 0.0 {
            bail!(Runtime, "invalid multinomial distribution (sum of probabilities <= 0)");
        }
        let mut drawn = vec![false; cats];
        for _ in 0..num_samples {
            let total: f64 = row.iter().sum();
            if total <= 0.0 {
                // without replacement, torch goes on to the categories of weight 0 once the others are drawn
                // (in an order it leaves open): here, the lowest index not yet drawn
                let pick = drawn.iter().position(|&d| !d).expect("num_samples <= cats without replacement");
                drawn[pick] = true;
                out.push(pick as i64);
                continue;
            }
            let u = g.uniform() * total;
            let mut acc = 0.0;
            let mut pick = cats - 1;
            for (k, &x) in row.iter().enumerate() {
                acc += x;
                if u < acc && x > 0.0 {
                    pick = k;
                    break;
                }
            }
            while row[pick] == 0.0 && pick > 0 {
                pick -= 1; // rounding at the end of the row: the last category with weight
            }
            out.push(pick as i64);
            if !replacement {
                row[pick] = 0.0;
                drawn[pick] = true;
            }
        }
    }
    let shape: Vec<usize> = if probs.ndim() == 2 { vec![rows, num_samples] } else { vec![num_samples] };
    Tensor::from_vec(out, &shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_streams_repeat_and_look_normal() {
        let mut g = Generator::unseeded();
        g.seed(7);
        let a: Vec<f64> = (0..4).map(|_| g.normal()).collect();
        g.seed(7);
        let b: Vec<f64> = (0..4).map(|_| g.normal()).collect();
        assert_eq!(a, b);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| g.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.02, "mean {mean} var {var}");
    }

    #[test]
    fn randperm_is_a_permutation_and_multinomial_respects_zeros() {
        let gen = Mutex::new(Generator::seeded(3));
        let mut p = randperm(&gen, 50).unwrap().to_vec::<i64>();
        p.sort();
        assert_eq!(p, (0..50).collect::<Vec<i64>>());
        let probs = Tensor::from_vec(vec![0.0f64, 1.0, 0.0, 3.0], &[4]).unwrap();
        let s = multinomial(&gen, &probs, 2, false).unwrap().to_vec::<i64>();
        let mut s2 = s.clone();
        s2.sort();
        assert_eq!(s2, vec![1, 3]);
    }
}
