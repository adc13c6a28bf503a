//! Random generators that give PyTorch's CPU numbers bit for bit: the same seed gives the same
//! `rand`, `randn`, `randint`, `randperm`, `bernoulli`, `multinomial`, `exponential_`, `_standard_gamma`,
//! `poisson`, `binomial`
//! values (float32 and float64), and the state is the 5056 bytes of PyTorch's `get_rng_state`.
//!
//! The engine is PyTorch's mt19937 (`mt19937.rs`), with PyTorch's two caches of the second normal of
//! a Box–Muller pair (one float32, one float64). Each sampler consumes the words PyTorch's kernel
//! consumes, in its order, and maps them as it does:
//! - float32 uniforms: the low 24 bits of one 32-bit word ·2^-24; float64: the low 53 bits of a 64-bit
//!   word made of two 32-bit words (first one high) ·2^-53; `from + u·(to - from)` as one fused
//!   multiply-add (PyTorch's AVX2/AVX-512 builds contract it).
//! - normals: tensors of 16 elements or more are PyTorch's `normal_fill` (all uniforms first, then
//!   16 at a time, the tail recomputed from 16 fresh uniforms; `normal.rs`); smaller ones are its
//!   scalar float64 Box–Muller with the float64 cache, rounded to the dtype.
//! - bernoulli(p): one float64 uniform per element against p (PyTorch 2.15's x86 wheel takes its
//!   default kernel here, not MKL's: checked against it); with a tensor of probabilities, float32
//!   uniforms unless p is float64.
//!
//! The engine is sequential, so words are drawn on one thread, a block at a time (the twist and the
//! tempering vectorize), and mapped to values while the block is in L1 (`map_words`); the normal
//! blocks, which cost more than the draws, are split across threads. float16/bfloat16 consume the
//! words PyTorch's kernels do (so later draws stay in step) but compute through float32, so their
//! values may differ in the last bit.
mod mt19937;
mod normal;

use crate::bail;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::simd::{index_map_by, map_into};
use crate::layout::numel;
use crate::tensor::Tensor;
use crate::with_dtype;
use mt19937::{Mt19937, STATE_WORDS};
use normal::BLOCK;
use parking_lot::Mutex;
use std::sync::{Arc, LazyLock};

#[derive(Clone)]
pub struct Generator {
    engine: Mt19937,
    next_float_normal: Option<f32>,
    next_double_normal: Option<f64>,
}

/// A generator shared between the core and its Python handles.
pub type SharedGenerator = Arc<Mutex<Generator>>;

/// PyTorch's default seed (`default_rng_seed_val`), that of a new `Generator()`.
pub const DEFAULT_SEED: u64 = 67280421310721;

/// Length of the state in bytes: PyTorch's `CPUGeneratorImplState` (x86-64 layout).
pub const STATE_BYTES: usize = 5056;

/// Byte offsets of the state's fields (PyTorch's struct, with its padding).
mod offset {
    pub const SEED: usize = 0;
    pub const LEFT: usize = 8;
    pub const SEEDED: usize = 12;
    pub const NEXT: usize = 16;
    /// 624 words, each stored in 8 bytes.
    pub const WORDS: usize = 24;
    /// The legacy `normal_x`, `normal_y`, `normal_rho` doubles: y holds the float64 cache.
    pub const NORMAL_Y: usize = 5024;
    pub const NORMAL_IS_VALID: usize = 5040;
    pub const FLOAT_NORMAL: usize = 5048;
    pub const FLOAT_NORMAL_IS_VALID: usize = 5052;
}

/// 2^-24 and 2^-53: the steps of float32 and float64 uniforms.
const STEP_24: f32 = 1.0 / (1u32 << 24) as f32;
const STEP_53: f64 = 1.0 / (1u64 << 53) as f64;
const MASK_24: u32 = (1 << 24) - 1;
const MASK_53: u64 = (1 << 53) - 1;

/// The float32 uniform in [0, 1) of one word.
#[inline(always)]
fn unit_f32(w: u32) -> f32 {
    (w & MASK_24) as f32 * STEP_24
}

