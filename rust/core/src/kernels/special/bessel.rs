//! Bessel functions: the modified ones of orders 0 and 1 (I from the power series below 30 and Hankel's
//! asymptotic expansion above; K from A&S 9.6.11's series below 2, the integral ∫₀^∞ e^{-x cosh t}
//! cosh(νt) dt by the trapezoidal rule (exponentially accurate for this integrand) up to 30, then the
//! asymptotic expansion), libm's J and Y, and the spherical j₀.
use std::f64::consts::PI;

const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// Hankel's asymptotic series Σₖ (±1)ᵏ aₖ(ν)/xᵏ, aₖ(ν) = Πⱼ (4ν² - (2j-1)²) / (k! 8ᵏ): `alternating` for
/// I (e^{-x} √(2πx) I_ν(x)), plain for K (e^{x} √(2x/π) K_ν(x)).
fn hankel_series(nu: f64, x: f64, alternating: bool) -> f64 {
    let mu = 4.0 * nu * nu;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..200 {
        let odd = f64::from(2 * k - 1);
        let next = term * (mu - odd * odd) / (8.0 * f64::from(k) * x) * if alternating { -1.0 } else { 1.0 };
        // the series diverges past its smallest term
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() <= 1e-17 * sum.abs() {
            break;
        }
    }
    sum
}

/// e^{-|x|} I_ν(|x|) for ν = 0, 1 (the sign of odd orders is the caller's).
fn scaled_i(nu: u32, x: f64) -> f64 {
    let x = x.abs();
    if x.is_infinite() {
        return 0.0;
    }
    if x > 30.0 {
        return hankel_series(f64::from(nu), x, true) / (2.0 * PI * x).sqrt();
    }
    // Σₖ (x/2)^{2k+ν} / (k! (k+ν)!)
    let q = x * x / 4.0;
    let mut term = if nu == 0 { 1.0 } else { x / 2.0 };
    let mut sum = term;
    for k in 1..500 {
        term *= q / (f64::from(k) * f64::from(k + nu));
        sum += term;
        if term <= 1e-17 * sum {
            break;
        }
    }
    sum * (-x).exp()
}

pub fn i0e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    scaled_i(0, x)
}

pub fn i1e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    scaled_i(1, x).copysign(x)
}

/// torch's I₀ and I₁ give NaN at ±inf (its Chebyshev expansions), and so does ferrograd.
pub fn i0(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    i0e(x) * x.abs().exp()
}

pub fn i1(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    i1e(x) * x.abs().exp()
}

/// e^{x} K_ν(x) for ν = 0, 1: +inf at 0, NaN below.
fn scaled_k(nu: u32, x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x.is_infinite() {
        return 0.0;
    }
    if x > 30.0 {
        return hankel_series(f64::from(nu), x, false) * (PI / (2.0 * x)).sqrt();
    }
    if x > 2.0 {
        // ∫₀^∞ e^{-x(cosh t - 1)} cosh(νt) dt, until the integrand is below 1e-19 of the sum
        let h = 0.1;
        let mut sum = 0.5;
        for i in 1..1000 {
            let t = h * f64::from(i);
            let term = (-x * (t.cosh() - 1.0)).exp() * if nu == 0 { 1.0 } else { (t * f64::from(nu)).cosh() };
            sum += term;
            if term < 1e-19 * sum {
                break;
            }
        }
        return sum * h;
    }
    // A&S 9.6.11 for n = 0, 1 (with ψ(k+1) = -γ + H_k)
    let q = x * x / 4.0;
    let log_half = (x / 2.0).ln();
    let value = if nu == 0 {
        // -(ln(x/2) + γ) I₀(x) + Σₖ H_k qᵏ/(k!)²
        let (mut term, mut series, mut harmonic, mut i0_sum) = (1.0, 0.0, 0.0, 1.0);
        for k in 1..60 {
            let k = f64::from(k);
            term *= q / (k * k);
            harmonic += 1.0 / k;
            i0_sum += term;
            series += harmonic * term;
            if term < 1e-18 * i0_sum {
                break;
            }
        }
        -(log_half + EULER_GAMMA) * i0_sum + series
    } else {
        // 1/x + ln(x/2) I₁(x) - (x/4) Σₖ (ψ(k+1) + ψ(k+2)) qᵏ/(k!(k+1)!)
        let (mut term, mut harmonic) = (1.0, 0.0);
        let mut i1_sum = 1.0;
        let mut series = -2.0 * EULER_GAMMA + 1.0;
        for k in 1..60 {
            let k = f64::from(k);
            term *= q / (k * (k + 1.0));
            harmonic += 1.0 / k;
            i1_sum += term;
            series += (2.0 * harmonic + 1.0 / (k + 1.0) - 2.0 * EULER_GAMMA) * term;
            if term < 1e-18 * i1_sum {
                break;
            }
        }
        1.0 / x + log_half * i1_sum * x / 2.0 - x / 4.0 * series
    };
    value * x.exp()
}

