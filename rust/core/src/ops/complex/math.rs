//! The transcendental functions of complex tensors (`exp`, `log`, `sqrt`, `sin`, `cos`, `tanh`, `sigmoid`, `tan`,
//! `sinh`, `cosh`, `log10`, `log2`, `rsqrt`, `expm1`, `log1p`, and
//! `pow`'s `exp(b log a)`): their values, pair by pair, as C's complex functions (C99 Annex G, what torch's CPU
//! kernels call) give them at the edges: infinite and NaN parts, signed zeros. Computed in float64 (complex64
//! rounds once). The unary ops dispatch here before their real kernels refuse complex input; their gradient
//! rules conjugate the derivative (torch's convention).
// `y - y` is C's idiom these functions follow: 0 for a finite y, NaN for an infinite or NaN one
#![allow(clippy::eq_op)]
use crate::element::Float;
use crate::error::Result;
use crate::tensor::Tensor;
use rustfft::num_complex::Complex;

type C = Complex<f64>;

/// `(a + ib) / (c + id)` as torch's `c10::complex` divides (numpy's): scaled by the larger of |c|, |d| so that
/// no intermediate overflows; a zero divisor gives the infinities and NaNs of the parts divided by zero.
pub(crate) fn divide<T: Float>(a: T, b: T, c: T, d: T) -> (T, T) {
    let (abs_c, abs_d) = (c.abs(), d.abs());
    if abs_c >= abs_d {
        if abs_c == T::ZERO && abs_d == T::ZERO {
            return (a / abs_c, b / abs_d);
        }
        let rat = d / c;
        let scl = T::ONE / (c + d * rat);
        ((a + b * rat) * scl, (b - a * rat) * scl)
    } else {
        let rat = c / d;
        let scl = T::ONE / (d + c * rat);
        ((a * rat + b) * scl, (b * rat - a) * scl)
    }
}

/// A complex function the unary ops compute here, by the name of their rule.
#[derive(Clone, Copy)]
enum ComplexFn {
    Exp,
    Log,
    Sqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Tan,
    Sinh,
    Cosh,
    Log10,
    Log2,
    Rsqrt,
    Expm1,
    Log1p,
}

impl ComplexFn {
    /// The function of the unary op whose rule is `rule` (`ExpBackward0`), if it has a complex form here.
    fn of_rule(rule: &str) -> Option<ComplexFn> {
        Some(match rule {
            "ExpBackward0" => ComplexFn::Exp,
            "LogBackward0" => ComplexFn::Log,
            "SqrtBackward0" => ComplexFn::Sqrt,
            "SinBackward0" => ComplexFn::Sin,
            "CosBackward0" => ComplexFn::Cos,
            "TanhBackward0" => ComplexFn::Tanh,
            "SigmoidBackward0" => ComplexFn::Sigmoid,
            "TanBackward0" => ComplexFn::Tan,
            "SinhBackward0" => ComplexFn::Sinh,
            "CoshBackward0" => ComplexFn::Cosh,
            "Log10Backward0" => ComplexFn::Log10,
            "Log2Backward0" => ComplexFn::Log2,
            "RsqrtBackward0" => ComplexFn::Rsqrt,
            "Expm1Backward0" => ComplexFn::Expm1,
            "Log1PBackward0" => ComplexFn::Log1p,
            _ => return None,
        })
    }