/// The float64 uniform in [0, 1) of one 64-bit word (through i64, which vectorizes).
#[inline(always)]
fn unit_f64(w: u64) -> f64 {
    ((w & MASK_53) as i64) as f64 * STEP_53
}

/// A u64 read from two 32-bit words in memory, as `random64` joins them: little-endian memory put the
/// first word low, `random64` puts it high.
#[inline(always)]
fn high_first(w: u64) -> u64 {
    if cfg!(target_endian = "little") {
        w.rotate_left(32)
    } else {
        w
    }
}

/// 32-bit words drawn at a time by the draw-and-map samplers: 8 KiB, L1-resident.
const WORD_BLOCK: usize = 2048;

/// Two 32-bit words as PyTorch's `random64` joins them: the first is the high half.
#[inline(always)]
fn join(hi: u32, lo: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

impl Generator {
    /// A generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Generator { engine: Mt19937::new(seed), next_float_normal: None, next_double_normal: None }
    }

    pub fn seed(&mut self, seed: u64) {
        *self = Generator::seeded(seed);
    }

    pub fn initial_seed(&self) -> u64 {
        self.engine.seed
    }

    /// PyTorch's `random()`: one 32-bit word.
    pub fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// PyTorch's `random64()`.
    pub fn random64(&mut self) -> u64 {
        let hi = self.engine.next_u32();
        join(hi, self.engine.next_u32())
    }

    /// A 64-bit word (the same as `random64`).
    pub fn next_u64(&mut self) -> u64 {
        self.random64()
    }

    /// Uniform in [0, 1) with 53 random bits (PyTorch's `uniform_real_distribution<double>(0, 1)`).
    pub fn uniform(&mut self) -> f64 {
        unit_f64(self.random64())
    }

    /// `n` 32-bit words.
    fn words(&mut self, n: usize) -> Vec<u32> {
        self.map_words(n, |w| w)
    }

    /// `f` of each of `n` 32-bit words, drawn and mapped a block at a time: the words stay in L1
    /// instead of passing through a buffer in memory (which then a map read again: with the vectorized
    /// engine, 1M float32 `rand` 590 → 318 µs on one Zen 4 core).
    fn map_words<U: Send + 'static>(&mut self, n: usize, f: impl Fn(u32) -> U) -> Vec<U> {
        let mut out: Vec<U> = crate::pool::take(n);
        let mut words = [0u32; WORD_BLOCK];
        for block in out.spare_capacity_mut()[..n].chunks_mut(WORD_BLOCK) {
            let words = &mut words[..block.len()];
            self.engine.fill(words);
            map_into(block, words, &f);
        }
        // SAFETY: the blocks cover the first n elements, and `map_into` wrote every one of them.
        unsafe { out.set_len(n) };
        out
    }

    /// `map_words` over 64-bit words (2n 32-bit ones, joined as `random64` joins them): bernoulli's and
    /// dropout's masks and float64 uniforms, which through an 8-byte-an-element buffer spent most of
    /// their time on memory (1M float64 `rand`, with DQ's vector conversions, 1.73 → 0.63 ms on one Zen 4 core).
    fn map_words64<U: Send + 'static>(&mut self, n: usize, f: impl Fn(u64) -> U) -> Vec<U> {
        let mut out: Vec<U> = crate::pool::take(n);
        let mut words = [0u64; WORD_BLOCK / 2];
        for block in out.spare_capacity_mut()[..n].chunks_mut(WORD_BLOCK / 2) {
            let words = &mut words[..block.len()];
            // SAFETY: the u64s are twice as many initialised u32s (u64's alignment is a multiple of u32's).
            let halves = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u32>(), 2 * words.len()) };
            self.engine.fill(halves);
            map_into(block, words, &|w| f(high_first(w)));
        }
        // SAFETY: as in `map_words`.
        unsafe { out.set_len(n) };
        out
    }

    /// `n` 64-bit words (2n 32-bit ones).
    fn words64(&mut self, n: usize) -> Vec<u64> {
        self.map_words64(n, |w| w)
    }

    /// One N(mean, std²) sample as PyTorch's scalar `normal_distribution<double>`: the cached second
    /// value of the last pair if there is one, else a new pair (its sine half cached).
    fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        let z = match self.next_double_normal.take() {
            Some(z) => z,
            None => {
                let u1 = self.uniform();
                let u2 = self.uniform();
                let r = (-2.0 * (-u2).ln_1p()).sqrt();
                let theta = std::f64::consts::TAU * u1;
                self.next_double_normal = Some(r * theta.sin());
                r * theta.cos()
            }
        };
        z.mul_add(std, mean)
    }

    /// The state as PyTorch's `get_rng_state` bytes.
    pub fn state_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; STATE_BYTES];
        let e = &self.engine;
        b[offset::SEED..][..8].copy_from_slice(&e.seed.to_le_bytes());
        b[offset::LEFT..][..4].copy_from_slice(&(e.left as i32).to_le_bytes());
        b[offset::SEEDED..][..4].copy_from_slice(&(e.seeded as i32).to_le_bytes());
        b[offset::NEXT..][..8].copy_from_slice(&(e.next as u64).to_le_bytes());
        for (chunk, &w) in b[offset::WORDS..][..8 * STATE_WORDS].chunks_exact_mut(8).zip(&e.state) {
            chunk.copy_from_slice(&(w as u64).to_le_bytes());
        }
        if let Some(y) = self.next_double_normal {
            b[offset::NORMAL_Y..][..8].copy_from_slice(&y.to_le_bytes());
            b[offset::NORMAL_IS_VALID] = 1;
        }
        if let Some(x) = self.next_float_normal {
            b[offset::FLOAT_NORMAL..][..4].copy_from_slice(&x.to_le_bytes());
            b[offset::FLOAT_NORMAL_IS_VALID] = 1;
        }
        b
    }

    /// Restores a state from `state_bytes` (or PyTorch's `get_rng_state`); the generator is left as
    /// it was when the bytes are refused.
    pub fn set_state_bytes(&mut self, b: &[u8]) -> Result<()> {
        if b.len() != STATE_BYTES {
            bail!(
                Runtime,
                "Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG state size to be {}",
                b.len()
            );
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let mut state = [0u32; STATE_WORDS];
        for (i, w) in state.iter_mut().enumerate() {
            *w = u64_at(offset::WORDS + 8 * i) as u32; // PyTorch keeps the low half too
        }
        let (left, seeded) = (i32_at(offset::LEFT), i32_at(offset::SEEDED));
        let engine = Mt19937 {
            seed: u64_at(offset::SEED),
            left: left.clamp(0, i32::MAX) as u32,
            next: u64_at(offset::NEXT) as u32,
            seeded: seeded != 0,
            state,
        };
        if left <= 0 || !engine.is_valid() {
            bail!(Runtime, "Invalid mt19937 state");
        }
        self.engine = engine;
        self.next_double_normal =
            (i32_at(offset::NORMAL_IS_VALID) != 0).then(|| f64::from_bits(u64_at(offset::NORMAL_Y)));
        self.next_float_normal = (b[offset::FLOAT_NORMAL_IS_VALID] != 0)
            .then(|| f32::from_le_bytes(b[offset::FLOAT_NORMAL..][..4].try_into().expect("4 bytes")));
        Ok(())
    }
}

