//! `torch.special`'s orthogonal polynomials of degree `n` at `x`: Chebyshev (T, U, V, W and their shifted forms),
//! Hermite (physicists' H, probabilists' He), Laguerre and Legendre. Each value is PyTorch's `*_forward` of
//! ATen's Math.h: its special cases at the interval's ends, its trigonometric closed form for high degrees inside
//! the interval, else the three-term recurrence, in the result's dtype, so values agree with torch's to the bit.
//! Degrees arrive in that dtype too and are truncated to integers as torch truncates them. Each recurrence
//! step `a * b - c * d` is one fused multiply-add, `fma(a, b, -(c * d))`, as GCC contracts it in torch's x86
//! build (without the fusion, a quarter of the values differed from torch's in the last bits). Torch records no
//! gradient for these functions; neither does this.
use crate::bail;
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// The scalar math torch's kernels call: a fused multiply-add, rounded once (the recurrences' steps), and the
/// C library's `sin`/`cos` (not the crate's vectorizable float32 ones, which torch's vector kernels match).
trait ScalarMath: Float {
    fn fma(self, b: Self, c: Self) -> Self;
    fn libm_sin(self) -> Self;
    fn libm_cos(self) -> Self;
}
macro_rules! scalar_math {
    ($t:ty) => {
        impl ScalarMath for $t {
            fn fma(self, b: $t, c: $t) -> $t {
                self.mul_add(b, c)
            }
            fn libm_sin(self) -> $t {
                <$t>::sin(self)
            }
            fn libm_cos(self) -> $t {
                <$t>::cos(self)
            }
        }
    };
}
scalar_math!(f32);
scalar_math!(f64);

/// One of the polynomial families, by torch's function name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polynomial {
    ChebyshevT,
    ChebyshevU,
    ChebyshevV,
    ChebyshevW,
    ShiftedChebyshevT,
    ShiftedChebyshevU,
    ShiftedChebyshevV,
    ShiftedChebyshevW,
    HermiteH,
    HermiteHe,
    LaguerreL,
    LegendreP,
}

impl Polynomial {
    pub const ALL: [Polynomial; 12] = [
        Polynomial::ChebyshevT,
        Polynomial::ChebyshevU,
        Polynomial::ChebyshevV,
        Polynomial::ChebyshevW,
        Polynomial::ShiftedChebyshevT,
        Polynomial::ShiftedChebyshevU,
        Polynomial::ShiftedChebyshevV,
        Polynomial::ShiftedChebyshevW,
        Polynomial::HermiteH,
        Polynomial::HermiteHe,
        Polynomial::LaguerreL,
        Polynomial::LegendreP,
    ];

