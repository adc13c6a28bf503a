//! Scalar special functions in float64 (float32 inputs are computed here and rounded): the gamma family,
//! the error-function family, the Bessel functions and the regularized incomplete gamma functions (these
//! in float32 for float32, as torch's). Written from the defining series, recurrences,
//! asymptotic expansions and Newton iterations named at each function; libm supplies lgamma, erf,
//! erfc and the Bessel functions of the first and second kind of orders 0 and 1.
pub mod airy;
pub mod bessel;
pub mod erf;
pub mod gamma;
pub mod incomplete_gamma;
