//! `torch.optim.Adagrad`: accumulated squared gradients, learning-rate decay over steps.
use super::{addcmul, signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Adagrad {
    pub lr: f64,
    pub lr_decay: f64,
    pub weight_decay: f64,
    pub eps: f64,
    pub maximize: bool,
}

impl Update for Adagrad {
    /// The step's decayed learning rate.
    type Coeffs = f64;

    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        Ok(Adagrad {
            lr: o.number("lr")?,
            lr_decay: o.number("lr_decay")?,
            weight_decay: o.number("weight_decay")?,
            eps: o.number("eps")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["sum"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> f64 {
        counters[0].set(counters[0].get() + 1.0);
        self.lr / (1.0 + (counters[0].get() - 1.0) * self.lr_decay)
    }

    #[inline(always)]
    fn apply<T: Real>(&self, &clr: &f64, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let (eps, neg_clr) = (T::from_f64(self.eps), T::from_f64(-clr));
        let [sum] = bufs else { unreachable!("Adagrad carries one buffer") };
        for ((p, &g), sum) in p.iter_mut().zip(g).zip(sum.iter_mut()) {
            let g = signed(g, self.maximize);
            let g = wd.map_or(g, |wd| p.mul_add(wd, g));
            *sum = addcmul(*sum, T::ONE, g, g);
            *p = *p + neg_clr * g / (sum.sqrt() + eps);
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
        for (lr_decay, weight_decay, maximize) in [(0.0, 0.0, false), (0.1, 0.2, false), (0.01, 0.0, true)] {
            let h = Adagrad { lr: 0.1, lr_decay, weight_decay, eps: 1e-10, maximize };
            let mut want = values(n, 4);
            let mut wsum = vec![0.1; n];
            let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            let mut p64 = want.clone();
            let (mut s32, mut s64) = (vec![0.1f32; n], vec![0.1f64; n]);
            let (mut c32, mut c64) = ([Counter::new(0.0, DType::F32)], [Counter::new(0.0, DType::F64)]);
            for step in 1..=6 {
                let g = values(n, 60 + step);
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                let clr = h.lr / (1.0 + (step as f64 - 1.0) * lr_decay);
                for i in 0..n {
                    let d = if maximize { -g[i] } else { g[i] } + weight_decay * want[i];
                    wsum[i] += d * d;
                    want[i] -= clr * d / (wsum[i].sqrt() + h.eps);
                }
                let (k32, k64) = (h.advance(&mut c32, false), h.advance(&mut c64, false));
                h.apply(&k32, &mut p32, &g32, &mut [&mut s32[..]]);
                h.apply(&k64, &mut p64, &g, &mut [&mut s64[..]]);
            }
            for i in 0..n {
                assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                assert!(close(p32[i] as f64, want[i], 1e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
            }
        }
    }
}
