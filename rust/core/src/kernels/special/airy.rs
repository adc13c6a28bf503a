//! The Airy function Ai(x): its Maclaurin series between the asymptotic regions, and the asymptotic expansions
//! in ζ = (2/3)|x|^{3/2} beyond them (Abramowitz & Stegun 10.4.2–3, 10.4.59–60). At ±inf it is NaN and above
//! x ≈ 103.9 it is 0, as torch's.

/// Ai(0) and -Ai'(0).
const AI_0: f64 = 0.355_028_053_887_817_2;
const MINUS_AI_PRIME_0: f64 = 0.258_819_403_792_806_8;
/// Beyond these the asymptotic series are accurate to double precision (their smallest term is about e^{-2ζ}).
const DECAYING_FROM: f64 = 5.0;
const OSCILLATING_BELOW: f64 = -8.0;
/// torch returns 0 above this (e^{-ζ} underflows there).
const ZERO_ABOVE: f64 = 103.892;

pub fn airy_ai(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    if x > ZERO_ABOVE {
        return 0.0;
    }
    if x >= DECAYING_FROM {
        return decaying(x);
    }
    if x < OSCILLATING_BELOW {
        return oscillating(x);
    }
    maclaurin(x)
}

/// Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f = Σ 3^k (1/3)_k x^{3k} / (3k)!, g = Σ 3^k (2/3)_k x^{3k+1} / (3k+1)!,
/// each term from the one before.
fn maclaurin(x: f64) -> f64 {
    let cube = x * x * x;
    let (mut f_term, mut g_term) = (1.0, x);
    let (mut f, mut g) = (1.0, x);
    for k in 1..200 {
        let k = k as f64;
        f_term *= cube / ((3.0 * k - 1.0) * (3.0 * k));
        g_term *= cube / ((3.0 * k) * (3.0 * k + 1.0));
        f += f_term;
        g += g_term;
        if f_term.abs() <= f64::EPSILON * f.abs() && g_term.abs() <= f64::EPSILON * g.abs().max(f64::MIN_POSITIVE) {
            break;
        }
    }
    AI_0 * f - MINUS_AI_PRIME_0 * g
}

/// u_k of the asymptotic expansions: u_0 = 1, u_k = (6k-5)(6k-3)(6k-1) / (216 k (2k-1)) u_{k-1}.
fn next_u(u: f64, k: f64) -> f64 {
    u * (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / (216.0 * k * (2.0 * k - 1.0))
}

/// Sums `sign^k u_k / ζ^k` over the terms while they decrease (an asymptotic series: stop at the smallest).
fn asymptotic_terms(zeta: f64) -> impl Iterator<Item = f64> {
    let mut u = 1.0;
    let mut power = 1.0;
    let mut k = 0.0;
    std::iter::from_fn(move || {
        let term = u / power;
        k += 1.0;
        u = next_u(u, k);
        power *= zeta;
        Some(term)
    })
    .take(60)
}

/// x ≥ 5: Ai(x) ~ e^{-ζ} / (2√π x^{1/4}) Σ (-1)^k u_k ζ^{-k}.
fn decaying(x: f64) -> f64 {
    let zeta = 2.0 / 3.0 * x * x.sqrt();
    let mut sum = 0.0;
    let mut previous = f64::INFINITY;
    for (k, term) in asymptotic_terms(zeta).enumerate() {
        if term.abs() >= previous {
            break;
        }
        previous = term.abs();
        sum += if k % 2 == 0 { term } else { -term };
    }
    (-zeta).exp() / (2.0 * std::f64::consts::PI.sqrt() * x.sqrt().sqrt()) * sum
}

/// x < -8: Ai(x) ~ (sin(ζ + π/4) P - cos(ζ + π/4) Q) / (√π |x|^{1/4}), P = Σ (-1)^k u_{2k} ζ^{-2k},
/// Q = Σ (-1)^k u_{2k+1} ζ^{-2k-1}.
fn oscillating(x: f64) -> f64 {
    let t = -x;
    let zeta = 2.0 / 3.0 * t * t.sqrt();
    let (mut p, mut q) = (0.0, 0.0);
    let mut previous = f64::INFINITY;
    for (k, term) in asymptotic_terms(zeta).enumerate() {
        if term.abs() >= previous {
            break;
        }
        previous = term.abs();
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            p += sign * term;
        } else {
            q += sign * term;
        }
    }
    let phase = zeta + std::f64::consts::FRAC_PI_4;
    (phase.sin() * p - phase.cos() * q) / (std::f64::consts::PI.sqrt() * t.sqrt().sqrt())
}

#[cfg(test)]
mod tests {
    use super::airy_ai;

    #[test]
    fn regions_meet_and_known_values_hold() {
        // Ai(0), Ai(1), Ai(-1) and Ai(-10) (scipy.special.airy), and continuity where the methods hand over
        let close = |a: f64, b: f64, tol: f64| assert!((a - b).abs() <= tol * b.abs().max(1e-300), "{a} vs {b}");
        close(airy_ai(0.0), 0.355_028_053_887_817_2, 1e-15);
        close(airy_ai(1.0), 0.135_292_416_312_881_4, 1e-13);
        close(airy_ai(-1.0), 0.535_560_883_292_352_1, 1e-13);
        close(airy_ai(-10.0), 0.040_241_238_486_442, 1e-11);
        for edge in [5.0, -8.0] {
            close(airy_ai(edge - 1e-9), airy_ai(edge + 1e-9), 1e-7);
        }
        assert!(airy_ai(f64::INFINITY).is_nan() && airy_ai(f64::NEG_INFINITY).is_nan());
        assert_eq!(airy_ai(200.0), 0.0);
        assert!(airy_ai(f64::NAN).is_nan());
    }
}
