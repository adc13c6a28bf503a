//! `torch.optim.ASGD`: SGD with a decaying step size (`eta`) and a running average of the parameters (`ax`),
//! plain copying until step `t0`, then averaging (`mu`).
use super::{signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Asgd {
    pub lr: f64,
    pub lambd: f64,
    pub alpha: f64,
    pub t0: f64,
    pub weight_decay: f64,
    pub maximize: bool,
}

/// This step's step size and averaging weight, as the counters held them before the step.
pub struct AsgdCoeffs {
    eta: f64,
    mu: f64,
}

impl Update for Asgd {
    type Coeffs = AsgdCoeffs;

    /// `eta` starts at the group's `lr` (the Python optimizer sets it), `mu` at 1.
    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0), ("eta", 0.0), ("mu", 1.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        Ok(Asgd {
            lr: o.number("lr")?,
            lambd: o.number("lambd")?,
            alpha: o.number("alpha")?,
            t0: o.number("t0")?,
            weight_decay: o.number("weight_decay")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["ax"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> AsgdCoeffs {
        let [step, eta, mu] = counters else { unreachable!("ASGD keeps three counters") };
        step.set(step.get() + 1.0);
        let coeffs = AsgdCoeffs { eta: eta.get(), mu: mu.get() };
        let t = step.get();
        eta.set(self.lr / (1.0 + self.lambd * self.lr * t).powf(self.alpha));
        mu.set(1.0 / (t - self.t0).max(1.0));
        coeffs
    }

    #[inline(always)]
    fn apply<T: Real>(&self, c: &AsgdCoeffs, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let (decay, neg_eta) = (T::from_f64(1.0 - self.lambd * c.eta), T::from_f64(-c.eta));
        let mu = T::from_f64(c.mu);
        let averaging = c.mu != 1.0;
        let [ax] = bufs else { unreachable!("ASGD carries one buffer") };
        for ((p, &g), ax) in p.iter_mut().zip(g).zip(ax.iter_mut()) {
            let g = signed(g, self.maximize);
            let g = wd.map_or(g, |wd| p.mul_add(wd, g));
            let x = *p * decay;
            *p = g.mul_add(neg_eta, x);
            // ax.add_(param.sub(ax).mul_(mu)), each op rounded; a plain copy while mu is 1
            *ax = if averaging { *ax + (*p - *ax) * mu } else { *p };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::optim::reference::{close, values};

    #[test]
    fn matches_the_reference_over_steps_and_averages_after_t0() {
        let n = 23;
        for (t0, weight_decay, maximize) in [(1e6, 0.0, false), (2.0, 0.1, false), (3.0, 0.0, true)] {
            let h = Asgd { lr: 0.05, lambd: 0.1, alpha: 0.75, t0, weight_decay, maximize };
            let mut want = values(n, 4);
            let mut wax = vec![0.0; n];
            let (mut weta, mut wmu) = (h.lr, 1.0);
            let mut p64 = want.clone();
            let mut ax64 = vec![0f64; n];
            let mut c = [Counter::new(0.0, DType::F64), Counter::new(h.lr, DType::F64), Counter::new(1.0, DType::F64)];
            for step in 1..=6 {
                let g = values(n, 60 + step);
                for i in 0..n {
                    let d = if maximize { -g[i] } else { g[i] } + weight_decay * want[i];
                    want[i] = want[i] * (1.0 - h.lambd * weta) - weta * d;
                    wax[i] = if wmu != 1.0 { wax[i] + (want[i] - wax[i]) * wmu } else { want[i] };
                }
                let t = step as f64;
                weta = h.lr / (1.0 + h.lambd * h.lr * t).powf(h.alpha);
                wmu = 1.0 / (t - t0).max(1.0);
                let k = h.advance(&mut c, false);
                h.apply(&k, &mut p64, &g, &mut [&mut ax64[..]]);
            }
            for i in 0..n {
                assert!(close(p64[i], want[i], 1e-12), "{h:?} p {i}: {} vs {}", p64[i], want[i]);
                assert!(close(ax64[i], wax[i], 1e-12), "{h:?} ax {i}: {} vs {}", ax64[i], wax[i]);
            }
            assert!(t0 > 6.0 || ax64 != p64, "averaging started after t0");
        }
    }
}