    fn apply(self, z: C) -> C {
        match self {
            ComplexFn::Exp => exp(z),
            ComplexFn::Log => z.ln(),
            ComplexFn::Sqrt => sqrt(z),
            // sin z = -i sinh(iz), cos z = cosh(iz)
            ComplexFn::Sin => {
                let w = sinh(C::new(-z.im, z.re));
                // an infinite imaginary part beside a NaN real one is +inf in glibc's csin (C leaves the sign open)
                let im = if w.im.is_nan() && w.re.is_infinite() { f64::INFINITY } else { -w.re };
                C::new(w.im, im)
            }
            ComplexFn::Cos => cosh(C::new(-z.im, z.re)),
            ComplexFn::Tanh => tanh(z),
            // tan z = -i tanh(iz)
            ComplexFn::Tan => {
                let w = tanh(C::new(-z.im, z.re));
                C::new(w.im, -w.re)
            }
            ComplexFn::Sinh => sinh(z),
            ComplexFn::Cosh => cosh(z),
            // torch's vectorized kernels divide both parts of the logarithm by the real constant
            ComplexFn::Log10 => z.ln() / std::f64::consts::LN_10,
            ComplexFn::Log2 => z.ln() / std::f64::consts::LN_2,
            ComplexFn::Rsqrt => {
                let root = sqrt(z);
                let (re, im) = divide(1.0, 0.0, root.re, root.im);
                C::new(re, im)
            }
            // c10's forms, accurate near 0: (eˣ - 1) cos y - 2 sin²(y/2) + i eˣ sin y
            ComplexFn::Expm1 => {
                let half = (z.im / 2.0).sin();
                C::new(z.re.exp_m1() * z.im.cos() - 2.0 * half * half, z.re.exp() * z.im.sin())
            }
            // and ½ log1p(2x + x² + y²) + i atan2(y, x + 1) inside |z| < ½
            ComplexFn::Log1p => {
                let (x, y) = (z.re, z.im);
                let theta = y.atan2(x + 1.0);
                let r = x * (2.0 + x) + y * y;
                if x.hypot(y) >= 0.5 {
                    C::new((x + 1.0).hypot(y).ln(), theta)
                } else if r == 0.0 {
                    C::new(x, theta)
                } else {
                    C::new(0.5 * r.ln_1p(), theta)
                }
            }
            ComplexFn::Sigmoid => {
                let d = C::new(1.0, 0.0) + exp(-z);
                let (re, im) = divide(1.0, 0.0, d.re, d.im);
                C::new(re, im)
            }
        }
    }
}

/// num_complex's exp (C's values at the edges), but exact on the real axis: `exp(x + 0i)` is `exp(x) + 0i` even
/// where `exp(x)` overflows.
fn exp(z: C) -> C {
    if is_zero(z.im) {
        return C::new(z.re.exp(), z.im);
    }
    z.exp()
}

fn is_zero(v: f64) -> bool {
    v == 0.0
}

fn sqrt(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if is_zero(x) && is_zero(y) {
        return C::new(0.0, y);
    }
    if y.is_infinite() {
        return C::new(f64::INFINITY, y);
    }
    if x.is_nan() {
        return C::new(x, f64::NAN);
    }
    if x.is_infinite() {
        return if x < 0.0 { C::new((y - y).abs(), f64::INFINITY.copysign(y)) } else { C::new(x, (y - y).copysign(y)) };
    }
    z.sqrt()
}

fn sinh(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if is_zero(y) {
            return C::new(x.sinh(), y);
        }
        if x.abs() < 22.0 {
            return C::new(x.sinh() * y.cos(), x.cosh() * y.sin());
        }
        // cosh x ~ sinh x ~ e^|x| / 2, halved before squaring so that it overflows only when the result does
        let h = (x.abs() / 2.0).exp();
        return C::new((h * 0.5 * y.cos()) * h * 1f64.copysign(x), (h * 0.5 * y.sin()) * h);
    }
    if is_zero(x) {
        return C::new(0f64.copysign(x * (y - y)), y - y);
    }
    if is_zero(y) {
        return if x.is_infinite() { C::new(x, y) } else { C::new(x, 0f64.copysign(y)) };
    }
    if x.is_finite() {
        return C::new(y - y, x * (y - y));
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return C::new(x * x, x * (y - y));
        }
        return C::new(x * y.cos(), f64::INFINITY * y.sin());
    }
    C::new((x * x) * (y - y), (x + x) * (y - y))
}

