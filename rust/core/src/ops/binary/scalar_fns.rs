//! The per-element functions of the `Binary` ops that need more than one expression, as torch's CPU
//! kernels compute them (NaN handling, ties, ±0, the halves' own spacing).
use crate::dtype::DType;
use crate::element::{Element, Float};

/// `fmax`: the larger of two, NaN only when both are; `self` on ties (so `fmax(0, -0)` is 0).
pub(super) fn fmax<T: Element>(x: T, y: T) -> T {
    #[allow(clippy::eq_op)]
    let y_is_nan = y != y;
    if y_is_nan || x >= y {
        x
    } else {
        y
    }
}

/// `fmin`: the smaller of two, NaN only when both are; `self` on ties.
pub(super) fn fmin<T: Element>(x: T, y: T) -> T {
    #[allow(clippy::eq_op)]
    let y_is_nan = y != y;
    if y_is_nan || x <= y {
        x
    } else {
        y
    }
}

/// `log(exp(x) + exp(y))` (`log2(2^x + 2^y)` with `base2`) without overflow: equal infinities give
/// themselves (not inf - inf), and a NaN propagates.
pub(super) fn logaddexp<T: Float>(x: T, y: T, base2: bool) -> T {
    if x.is_infinite() && x == y {
        return x;
    }
    // torch's std::max(x, y): x unless x < y, so a NaN x stays
    let m = if x < y { y } else { x };
    let d = -(x - y).abs();
    if base2 {
        m + d.exp2().ln_1p() * T::from_f64(std::f64::consts::LOG2_E)
    } else {
        m + d.exp().ln_1p()
    }
}

/// The next value after `x` towards `y` in `dtype`'s own spacing (the halves step by their ulp, not
/// float32's); `x`, `y` and the result are exact in f64.
pub(super) fn nextafter(x: f64, y: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F64 => libm::nextafter(x, y),
        DType::F32 => libm::nextafterf(x as f32, y as f32) as f64,
        DType::F16 => nextafter_bits(x, y, |v| half::f16::from_f64(v).to_bits(), |b| half::f16::from_bits(b).to_f64()),
        DType::BF16 => {
            nextafter_bits(x, y, |v| half::bf16::from_f64(v).to_bits(), |b| half::bf16::from_bits(b).to_f64())
        }
        _ => unreachable!("nextafter computes in float dtypes only"),
    }
}

/// nextafter over a 16-bit float format given by its bit conversions.
fn nextafter_bits(x: f64, y: f64, to_bits: impl Fn(f64) -> u16, from_bits: impl Fn(u16) -> f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    const SIGN: u16 = 0x8000;
    if x == 0.0 {
        // the smallest subnormal, with y's sign
        return from_bits(if y < 0.0 { SIGN | 1 } else { 1 });
    }
    let bits = to_bits(x);
    // away from zero when y lies beyond x on x's side
    let away = (y > x) == (x > 0.0);
    from_bits(if away { bits + 1 } else { bits - 1 })
}

/// `x · 2^n` for an integer `n`, exact until the result over- or underflows (C's ldexp): `inf · 2^-2000` is
/// still inf, where `x * 2.0.powi(n)` would be NaN.
pub(super) fn ldexp_int(x: f64, n: f64) -> f64 {
    // beyond ±2200 every finite x has over- or underflowed already
    libm::ldexp(x, n.clamp(-2200.0, 2200.0) as i32)
}

/// torch's gcd: Euclid's algorithm on the absolute values (wrapping, so `gcd(i64::MIN, 0)` is i64::MIN).
pub(super) fn gcd(x: i64, y: i64) -> i64 {
    let (mut a, mut b) = (x.wrapping_abs(), y.wrapping_abs());
    while a != 0 {
        let c = a;
        a = b.wrapping_rem(a);
        b = c;
    }
    b
}

/// torch's lcm: `|x / gcd · y|`, 0 when both are 0.
pub(super) fn lcm(x: i64, y: i64) -> i64 {
    let g = gcd(x, y);
    if g == 0 {
        0
    } else {
        x.wrapping_div(g).wrapping_mul(y).wrapping_abs()
    }
}

/// `heaviside(x, values)`: 0 below 0 (and for NaN), `values` at ±0, 1 above.
pub(super) fn heaviside<T: Element>(x: T, values: T) -> T {
    let zero = T::from_i64(0);
    if x == zero {
        values
    } else if x > zero {
        T::from_i64(1)
    } else {
        zero
    }
}
