//! `torch.optim.Adamax`: Adam with the infinity norm in place of the second moment.
use super::{lerp, maximum, signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Adamax {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub maximize: bool,
}

impl Update for Adamax {
    /// The step's bias-corrected learning rate.
    type Coeffs = f64;

    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        let (beta1, beta2) = o.pair("betas")?;
        Ok(Adamax {
            lr: o.number("lr")?,
            beta1,
            beta2,
            eps: o.number("eps")?,
            weight_decay: o.number("weight_decay")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["exp_avg", "exp_inf"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> f64 {
        counters[0].set(counters[0].get() + 1.0);
        self.lr / (1.0 - self.beta1.powf(counters[0].get()))
    }

    #[inline(always)]
    fn apply<T: Real>(&self, &clr: &f64, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let (one_minus_beta1, beta2) = (T::from_f64(1.0 - self.beta1), T::from_f64(self.beta2));
        let (eps, neg_clr) = (T::from_f64(self.eps), T::from_f64(-clr));
        let [m, inf] = bufs else { unreachable!("Adamax carries two buffers") };
        for (((p, &g), m), inf) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(inf.iter_mut()) {
            let g = signed(g, self.maximize);
            let g = wd.map_or(g, |wd| p.mul_add(wd, g));
            *m = lerp(*m, g, one_minus_beta1);
            *inf = maximum(*inf * beta2, g.abs() + eps);
            *p = *p + neg_clr * *m / *inf;
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
        let n = 31;
        for (weight_decay, maximize) in [(0.0, false), (0.1, true)] {
            let h = Adamax { lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay, maximize };
            let mut want = values(n, 5);
            let (mut wm, mut winf) = (vec![0.0; n], vec![0.0; n]);
            let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            let mut p64 = want.clone();
            let mut b32 = [vec![0f32; n], vec![0f32; n]];
            let mut b64 = [vec![0f64; n], vec![0f64; n]];
            let (mut c32, mut c64) = ([Counter::new(0.0, DType::F32)], [Counter::new(0.0, DType::F64)]);
            for step in 1..=6 {
                let g = values(n, 80 + step);
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                for i in 0..n {
                    let d = if maximize { -g[i] } else { g[i] } + weight_decay * want[i];
                    wm[i] = h.beta1 * wm[i] + (1.0 - h.beta1) * d;
                    winf[i] = (h.beta2 * winf[i]).max(d.abs() + h.eps);
                    want[i] -= h.lr / (1.0 - h.beta1.powf(step as f64)) * wm[i] / winf[i];
                }
                let (k32, k64) = (h.advance(&mut c32, false), h.advance(&mut c64, false));
                let [a, b] = &mut b32;
                h.apply(&k32, &mut p32, &g32, &mut [&mut a[..], &mut b[..]]);
                let [a, b] = &mut b64;
                h.apply(&k64, &mut p64, &g, &mut [&mut a[..], &mut b[..]]);
            }
            for i in 0..n {
                assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                assert!(close(p32[i] as f64, want[i], 1e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
            }
        }
    }

    #[test]
    fn nan_gradients_propagate_into_the_infinity_norm() {
        let h = Adamax { lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.0, maximize: false };
        let (mut p, mut m, mut inf) = ([1.0f32, 1.0], [0f32; 2], [0f32; 2]);
        h.apply(&0.1, &mut p, &[f32::NAN, 1.0], &mut [&mut m[..], &mut inf[..]]);
        assert!(inf[0].is_nan() && p[0].is_nan());
        assert!(inf[1] > 0.0 && p[1] < 1.0);
    }
}
