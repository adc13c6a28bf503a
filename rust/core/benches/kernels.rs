//! Criterion benchmarks of the forward kernels, each beside a naive loop doing the same work.
//!
//! Run with `cargo bench -p ferrograd-core --bench kernels` (or `make bench-rust`); filter with a trailing
//! pattern, e.g. `... --bench kernels -- exp`. The "naive" baselines are the straightforward Rust loop
//! anyone would write: indexed, one element at a time. Compiled for the default target (baseline x86-64,
//! SSE2), LLVM may still auto-vectorize the contiguous add/mul ones, and `exp` calls libm per element, so
//! the baseline shows what explicit SIMD (run-time dispatched AVX2/AVX-512) must beat, not a straw man.
//! These are kernel timings only: no autograd, no Python.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferrograd_core::kernels::elementwise::{map1, map2};
use ferrograd_core::kernels::matmul::{matmul_into, MatRef};
use ferrograd_core::kernels::reduce::fold;
use ferrograd_core::Layout;

/// 1e6 elements, as a 1000×1000 matrix for the strided cases.
const ROWS: usize = 1000;
const COLS: usize = 1000;
const N: usize = ROWS * COLS;

/// Deterministic inputs in [-1, 1) (a small LCG: no rand dependency).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn elementwise(c: &mut Criterion) {
    let a = data(N, 1);
    let b = data(N, 2);
    let contiguous = Layout::contiguous(&[ROWS, COLS]);
    // the storage holds a COLS×ROWS matrix; read through its transpose it is ROWS×COLS, column-major
    let transposed = Layout::contiguous(&[COLS, ROWS]).transpose(0, 1);

    let mut g = c.benchmark_group("elementwise_1e6_f32");
    g.throughput(Throughput::Elements(N as u64));
    for (op, f) in [("add", (|x: f32, y: f32| x + y) as fn(f32, f32) -> f32), ("mul", |x: f32, y: f32| x * y)] {
        g.bench_function(BenchmarkId::new(op, "contiguous/kernel"), |bn| {
            bn.iter(|| map2(&contiguous, black_box(&a), &contiguous, black_box(&b), f))
        });
        g.bench_function(BenchmarkId::new(op, "contiguous/naive"), |bn| {
            bn.iter(|| {
                let (a, b) = (black_box(&a), black_box(&b));
                let mut out = vec![0.0f32; N];
                for i in 0..N {
                    out[i] = f(a[i], b[i]);
                }
                out
            })
        });
        g.bench_function(BenchmarkId::new(op, "transposed/kernel"), |bn| {
            bn.iter(|| map2(&transposed, black_box(&a), &contiguous, black_box(&b), f))
        });
        g.bench_function(BenchmarkId::new(op, "transposed/naive"), |bn| {
            bn.iter(|| {
                let (a, b) = (black_box(&a), black_box(&b));
                let mut out = vec![0.0f32; N];
                for i in 0..ROWS {
                    for j in 0..COLS {
                        out[i * COLS + j] = f(a[j * ROWS + i], b[i * COLS + j]);
                    }
                }
                out
            })
        });
    }
    g.bench_function(BenchmarkId::new("exp", "contiguous/kernel"), |bn| {
        bn.iter(|| map1(&contiguous, black_box(&a), f32::exp))
    });
    g.bench_function(BenchmarkId::new("exp", "contiguous/naive"), |bn| {
        bn.iter(|| {
            let a = black_box(&a);
            let mut out = vec![0.0f32; N];
            for i in 0..N {
                out[i] = a[i].exp();
            }
            out
        })
    });
    g.bench_function(BenchmarkId::new("exp", "transposed/kernel"), |bn| {
        bn.iter(|| map1(&transposed, black_box(&a), f32::exp))
    });
    g.bench_function(BenchmarkId::new("exp", "transposed/naive"), |bn| {
        bn.iter(|| {
            let a = black_box(&a);
            let mut out = vec![0.0f32; N];
            for i in 0..ROWS {
                for j in 0..COLS {
                    out[i * COLS + j] = a[j * ROWS + i].exp();
                }
            }
            out
        })
    });
    g.finish();
}

fn reductions(c: &mut Criterion) {
    let x = data(N, 3);
    let l = Layout::contiguous(&[ROWS, COLS]);
    let mut g = c.benchmark_group("sum_1000x1000_f32");
    g.throughput(Throughput::Elements(N as u64));
    for axis in [0usize, 1] {
        g.bench_function(BenchmarkId::new(format!("axis{axis}"), "kernel"), |bn| {
            bn.iter(|| fold(&l, black_box(&x), &[axis], 0.0f32, |a, v| a + v))
        });
    }
    // naive: one accumulator per output, walking the reduced axis (strided for axis 0)
    g.bench_function(BenchmarkId::new("axis0", "naive"), |bn| {
        bn.iter(|| {
            let x = black_box(&x);
            let mut out = vec![0.0f32; COLS];
            for j in 0..COLS {
                let mut s = 0.0f32;
                for i in 0..ROWS {
                    s += x[i * COLS + j];
                }
                out[j] = s;
            }
            out
        })
    });
    g.bench_function(BenchmarkId::new("axis1", "naive"), |bn| {
        bn.iter(|| {
            let x = black_box(&x);
            let mut out = vec![0.0f32; ROWS];
            for i in 0..ROWS {
                let mut s = 0.0f32;
                for j in 0..COLS {
                    s += x[i * COLS + j];
                }
                out[i] = s;
            }
            out
        })
    });
    g.finish();
}

fn matmul(c: &mut Criterion) {
    const M: usize = 256;
    let a = data(M * M, 4);
    let b = data(M * M, 5);
    let row_major = MatRef { offset: 0, row_stride: M, col_stride: 1 };
    let mut g = c.benchmark_group("matmul_256_f32");
    g.throughput(Throughput::Elements((2 * M * M * M) as u64)); // flops
    g.sample_size(20);
    g.bench_function("gemm", |bn| {
        bn.iter(|| {
            let mut out = vec![std::mem::MaybeUninit::new(0.0f32); M * M];
            matmul_into(&mut out, black_box(&a), row_major, black_box(&b), row_major, M, M, M);
            out
        })
    });
    g.bench_function("gemm_b_transposed", |bn| {
        let bt = MatRef { offset: 0, row_stride: 1, col_stride: M };
        bn.iter(|| {
            let mut out = vec![std::mem::MaybeUninit::new(0.0f32); M * M];
            matmul_into(&mut out, black_box(&a), row_major, black_box(&b), bt, M, M, M);
            out
        })
    });
    g.bench_function("naive_ijk", |bn| {
        bn.iter(|| {
            let (a, b) = (black_box(&a), black_box(&b));
            let mut out = vec![0.0f32; M * M];
            for i in 0..M {
                for j in 0..M {
                    let mut s = 0.0f32;
                    for k in 0..M {
                        s += a[i * M + k] * b[k * M + j];
                    }
                    out[i * M + j] = s;
                }
            }
            out
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = elementwise, reductions, matmul
}
criterion_main!(benches);