/// A fresh seed from /dev/urandom, as PyTorch's `getNonDeterministicRandom` (the clock and the
/// address space if it cannot be read), for `seed()` and the default generator's
/// start.
pub fn nondeterministic_seed() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).is_ok() {
        return u64::from_le_bytes(bytes);
    }
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let local = 0u8;
    let mut g = Generator::seeded(nanos ^ (&local as *const u8 as u64).rotate_left(32));
    g.next_u64()
}

/// The default generator. It starts from a fresh nondeterministic seed in every process, as PyTorch's does
/// since 2.15 (`initial_seed()` differs between runs; a new `Generator()` still starts at [`DEFAULT_SEED`]).
static DEFAULT: LazyLock<SharedGenerator> =
    LazyLock::new(|| Arc::new(Mutex::new(Generator::seeded(nondeterministic_seed()))));

/// The generator used when none is given.
pub fn default_generator() -> &'static SharedGenerator {
    &DEFAULT
}

pub fn manual_seed(seed: u64) {
    DEFAULT.lock().seed(seed);
}

pub fn rand(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    uniform(gen, shape, dtype, 0.0, 1.0)
}

/// `uniform_(from, to)`'s values: U(from, to) of `shape` in `dtype`, as PyTorch's `uniform_kernel`
/// (from and to rounded to the dtype first; one word per float32 element, two per float64).
pub fn uniform(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, from: f64, to: f64) -> Result<Tensor> {
    if dtype.is_complex() {
        // torch fills the (re, im) pairs as one real tensor
        return uniform(gen, &pairs_shape(shape), dtype.component(), from, to)?.view_as_complex();
    }
    if !dtype.is_float() {
        bail!(Runtime, "\"check_uniform_bounds\" not implemented for '{}'", dtype.name());
    }
    if from > to {
        bail!(Runtime, "uniform_ expects to return a [from, to) range, but found from={from} > to={to}");
    }
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    let n = numel(shape);
    if dtype == DType::F64 {
        let width = to - from;
        return Tensor::from_vec(gen.lock().map_words64(n, |w| unit_f64(w).mul_add(width, from)), shape);
    }
    let (from, to) = (from as f32, to as f32);
    let width = to - from;
    let v = gen.lock().map_words(n, |w| unit_f32(w).mul_add(width, from));
    Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype))
}

