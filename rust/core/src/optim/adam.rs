//! `torch.optim.Adam` and `AdamW` (Adam with decoupled weight decay), with amsgrad.
use super::{addcmul, lerp, maximum, signed, Counter, Options, Real, Update, WeightDecay};

#[derive(Clone, Copy, Debug)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: WeightDecay,
    pub amsgrad: bool,
    pub maximize: bool,
}

/// The step's bias corrections, as PyTorch computes them in Python floats.
pub struct AdamCoeffs {
    step_size: f64,
    bias_correction2_sqrt: f64,
}

impl Update for Adam {
    type Coeffs = AdamCoeffs;

    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        let (beta1, beta2) = o.pair("betas")?;
        Ok(Adam {
            lr: o.number("lr")?,
            beta1,
            beta2,
            eps: o.number("eps")?,
            weight_decay: WeightDecay::new(o.number("weight_decay")?, o.flag("decoupled_weight_decay")?),
            amsgrad: o.flag("amsgrad")?,
            maximize: o.flag("maximize")?,
        })
    }
    fn buffer_names(&self) -> Vec<&'static str> {
        if self.amsgrad {
            vec!["exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
        } else {
            vec!["exp_avg", "exp_avg_sq"]
        }
    }
    fn advance(&self, counters: &mut [Counter], _: bool) -> AdamCoeffs {
        let step = &mut counters[0];
        step.set(step.get() + 1.0);
        let t = step.get();
        let bias_correction1 = 1.0 - self.beta1.powf(t);
        let bias_correction2 = 1.0 - self.beta2.powf(t);
        AdamCoeffs { step_size: self.lr / bias_correction1, bias_correction2_sqrt: bias_correction2.powf(0.5) }
    }

    #[inline(always)]
    fn apply<T: Real>(&self, c: &AdamCoeffs, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let k = Consts::<T>::new(self, c);
        match bufs {
            [m, v, vmax] => {
                for ((((p, &g), m), v), vmax) in
                    p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()).zip(vmax.iter_mut())
                {
                    let (x, v) = k.moments(*p, g, m, v);
                    *vmax = maximum(*vmax, v);
                    *p = k.descend(x, *m, *vmax);
                }
            }
            [m, v] => {
                for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                    let (x, v) = k.moments(*p, g, m, v);
                    *p = k.descend(x, *m, v);
                }
            }
            _ => unreachable!("Adam carries two or three buffers"),
        }
    }
}

/// The hyper-parameters cast to the parameter's dtype once per run.
struct Consts<T> {
    maximize: bool,
    decay: Option<T>,
    l2: Option<T>,
    one_minus_beta1: T,
    beta2: T,
    one_minus_beta2: T,
    bias_correction2_sqrt: T,
    eps: T,
    neg_step_size: T,
}

impl<T: Real> Consts<T> {
    #[inline(always)]
    fn new(h: &Adam, c: &AdamCoeffs) -> Self {
        let (decay, l2) = h.weight_decay.split(h.lr);
        Consts {
            maximize: h.maximize,
            decay: decay.map(T::from_f64),
            l2: l2.map(T::from_f64),
            one_minus_beta1: T::from_f64(1.0 - h.beta1),
            beta2: T::from_f64(h.beta2),
            one_minus_beta2: T::from_f64(1.0 - h.beta2),
            bias_correction2_sqrt: T::from_f64(c.bias_correction2_sqrt),
            eps: T::from_f64(h.eps),
            neg_step_size: T::from_f64(-c.step_size),
        }
    }

    /// Weight decay and the two moments; returns the (decayed) parameter and the new second moment.
    #[inline(always)]
    fn moments(&self, p: T, g: T, m: &mut T, v: &mut T) -> (T, T) {
        let x = self.decay.map_or(p, |f| p * f);
        let g = signed(g, self.maximize);
        let g = self.l2.map_or(g, |wd| x.mul_add(wd, g));
        *m = lerp(*m, g, self.one_minus_beta1);
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        *v = addcmul(*v * self.beta2, self.one_minus_beta2, g, g);
        (x, *v)
    }

    /// `param.addcdiv_(exp_avg, sqrt(second) / bias_correction2_sqrt + eps, value=-step_size)`.
    #[inline(always)]
    fn descend(&self, x: T, m: T, second: T) -> T {
        let denom = second.sqrt() / self.bias_correction2_sqrt + self.eps;
        x + self.neg_step_size * m / denom
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::optim::reference::{close, values};

    /// Adam as its documentation writes it, in float64.
    fn reference(h: &Adam, t: f64, p: &mut [f64], g: &[f64], m: &mut [f64], v: &mut [f64], vmax: &mut [f64]) {
        for i in 0..p.len() {
            let mut d = if h.maximize { -g[i] } else { g[i] };
            match h.weight_decay {
                WeightDecay::L2(wd) => d += wd * p[i],
                WeightDecay::Decoupled(wd) => p[i] *= 1.0 - h.lr * wd,
                WeightDecay::None => {}
            }
            m[i] = h.beta1 * m[i] + (1.0 - h.beta1) * d;
            v[i] = h.beta2 * v[i] + (1.0 - h.beta2) * d * d;
            vmax[i] = vmax[i].max(v[i]);
            let m_hat = m[i] / (1.0 - h.beta1.powf(t));
            let v_hat = if h.amsgrad { vmax[i] } else { v[i] } / (1.0 - h.beta2.powf(t));
            p[i] -= h.lr * m_hat / (v_hat.sqrt() + h.eps);
        }
    }

    #[test]
    fn matches_the_reference_over_steps_in_both_dtypes() {
        let n = 45;
        for weight_decay in [WeightDecay::None, WeightDecay::L2(0.1), WeightDecay::Decoupled(0.1)] {
            for (amsgrad, maximize) in [(false, false), (true, false), (false, true)] {
                let h = Adam { lr: 0.01, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay, amsgrad, maximize };
                let mut want = values(n, 2);
                let (mut wm, mut wv, mut wvmax) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
                let mut p64 = want.clone();
                let mut b32 = vec![vec![0f32; n]; 3];
                let mut b64 = vec![vec![0f64; n]; 3];
                let (mut s32, mut s64) = ([Counter::new(0.0, DType::F32)], [Counter::new(0.0, DType::F64)]);
                for step in 1..=6 {
                    let g = values(n, 20 + step);
                    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                    reference(&h, step as f64, &mut want, &g, &mut wm, &mut wv, &mut wvmax);
                    let (c32, c64) = (h.advance(&mut s32, false), h.advance(&mut s64, false));
                    let nb = h.buffers();
                    let mut r32: Vec<&mut [f32]> = b32.iter_mut().take(nb).map(|b| &mut b[..]).collect();
                    h.apply(&c32, &mut p32, &g32, &mut r32);
                    let mut r64: Vec<&mut [f64]> = b64.iter_mut().take(nb).map(|b| &mut b[..]).collect();
                    h.apply(&c64, &mut p64, &g, &mut r64);
                }
                assert_eq!(s32[0].get(), 6.0);
                for i in 0..n {
                    assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                    assert!(close(p32[i] as f64, want[i], 1e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
                }
            }
        }
    }
}
