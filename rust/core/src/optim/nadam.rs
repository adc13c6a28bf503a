//! `torch.optim.NAdam`: Adam with Nesterov momentum and a momentum-decay schedule.
use super::{addcmul, lerp, signed, Counter, Options, Real, Update, WeightDecay};

#[derive(Clone, Copy, Debug)]
pub struct NAdam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: WeightDecay,
    pub momentum_decay: f64,
    pub maximize: bool,
}

pub struct NAdamCoeffs {
    bias_correction2: f64,
    /// The factors of the gradient and of the first moment in the update.
    grad_step: f64,
    avg_step: f64,
}

impl Update for NAdam {
    type Coeffs = NAdamCoeffs;

    /// `mu_product` is the running product of the momentum schedule, so it starts from 1.
    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0), ("mu_product", 1.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        let (beta1, beta2) = o.pair("betas")?;
        Ok(NAdam {
            lr: o.number("lr")?,
            beta1,
            beta2,
            eps: o.number("eps")?,
            weight_decay: WeightDecay::new(o.number("weight_decay")?, o.flag("decoupled_weight_decay")?),
            momentum_decay: o.number("momentum_decay")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["exp_avg", "exp_avg_sq"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> NAdamCoeffs {
        let [step, mu_product] = counters else { unreachable!("NAdam keeps two counters") };
        step.set(step.get() + 1.0);
        let t = step.get();
        let mu = self.beta1 * (1.0 - 0.5 * 0.96f64.powf(t * self.momentum_decay));
        let mu_next = self.beta1 * (1.0 - 0.5 * 0.96f64.powf((t + 1.0) * self.momentum_decay));
        mu_product.scale(mu);
        let mu_product_next = mu_product.get() * mu_next;
        NAdamCoeffs {
            bias_correction2: 1.0 - self.beta2.powf(t),
            grad_step: -self.lr * (1.0 - mu) / (1.0 - mu_product.get()),
            avg_step: (-self.lr * mu_next) / (1.0 - mu_product_next),
        }
    }

    #[inline(always)]
    fn apply<T: Real>(&self, c: &NAdamCoeffs, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let (decay, l2) = self.weight_decay.split(self.lr);
        let (decay, l2) = (decay.map(T::from_f64), l2.map(T::from_f64));
        let (one_minus_beta1, beta2) = (T::from_f64(1.0 - self.beta1), T::from_f64(self.beta2));
        let (one_minus_beta2, eps) = (T::from_f64(1.0 - self.beta2), T::from_f64(self.eps));
        let bias_correction2 = T::from_f64(c.bias_correction2);
        let (grad_step, avg_step) = (T::from_f64(c.grad_step), T::from_f64(c.avg_step));
        let [m, v] = bufs else { unreachable!("NAdam carries two buffers") };
        for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
            let x = decay.map_or(*p, |f| *p * f);
            let g = signed(g, self.maximize);
            let g = l2.map_or(g, |wd| x.mul_add(wd, g));
            *m = lerp(*m, g, one_minus_beta1);
            *v = addcmul(*v * beta2, one_minus_beta2, g, g);
            let denom = (*v / bias_correction2).sqrt() + eps;
            let x = x + grad_step * g / denom;
            *p = x + avg_step * *m / denom;
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
        let n = 27;
        for weight_decay in [WeightDecay::None, WeightDecay::L2(0.1), WeightDecay::Decoupled(0.1)] {
            for maximize in [false, true] {
                let h = NAdam {
                    lr: 0.01,
                    beta1: 0.9,
                    beta2: 0.999,
                    eps: 1e-8,
                    weight_decay,
                    momentum_decay: 4e-3,
                    maximize,
                };
                let mut want = values(n, 6);
                let (mut wm, mut wv, mut wmu) = (vec![0.0; n], vec![0.0; n], 1.0f64);
                let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
                let mut p64 = want.clone();
                let mut b32 = [vec![0f32; n], vec![0f32; n]];
                let mut b64 = [vec![0f64; n], vec![0f64; n]];
                let mut c32 = [Counter::new(0.0, DType::F32), Counter::new(1.0, DType::F32)];
                let mut c64 = [Counter::new(0.0, DType::F64), Counter::new(1.0, DType::F64)];
                for step in 1..=6 {
                    let g = values(n, 90 + step);
                    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                    let t = step as f64;
                    let mu = 0.9 * (1.0 - 0.5 * 0.96f64.powf(t * 4e-3));
                    let mu_next = 0.9 * (1.0 - 0.5 * 0.96f64.powf((t + 1.0) * 4e-3));
                    wmu *= mu;
                    for i in 0..n {
                        let mut d = if maximize { -g[i] } else { g[i] };
                        match weight_decay {
                            WeightDecay::L2(wd) => d += wd * want[i],
                            WeightDecay::Decoupled(wd) => want[i] *= 1.0 - h.lr * wd,
                            WeightDecay::None => {}
                        }
                        wm[i] = 0.9 * wm[i] + 0.1 * d;
                        wv[i] = 0.999 * wv[i] + 0.001 * d * d;
                        let denom = (wv[i] / (1.0 - 0.999f64.powf(t))).sqrt() + h.eps;
                        want[i] -= h.lr * (1.0 - mu) / (1.0 - wmu) * d / denom;
                        want[i] -= h.lr * mu_next / (1.0 - wmu * mu_next) * wm[i] / denom;
                    }
                    let (k32, k64) = (h.advance(&mut c32, false), h.advance(&mut c64, false));
                    let [a, b] = &mut b32;
                    h.apply(&k32, &mut p32, &g32, &mut [&mut a[..], &mut b[..]]);
                    let [a, b] = &mut b64;
                    h.apply(&k64, &mut p64, &g, &mut [&mut a[..], &mut b[..]]);
                }
                assert!(close(c64[1].get(), wmu, 1e-15));
                for i in 0..n {
                    assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                    assert!(close(p32[i] as f64, want[i], 1e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
                }
            }
        }
    }
}