/// `shape` with a last dim of 2: a complex tensor's (re, im) pairs.
fn pairs_shape(shape: &[usize]) -> Vec<usize> {
    let mut pairs = shape.to_vec();
    pairs.push(2);
    pairs
}

/// Standard normals.
pub fn randn(gen: &Mutex<Generator>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    normal(gen, shape, dtype, 0.0, 1.0)
}

/// `normal_(mean, std)`'s values: N(mean, std²) of `shape` in `dtype`, as PyTorch's `normal_kernel`.
pub fn normal(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, mean: f64, std: f64) -> Result<Tensor> {
    if dtype.is_complex() && std >= 0.0 {
        // torch fills the (re, im) pairs as one real tensor, each part with variance std² / 2
        let pairs = normal(gen, &pairs_shape(shape), dtype.component(), mean, std / std::f64::consts::SQRT_2)?;
        return pairs.view_as_complex();
    }
    if !dtype.is_float() {
        bail!(Runtime, "\"normal_kernel_cpu\" not implemented for '{}'", dtype.name());
    }
    if std < 0.0 {
        bail!(Runtime, "normal expects std >= 0.0, but found std {std}");
    }
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    let n = numel(shape);
    if n < BLOCK {
        let mut g = gen.lock();
        let v: Vec<f64> = (0..n).map(|_| g.normal_f64(mean, std)).collect();
        return Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype));
    }
    if dtype == DType::F64 {
        return Tensor::from_vec(normal_fill_f64(&mut gen.lock(), n, mean, std), shape);
    }
    let v = normal_fill_f32(&mut gen.lock(), n, mean as f32, std as f32);
    Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype))
}

/// Whole blocks of 16 in `v` (which holds `n >= 16` elements and room for nothing more).
fn whole_blocks<T>(v: &[T]) -> &[[T; BLOCK]] {
    let (blocks, _) = v.as_chunks::<BLOCK>();
    blocks
}

/// PyTorch's `normal_fill` for float32: the n uniforms, the blocks of 16, and for a ragged end the
/// last 16 elements again from 16 fresh uniforms.
fn normal_fill_f32(g: &mut Generator, n: usize, mean: f32, std: f32) -> Vec<f32> {
    let u: Vec<f32> = g.map_words(n, unit_f32);
    let blocks = whole_blocks(&u);
    let done =
        index_map_by(blocks.len(), |out, start| normal::blocks_f32(out, &blocks[start..][..out.len()], mean, std));
    let mut v = flatten(done);
    v.extend_from_slice(&u[v.len()..]);
    if !n.is_multiple_of(BLOCK) {
        let mut tail = [0f32; BLOCK];
        tail.copy_from_slice(&g.map_words(BLOCK, unit_f32));
        normal::block_in_place_f32(&mut tail, mean, std);
        v[n - BLOCK..].copy_from_slice(&tail);
    }
    v
}

