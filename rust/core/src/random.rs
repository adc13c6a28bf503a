//! Random generators: xoshiro256** seeded through splitmix64. There is one default generator
//! (`manual_seed`) and any number of user-made ones (`fg.Generator`); every sampling function takes
//! the generator to draw from. Streams are reproducible under a seed, not bit-identical to PyTorch's
//! (nobody can rely on that).
//!
//! Bulk fills (`rand`, `randn`, `bernoulli`) are counter-based: each call draws one key from the
//! generator, and element i is splitmix64's output function of `key + (i + 1)·γ` (a SplitMix64
//! stream started at the key, read at position i). That depends on i alone, so the fill vectorizes
//! and splits across threads with the same values on any number of threads; drawing xoshiro words
//! one element at a time took 11 ms of a 41 ms transformer forward in dropout masks. Normals are
//! Box–Muller pairs from one 64-bit word (float32) or two (float64).
use crate::bail;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::math::ln_f32;
use crate::kernels::simd::{dispatch, index_map, index_map_by};
use crate::layout::numel;
use crate::tensor::Tensor;
use crate::with_dtype;
use parking_lot::Mutex;
use std::mem::MaybeUninit;
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

/// SplitMix64's increment (the golden ratio in 64 bits).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function.
#[inline(always)]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GAMMA);
    mix64(*state)
}

/// Word `i` of the counter-based stream under `key`.
#[inline(always)]
fn word(key: u64, i: usize) -> u64 {
    mix64(key.wrapping_add((i as u64).wrapping_add(1).wrapping_mul(GAMMA)))
}

/// 2^-24 and 2^-53: the steps of float32 and float64 uniforms.
const STEP_24: f32 = 1.0 / (1u32 << 24) as f32;
const STEP_53: f64 = 1.0 / (1u64 << 53) as f64;

/// A float32 uniform in [0, 1) from the top 24 bits of a word.
#[inline(always)]
fn unit_f32(w: u64) -> f32 {
    ((w >> 40) as u32 as i32) as f32 * STEP_24
}

/// A float64 uniform in [0, 1) from the top 53 bits (through an i64 conversion, which vectorizes
/// where an unsigned one does not).
#[inline(always)]
fn unit_f64(w: u64) -> f64 {
    ((w >> 11) as i64) as f64 * STEP_53
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
        unit_f64(self.next_u64())
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

/// `out[j] = at(key, start + j)`: the loop each counter-based fill runs (through `dispatch!`).
#[inline(always)]
fn fill_on<T>(out: &mut [MaybeUninit<T>], start: usize, key: u64, at: impl Fn(u64, usize) -> T) {
    for (j, o) in out.iter_mut().enumerate() {
        o.write(at(key, start + j));
    }
}

#[inline(always)]
fn uniform_f32_on(out: &mut [MaybeUninit<f32>], start: usize, key: u64) {
    fill_on(out, start, key, |k, i| unit_f32(word(k, i)))
}

#[inline(always)]
fn uniform_f64_on(out: &mut [MaybeUninit<f64>], start: usize, key: u64) {
    fill_on(out, start, key, |k, i| unit_f64(word(k, i)))
}

pub fn rand(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    if !dtype.is_float() {
        bail!(Runtime, "\"check_uniform_bounds\" not implemented for '{}'", dtype.name());
    }
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    let key = gen.lock().next_u64();
    let n = numel(shape);
    if dtype == DType::F64 {
        return Tensor::from_vec(index_map_by(n, |o, start| dispatch!(uniform_f64_on(o, start, key))), shape);
    }
    let v = index_map_by(n, |o, start| dispatch!(uniform_f32_on(o, start, key)));
    Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype))
}

/// Standard normals, Box–Muller: elements 2j and 2j+1 are r·cos θ and r·sin θ of one pair of uniforms
/// (float32: both from one word, 24 bits each).
pub fn randn(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    if dtype.is_float() && dtype != DType::F64 {
        let key = gen.lock().next_u64();
        let n = numel(shape);
        let pairs = index_map_by(n.div_ceil(2), |out, start| dispatch!(normal_pairs_f32(out, start, key)));
        let mut v = flatten_pairs(pairs);
        v.truncate(n);
        return Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype));
    }
    if !dtype.is_float() {
        bail!(Runtime, "\"normal_kernel_cpu\" not implemented for '{}'", dtype.name());
    }
    let key = gen.lock().next_u64();
    let v: Vec<f64> = index_map(numel(shape), |i| {
        let j = i / 2;
        let u1 = 1.0 - unit_f64(word(key, 2 * j));
        let theta = std::f64::consts::TAU * unit_f64(word(key, 2 * j + 1));
        let r = (-2.0 * u1.ln()).sqrt();
        r * if i % 2 == 0 { theta.cos() } else { theta.sin() }
    });
    Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype))
}

