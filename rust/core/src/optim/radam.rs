//! `torch.optim.RAdam`: Adam whose adaptive step is switched on, and rectified, once the variance of the
//! adaptive learning rate is tractable (rho_t > 5); plain momentum SGD before.
use super::{addcmul, lerp, signed, Counter, Options, Real, Update, WeightDecay};

#[derive(Clone, Copy, Debug)]
pub struct RAdam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: WeightDecay,
    pub maximize: bool,
}

pub struct RAdamCoeffs {
    bias_correction1: f64,
    /// `sqrt(bias_correction2)`, the numerator of the adaptive learning rate
    bias_correction2_sqrt: f64,
    /// The variance rectification term, when the adaptive step is on this step (rho_t > 5).
    rect: Option<f64>,
}

impl Update for RAdam {
    type Coeffs = RAdamCoeffs;

    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        let (beta1, beta2) = o.pair("betas")?;
        Ok(RAdam {
            lr: o.number("lr")?,
            beta1,
            beta2,
            eps: o.number("eps")?,
            weight_decay: WeightDecay::new(o.number("weight_decay")?, o.flag("decoupled_weight_decay")?),
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        vec!["exp_avg", "exp_avg_sq"]
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> RAdamCoeffs {
        counters[0].set(counters[0].get() + 1.0);
        let t = counters[0].get();
        let bias_correction2 = 1.0 - self.beta2.powf(t);
        // the maximum length of the approximated simple moving average, and its length at this step
        let rho_inf = 2.0 / (1.0 - self.beta2) - 1.0;
        let rho_t = rho_inf - 2.0 * t * self.beta2.powf(t) / bias_correction2;
        let rect = (rho_t > 5.0)
            .then(|| ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t)).sqrt());
        RAdamCoeffs { bias_correction1: 1.0 - self.beta1.powf(t), bias_correction2_sqrt: bias_correction2.sqrt(), rect }
    }

    #[inline(always)]
    fn apply<T: Real>(&self, c: &RAdamCoeffs, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let (decay, l2) = self.weight_decay.split(self.lr);
        let (decay, l2) = (decay.map(T::from_f64), l2.map(T::from_f64));
        let (one_minus_beta1, beta2) = (T::from_f64(1.0 - self.beta1), T::from_f64(self.beta2));
        let (one_minus_beta2, eps, lr) = (T::from_f64(1.0 - self.beta2), T::from_f64(self.eps), T::from_f64(self.lr));
        let (bias_correction1, bc2_sqrt) = (T::from_f64(c.bias_correction1), T::from_f64(c.bias_correction2_sqrt));
        let rect = c.rect.map(T::from_f64);
        let [m, v] = bufs else { unreachable!("RAdam carries two buffers") };
        for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
            let x = decay.map_or(*p, |f| *p * f);
            let g = signed(g, self.maximize);
            let g = l2.map_or(g, |wd| x.mul_add(wd, g));
            *m = lerp(*m, g, one_minus_beta1);
            *v = addcmul(*v * beta2, one_minus_beta2, g, g);
            // torch's order: (exp_avg / bias_correction1) * lr [* (sqrt(bc2) / (sqrt(v) + eps)) * rect]
            let step = *m / bias_correction1 * lr;
            let step = match rect {
                Some(rect) => step * (T::ONE / (v.sqrt() + eps) * bc2_sqrt) * rect,
                None => step,
            };
            *p = x - step;
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
        // beta2 = 0.9 turns the adaptive step on at step 6, so the eight steps take both branches
        for (beta2, weight_decay, decoupled, maximize) in
            [(0.9, 0.0, false, false), (0.9, 0.1, false, true), (0.99, 0.1, true, false)]
        {
            let h = RAdam {
                lr: 0.05,
                beta1: 0.8,
                beta2,
                eps: 1e-8,
                weight_decay: WeightDecay::new(weight_decay, decoupled),
                maximize,
            };
            let mut want = values(n, 4);
            let (mut wm, mut wv) = (vec![0.0; n], vec![0.0; n]);
            let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            let mut p64 = want.clone();
            let (mut m32, mut v32) = (vec![0f32; n], vec![0f32; n]);
            let (mut m64, mut v64) = (vec![0f64; n], vec![0f64; n]);
            let (mut c32, mut c64) = ([Counter::new(0.0, DType::F32)], [Counter::new(0.0, DType::F64)]);
            for step in 1..=8 {
                let t = step as f64;
                let g = values(n, 60 + step);
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                let rho_inf = 2.0 / (1.0 - beta2) - 1.0;
                let bc2 = 1.0 - beta2.powf(t);
                let rho_t = rho_inf - 2.0 * t * beta2.powf(t) / bc2;
                for i in 0..n {
                    if decoupled {
                        want[i] *= 1.0 - h.lr * weight_decay;
                    }
                    let mut d = if maximize { -g[i] } else { g[i] };
                    if !decoupled {
                        d += weight_decay * want[i];
                    }
                    wm[i] = 0.8 * wm[i] + 0.2 * d;
                    wv[i] = beta2 * wv[i] + (1.0 - beta2) * d * d;
                    let mut step_size = h.lr * wm[i] / (1.0 - 0.8f64.powf(t));
                    if rho_t > 5.0 {
                        let r = (rho_t - 4.0) * (rho_t - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t);
                        step_size *= r.sqrt() * bc2.sqrt() / (wv[i].sqrt() + h.eps);
                    }
                    want[i] -= step_size;
                }
                let (k32, k64) = (h.advance(&mut c32, false), h.advance(&mut c64, false));
                h.apply(&k32, &mut p32, &g32, &mut [&mut m32[..], &mut v32[..]]);
                h.apply(&k64, &mut p64, &g, &mut [&mut m64[..], &mut v64[..]]);
            }
            for i in 0..n {
                assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                assert!(close(p32[i] as f64, want[i], 1e-4), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
            }
        }
    }
}
