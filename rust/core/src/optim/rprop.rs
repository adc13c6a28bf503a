//! `torch.optim.Rprop`: each element keeps its own step size, grown while its gradient keeps its sign and
//! shrunk (the step skipped) when the sign flips; the gradient's size is not used.
use super::{addcmul, signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Rprop {
    pub eta_minus: f64,
    pub eta_plus: f64,
    pub step_size_min: f64,
    pub step_size_max: f64,
    pub maximize: bool,
}

impl Update for Rprop {
    type Coeffs = ();

    /// `step` (counted; the update does not depend on it).
    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        let (eta_minus, eta_plus) = o.pair("etas")?;
        let (step_size_min, step_size_max) = o.pair("step_sizes")?;
        Ok(Rprop { eta_minus, eta_plus, step_size_min, step_size_max, maximize: o.flag("maximize")? })
    }
    /// `prev` (the last gradient taken) and `step_size` (which starts at `lr`: the Python optimizer fills it).
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["prev", "step_size"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) {
        counters[0].set(counters[0].get() + 1.0);
    }

    #[inline(always)]
    fn apply<T: Real>(&self, _: &(), p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let (eta_minus, eta_plus) = (T::from_f64(self.eta_minus), T::from_f64(self.eta_plus));
        let (lo, hi) = (T::from_f64(self.step_size_min), T::from_f64(self.step_size_max));
        let [prev, step_size] = bufs else { unreachable!("Rprop carries two buffers") };
        for (((p, &g), prev), step) in p.iter_mut().zip(g).zip(prev.iter_mut()).zip(step_size.iter_mut()) {
            let g = signed(g, self.maximize);
            let turn = g * *prev;
            // the sign of grad * prev mapped to a factor: etaplus, etaminus, or 1 at zero (NaN stays NaN)
            let factor = if turn > T::ZERO {
                eta_plus
            } else if turn < T::ZERO {
                eta_minus
            } else if turn == T::ZERO {
                T::ONE
            } else {
                turn
            };
            *step = clamp(*step * factor, lo, hi);
            // where the sign flipped, no step, and no gradient remembered
            let g = if factor == eta_minus { T::ZERO } else { g };
            *p = addcmul(*p, -T::ONE, sign(g), *step);
            *prev = g;
        }
    }
}

/// `torch.clamp`: NaN stays NaN.
#[inline(always)]
fn clamp<T: Real>(x: T, lo: T, hi: T) -> T {
    if x.is_nan() {
        x
    } else if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `torch.sign`: -1, 0 or 1 (0 for both zeros), NaN for NaN.
#[inline(always)]
fn sign<T: Real>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        x * T::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::optim::reference::values;

    #[test]
    fn follows_the_reference_in_both_dtypes_and_keeps_nan() {
        let n = 23;
        for maximize in [false, true] {
            let h = Rprop { eta_minus: 0.5, eta_plus: 1.2, step_size_min: 1e-3, step_size_max: 0.05, maximize };
            let mut want = values(n, 4);
            let (mut wprev, mut wstep) = (vec![0.0; n], vec![0.01; n]);
            let mut p64 = want.clone();
            let (mut prev, mut step) = (vec![0f64; n], vec![0.01f64; n]);
            let mut c = [Counter::new(0.0, DType::F64)];
            for k in 1..=6 {
                // every other step flips some signs
                let g: Vec<f64> = values(n, 60 + k % 2).iter().map(|v| v * (k as f64)).collect();
                for i in 0..n {
                    let d = if maximize { -g[i] } else { g[i] };
                    let t = d * wprev[i];
                    let f: f64 = if t > 0.0 {
                        1.2
                    } else if t < 0.0 {
                        0.5
                    } else {
                        1.0
                    };
                    wstep[i] = (wstep[i] * f).clamp(1e-3, 0.05);
                    let d = if f == 0.5 { 0.0 } else { d };
                    want[i] -= if d > 0.0 {
                        wstep[i]
                    } else if d < 0.0 {
                        -wstep[i]
                    } else {
                        0.0
                    };
                    wprev[i] = d;
                }
                h.advance(&mut c, false);
                h.apply(&(), &mut p64, &g, &mut [&mut prev[..], &mut step[..]]);
            }
            assert_eq!(p64, want);
            assert_eq!(step, wstep);
        }
        let h = Rprop { eta_minus: 0.5, eta_plus: 1.2, step_size_min: 1e-6, step_size_max: 50.0, maximize: false };
        let (mut p, mut prev, mut step) = ([1.0f32, 1.0], [1.0f32, 1.0], [0.1f32, 0.1]);
        h.apply(&(), &mut p, &[f32::NAN, 2.0], &mut [&mut prev[..], &mut step[..]]);
        assert!(p[0].is_nan() && step[0].is_nan() && prev[0].is_nan());
        let grown = 0.1f32 * 1.2;
        assert_eq!((p[1], step[1]), (1.0 - grown, grown));
    }
}
