//! `torch.optim.SGD`: optional weight decay, momentum with dampening, Nesterov.
use super::{signed, Counter, Options, Real, Update};

#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

impl Update for Sgd {
    /// Whether the momentum buffer starts this step (it then takes the gradient as it is).
    type Coeffs = bool;

    const COUNTERS: &'static [(&'static str, f64)] = &[];

    fn from_options<O: Options>(o: &O) -> Result<Self, O::Error> {
        Ok(Sgd {
            lr: o.number("lr")?,
            momentum: o.number("momentum")?,
            dampening: o.number("dampening")?,
            weight_decay: o.number("weight_decay")?,
            nesterov: o.flag("nesterov")?,
            maximize: o.flag("maximize")?,
        })
    }
    /// `momentum_buffer` when momentum is on.
    fn buffer_names(&self) -> Vec<&'static str> {
        if self.momentum != 0.0 {
            vec!["momentum_buffer"]
        } else {
            vec![]
        }
    }
    fn advance(&self, _: &mut [Counter], fresh: bool) -> bool {
        fresh
    }

    #[inline(always)]
    fn apply<T: Real>(&self, &fresh: &bool, p: &mut [T], g: &[T], bufs: &mut [&mut [T]]) {
        let wd = (self.weight_decay != 0.0).then(|| T::from_f64(self.weight_decay));
        let neg_lr = T::from_f64(-self.lr);
        let (mu, keep) = (T::from_f64(self.momentum), T::from_f64(1.0 - self.dampening));
        let grad = |p: T, g: T| {
            let g = signed(g, self.maximize);
            wd.map_or(g, |wd| p.mul_add(wd, g))
        };
        match bufs {
            [buf] => {
                for ((p, &g), b) in p.iter_mut().zip(g).zip(buf.iter_mut()) {
                    let d = grad(*p, g);
                    // buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    *b = if fresh { d } else { d.mul_add(keep, *b * mu) };
                    let d = if self.nesterov { b.mul_add(mu, d) } else { *b };
                    *p = d.mul_add(neg_lr, *p);
                }
            }
            _ => {
                for (p, &g) in p.iter_mut().zip(g) {
                    *p = grad(*p, g).mul_add(neg_lr, *p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::reference::{close, values};

    /// SGD as its documentation writes it, in float64.
    fn reference(h: &Sgd, p: &mut [f64], g: &[f64], buf: &mut [f64], first: bool) {
        for i in 0..p.len() {
            let mut d = if h.maximize { -g[i] } else { g[i] };
            d += h.weight_decay * p[i];
            if h.momentum != 0.0 {
                buf[i] = if first { d } else { h.momentum * buf[i] + (1.0 - h.dampening) * d };
                d = if h.nesterov { d + h.momentum * buf[i] } else { buf[i] };
            }
            p[i] -= h.lr * d;
        }
    }

    #[test]
    fn matches_the_reference_over_steps_in_both_dtypes() {
        let n = 37;
        for (momentum, dampening, nesterov) in
            [(0.0, 0.0, false), (0.9, 0.0, false), (0.9, 0.3, false), (0.8, 0.0, true)]
        {
            for (weight_decay, maximize) in [(0.0, false), (0.1, true)] {
                let h = Sgd { lr: 0.05, momentum, dampening, weight_decay, nesterov, maximize };
                let mut want = values(n, 1);
                let mut want_buf = vec![0.0; n];
                let mut p32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
                let mut p64 = want.clone();
                let (mut b32, mut b64) = (vec![0f32; n], vec![0f64; n]);
                for step in 0..5 {
                    let g = values(n, 10 + step);
                    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                    reference(&h, &mut want, &g, &mut want_buf, step == 0);
                    let fresh = step == 0;
                    let nb = h.buffers();
                    h.apply(&fresh, &mut p32, &g32, &mut [&mut b32[..]][..nb]);
                    h.apply(&fresh, &mut p64, &g, &mut [&mut b64[..]][..nb]);
                }
                for i in 0..n {
                    assert!(close(p64[i], want[i], 1e-13), "{h:?} f64 {i}: {} vs {}", p64[i], want[i]);
                    assert!(close(p32[i] as f64, want[i], 1e-5), "{h:?} f32 {i}: {} vs {}", p32[i], want[i]);
                }
            }
        }
    }
}