/// Normals 2j and 2j+1 of the float32 stream under `key` (filled through `dispatch!`: as a closure
/// handed to `index_map` it was not inlined into the vectorized loop and took 20 ns an element).
#[inline(always)]
fn normal_pair_f32(key: u64, j: usize) -> [f32; 2] {
    let w = word(key, j);
    let u1 = (((w >> 40) as u32 as i32) + 1) as f32 * STEP_24; // (0, 1]: ln stays finite
    let u2 = ((w & 0xff_ffff) as u32 as i32) as f32 * STEP_24;
    let r = (-2.0 * ln_f32(u1)).sqrt();
    let (sin, cos) = sin_cos_turns(u2);
    [r * cos, r * sin]
}

#[inline(always)]
fn normal_pairs_f32(out: &mut [MaybeUninit<[f32; 2]>], start: usize, key: u64) {
    for (j, o) in out.iter_mut().enumerate() {
        o.write(normal_pair_f32(key, start + j));
    }
}

fn flatten_pairs(v: Vec<[f32; 2]>) -> Vec<f32> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // Safety: [f32; 2] is two f32s with f32's alignment, so the allocation is one of 2·cap f32s.
    unsafe { Vec::from_raw_parts(ptr.cast::<f32>(), 2 * len, 2 * cap) }
}

/// (sin 2πu, cos 2πu) for u in [0, 1), in float32, straight-line: 4u = q + f with q the nearest
/// integer (exact), the series of sin and cos at f·π/2 (|f| <= 1/2, errors below 2e-9), rotated by the
/// quadrant q. Accurate to a few float32 ulp, which is all a normal sample needs.
#[inline(always)]
fn sin_cos_turns(u: f32) -> (f32, f32) {
    const ROUND_MAGIC: f32 = 12_582_912.0; // adding and subtracting 1.5·2^23 rounds to an integer
    let t = 4.0 * u;
    let q = (t + ROUND_MAGIC) - ROUND_MAGIC;
    let a = (t - q) * std::f32::consts::FRAC_PI_2;
    let z = a * a;
    let s = a * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362_880.0)))));
    let c = 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40_320.0 - z * (1.0 / 3_628_800.0)))));
    let q = if q >= 4.0 { q - 4.0 } else { q };
    let (s, c) = if q == 1.0 || q == 3.0 { (c, -s) } else { (s, c) };
    if q >= 2.0 {
        (-s, -c)
    } else {
        (s, c)
    }
}

/// Uniform integers in `[low, high)`, int64.
pub fn randint(gen: &Mutex<Generator>, low: i64, high: i64, shape: &[usize]) -> Result<Tensor> {
    if high <= low {
        bail!(Runtime, "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}");
    }
    crate::alloc::check_new_shape(shape, 8)?;
    let span = (high as i128 - low as i128) as u128;
    let mut g = gen.lock();
    let v: Vec<i64> = (0..numel(shape)).map(|_| (low as i128 + (g.next_u64() as u128 % span) as i128) as i64).collect();
    Tensor::from_vec(v, shape)
}