/// `normal_fill_f32` in float64 (two words a uniform).
fn normal_fill_f64(g: &mut Generator, n: usize, mean: f64, std: f64) -> Vec<f64> {
    let u: Vec<f64> = g.map_words64(n, unit_f64);
    let blocks = whole_blocks(&u);
    let done =
        index_map_by(blocks.len(), |out, start| normal::blocks_f64(out, &blocks[start..][..out.len()], mean, std));
    let mut v = flatten(done);
    v.extend_from_slice(&u[v.len()..]);
    if !n.is_multiple_of(BLOCK) {
        let mut tail = [0f64; BLOCK];
        tail.copy_from_slice(&g.map_words64(BLOCK, unit_f64));
        normal::block_in_place_f64(&mut tail, mean, std);
        v[n - BLOCK..].copy_from_slice(&tail);
    }
    v
}

/// Blocks as one flat vector (no copy).
fn flatten<T>(v: Vec<[T; BLOCK]>) -> Vec<T> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: [T; 16] is 16 Ts with T's alignment, so the allocation is one of 16·cap Ts, the first
    // 16·len initialised.
    unsafe { Vec::from_raw_parts(ptr.cast::<T>(), BLOCK * len, BLOCK * cap) }
}

/// Spans from which PyTorch's `random_from_to` draws a 64-bit word per element (2.15 draws one from
/// 2^28 on, whatever the dtype: found by bisecting its outputs; its older sources say 2^32).
const RANDINT_WIDE_FROM: u64 = 1 << 28;

/// Uniform integers in `[low, high)`, int64, as PyTorch's `random_from_to`: `word % span + low` with
/// one 32-bit word each, or a 64-bit one for spans from `RANDINT_WIDE_FROM`.
pub fn randint(gen: &Mutex<Generator>, low: i64, high: i64, shape: &[usize]) -> Result<Tensor> {
    if high <= low {
        bail!(Runtime, "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}");
    }
    randint_span(gen, low, high.wrapping_sub(low) as u64, shape)
}

/// `randint` over `[low, low + span)` (span > 0): reaches `high = 2^63`, the range of PyTorch's
/// `random_()` on int64 (the seed its samplers and data loaders draw).
pub fn randint_span(gen: &Mutex<Generator>, low: i64, span: u64, shape: &[usize]) -> Result<Tensor> {
    if span == 0 {
        bail!(Runtime, "random_ expects 'from' to be less than 'to', but got from={low} >= to={low}");
    }
    crate::alloc::check_new_shape(shape, 8)?;
    let n = numel(shape);
    let mut g = gen.lock();
    let v: Vec<i64> = if span >= RANDINT_WIDE_FROM {
        g.map_words64(n, |w| (w % span).wrapping_add(low as u64) as i64)
    } else {
        // span < 2^28 here: a 32-bit remainder, quicker than the 64-bit one and the same value
        let span = span as u32;
        g.map_words(n, |w| ((w % span) as u64).wrapping_add(low as u64) as i64)
    };
    Tensor::from_vec(v, shape)
}

/// n from which PyTorch's `randperm` draws 64-bit words (below it, 32-bit ones).
const RANDPERM_WIDE_FROM: usize = (u32::MAX / 20) as usize;

