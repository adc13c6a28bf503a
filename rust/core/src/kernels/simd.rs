//! Run-time instruction-set dispatch and threading for contiguous elementwise loops.
//!
//! The same generic loop is compiled three times — for AVX-512, for AVX2+FMA and for the x86-64
//! baseline — and the best one the CPU supports is picked once at run time, so one wheel runs on any
//! x86-64 and still uses wide vectors where they exist. Large inputs are split across threads.
use crate::kernels::threads::{items_per_task, par_chunks_mut};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};

/// Elements above which a loop is split across threads.
pub use crate::kernels::split::ELEMENTWISE_ELEMENTS as PARALLEL_ABOVE;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Level {
    Baseline = 1,
    Avx2 = 2,
    Avx512 = 3,
}

static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The widest instruction set this CPU offers (detected once).
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::Avx2,
        3 => Level::Avx512,
        _ => {
            let l = detect();
            LEVEL.store(l as u8, Ordering::Relaxed);
            l
        }
    }
}

pub(crate) fn detect() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::env::var_os("FERROGRAD_SIMD").is_some_and(|v| v == "baseline") {
            return Level::Baseline;
        }
        // every feature the Avx512 versions enable (avx2 too: rustc implies it from avx512f, and a CPU with
        // AVX-512 has it, but the calls' safety must not rest on that). DQ's 64-bit integer ↔ float
        // conversions vectorize the maps over 64-bit words and int64 (every CPU with VL has DQ; without
        // it a float64 uniform's map went to scalar code: 1M `rand(dtype=float64)` 1.07 → 0.6 ms).
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
        {
            return Level::Avx512;
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Level::Avx2;
        }
    }
    Level::Baseline
}

/// Forces a level (tests compare every path against the baseline), at most the one `detect` finds: a
/// higher one would run instructions this CPU lacks.
pub fn set_level(l: Level) {
    let l = if l as u8 > detect() as u8 { detect() } else { l };
    LEVEL.store(l as u8, Ordering::Relaxed);
}

#[inline(always)]
fn fill_map<T: Copy, U>(out: &mut [MaybeUninit<U>], x: &[T], f: &impl Fn(T) -> U) {
    for (o, &v) in out.iter_mut().zip(x) {
        o.write(f(v));
    }
}

#[inline(always)]
fn fill_zip<A: Copy, B: Copy, U>(out: &mut [MaybeUninit<U>], a: &[A], b: &[B], f: &impl Fn(A, B) -> U) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        o.write(f(x, y));
    }
}

#[inline(always)]
fn fill_zip3<A: Copy, B: Copy, C: Copy, U>(
    out: &mut [MaybeUninit<U>],
    a: &[A],
    b: &[B],
    c: &[C],
    f: &impl Fn(A, B, C) -> U,
) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        o.write(f(x, y, z));
    }
}

#[inline(always)]
fn fill_update<T: Copy, U: Copy>(out: &mut [MaybeUninit<U>], x: &[T], f: &impl Fn(U, T) -> U) {
    for (o, &v) in out.iter_mut().zip(x) {
        // Safety: `update_slice` hands over initialised elements only.
        o.write(f(unsafe { o.assume_init_read() }, v));
    }
}

#[inline(always)]
fn fill_index<U>(out: &mut [MaybeUninit<U>], start: usize, f: &impl Fn(usize) -> U) {
    for (i, o) in out.iter_mut().enumerate() {
        o.write(f(start + i));
    }
}

macro_rules! multiversion {
    ($name:ident, $fill:ident, ($($arg:ident: $ty:ty),*), $f:ident: $fty:ty, [$($g:tt)*]) => {
        fn $name<$($g)*>(out: &mut [MaybeUninit<U>], $($arg: $ty,)* $f: &$fty) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
                unsafe fn avx512<$($g)*>(out: &mut [MaybeUninit<U>], $($arg: $ty,)* $f: &$fty) {
                    $fill(out, $($arg,)* $f)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2<$($g)*>(out: &mut [MaybeUninit<U>], $($arg: $ty,)* $f: &$fty) {
                    $fill(out, $($arg,)* $f)
                }
                match level() {
                    // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL/DQ, AVX2 and FMA on this CPU.
                    Level::Avx512 => return unsafe { avx512(out, $($arg,)* $f) },
                    // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
                    Level::Avx2 => return unsafe { avx2(out, $($arg,)* $f) },
                    Level::Baseline => {}
                }
            }
            $fill(out, $($arg,)* $f)
        }
    };
}

multiversion!(map_dispatch, fill_map, (x: &[T]), f: impl Fn(T) -> U, [T: Copy, U]);
multiversion!(zip_dispatch, fill_zip, (a: &[A], b: &[B]), f: impl Fn(A, B) -> U, [A: Copy, B: Copy, U]);
multiversion!(
    zip3_dispatch, fill_zip3, (a: &[A], b: &[B], c: &[C]), f: impl Fn(A, B, C) -> U, [A: Copy, B: Copy, C: Copy, U]
);
multiversion!(index_dispatch, fill_index, (start: usize), f: impl Fn(usize) -> U, [U]);
multiversion!(update_dispatch, fill_update, (x: &[T]), f: impl Fn(U, T) -> U, [T: Copy, U: Copy]);