fn cosh(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if is_zero(y) {
            return C::new(x.cosh(), x * y);
        }
        if x.abs() < 22.0 {
            return C::new(x.cosh() * y.cos(), x.sinh() * y.sin());
        }
        let h = (x.abs() / 2.0).exp();
        return C::new((h * 0.5 * y.cos()) * h, (h * 0.5 * y.sin()) * h * 1f64.copysign(x));
    }
    if is_zero(x) {
        return C::new(y - y, 0f64.copysign(x * (y - y)));
    }
    if is_zero(y) {
        return if x.is_infinite() {
            C::new(x * x, 0f64.copysign(x) * y)
        } else {
            C::new(x * x, 0f64.copysign((x + x) * y))
        };
    }
    if x.is_finite() {
        return C::new(y - y, x * (y - y));
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return C::new(x * x, x * (y - y));
        }
        return C::new((x * x) * y.cos(), x * y.sin());
    }
    C::new((x * x) * (y - y), (x + x) * (y - y))
}

fn tanh(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if x.is_nan() {
        return C::new(x, if is_zero(y) { y } else { x * y });
    }
    if x.is_infinite() {
        let im = if y.is_infinite() { y } else { y.sin() * y.cos() };
        return C::new(1f64.copysign(x), 0f64.copysign(im));
    }
    if !y.is_finite() {
        return C::new(if is_zero(x) { x } else { y - y }, y - y);
    }
    if x.abs() >= 22.0 {
        let exp_mx = (-x.abs()).exp();
        return C::new(1f64.copysign(x), 4.0 * y.sin() * y.cos() * exp_mx * exp_mx);
    }
    let t = y.tan();
    let beta = 1.0 + t * t;
    let s = x.sinh();
    let rho = (1.0 + s * s).sqrt();
    let denom = 1.0 + beta * s * s;
    C::new((beta * rho * s) / denom, t / denom)
}

/// `a * b` as C multiplies complex numbers (Annex G): a product that comes out NaN + NaN i from infinite
/// operands is recovered as the infinity it is.
fn multiply(a: C, b: C) -> C {
    let (mut p, mut q, mut r, mut s) = (a.re, a.im, b.re, b.im);
    let (pr, qs, ps, qr) = (p * r, q * s, p * s, q * r);
    let (x, y) = (pr - qs, ps + qr);
    if !(x.is_nan() && y.is_nan()) {
        return C::new(x, y);
    }
    let unit = |v: f64| (if v.is_infinite() { 1f64 } else { 0f64 }).copysign(v);
    let zero_nan = |v: f64| if v.is_nan() { 0f64.copysign(v) } else { v };
    let mut recalc = false;
    if p.is_infinite() || q.is_infinite() {
        (p, q, r, s) = (unit(p), unit(q), zero_nan(r), zero_nan(s));
        recalc = true;
    }
    if r.is_infinite() || s.is_infinite() {
        (r, s, p, q) = (unit(r), unit(s), zero_nan(p), zero_nan(q));
        recalc = true;
    }
    if !recalc && [pr, qs, ps, qr].iter().any(|v| v.is_infinite()) {
        (p, q, r, s) = (zero_nan(p), zero_nan(q), zero_nan(r), zero_nan(s));
        recalc = true;
    }
    if recalc {
        C::new(f64::INFINITY * (p * r - q * s), f64::INFINITY * (p * s + q * r))
    } else {
        C::new(x, y)
    }
}

/// `a ** b` as C's `cpow`: `exp(b log a)`.
pub(crate) fn power(a: C, b: C) -> C {
    exp(multiply(b, a.ln()))
}

impl Tensor {
    /// The values of the unary op whose rule is `rule` (`ExpBackward0`) on this complex tensor, if it has a
    /// complex form here (no history: the unary op records it).
    pub(crate) fn complex_function_values(&self, rule: &str) -> Option<Result<Tensor>> {
        ComplexFn::of_rule(rule).map(|f| self.complex_math_values(f))
    }

    /// `f` of each element of this complex tensor.
    fn complex_math_values(&self, f: ComplexFn) -> Result<Tensor> {
        let pairs = self.detach().view_as_real()?.contiguous()?;
        let values: Vec<f64> = pairs
            .to_dtype(crate::DType::F64)?
            .to_vec::<f64>()
            .chunks_exact(2)
            .flat_map(|p| {
                let w = f.apply(C::new(p[0], p[1]));
                [w.re, w.im]
            })
            .collect();
        Tensor::from_vec(values, pairs.shape())?.to_dtype(pairs.dtype())?.view_as_complex()
    }
}