pub fn k0e(x: f64) -> f64 {
    scaled_k(0, x)
}

pub fn k1e(x: f64) -> f64 {
    scaled_k(1, x)
}

pub fn k0(x: f64) -> f64 {
    let s = scaled_k(0, x);
    if x.is_infinite() || x > 745.0 {
        return if s.is_nan() { s } else { 0.0 };
    }
    s * (-x).exp()
}

pub fn k1(x: f64) -> f64 {
    let s = scaled_k(1, x);
    if x.is_infinite() || x > 745.0 {
        return if s.is_nan() { s } else { 0.0 };
    }
    s * (-x).exp()
}

/// torch's J and Y give NaN at ±inf (where the limit is 0), and so does ferrograd.
fn nan_at_infinity(x: f64, f: fn(f64) -> f64) -> f64 {
    if x.is_infinite() {
        f64::NAN
    } else {
        f(x)
    }
}

pub fn j0(x: f64) -> f64 {
    nan_at_infinity(x, libm::j0)
}

pub fn j1(x: f64) -> f64 {
    nan_at_infinity(x, libm::j1)
}

pub fn y0(x: f64) -> f64 {
    nan_at_infinity(x, libm::y0)
}

pub fn y1(x: f64) -> f64 {
    nan_at_infinity(x, libm::y1)
}

/// sin(x)/x, by its Taylor series near 0 and 0 at ±inf.
pub fn spherical_j0(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    if x.abs() < 0.5 {
        let z = x * x;
        return 1.0 - z / 6.0 * (1.0 - z / 20.0 * (1.0 - z / 42.0 * (1.0 - z / 72.0 * (1.0 - z / 110.0))));
    }
    x.sin() / x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn modified_bessel_known_values() {
        // A&S table 9.8 / 9.9 values
        assert!(close(i0(1.0), 1.266_065_877_752_008_4, 1e-15));
        assert!(close(i1(1.0), 0.565_159_103_992_485, 1e-15));
        assert!(close(k0(1.0), 0.421_024_438_240_708_3, 1e-14));
        assert!(close(k1(1.0), 0.601_907_230_197_234_6, 1e-14));
        assert!(close(k0(3.0), 0.034_739_504_386_279_06, 1e-14));
        assert!(close(k1(3.0), 0.040_156_431_128_194_18, 1e-14));
        // the pieces agree where they meet
        for &x in &[2.0, 30.0] {
            for nu in [0, 1] {
                let (a, b) = (scaled_k(nu, x * (1.0 - 1e-12)), scaled_k(nu, x * (1.0 + 1e-12)));
                assert!(close(a, b, 1e-11), "K{nu} at {x}: {a} vs {b}");
                let (a, b) = (scaled_i(nu, x * (1.0 - 1e-12)), scaled_i(nu, x * (1.0 + 1e-12)));
                assert!(close(a, b, 1e-11), "I{nu} at {x}: {a} vs {b}");
            }
        }
        assert_eq!(k0(0.0), f64::INFINITY);
        assert!(k1(-1.0).is_nan());
        assert_eq!(i1(-1.0), -i1(1.0));
    }
}
