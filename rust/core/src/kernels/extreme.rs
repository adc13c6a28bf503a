//! The largest or smallest float32 of a run with AVX-512 `vmaxps`/`vminps`, two registers of sixteen lanes, for
//! `ops::extreme::extreme_run`. The generic loop there, compiled for AVX-512, took 2.2 ns per sixteen floats in L1
//! (its "any NaN" flag is one bool carried through the loop); this takes 1.1. A 1000×1000 `amax(-1)` reads at memory
//! speed on one thread either way; on two, where the halves sit in the two cores' caches, it was twice torch's time.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The extreme of `x` when no element is NaN and it is not a zero (which of -0 and 0 comes first is the fold's
/// to say); None then, and for runs shorter than four registers, which the caller folds.
///
/// Safety: the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn lane_extreme_f32_avx512(x: &[f32], is_max: bool) -> Option<f32> {
    if x.len() < 64 {
        return None;
    }
    let p = x.as_ptr();
    let pick = |a: __m512, b: __m512| if is_max { _mm512_max_ps(a, b) } else { _mm512_min_ps(a, b) };
    let (mut a, mut b) = (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)));
    // max/min return their second operand when either is NaN, so a NaN would be lost: an unordered compare of the two
    // loads sees one in either
    let mut nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b);
    let full = x.len() - x.len() % 32;
    let mut i = 32;
    while i < full {
        let (u, v) = (_mm512_loadu_ps(p.add(i)), _mm512_loadu_ps(p.add(i + 16)));
        nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(u, v);
        a = pick(a, u);
        b = pick(b, v);
        i += 32;
    }
    let mut lanes = [0f32; 16];
    _mm512_storeu_ps(lanes.as_mut_ptr(), pick(a, b));
    let best = lanes.iter().chain(&x[full..]).fold(lanes[0], |m, &v| if is_max { m.max(v) } else { m.min(v) });
    let nan_in_tail = x[full..].iter().any(|v| v.is_nan());
    (nan == 0 && !nan_in_tail && best != 0.0).then_some(best)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::kernels::simd::{level, Level};

    fn fold(x: &[f32], is_max: bool) -> f32 {
        x.iter().copied().fold(x[0], |m, v| if is_max { m.max(v) } else { m.min(v) })
    }

    #[test]
    fn agrees_with_a_fold_and_declines_nans_and_zeros() {
        if level() != Level::Avx512 {
            return;
        }
        for n in [0usize, 63, 64, 65, 95, 96, 97, 1000, 1027] {
            let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 * 0.5 - 20.0).collect();
            for is_max in [true, false] {
                // SAFETY: the level is Avx512, so the CPU has AVX-512F.
                let got = unsafe { lane_extreme_f32_avx512(&x, is_max) };
                assert_eq!(got, (n >= 64).then(|| fold(&x, is_max)), "n={n} is_max={is_max}");
                // the extreme anywhere: first lane, last register, the tail
                for at in [0, n / 2, n.saturating_sub(1)].into_iter().filter(|_| n >= 64) {
                    let mut y = x.clone();
                    y[at] = if is_max { 1e6 } else { -1e6 };
                    // SAFETY: as above.
                    assert_eq!(unsafe { lane_extreme_f32_avx512(&y, is_max) }, Some(y[at]), "n={n} at={at}");
                    y[at] = f32::NAN;
                    // SAFETY: as above.
                    assert_eq!(unsafe { lane_extreme_f32_avx512(&y, is_max) }, None, "NaN at {at} of {n}");
                }
            }
        }
        let zeros = vec![0.0f32; 100];
        // SAFETY: as above.
        assert_eq!(unsafe { lane_extreme_f32_avx512(&zeros, true) }, None);
    }
}
