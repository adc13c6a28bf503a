//! The AVX-512 exact GELU: x·Φ(x) with Φ read from a table of 31 polynomial pieces, sixteen lanes at a time.
//!
//! Φ on [-6, 6] in pieces of width 0.4, each a degree-5 polynomial in the piece's own coordinate
//! t = 2.5x + 15 - j, |t| <= 1/2 (tools/fit_gelu_table.py, fitted for relative error); `vpermt2ps` reads
//! the piece's six coefficients from two registers each. x is clamped to ±6 first, where pieces 0 and 30
//! are the constants 0 and 1: so GELU(x) = x for x >= 5.8, ±0 for x <= -5.8 (|Φ| < 3.4e-9 there), -inf·0
//! = NaN, inf·1 = inf, and NaN stays NaN through the clamp. 17 instructions a vector, no division and no
//! exponential, against ~37 for the sigmoid form compiled for AVX-512 (`fill_fma`).
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use crate::kernels::math::x86::map16;

/// Where x is clamped: Φ(-6) = 9.9e-10.
const END: f32 = 6.0;
/// t + j = SLOPE·x + CENTER: piece 0 at x = -6, piece 15 at 0, piece 30 at 6.
const SLOPE: f32 = 2.5;
/// 2^23 + 15: adding it rounds SLOPE·x + 15 to the integer j, kept in the low mantissa bits (the table index).
const CENTER_MAGIC: f32 = 8_388_623.0;
/// Φ on piece j = PHI_TABLE[0][j] + t·PHI_TABLE[1][j] + ... + t⁵·PHI_TABLE[5][j].
const PHI_TABLE: [[f32; 32]; 6] = [
    [
        0.0,
        1.07179225e-8,
        9.964632e-8,
        7.933383e-7,
        5.412583e-6,
        3.1671356e-5,
        1.5910884e-4,
        6.8713824e-4,
        2.5551303e-3,
        8.197535e-3,
        2.275013e-2,
        5.479929e-2,
        1.1506967e-1,
        2.1185541e-1,
        3.4457827e-1,
        5e-1,
        6.5542173e-1,
        7.881446e-1,
        8.849303e-1,
        9.452007e-1,
        9.7724986e-1,
        9.9180245e-1,
        9.9744487e-1,
        9.993129e-1,
        9.998409e-1,
        9.9996835e-1,
        9.999946e-1,
        9.999992e-1,
        9.999999e-1,
        1.0,
        1.0,
        0.0,
    ],
    [
        0.0,
        2.4724748e-8,
        2.1441075e-7,
        1.5843875e-6,
        9.9765375e-6,
        5.353091e-5,
        2.4475853e-4,
        9.5363276e-4,
        3.1661806e-3,
        8.957818e-3,
        2.1596398e-2,
        4.4368345e-2,
        7.767442e-2,
        1.1587661e-1,
        1.4730804e-1,
        1.5957691e-1,
        1.4730807e-1,
        1.1587663e-1,
        7.7674426e-2,
        4.4368334e-2,
        2.1596385e-2,
        8.957811e-3,
        3.1661799e-3,
        9.5363514e-4,
        2.4476091e-4,
        5.3532214e-5,
        9.977048e-6,
        1.5845397e-6,
        2.144466e-7,
        2.473153e-8,
        0.0,
        0.0,
    ],
    [
        0.0,
        2.7661413e-8,
        2.2280693e-7,
        1.5201514e-6,
        8.776113e-6,
        4.281541e-5,
        1.7620709e-4,
        6.10303e-4,
        1.7730698e-3,
        4.299846e-3,
        8.63874e-3,
        1.4198003e-2,
        1.8641738e-2,
        1.853985e-2,
        1.17842555e-2,
        9.66846e-10,
        -1.1784252e-2,
        -1.8539844e-2,
        -1.8641736e-2,
        -1.4198009e-2,
        -8.638748e-3,
        -4.299851e-3,
        -1.77307e-3,
        -6.103002e-4,
        -1.762043e-4,
        -4.2813754e-5,
        -8.7754115e-6,
        -1.519925e-6,
        -2.227494e-7,
        -2.7649683e-8,
        0.0,
        0.0,
    ],
    [
        0.0,
        2.0111878e-8,
        1.4938772e-7,
        9.3333716e-7,
        4.891778e-6,
        2.1431431e-5,
        7.809823e-5,
        2.3501893e-4,
        5.7751895e-4,
        1.1369574e-3,
        1.727523e-3,
        1.8455454e-3,
        9.1137126e-4,
        -1.1122193e-3,
        -3.2994417e-3,
        -4.2552734e-3,
        -3.299726e-3,
        -1.1125383e-3,
        9.112669e-4,
        1.8456803e-3,
        1.7277297e-3,
        1.1370794e-3,
        5.7753065e-4,
        2.3497884e-4,
        7.805908e-5,
        2.140974e-5,
        4.88323e-6,
        9.307652e-7,
        1.4877699e-7,
        1.9995277e-8,
        0.0,
        0.0,
    ],
    [
        0.0,
        1.0939744e-8,
        7.411535e-8,
        4.1843802e-7,
        1.9585063e-6,
        7.543459e-6,
        2.3642135e-5,
        5.9187467e-5,
        1.1432774e-4,
        1.5717113e-4,
        1.1314998e-4,
        -8.4789026e-5,
        -3.8642468e-4,
        -5.789839e-4,
        -4.4206437e-4,
        -5.034499e-9,
        4.420491e-4,
        5.78965e-4,
        3.864216e-4,
        8.481252e-5,
        -1.1311558e-4,
        -1.5715002e-4,
        -1.1432735e-4,
        -5.919878e-5,
        -2.365343e-5,
        -7.5501566e-6,
        -1.961349e-6,
        -4.1935843e-7,
        -7.434994e-8,
        -1.0987725e-8,
        0.0,
        0.0,
    ],
    [
        0.0,
        4.003226e-9,
        2.5029506e-8,
        1.2870186e-7,
        5.3903966e-7,
        1.8115861e-6,
        4.7614203e-6,
        9.292087e-6,
        1.1676815e-5,
        3.2548994e-6,
        -2.2481318e-5,
        -5.4212556e-5,
        -5.871173e-5,
        -1.1073785e-5,
        6.3828345e-5,
        1.01262114e-4,
        6.473827e-5,
        -1.0052322e-5,
        -5.8377453e-5,
        -5.4646593e-5,
        -2.3146378e-5,
        2.8620732e-6,
        1.1639149e-5,
        9.422362e-6,
        4.888815e-6,
        1.8823612e-6,
        5.6702356e-7,
        1.3715261e-7,
        2.7044434e-8,
        4.3896122e-9,
        0.0,
        0.0,
    ],
];

