//! The default random generator: xoshiro256** seeded through splitmix64, normals by Box–Muller.
//! Streams are reproducible under `manual_seed`, not bit-identical to PyTorch's (nobody can rely on that).
use crate::dtype::DType;
use crate::element::Element;
use crate::layout::numel;
use crate::tensor::Tensor;
use crate::with_float_dtype;
use crate::error::Result;
use crate::bail;
use parking_lot::Mutex;

pub struct Generator {
    s: [u64; 4],
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Generator {
    pub const fn unseeded() -> Self {
        Generator { s: [0x8a5c_d789_635d_2dff, 0x121f_d215_5c47_2f96, 0x0cc5_3a33_1d63_6711, 0x4e1e_4bcf_7d44_2cd3] }
    }

    pub fn seed(&mut self, seed: u64) {
        let mut st = seed;
        self.s = std::array::from_fn(|_| splitmix(&mut st));
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

static DEFAULT: Mutex<Generator> = Mutex::new(Generator::unseeded());

pub fn manual_seed(seed: u64) {
    DEFAULT.lock().seed(seed);
}

fn sample(shape: &[usize], dtype: DType, what: &str, draw: fn(&mut Generator) -> f64) -> Result<Tensor> {
    let mut g = DEFAULT.lock();
    with_float_dtype!(dtype, T => {
        let v: Vec<T> = (0..numel(shape)).map(|_| T::from_f64(draw(&mut g))).collect();
        Tensor::from_vec(v, shape)
    }, bail!(Runtime, "\"{what}\" not implemented for '{}'", dtype.name()))
}

pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
    sample(shape, dtype, "check_uniform_bounds", Generator::uniform)
}

pub fn randn(shape: &[usize], dtype: DType) -> Result<Tensor> {
    sample(shape, dtype, "normal_kernel_cpu", Generator::normal)
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
}