/// A random permutation of `0..n` (Fisher–Yates), int64.
pub fn randperm(gen: &Mutex<Generator>, n: usize) -> Result<Tensor> {
    crate::alloc::check_new_shape(&[n], 8)?;
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
    if !(0.0..=1.0).contains(&p) {
        bail!(Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
    bernoulli_scalar(gen, shape, dtype, p, 1.0)
}

/// 1 with probability `p` (elementwise), in `p`'s dtype.
pub fn bernoulli(gen: &Mutex<Generator>, p: &Tensor) -> Result<Tensor> {
    let probs = p.to_vec::<f64>();
    if probs.iter().any(|&q| !(0.0..=1.0).contains(&q)) {
        bail!(Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
    let key = gen.lock().next_u64();
    let v: Vec<f64> = index_map(probs.len(), |i| if unit_f64(word(key, i)) < probs[i] { 1.0 } else { 0.0 });
    Tensor::from_vec(v, p.shape())?.to_dtype(p.dtype())
}

/// A tensor of `shape` and `dtype` holding `value` with probability `p` and 0 otherwise, in one pass:
/// `bernoulli_(p)` (value 1) and dropout's mask (value 1 / (1 - p) at keep probability 1 - p).
pub fn bernoulli_scalar(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, p: f64, value: f64) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        bail!(Runtime, "bernoulli_ expects p to be in [0, 1], but got p={p}");
    }
    // u < p for a 53-bit uniform u = w·2^-53 is (w >> 11) < ⌈p·2^53⌉, an integer comparison
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    let below = (p * (1u64 << 53) as f64).ceil() as i64;
    let key = gen.lock().next_u64();
    let n = numel(shape);
    with_dtype!(dtype, T => {
        let (one, zero) = (T::from_f64(value), T::from_f64(0.0));
        Tensor::from_vec(index_map_by(n, |o, start| dispatch!(bernoulli_on(o, start, key, below, one, zero))), shape)
    })
}

#[inline(always)]
fn bernoulli_on<T: Copy>(out: &mut [MaybeUninit<T>], start: usize, key: u64, below: i64, one: T, zero: T) {
    fill_on(out, start, key, |k, i| if ((word(k, i) >> 11) as i64) < below { one } else { zero })
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
    crate::alloc::check_new_shape(&[rows, num_samples], 8)?;
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

    fn moments(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        (mean, xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n)
    }

    #[test]
    fn seeded_streams_repeat_and_look_right() {
        let gen = Mutex::new(Generator::seeded(7));
        let n = 200_001; // odd, and past the threaded size
        for dtype in [DType::F32, DType::F64, DType::BF16] {
            gen.lock().seed(7);
            let a = randn(&gen, &[n], dtype).unwrap().to_vec::<f64>();
            let u = rand(&gen, &[n], dtype).unwrap().to_vec::<f64>();
            gen.lock().seed(7);
            assert_eq!(a, randn(&gen, &[n], dtype).unwrap().to_vec::<f64>());
            let (mean, var) = moments(&a);
            assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.01, "{dtype:?} normal mean {mean} var {var}");
            // the pairs' two halves are independent: no correlation between elements 2j and 2j+1
            let corr: f64 = a.chunks_exact(2).map(|p| p[0] * p[1]).sum::<f64>() / (n / 2) as f64;
            assert!(corr.abs() < 0.01, "{dtype:?} pair correlation {corr}");
            let (mean, var) = moments(&u);
            assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)) || dtype == DType::BF16, "{dtype:?}");
            assert!((mean - 0.5).abs() < 0.005 && (var - 1.0 / 12.0).abs() < 0.005, "{dtype:?} uniform {mean} {var}");
        }
    }

    #[test]
    fn sin_cos_of_turns_are_accurate() {
        for k in 0..=4096 {
            let u = k as f32 / 4096.0 * 0.999_999_9;
            let (s, c) = sin_cos_turns(u);
            let theta = std::f64::consts::TAU * u as f64;
            assert!((s as f64 - theta.sin()).abs() < 3e-7 && (c as f64 - theta.cos()).abs() < 3e-7, "u {u}: {s} {c}");
        }
    }

    #[test]
    fn bernoulli_hits_its_probability_and_its_bounds() {
        let gen = Mutex::new(Generator::seeded(11));
        let n = 300_000;
        for (p, value) in [(0.0, 1.0), (1.0, 1.0), (0.1, 1.0), (0.9, 1.0 / 0.9)] {
            let v = bernoulli_scalar(&gen, &[n], DType::F32, p, value).unwrap().to_vec::<f32>();
            assert!(v.iter().all(|&x| x == 0.0 || x == value as f32));
            let rate = v.iter().filter(|&&x| x != 0.0).count() as f64 / n as f64;
            assert!((rate - p).abs() < 0.004, "p {p}: rate {rate}");
        }
        let ints = bernoulli_scalar(&gen, &[5], DType::I64, 1.0, 1.0).unwrap().to_vec::<i64>();
        assert_eq!(ints, vec![1; 5]);
        assert!(bernoulli_scalar(&gen, &[5], DType::F32, 1.5, 1.0).is_err());
        let probs = Tensor::from_vec((0..n).map(|i| (i % 4) as f64 / 3.0).collect::<Vec<f64>>(), &[n]).unwrap();
        let b = bernoulli(&gen, &probs).unwrap().to_vec::<f64>();
        for k in 0..4 {
            let hits: f64 = b.iter().skip(k).step_by(4).sum();
            let rate = hits / (n / 4) as f64;
            assert!((rate - k as f64 / 3.0).abs() < 0.006, "p {k}/3: rate {rate}");
        }
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