/// Compiles `$body` (a generic `#[inline(always)]` function over slices) for AVX-512, AVX2+FMA and the
/// baseline, and runs the best this CPU has. The body must be a function, not a closure: a closure
/// handed to a target-feature function is not always inlined into it (then it runs as baseline code),
/// which is also why the call is wrapped in an `inline(always)` closure (grid_sample's was left out).
macro_rules! dispatch {
    ($body:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
            unsafe fn avx512(f: impl FnOnce()) { f() }
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2(f: impl FnOnce()) { f() }
            match $crate::kernels::simd::level() {
                // SAFETY: the level is Avx512 only where `detect` found AVX-512F/VL/DQ, AVX2 and FMA on this CPU.
                $crate::kernels::simd::Level::Avx512 => unsafe { avx512(#[inline(always)] || $body($($arg),*)) },
                // SAFETY: the level is Avx2 only where `detect` found at least AVX2 and FMA.
                $crate::kernels::simd::Level::Avx2 => unsafe { avx2(#[inline(always)] || $body($($arg),*)) },
                $crate::kernels::simd::Level::Baseline => $body($($arg),*),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        $body($($arg),*)
    }};
}

pub(crate) use dispatch;

/// `x` itself when its elements are f32 (for a generic kernel that has a float32 path of its own).
pub(crate) fn as_f32<T: 'static>(x: &[T]) -> Option<&[f32]> {
    same_type::<T, f32>(x)
}

/// `x` itself, typed as `U`, when `T` is `U` (a generic kernel's path for one element type).
pub(crate) fn same_type<T: 'static, U: 'static>(x: &[T]) -> Option<&[U]> {
    // SAFETY: T is U (same type id), so the slice is reinterpreted as itself.
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>())
        .then(|| unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<U>(), x.len()) })
}

/// `v` itself, typed as a `Vec<U>`, when `T` is `U`.
pub(crate) fn vec_of_same_type<T: 'static, U: 'static>(v: Vec<T>) -> Option<Vec<U>> {
    if std::any::TypeId::of::<T>() != std::any::TypeId::of::<U>() {
        return None;
    }
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: T is U (same type id): the allocation, length and capacity are those of a Vec<U>.
    Some(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<U>(), v.len(), v.capacity()) })
}

/// `f` over `x` into `out` (same length), vectorized, on the calling thread.
pub fn map_into<T: Copy, U>(out: &mut [MaybeUninit<U>], x: &[T], f: &impl Fn(T) -> U) {
    map_dispatch(out, x, f)
}

/// `f` over `a` and `b` into `out` (same length), vectorized, on the calling thread.
pub fn zip_into<A: Copy, B: Copy, U>(out: &mut [MaybeUninit<U>], a: &[A], b: &[B], f: &impl Fn(A, B) -> U) {
    zip_dispatch(out, a, b, f)
}

/// `f` over `a`, `b` and `c` into `out` (same length), vectorized, on the calling thread.
pub fn zip3_into<A: Copy, B: Copy, C: Copy, U>(
    out: &mut [MaybeUninit<U>],
    a: &[A],
    b: &[B],
    c: &[C],
    f: &impl Fn(A, B, C) -> U,
) {
    zip3_dispatch(out, a, b, c, f)
}

/// `f(start + i)` into each `out[i]`, vectorized, on the calling thread.
pub fn index_into<U>(out: &mut [MaybeUninit<U>], start: usize, f: &impl Fn(usize) -> U) {
    index_dispatch(out, start, f)
}

/// `f` over a contiguous slice into a fresh (pooled) vector: vectorized, threaded when large.
pub fn map_slice<T: Copy + Sync + Send + 'static, U: Send + 'static>(x: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U> {
    map_slice_by(x, |o, xs| map_dispatch(o, xs, &f))
}

/// `kernel(out, x)` over a contiguous slice into a fresh (pooled) vector, run on parts of `x` in
/// parallel when large: for loops written by hand (intrinsics) rather than left to the compiler.
pub fn map_slice_by<T: Copy + Sync + Send + 'static, U: Send + 'static>(
    x: &[T],
    kernel: impl Fn(&mut [MaybeUninit<U>], &[T]) + Sync,
) -> Vec<U> {
    let n = x.len();
    let mut out: Vec<U> = crate::pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= PARALLEL_ABOVE {
        let chunk = items_per_task(n, true);
        par_chunks_mut(dst, chunk, &|c, o| kernel(o, &x[c * chunk..][..o.len()]));
    } else {
        kernel(dst, x);
    }
    // Safety: `kernel` writes every slot of `out` it is given (the contract of the `*_into` kernels).
    unsafe { out.set_len(n) };
    out
}

/// `f` over two contiguous slices of one length.
pub fn zip_slices<A: Copy + Sync + Send + 'static, B: Copy + Sync + Send + 'static, U: Send + 'static>(
    a: &[A],
    b: &[B],
    f: impl Fn(A, B) -> U + Sync,
) -> Vec<U> {
    zip_slices_by(a, b, |o, a, b| zip_dispatch(o, a, b, &f))
}

