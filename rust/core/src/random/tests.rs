//! Statistical checks of the samplers; their bits are checked against PyTorch in tests/test_random_torch.py.
use super::*;
use crate::dtype::DType;
use crate::tensor::Tensor;
use parking_lot::Mutex;

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

#[test]
fn state_bytes_round_trip_with_both_normal_caches() {
    let gen = Mutex::new(Generator::seeded(9));
    randn(&gen, &[3], DType::F32).unwrap(); // leaves a float64 normal cached
    gen.lock().next_float_normal = Some(0.25);
    let bytes = gen.lock().state_bytes();
    assert_eq!(bytes.len(), STATE_BYTES);
    let a = randn(&gen, &[5], DType::F64).unwrap().to_vec::<f64>();
    let mut other = Generator::seeded(1);
    other.set_state_bytes(&bytes).unwrap();
    assert_eq!(other.next_float_normal, Some(0.25));
    let other = Mutex::new(other);
    assert_eq!(randn(&other, &[5], DType::F64).unwrap().to_vec::<f64>(), a);
    let mut bad = bytes.clone();
    bad[offset::LEFT..][..4].copy_from_slice(&0i32.to_le_bytes());
    assert!(other.lock().set_state_bytes(&bad).is_err());
    assert!(other.lock().set_state_bytes(&bytes[..100]).is_err());
}

#[test]
fn standard_gamma_draws_have_the_gamma_moments_and_the_edges() {
    // bits against PyTorch: tests/test_distributions.py (recorded seeded Gamma, Beta, Dirichlet, ... draws)
    let gen = Mutex::new(Generator::seeded(3));
    let n = 20_000;
    for (alpha, dtype) in [(0.3, DType::F64), (2.5, DType::F32), (40.0, DType::F64)] {
        let alphas = Tensor::from_vec(vec![alpha; n], &[n]).unwrap().to_dtype(dtype).unwrap();
        let draws = standard_gamma(&gen, &alphas).unwrap().to_vec::<f64>();
        let (mean, var) = moments(&draws);
        assert!((mean / alpha - 1.0).abs() < 0.05 && (var / alpha - 1.0).abs() < 0.1, "{alpha}: {mean} {var}");
    }
    // alpha 0 and a NaN give the smallest normal (PyTorch's std::max(min, sample)); infinity stays
    let edges = Tensor::from_vec(vec![0.0f64, f64::NAN, f64::INFINITY], &[3]).unwrap();
    let draws = standard_gamma(&gen, &edges).unwrap().to_vec::<f64>();
    assert_eq!(draws, vec![f64::MIN_POSITIVE, f64::MIN_POSITIVE, f64::INFINITY]);
    let ints = Tensor::from_vec(vec![1i64], &[1]).unwrap();
    assert!(standard_gamma(&gen, &ints).is_err());
}

#[test]
fn poisson_and_binomial_counts_have_their_moments_and_bounds() {
    // bits against PyTorch: tests/test_random_torch.py ("counts")
    let gen = Mutex::new(Generator::seeded(5));
    let n = 20_000;
    for (rate, dtype) in [(0.7, DType::F64), (9.9, DType::F32), (10.0, DType::F64), (250.0, DType::F32)] {
        let rates = Tensor::from_vec(vec![rate; n], &[n]).unwrap().to_dtype(dtype).unwrap();
        let (mean, var) = moments(&poisson(&gen, &rates).unwrap().to_vec::<f64>());
        assert!((mean / rate - 1.0).abs() < 0.03 && (var / rate - 1.0).abs() < 0.06, "{rate}: {mean} {var}");
    }
    for (trials, chance) in [(8.0, 0.3), (40.0, 0.2), (400.0, 0.9)] {
        let count = Tensor::from_vec(vec![trials; n], &[n]).unwrap();
        let prob = Tensor::from_vec(vec![chance; n], &[n]).unwrap();
        let (mean, var) = moments(&binomial(&gen, &count, &prob).unwrap().to_vec::<f64>());
        let (m, v) = (trials * chance, trials * chance * (1.0 - chance));
        assert!((mean / m - 1.0).abs() < 0.03 && (var / v - 1.0).abs() < 0.06, "{trials} {chance}: {mean} {var}");
    }
    // a bad rate is refused before anything is drawn
    let before = gen.lock().state_bytes();
    let bad = Tensor::from_vec(vec![1.0f64, -1.0], &[2]).unwrap();
    assert!(poisson(&gen, &bad).is_err());
    assert_eq!(gen.lock().state_bytes(), before);
    // count or chance <= 0 gives 0, chance >= 1 the count, a NaN chance NaN
    let count = Tensor::from_vec(vec![5.0f64, -1.0, 7.0, 3.0], &[4]).unwrap();
    let prob = Tensor::from_vec(vec![0.0f64, 0.5, 1.5, f64::NAN], &[4]).unwrap();
    let v = binomial(&gen, &count, &prob).unwrap().to_vec::<f64>();
    assert_eq!(&v[..3], &[0.0, 0.0, 7.0]);
    assert!(v[3].is_nan());
}

/// The block-wise draw-and-map samplers against one `random`/`random64` call an element (the stream PyTorch's
/// scalar loops draw), across block boundaries, for each dtype path of the bernoulli mask.
#[test]
fn block_samplers_draw_the_word_at_a_time_stream() {
    let n = 3 * WORD_BLOCK + 17;
    let gen = Mutex::new(Generator::seeded(5));
    let words64: Vec<u64> = (0..n).map(|_| gen.lock().random64()).collect();
    let words: Vec<u32> = (0..n).map(|_| gen.lock().random()).collect();
    gen.lock().seed(5);
    let (p, value) = (0.3, 1.0 / 0.7);
    let below = (p * (1u64 << 53) as f64).ceil() as u64;
    let want: Vec<f64> = words64.iter().map(|&w| if w & MASK_53 < below { value } else { 0.0 }).collect();
    let f32s = bernoulli_scalar(&gen, &[n], DType::F32, p, value).unwrap().to_vec::<f32>();
    assert_eq!(f32s, want.iter().map(|&v| v as f32).collect::<Vec<_>>());
    assert_eq!(gen.lock().random(), words[0], "the mask drew exactly two words an element");
    gen.lock().seed(5);
    assert_eq!(bernoulli_scalar(&gen, &[n], DType::F64, p, value).unwrap().to_vec::<f64>(), want);
    gen.lock().seed(5);
    let ints = bernoulli_scalar(&gen, &[n], DType::I64, p, 1.0).unwrap().to_vec::<i64>();
    assert_eq!(ints, want.iter().map(|&v| (v != 0.0) as i64).collect::<Vec<_>>());
    gen.lock().seed(5);
    gen.lock().map_words64(n, |w| w); // skip the 64-bit words
    let uniforms = rand(&gen, &[n], DType::F32).unwrap().to_vec::<f32>();
    assert_eq!(uniforms, words.iter().map(|&w| unit_f32(w)).collect::<Vec<_>>());
    gen.lock().seed(5);
    let ints = randint(&gen, 3, 10, &[n]).unwrap().to_vec::<i64>();
    assert_eq!(
        ints,
        words64
            .iter()
            .flat_map(|w| [(w >> 32) as u32, *w as u32])
            .take(n)
            .map(|w| (w % 7) as i64 + 3)
            .collect::<Vec<_>>()
    );
}