/// A random permutation of `0..n`, int64, as PyTorch's `randperm_cpu`: for position i, the element
/// at `i + word % (n - i)` swapped in; from `RANDPERM_WIDE_FROM` on, the inside-out shuffle with
/// 64-bit words.
pub fn randperm(gen: &Mutex<Generator>, n: usize) -> Result<Tensor> {
    crate::alloc::check_new_shape(&[n], 8)?;
    let mut g = gen.lock();
    if n < RANDPERM_WIDE_FROM {
        let mut v: Vec<i64> = (0..n as i64).collect();
        let words = g.words(n.saturating_sub(1));
        for (i, &w) in words.iter().enumerate() {
            let z = (w as u64 % (n - i) as u64) as usize;
            v.swap(i, i + z);
        }
        return Tensor::from_vec(v, &[n]);
    }
    let mut v = vec![0i64; n];
    for i in 0..n {
        let z = (g.random64() % (i as u64 + 1)) as usize;
        v[i] = v[z];
        v[z] = i as i64;
    }
    Tensor::from_vec(v, &[n])
}

/// `bernoulli(p)` with one probability: 0/1 of `shape` in `dtype` (an int tensor gets int 0/1, as torch).
pub fn bernoulli_with(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, p: f64) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        bail!(Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
    bernoulli_scalar(gen, shape, dtype, p, 1.0)
}

/// 1 with probability `p` (elementwise), in `p`'s dtype, as PyTorch's `bernoulli_tensor_cpu_kernel`:
/// a float64 uniform against float64 probabilities, else a float32 one against p in float32.
pub fn bernoulli(gen: &Mutex<Generator>, p: &Tensor) -> Result<Tensor> {
    if !p.dtype().is_float() {
        bail!(Runtime, "\"bernoulli_tensor_cpu_p_\" not implemented for '{}'", p.dtype().name());
    }
    let probs = p.to_vec::<f64>();
    if probs.iter().any(|&q| !(0.0..=1.0).contains(&q)) {
        bail!(Runtime, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    }
    let hits: Vec<f64> = if p.dtype() == DType::F64 {
        let w = gen.lock().words64(probs.len());
        w.iter().zip(&probs).map(|(&w, &q)| if unit_f64(w) < q { 1.0 } else { 0.0 }).collect()
    } else {
        let w = gen.lock().words(probs.len());
        w.iter().zip(&probs).map(|(&w, &q)| if unit_f32(w) < q as f32 { 1.0 } else { 0.0 }).collect()
    };
    Tensor::from_vec(hits, p.shape())?.to_dtype(p.dtype())
}

/// `bernoulli_recorded`, captured (`ferrograd.compile`) as a node reading `p`: each replay draws anew.
pub fn bernoulli_traced(gen: &SharedGenerator, p: &Tensor) -> Result<Tensor> {
    let draw = {
        let gen = gen.clone();
        move |x: &[&Tensor]| bernoulli_recorded(&gen, x[0])
    };
    let replay = draw.clone();
    crate::compile::traced_random("bernoulli", &[p], || draw(&[p]), || replay)
}

/// A draw that reads tensors (`multinomial`, `poisson`, `binomial`, `_standard_gamma`), captured
/// (`ferrograd.compile`) as a node reading `inputs`: each replay draws anew from `gen`, as eager would.
pub fn traced_draw<F>(name: &'static str, gen: &SharedGenerator, inputs: &[&Tensor], draw: F) -> Result<Tensor>
where
    F: Fn(&Mutex<Generator>, &[&Tensor]) -> Result<Tensor> + Clone + Send + Sync + 'static,
{
    let run = {
        let gen = gen.clone();
        move |x: &[&Tensor]| draw(&gen, x)
    };
    let replay = run.clone();
    crate::compile::traced_random(name, inputs, || run(inputs), || replay)
}

/// `bernoulli(p)`'s draws recorded as torch records them: BernoulliBackward0, a zero gradient for `p`.
pub fn bernoulli_recorded(gen: &Mutex<Generator>, p: &Tensor) -> Result<Tensor> {
    let out = bernoulli(gen, p)?;
    Ok(crate::autograd::record(out, &[p], |_| draw_grad::DrawBackward { draw: draw_grad::Draw::Bernoulli }))
}

/// A tensor of `shape` and `dtype` holding `value` with probability `p` and 0 otherwise, in one pass:
/// `bernoulli_(p)` (value 1) and dropout's mask (value 1 / (1 - p) at keep probability 1 - p). One
/// float64 uniform per element against p, as PyTorch's scalar `bernoulli_` kernel.
pub fn bernoulli_scalar(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, p: f64, value: f64) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        bail!(Runtime, "bernoulli_ expects p to be in [0, 1], but got p={p}");
    }
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    // u < p for a uniform u = k·2^-53 is k < ⌈p·2^53⌉, an integer comparison
    let below = (p * (1u64 << 53) as f64).ceil() as u64;
    let n = numel(shape);
    let mut g = gen.lock();
    // float32/float64 as the value's bits under an all-ones or all-zeros mask: written as a select, the
    // captured value became a masked load through its address, two gathers a vector (1M float32 draws
    // 1.2 ms of 2; the mask takes ~0.1)
    let hit = move |w: u64| w & MASK_53 < below;
    match dtype {
        DType::F32 => {
            let bits = (value as f32).to_bits();
            Tensor::from_vec(g.map_words64(n, move |w| f32::from_bits((hit(w) as u32).wrapping_neg() & bits)), shape)
        }
        DType::F64 => {
            let bits = value.to_bits();
            Tensor::from_vec(g.map_words64(n, move |w| f64::from_bits((hit(w) as u64).wrapping_neg() & bits)), shape)
        }
        _ => with_dtype!(dtype, T => {
            let one = T::from_f64(value);
            Tensor::from_vec(g.map_words64(n, move |w| if hit(w) { one } else { T::ZERO }), shape)
        }),
    }
}