    /// torch's name, `special.<name>`.
    pub fn name(self) -> &'static str {
        match self {
            Polynomial::ChebyshevT => "chebyshev_polynomial_t",
            Polynomial::ChebyshevU => "chebyshev_polynomial_u",
            Polynomial::ChebyshevV => "chebyshev_polynomial_v",
            Polynomial::ChebyshevW => "chebyshev_polynomial_w",
            Polynomial::ShiftedChebyshevT => "shifted_chebyshev_polynomial_t",
            Polynomial::ShiftedChebyshevU => "shifted_chebyshev_polynomial_u",
            Polynomial::ShiftedChebyshevV => "shifted_chebyshev_polynomial_v",
            Polynomial::ShiftedChebyshevW => "shifted_chebyshev_polynomial_w",
            Polynomial::HermiteH => "hermite_polynomial_h",
            Polynomial::HermiteHe => "hermite_polynomial_he",
            Polynomial::LaguerreL => "laguerre_polynomial_l",
            Polynomial::LegendreP => "legendre_polynomial_p",
        }
    }

    pub fn from_name(name: &str) -> Option<Polynomial> {
        Polynomial::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The value at `x` for degree `n` (already truncated), as torch computes it in `T`.
    fn value<T: ScalarMath>(self, x: T, n: i64) -> T {
        if n < 0 {
            return T::ZERO;
        }
        let of = |k: i64| T::from_i64(k);
        let (one, two, half) = (T::ONE, T::from_f64(2.0), T::from_f64(0.5));
        let even = n % 2 == 0;
        let sign = |v: T| if even { v } else { -v };
        match self {
            Polynomial::ChebyshevT | Polynomial::ChebyshevU | Polynomial::ChebyshevV | Polynomial::ChebyshevW => {
                if x.abs() == one {
                    return chebyshev_at_ends(self, x > T::ZERO, n);
                }
                let closed_from = if self == Polynomial::ChebyshevT { 6 } else { 8 };
                if n > closed_from && x.abs() < one {
                    return chebyshev_closed(self, x, n);
                }
                chebyshev_recurrence(self, x, n)
            }
            Polynomial::ShiftedChebyshevT
            | Polynomial::ShiftedChebyshevU
            | Polynomial::ShiftedChebyshevV
            | Polynomial::ShiftedChebyshevW => {
                let s = x + x - one;
                if x == one {
                    return match self {
                        Polynomial::ShiftedChebyshevT | Polynomial::ShiftedChebyshevV => one,
                        Polynomial::ShiftedChebyshevU => of(n + 1),
                        _ => of(n + n + 1),
                    };
                }
                if x == T::ZERO {
                    return match self {
                        Polynomial::ShiftedChebyshevT | Polynomial::ShiftedChebyshevW => sign(one),
                        Polynomial::ShiftedChebyshevU => sign(of(n + 1)),
                        _ => sign(of(n + n + 1)),
                    };
                }
                let closed_from = if self == Polynomial::ShiftedChebyshevW { 4 } else { 6 };
                if n > closed_from && s.abs() < one {
                    let angle = s.acos();
                    return match self {
                        Polynomial::ShiftedChebyshevT => (of(n) * angle).libm_cos(),
                        Polynomial::ShiftedChebyshevU if angle.libm_sin() != T::ZERO => {
                            (of(n + 1) * angle).libm_sin() / angle.libm_sin()
                        }
                        Polynomial::ShiftedChebyshevU => of(n + 1) * (of(n + 1) * angle).libm_cos() / s,
                        Polynomial::ShiftedChebyshevV if (angle / two).libm_sin() != one => {
                            ((of(n) + half) * angle).libm_cos() / (angle / two).libm_cos()
                        }
                        Polynomial::ShiftedChebyshevV => sign(of(n + n + 1)),
                        Polynomial::ShiftedChebyshevW if (angle / two).libm_cos() != one => {
                            ((of(n) + half) * angle).libm_sin() / (angle / two).libm_sin()
                        }
                        _ => sign(one),
                    };
                }
                chebyshev_recurrence(self, s, n)
            }
            Polynomial::HermiteH | Polynomial::HermiteHe => {
                let physicists = self == Polynomial::HermiteH;
                if n == 0 {
                    return one;
                }
                if n == 1 {
                    return if physicists { x + x } else { x };
                }
                // past this degree torch gives NaN rather than run the recurrence
                if n > if T::DTYPE == DType::F32 { 128 } else { 512 } {
                    return T::from_f64(f64::NAN);
                }
                let (mut p, mut q) = (one, if physicists { x + x } else { x });
                let mut r = T::ZERO;
                if physicists {
                    let mut k = 2;
                    while k < n + n {
                        r = (x + x).fma(q, -(of(k) * p));
                        (p, q) = (q, r);
                        k += 2;
                    }
                } else {
                    for k in 1..n {
                        r = x.fma(q, -(of(k) * p));
                        (p, q) = (q, r);
                    }
                }
                r
            }
            Polynomial::LaguerreL => {
                if x.abs() == T::ZERO || n == 0 {
                    return one;
                }
                if n == 1 {
                    return one - x;
                }
                let (mut p, mut q) = (one, one - x);
                let mut r = q;
                let mut k = 1;
                while k < n && !q.is_nan() {
                    r = (of(k + k) + (one - x)).fma(q, -(of(k) * p)) / of(k + 1);
                    (p, q) = (q, r);
                    k += 1;
                }
                r
            }
            Polynomial::LegendreP => {
                if x.abs() == one {
                    return if x > T::ZERO { one } else { sign(one) };
                }
                if n == 0 {
                    return one;
                }
                if n == 1 {
                    return x;
                }
                let (mut p, mut q) = (one, x);
                let mut r = q;
                let mut k = 1;
                while k < n && !q.is_nan() {
                    r = (of(k + k + 1) * x).fma(q, -(of(k) * p)) / of(k + 1);
                    (p, q) = (q, r);
                    k += 1;
                }
                r
            }
        }
    }
}

