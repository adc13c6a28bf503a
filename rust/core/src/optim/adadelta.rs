//! `torch.optim.Adadelta`: running averages of squared gradients and of squared updates, whose ratio sets each
//! element's step.
use super::{addcmul, signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Adadelta {
    pub lr: f64,
    pub rho: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub maximize: bool,
}

impl Update for Adadelta {
    type Coeffs = ();

    /// `step` (counted; the update does not depend on it).
    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        Ok(Adadelta {
            lr: o.number("lr")?,
            rho: o.number("rho")?,
            eps: o.number("eps")?,
            weight_decay: o.number("weight_decay")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["square_avg", "acc_delta"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) {
        counters[0].set(counters[0].get() + 1.0);
    }

    #[inline(always)]
    fn apply<T: Real>(&self, _: &(), p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let (rho, one_minus_rho) = (T::from_f64(self.rho), T::from_f64(1.0 - self.rho));
        let (eps, neg_lr) = (T::from_f64(self.eps), T::from_f64(-self.lr));
        let [square_avg, acc_delta] = bufs else { unreachable!("Adadelta carries two buffers") };
        for (((p, &g), sq), acc) in p.iter_mut().zip(g).zip(square_avg.iter_mut()).zip(acc_delta.iter_mut()) {
            let g = signed(g, self.maximize);
            let g = wd.map_or(g, |wd| p.mul_add(wd, g));
            *sq = addcmul(*sq * rho, one_minus_rho, g, g);
            // delta = (acc_delta + eps).sqrt() / (square_avg + eps).sqrt() * grad, each op rounded
            let delta = (*acc + eps).sqrt() / (*sq + eps).sqrt() * g;
            *acc = addcmul(*acc * rho, one_minus_rho, delta, delta);
            *p = delta.mul_add(neg_lr, *p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::optim::reference::{close, values};

    #[test]
    fn matches_the_reference_over_steps_in_both_dtypes() {
        let n = 23;
        for (rho, weight_decay, maximize) in [(0.9, 0.0, false), (0.5, 0.2, false), (0.95, 0.0, true)] {
            let h = Adadelta { lr: 1.0, rho, eps: 1e-6, weight_decay, maximize };
            let mut want = values(n, 4);
            let (mut wsq, mut wacc) = (vec![0.0; n], vec![0.0; n]);
            let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            let mut p64 = want.clone();
            let (mut sq32, mut acc32) = (vec![0f32; n], vec![0f32; n]);
            let (mut sq64, mut acc64) = (vec![0f64; n], vec![0f64; n]);
            let (mut c32, mut c64) = ([Counter::new(0.0, DType::F32)], [Counter::new(0.0, DType::F64)]);
            for step in 1..=6 {
                let g = values(n, 60 + step);
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                for i in 0..n {
                    let d = if maximize { -g[i] } else { g[i] } + weight_decay * want[i];
                    wsq[i] = rho * wsq[i] + (1.0 - rho) * d * d;
                    let delta = ((wacc[i] + h.eps) / (wsq[i] + h.eps)).sqrt() * d;
                    wacc[i] = rho * wacc[i] + (1.0 - rho) * delta * delta;
                    want[i] -= h.lr * delta;
                }
                h.advance(&mut c32, false);
                h.advance(&mut c64, false);
                h.apply(&(), &mut p32, &g32, &mut [&mut sq32[..], &mut acc32[..]]);
                h.apply(&(), &mut p64, &g, &mut [&mut sq64[..], &mut acc64[..]]);
            }
            assert_eq!(c64[0].get(), 6.0);
            for i in 0..n {
                assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                assert!(close(p32[i] as f64, want[i], 1e-4), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
            }
        }
    }
}