/// Dropout's mask for `input`: 1 / (1 - p) (PyTorch divides the 0/1 noise by 1 - p in the input's dtype, so
/// that quotient rounded as the division would) with probability 1 - p, else 0, in `input`'s shape and dtype.
/// Captured (`ferrograd.compile`) as a node reading `input`, so each replay draws a new mask from `gen`.
pub fn dropout_mask(gen: &SharedGenerator, input: &Tensor, p: f64) -> Result<Tensor> {
    let draw = {
        let gen = gen.clone();
        move |x: &[&Tensor]| {
            let keep = 1.0 - p;
            let value = match x[0].dtype() {
                _ if p >= 1.0 => 0.0,
                DType::F64 => 1.0 / keep,
                _ => (1.0f32 / keep as f32) as f64,
            };
            bernoulli_scalar(&gen, x[0].shape(), x[0].dtype(), keep, value)
        }
    };
    let replay = draw.clone();
    crate::compile::traced_random("dropout_mask", &[input], || draw(&[input]), || replay)
}

/// `exponential_(lambd)`'s values, as PyTorch's CPU kernel: -1/λ · ln(1 - u) for a float64 uniform u
/// per element, rounded to the dtype. 2.15 takes the logarithm as libm's `log1p(-u)` (its float64
/// results match that and differ from `log(1 - u)` in 6% of elements).
pub fn exponential(gen: &Mutex<Generator>, shape: &[usize], dtype: DType, lambd: f64) -> Result<Tensor> {
    if !dtype.is_float() {
        bail!(Runtime, "\"exponential_cpu\" not implemented for '{}'", dtype.name());
    }
    if lambd.is_nan() || lambd <= 0.0 {
        bail!(Runtime, "exponential_ expects lambda > 0.0, but found lambda={lambd}");
    }
    crate::alloc::check_new_shape(shape, dtype.itemsize())?;
    let scale = -1.0 / lambd;
    let v = gen.lock().map_words64(numel(shape), |w| scale * (-unit_f64(w)).ln_1p());
    Ok(Tensor::from_vec(v, shape)?.cast_detached(dtype))
}

mod counts;
mod draw_grad;
mod gamma;
mod multinomial;
mod sobol;
pub use counts::{binomial, poisson};
pub use gamma::standard_gamma;
pub use multinomial::multinomial;
pub use sobol::{sobol_draw, sobol_fast_forward, sobol_initial_state, sobol_scramble, sobol_table_dimensions};

#[cfg(test)]
mod tests;
