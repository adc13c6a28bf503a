//! The error-function family beyond erf itself: erfc, erfcx, erfinv, and the normal distribution's
//! ndtr, log_ndtr and ndtri.
use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// The scaled complementary error function e^{x²} erfc(x). Directly below 2, by the continued fraction
/// erfc(x) = e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))) above (evaluated from its tail), and
/// by 2e^{x²} - erfcx(-x) for x < 0 (so +inf below about -26.6).
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        let e = (x * x).exp();
        return if e.is_infinite() { e } else { 2.0 * e - erfcx(-x) };
    }
    if x < 2.0 {
        return (x * x).exp() * libm::erfc(x);
    }
    if x.is_infinite() {
        return 0.0;
    }
    // 1/√π · 1/(x + (1/2)/(x + (2/2)/(x + …)))
    let terms = if x < 4.0 {
        90
    } else if x < 10.0 {
        40
    } else {
        16
    };
    let mut tail = x;
    for k in (1..=terms).rev() {
        tail = x + (f64::from(k) / 2.0) / tail;
    }
    1.0 / (tail * PI.sqrt())
}

/// Φ(x), the standard normal CDF, as torch composes it: (1 + erf(x/√2)) / 2.
pub fn ndtr(x: f64) -> f64 {
    (1.0 + libm::erf(x * FRAC_1_SQRT_2)) * 0.5
}

/// ln Φ(x), finite far into the left tail: log1p(-erfc(x/√2)/2) above 0, ln(erfcx(-x/√2)/2) - x²/2 below.
pub fn log_ndtr(x: f64) -> f64 {
    let t = x * FRAC_1_SQRT_2;
    if x > 0.0 {
        (-0.5 * libm::erfc(t)).ln_1p()
    } else {
        (0.5 * erfcx(-t)).ln() - t * t
    }
}

/// Solves `ln f(y) = ln target` by Newton's method from `y`, with `dlog(y) = f'(y)/f(y)`: the log form
/// converges from a rough start even where f is tiny.
fn newton_log(mut y: f64, target: f64, f: impl Fn(f64) -> f64, dlog: impl Fn(f64) -> f64) -> f64 {
    let ln_target = target.ln();
    for _ in 0..8 {
        let step = (f(y).ln() - ln_target) / dlog(y);
        if !step.is_finite() {
            break;
        }
        y -= step;
        if step.abs() <= 1e-16 * y.abs() {
            break;
        }
    }
    y
}

/// The inverse of erf on [-1, 1] (±inf at ±1, NaN outside): Winitzki's closed-form approximation, then
/// Newton steps on erf near 0 and on ln erfc(|y|) = ln(1 - |x|) towards ±1 (1 - |x| is exact there).
pub fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    if x == 0.0 {
        return x;
    }
    let a = 0.147;
    let ln = (-x * x).ln_1p();
    let b = 2.0 / (PI * a) + ln / 2.0;
    let guess = ((b * b - ln / a).sqrt() - b).sqrt();
    let y = if x.abs() <= 0.5 {
        let mut y = guess.copysign(x);
        for _ in 0..6 {
            let step = (libm::erf(y) - x) / (FRAC_2_SQRT_PI * (-y * y).exp());
            y -= step;
            if step.abs() <= 1e-17 * y.abs() {
                break;
            }
        }
        return y;
    } else {
        newton_log(guess, 1.0 - x.abs(), libm::erfc, |y| -FRAC_2_SQRT_PI / erfcx(y))
    };
    y.copysign(x)
}

/// The inverse of Φ on [0, 1] (∓inf at 0 and 1, NaN outside): Abramowitz & Stegun 26.2.23's rational
/// approximation for the lower tail, then Newton steps on ln Φ(z) = ln p (the upper half by symmetry,
/// 1 - p being exact there).
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let (q, sign) = if p > 0.5 { (1.0 - p, 1.0) } else { (p, -1.0) };
    let t = (-2.0 * q.ln()).sqrt();
    let guess = -(t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
    // Φ(z) = erfcx(-z/√2)/2 · e^{-z²/2}: d ln Φ / dz = √(2/π) / erfcx(-z/√2)
    let z = newton_log(
        guess,
        q,
        |z| 0.5 * libm::erfc(-z * FRAC_1_SQRT_2),
        |z| SQRT_2 / PI.sqrt() / erfcx(-z * FRAC_1_SQRT_2),
    );
    if p == 0.5 {
        return 0.0;
    }
    sign * -z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_round_trip() {
        for &x in &[-0.999_999, -0.9, -0.5, -1e-10, 1e-300, 0.3, 0.75, 0.999_999_999_9] {
            let y = erfinv(x);
            assert!((libm::erf(y) - x).abs() <= 2e-16 * x.abs().max(1e-300) + 1e-300, "erfinv({x}) = {y}");
        }
        for &p in &[1e-300, 1e-20, 0.01, 0.3, 0.5, 0.7, 0.999] {
            let z = ndtri(p);
            assert!((log_ndtr(z) - p.ln()).abs() < 1e-12 * p.ln().abs().max(1.0), "ndtri({p}) = {z}");
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan());
        assert_eq!(ndtri(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn erfcx_matches_its_definition() {
        for &x in &[-3.0f64, -0.5, 0.0, 0.5, 1.9, 2.1, 3.0, 5.0, 9.0, 20.0] {
            let direct = (x * x).exp() * libm::erfc(x);
            assert!((erfcx(x) - direct).abs() <= 1e-13 * direct, "erfcx({x})");
        }
        assert_eq!(erfcx(f64::INFINITY), 0.0);
        assert_eq!(erfcx(-30.0), f64::INFINITY);
    }
}