/// T, U, V, W at x = 1 (`at_one`) or x = -1.
fn chebyshev_at_ends<T: ScalarMath>(kind: Polynomial, at_one: bool, n: i64) -> T {
    let of = |k: i64| T::from_i64(k);
    let even = n % 2 == 0;
    match kind {
        Polynomial::ChebyshevT => of(if at_one || even { 1 } else { -1 }),
        Polynomial::ChebyshevU => of(if at_one || even { n + 1 } else { -(n + 1) }),
        Polynomial::ChebyshevV if at_one => T::ONE,
        Polynomial::ChebyshevV => of(if even { n + n + 1 } else { -(n + n + 1) }),
        _ if at_one => of(n + n + 1),
        _ => of(if even { 1 } else { -1 }),
    }
}

/// T, U, V, W of high degree inside (-1, 1), through x = cos θ.
fn chebyshev_closed<T: ScalarMath>(kind: Polynomial, x: T, n: i64) -> T {
    let of = |k: i64| T::from_i64(k);
    let (one, two, half) = (T::ONE, T::from_f64(2.0), T::from_f64(0.5));
    let angle = x.acos();
    let even = n % 2 == 0;
    match kind {
        Polynomial::ChebyshevT => (of(n) * angle).libm_cos(),
        Polynomial::ChebyshevU if angle.libm_sin() != T::ZERO => (of(n + 1) * angle).libm_sin() / angle.libm_sin(),
        Polynomial::ChebyshevU => of(n + 1) * (of(n + 1) * angle).libm_cos() / x,
        Polynomial::ChebyshevV if (angle / two).libm_sin() != one => {
            ((of(n) + half) * angle).libm_cos() / (angle / two).libm_cos()
        }
        Polynomial::ChebyshevV => of(if even { n + n + 1 } else { -(n + n + 1) }),
        _ if (angle / two).libm_cos() != one => ((of(n) + half) * angle).libm_sin() / (angle / two).libm_sin(),
        _ if x > T::ZERO => of(n + n + 1),
        _ => of(if even { 1 } else { -1 }),
    }
}

/// The Chebyshev recurrence `r = 2y q - p` from p = 1 and q = the degree-1 value (y, 2y, 2y - 1 or 2y + 1 for
/// T, U, V, W; the shifted kinds pass y = 2x - 1), up to degree `n`; it stops early once q is NaN, as torch's
/// loop does.
fn chebyshev_recurrence<T: ScalarMath>(kind: Polynomial, y: T, n: i64) -> T {
    let first = match kind {
        Polynomial::ChebyshevT | Polynomial::ShiftedChebyshevT => y,
        Polynomial::ChebyshevU | Polynomial::ShiftedChebyshevU => y + y,
        Polynomial::ChebyshevV | Polynomial::ShiftedChebyshevV => y + y - T::ONE,
        _ => y + y + T::ONE,
    };
    if n == 0 {
        return T::ONE;
    }
    if n == 1 {
        return first;
    }
    let (mut p, mut q) = (T::ONE, first);
    let mut r = q;
    let mut k = 2;
    while k <= n && !q.is_nan() {
        r = (y + y).fma(q, -p);
        (p, q) = (q, r);
        k += 1;
    }
    r
}

/// C++'s `static_cast<int64_t>` of a degree on x86-64: NaN and out-of-range values become i64::MIN (a negative
/// degree, so the value is 0, as torch's).
fn degree(n: f64) -> i64 {
    if n.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n) {
        i64::MIN
    } else {
        n as i64
    }
}

/// `kind` at `x` for degrees `n`: broadcast together, both of one floating dtype (the caller promotes them as
/// torch does); the result is in that dtype and has no gradient.
pub fn orthogonal_polynomial(kind: Polynomial, x: &Tensor, n: &Tensor) -> Result<Tensor> {
    if x.dtype() != n.dtype() {
        bail!(
            Runtime,
            "{}: x and n must have one dtype, got {} and {}",
            kind.name(),
            x.dtype().name(),
            n.dtype().name()
        );
    }
    let shape = broadcast_shapes(x.shape(), n.shape())?;
    let (x, n) = (x.detach().expand(&shape)?, n.detach().expand(&shape)?);
    match x.dtype() {
        DType::F32 => {
            let values = x.to_vec::<f32>().into_iter().zip(n.to_vec::<f32>());
            Tensor::from_vec(values.map(|(x, n)| kind.value(x, degree(n as f64))).collect::<Vec<f32>>(), &shape)
        }
        DType::F64 => {
            let values = x.to_vec::<f64>().into_iter().zip(n.to_vec::<f64>());
            Tensor::from_vec(values.map(|(x, n)| kind.value(x, degree(n))).collect::<Vec<f64>>(), &shape)
        }
        other => bail!(NotImplemented, "\"{}_cpu\" not implemented for '{}'", kind.name(), other.scalar_type_name()),
    }
}
