//! `torch.optim.RMSprop`: optional weight decay, centering and momentum.
use super::{addcmul, lerp, signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct RmsProp {
    pub lr: f64,
    pub alpha: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub momentum: f64,
    pub centered: bool,
    pub maximize: bool,
}

impl Update for RmsProp {
    type Coeffs = ();

    /// `step` (counted; the update does not depend on it).
    const COUNTERS: &'static [(&'static str, f64)] = &[("step", 0.0)];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        Ok(RmsProp {
            lr: o.number("lr")?,
            alpha: o.number("alpha")?,
            eps: o.number("eps")?,
            weight_decay: o.number("weight_decay")?,
            momentum: o.number("momentum")?,
            centered: o.flag("centered")?,
            maximize: o.flag("maximize")?,
        })
    }
    /// `square_avg`, then `momentum_buffer` when momentum > 0, then `grad_avg` when centered.
    fn buffer_names(&self) -> Vec<&'static str> {
        let mut names = vec!["square_avg"];
        if self.momentum > 0.0 {
            names.push("momentum_buffer");
        }
        if self.centered {
            names.push("grad_avg");
        }
        names
    }
    fn advance(&self, counters: &mut [Counter], _: bool) {
        counters[0].set(counters[0].get() + 1.0);
    }

    #[inline(always)]
    fn apply<T: Real>(&self, _: &(), p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let (alpha, one_minus_alpha) = (T::from_f64(self.alpha), T::from_f64(1.0 - self.alpha));
        let (eps, neg_lr, mu) = (T::from_f64(self.eps), T::from_f64(-self.lr), T::from_f64(self.momentum));
        // the gradient with maximize and weight decay, and the new square average
        let prepare = |p: T, g: T, sq: &mut T| {
            let g = signed(g, self.maximize);
            let g = wd.map_or(g, |wd| p.mul_add(wd, g));
            *sq = addcmul(*sq * alpha, one_minus_alpha, g, g);
            g
        };
        // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        let centered = |sq: T, ga: &mut T, g: T| {
            *ga = lerp(*ga, g, one_minus_alpha);
            addcmul(sq, -T::ONE, *ga, *ga).sqrt() + eps
        };
        match bufs {
            [sq] => {
                for ((p, &g), sq) in p.iter_mut().zip(g).zip(sq.iter_mut()) {
                    let g = prepare(*p, g, sq);
                    *p = *p + neg_lr * g / (sq.sqrt() + eps);
                }
            }
            [sq, ga] if self.centered => {
                for (((p, &g), sq), ga) in p.iter_mut().zip(g).zip(sq.iter_mut()).zip(ga.iter_mut()) {
                    let g = prepare(*p, g, sq);
                    *p = *p + neg_lr * g / centered(*sq, ga, g);
                }
            }
            [sq, buf] => {
                for (((p, &g), sq), buf) in p.iter_mut().zip(g).zip(sq.iter_mut()).zip(buf.iter_mut()) {
                    let g = prepare(*p, g, sq);
                    *buf = *buf * mu + g / (sq.sqrt() + eps);
                    *p = buf.mul_add(neg_lr, *p);
                }
            }
            [sq, buf, ga] => {
                let it = p.iter_mut().zip(g).zip(sq.iter_mut()).zip(buf.iter_mut()).zip(ga.iter_mut());
                for ((((p, &g), sq), buf), ga) in it {
                    let g = prepare(*p, g, sq);
                    *buf = *buf * mu + g / centered(*sq, ga, g);
                    *p = buf.mul_add(neg_lr, *p);
                }
            }
            _ => unreachable!("RMSprop carries one to three buffers"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::reference::{close, values};

    /// RMSprop as its documentation writes it, in float64; bufs: square_avg, momentum_buffer, grad_avg.
    fn reference(h: &RmsProp, p: &mut [f64], g: &[f64], b: &mut [Vec<f64>; 3]) {
        for i in 0..p.len() {
            let mut d = if h.maximize { -g[i] } else { g[i] };
            d += h.weight_decay * p[i];
            b[0][i] = h.alpha * b[0][i] + (1.0 - h.alpha) * d * d;
            let mut avg = b[0][i];
            if h.centered {
                b[2][i] = h.alpha * b[2][i] + (1.0 - h.alpha) * d;
                avg -= b[2][i] * b[2][i];
            }
            let avg = avg.sqrt() + h.eps;
            if h.momentum > 0.0 {
                b[1][i] = h.momentum * b[1][i] + d / avg;
                p[i] -= h.lr * b[1][i];
            } else {
                p[i] -= h.lr * d / avg;
            }
        }
    }

    #[test]
    fn matches_the_reference_over_steps_in_both_dtypes() {
        let n = 29;
        for (momentum, centered) in [(0.0, false), (0.0, true), (0.9, false), (0.9, true)] {
            for (weight_decay, maximize) in [(0.0, false), (0.05, true)] {
                let h = RmsProp { lr: 0.01, alpha: 0.9, eps: 1e-8, weight_decay, momentum, centered, maximize };
                let mut want = values(n, 3);
                let mut wb = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
                let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
                let mut p64 = want.clone();
                let mut b32 = vec![vec![0f32; n]; 3];
                let mut b64 = vec![vec![0f64; n]; 3];
                // the kernel's buffer order skips the absent ones
                let mut used = vec![0];
                if momentum > 0.0 {
                    used.push(1);
                }
                if centered {
                    used.push(2);
                }
                for step in 0..6 {
                    let g = values(n, 40 + step);
                    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                    reference(&h, &mut want, &g, &mut wb);
                    let mut r32: Vec<&mut [f32]> =
                        b32.iter_mut().enumerate().filter(|(k, _)| used.contains(k)).map(|(_, b)| &mut b[..]).collect();
                    h.apply(&(), &mut p32, &g32, &mut r32);
                    let mut r64: Vec<&mut [f64]> =
                        b64.iter_mut().enumerate().filter(|(k, _)| used.contains(k)).map(|(_, b)| &mut b[..]).collect();
                    h.apply(&(), &mut p64, &g, &mut r64);
                }
                assert_eq!(used.len(), h.buffers());
                for i in 0..n {
                    assert!(close(p64[i], want[i], 1e-12), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                    assert!(close(p32[i] as f64, want[i], 2e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
                }
            }
        }
    }
}