/// `kernel(out, a, b)` over two contiguous slices of one length into a fresh (pooled) vector, on parts
/// in parallel when large: for binary loops written by hand (intrinsics).
pub fn zip_slices_by<A: Copy + Sync + Send + 'static, B: Copy + Sync + Send + 'static, U: Send + 'static>(
    a: &[A],
    b: &[B],
    kernel: impl Fn(&mut [MaybeUninit<U>], &[A], &[B]) + Sync,
) -> Vec<U> {
    let n = a.len().min(b.len());
    let mut out: Vec<U> = crate::pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= PARALLEL_ABOVE {
        let chunk = items_per_task(n, true);
        par_chunks_mut(dst, chunk, &|c, o| kernel(o, &a[c * chunk..][..o.len()], &b[c * chunk..][..o.len()]));
    } else {
        kernel(dst, &a[..n], &b[..n]);
    }
    // Safety: `kernel` writes every slot of `out` it is given (the contract of the `*_into` kernels).
    unsafe { out.set_len(n) };
    out
}

/// `f(i)` for `i` in `0..n` into a fresh (pooled) vector: vectorized, threaded when large (counter-based
/// random streams, whose values depend on the index alone).
pub fn index_map<U: Send + 'static>(n: usize, f: impl Fn(usize) -> U + Sync) -> Vec<U> {
    let mut out: Vec<U> = crate::pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= PARALLEL_ABOVE {
        let chunk = items_per_task(n, true);
        par_chunks_mut(dst, chunk, &|c, o| index_dispatch(o, c * chunk, &f));
    } else {
        index_dispatch(dst, 0, &f);
    }
    // Safety: every one of the first n slots was written above.
    unsafe { out.set_len(n) };
    out
}

/// `kernel(out part, index of its first element)` over a fresh (pooled) vector of `n` elements, on
/// parts in parallel when large: for fills whose values depend on the index alone.
pub fn index_map_by<U: Send + 'static>(n: usize, kernel: impl Fn(&mut [MaybeUninit<U>], usize) + Sync) -> Vec<U> {
    let mut out: Vec<U> = crate::pool::take(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    if n >= PARALLEL_ABOVE {
        let chunk = items_per_task(n, true);
        par_chunks_mut(dst, chunk, &|c, o| kernel(o, c * chunk));
    } else {
        kernel(dst, 0);
    }
    // Safety: `kernel` writes every slot of the part it is given.
    unsafe { out.set_len(n) };
    out
}

/// `dst[i] = f(dst[i], x[i])` in place (`dst` and `x` of one length): vectorized, threaded when large.
pub fn update_slice<T: Copy + Sync, U: Copy + Send>(dst: &mut [U], x: &[T], f: impl Fn(U, T) -> U + Sync) {
    let n = dst.len().min(x.len());
    // Safety: MaybeUninit<U> has the layout of U, and every element stays initialised (each is read,
    // then overwritten).
    let dst = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<MaybeUninit<U>>(), n) };
    if n >= PARALLEL_ABOVE {
        let chunk = items_per_task(n, true);
        par_chunks_mut(dst, chunk, &|c, o| update_dispatch(o, &x[c * chunk..][..o.len()], &f));
    } else {
        update_dispatch(dst, &x[..n], &f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_and_the_threaded_path_agree_with_a_plain_loop() {
        for n in [0usize, 1, 7, 8, 15, 16, 17, 63, 64, 65, 1000, PARALLEL_ABOVE + 3] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32) * 0.5 - 3.0).collect();
            let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
            let want_map: Vec<f32> = a.iter().map(|v| v * v + 1.0).collect();
            let want_zip: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x * y - y).collect();
            for l in [Level::Baseline, detect()] {
                set_level(l);
                assert_eq!(map_slice(&a, |v| v * v + 1.0), want_map, "map n={n} {l:?}");
                // unaligned starts
                if n > 1 {
                    assert_eq!(
                        zip_slices(&a[1..], &b[1..], |x, y| x * y - y),
                        want_zip[1..].to_vec(),
                        "zip n={n} {l:?}"
                    );
                    let mut updated = a[1..].to_vec();
                    update_slice(&mut updated, &b[1..], |x, y| x * y - y);
                    assert_eq!(updated, want_zip[1..].to_vec(), "update n={n} {l:?}");
                }
                let want_index: Vec<u64> = (0..n as u64).map(|i| (i * i) ^ 5).collect();
                assert_eq!(index_map(n, |i| ((i as u64) * (i as u64)) ^ 5), want_index, "index n={n} {l:?}");
            }
            set_level(detect());
        }
    }
}
