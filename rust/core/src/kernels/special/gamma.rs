//! lgamma, digamma, polygamma (through the Hurwitz zeta function) and the multivariate log-gamma.
use std::f64::consts::PI;

/// `ln|Γ(x)|`, +inf at the poles (0 and the negative integers), as torch.
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// The digamma function ψ(x) = Γ'(x)/Γ(x). At ±0 it is ∓inf (torch's convention), NaN at the negative
/// integers; reflection ψ(1-x) - π/tan(πx) below 0, the recurrence ψ(x) = ψ(x+1) - 1/x up to 10, then the
/// asymptotic series ln x - 1/(2x) - Σ B₂ₖ/(2k x²ᵏ).
pub fn digamma(x: f64) -> f64 {
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x < 0.0 {
        if x == x.trunc() {
            return f64::NAN;
        }
        // π/tan(πx) with the argument reduced to (-1/2, 1/2] so huge x keep their precision
        let r = x - x.round();
        return digamma(1.0 - x) - PI / (PI * r).tan();
    }
    let mut acc = 0.0;
    let mut x = x;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    if x == f64::INFINITY {
        return x;
    }
    // Bernoulli numbers B₂ₖ / (2k), k = 1..7
    const C: [f64; 7] =
        [1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0];
    let z = 1.0 / (x * x);
    let mut series = 0.0;
    for c in C.iter().rev() {
        series = series * z + c;
    }
    acc + x.ln() - 0.5 / x - series * z
}

/// The Hurwitz zeta function ζ(s, q) = Σₖ (q + k)⁻ˢ for s > 1, by Euler–Maclaurin summation: N terms
/// directly, then the integral and the Bernoulli corrections at q + N. As torch (Cephes' conventions):
/// s == 1 is +inf, s < 1 is NaN, q <= 0 is +inf at the integers and NaN elsewhere unless s is an integer.
pub fn zeta(s: f64, q: f64) -> f64 {
    if s.is_nan() || q.is_nan() {
        return f64::NAN;
    }
    if s == 1.0 {
        return f64::INFINITY;
    }
    if s < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if s != s.floor() {
            return f64::NAN;
        }
    }
    // the direct sum below would take |q| steps: past this, ferrograd gives NaN (torch would loop on)
    if q < -1e5 {
        return f64::NAN;
    }
    const N: usize = 9;
    // B₂ⱼ / (2j)!, j = 1..12 (the divisors as exact as written, rounded by the compiler)
    #[allow(clippy::excessive_precision)]
    const B: [f64; 12] = [
        1.0 / 12.0,
        -1.0 / 720.0,
        1.0 / 30240.0,
        -1.0 / 1209600.0,
        1.0 / 47900160.0,
        -1.0 / 1.8924375803183791606e9,
        1.0 / 7.47242496e10,
        -1.0 / 2.950130727918164224e12,
        1.0 / 1.1646782814350067249e14,
        -1.0 / 4.5979787224074726105e15,
        1.0 / 1.8152105401943546773e17,
        -1.0 / 7.1661652561756670113e18,
    ];
    // direct terms until q + k is past 9 (at least N of them): the corrections need a large argument
    let mut sum = 0.0;
    let mut a = q;
    let mut k = 0;
    while k < N || a <= 9.0 {
        sum += a.powf(-s);
        a += 1.0;
        k += 1;
    }
    // a = q + k
    let mut tail = a.powf(1.0 - s) / (s - 1.0) + 0.5 * a.powf(-s);
    // the j-th correction: B₂ⱼ/(2j)! · s(s+1)…(s+2j-2) · a^(-s-2j+1)
    let mut rising = s;
    let mut power = a.powf(-s - 1.0);
    for (j, b) in B.iter().enumerate() {
        let term = b * rising * power;
        tail += term;
        if term.abs() < tail.abs() * 1e-17 {
            break;
        }
        let k = 2.0 * j as f64;
        rising *= (s + k + 1.0) * (s + k + 2.0);
        power /= a * a;
    }
    sum + tail
}

/// The n-th derivative of digamma: ψ for n = 0, else (-1)ⁿ⁺¹ n! ζ(n+1, x).
pub fn polygamma(n: u32, x: f64) -> f64 {
    if n == 0 {
        return digamma(x);
    }
    let factorial: f64 = (1..=n).map(f64::from).product();
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    sign * factorial * zeta(f64::from(n) + 1.0, x)
}

/// The multivariate log-gamma of dimension p: p(p-1)/4 · ln π + Σⱼ lgamma(x - j/2), j = 0..p-1.
pub fn mvlgamma(x: f64, p: u32) -> f64 {
    let p_f = f64::from(p);
    let mut sum = p_f * (p_f - 1.0) / 4.0 * PI.ln();
    for j in 0..p {
        sum += lgamma(x - f64::from(j) / 2.0);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn digamma_known_values() {
        // ψ(1) = -γ, ψ(1/2) = -γ - 2 ln 2
        let gamma = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -gamma, 1e-15));
        assert!(close(digamma(0.5), -gamma - 2.0 * 2f64.ln(), 1e-15));
        assert!(close(digamma(-0.5), 0.036_489_973_978_576_52, 1e-13));
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert_eq!(digamma(-0.0), f64::INFINITY);
        assert!(digamma(-2.0).is_nan());
        assert_eq!(digamma(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn zeta_and_polygamma_known_values() {
        // ζ(2, 1) = π²/6, ψ'(1) = π²/6, ψ''(1) = -2ζ(3)
        assert!(close(zeta(2.0, 1.0), PI * PI / 6.0, 1e-15));
        assert!(close(polygamma(1, 1.0), PI * PI / 6.0, 1e-15));
        assert!(close(polygamma(2, 1.0), -2.0 * 1.202_056_903_159_594_2, 1e-15));
        assert_eq!(zeta(1.0, 2.0), f64::INFINITY);
        assert!(zeta(0.5, 2.0).is_nan());
    }
}