/// `PHI_TABLE[k]` as two registers (entries 0-15 and 16-31), for `_mm512_permutex2var_ps`.
#[inline(always)]
unsafe fn table() -> [[__m512; 2]; 6] {
    PHI_TABLE.map(|row| [_mm512_loadu_ps(row.as_ptr()), _mm512_loadu_ps(row.as_ptr().add(16))])
}

#[inline(always)]
unsafe fn gelu_x16(x: __m512, tab: &[[__m512; 2]; 6]) -> __m512 {
    let set = _mm512_set1_ps;
    // min/max return their second operand when either is NaN, so NaN stays
    let xc = _mm512_max_ps(set(-END), _mm512_min_ps(set(END), x));
    let m = _mm512_fmadd_ps(xc, set(SLOPE), set(CENTER_MAGIC));
    // t = SLOPE·x + 15 - j, rounded once (CENTER_MAGIC - m = 15 - j exactly)
    let t = _mm512_fmadd_ps(xc, set(SLOPE), _mm512_sub_ps(set(CENTER_MAGIC), m));
    let j = _mm512_castps_si512(m);
    let coef = |k: usize| _mm512_permutex2var_ps(tab[k][0], j, tab[k][1]);
    let mut p = coef(5);
    for k in (0..5).rev() {
        p = _mm512_fmadd_ps(p, t, coef(k));
    }
    _mm512_mul_ps(x, p)
}

/// Exact GELU over a slice, sixteen lanes at a time (the tail masked).
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub unsafe fn gelu_exact_f32_into(out: &mut [MaybeUninit<f32>], x: &[f32]) {
    let tab = table();
    map16(out, x, |v| gelu_x16(v, &tab))
}
