//! `ctc_loss`: the connectionist temporal classification loss (CtcLossBackward0). Each batch entry's
//! negative log likelihood of its target over all alignments, by the forward (alpha) recursion in log space
//! over the target with blanks between and around its labels; the gradient from alpha and the backward
//! (beta) recursion. The composition above the kernel (unbatched inputs, `zero_infinity`, the reduction) is
//! torch's, op for op, so the grad_fn chain is the same (`MeanBackward0` ← `DivBackward0` ← `WhereBackward0`
//! ← `CtcLossBackward0`).
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::threads::{par_for, OutPtr};
use crate::ops::formula::c;
use crate::ops::loss::Reduction;
use crate::tensor::Tensor;
use crate::DType;

/// Where the check messages say they come from (torch's `CheckedFrom`).
const CHECKED: &str = "(while checking arguments for ctc_loss_allocate_outputs)";

/// The validated shape of one call: log_probs (T, N, C), and each batch entry's target as a slice of the
/// flattened int64 targets.
struct Problem {
    max_time: usize,
    batch: usize,
    classes: usize,
    blank: usize,
    input_lengths: Vec<usize>,
    target_lengths: Vec<usize>,
    /// Where each batch entry's target starts in `targets`.
    target_starts: Vec<usize>,
    targets: Vec<i64>,
    /// 2 · the longest target + 1: the lattice's width.
    width: usize,
}

impl Problem {
    /// torch's checks, in its order (`ctc_loss_allocate_outputs`), then the target values, which torch reads
    /// unchecked.
    fn new(
        log_probs: &Tensor,
        targets: &Tensor,
        input_lengths: &[i64],
        target_lengths: &[i64],
        blank: i64,
    ) -> Result<Problem> {
        let nd = targets.ndim();
        if !(1..3).contains(&nd) {
            bail!(
                Runtime,
                "Expected 1 to 2 dimensions, but got {nd}-dimensional tensor for argument #2 'targets' {CHECKED}"
            );
        }
        let [max_time, batch, classes] = log_probs.shape()[..] else { unreachable!("checked 3-D") };
        if blank < 0 || blank as usize >= classes {
            bail!(Runtime, "blank must be in label range");
        }
        if input_lengths.len() != batch {
            bail!(Runtime, "input_lengths must be of size batch_size");
        }
        if target_lengths.len() != batch {
            bail!(Runtime, "target_lengths must be of size batch_size");
        }
        if let Some(&bad) = target_lengths.iter().find(|&&l| l < 0) {
            bail!(Runtime, "Expected target_lengths to have value at least 0, but got value {bad} {CHECKED}");
        }
        let tl: Vec<usize> = target_lengths.iter().map(|&l| l as usize).collect();
        let longest = tl.iter().copied().max().unwrap_or(0);
        let size = |d: usize| targets.shape()[d];
        let target_starts: Vec<usize> = if nd == 1 {
            let starts: Vec<usize> = tl
                .iter()
                .scan(0usize, |pos, &l| {
                    let start = *pos;
                    *pos += l;
                    Some(start)
                })
                .collect();
            let total: usize = tl.iter().sum();
            if size(0) != total {
                bail!(
                    Runtime,
                    "Expected tensor to have size {total} at dimension 0, but got size {} for argument #2 'targets' \
                     {CHECKED}",
                    size(0)
                );
            }
            starts
        } else {
            if size(0) != batch {
                bail!(
                    Runtime,
                    "Expected tensor to have size {batch} at dimension 0, but got size {} for argument #2 'targets' \
                     {CHECKED}",
                    size(0)
                );
            }
            if size(1) < longest {
                bail!(
                    Runtime,
                    "Expected tensor to have size at least {longest} at dimension 1, but got size {} for argument #2 \
                     'targets' {CHECKED}",
                    size(1)
                );
            }
            (0..batch).map(|b| b * size(1)).collect()
        };
        for &l in input_lengths {
            if l < 0 {
                bail!(Runtime, "Expected input_lengths to have value at least 0, but got value {l} {CHECKED}");
            }
            if l as usize > max_time {
                bail!(Runtime, "Expected input_lengths to have value at most {max_time}, but got value {l} {CHECKED}");
            }
        }
        let flat = targets.detach().to_dtype(DType::I64)?.contiguous()?.to_vec::<i64>();
        for b in 0..batch {
            // torch reads an out-of-range label out of bounds; here it is an error
            if let Some(&v) = flat[target_starts[b]..][..tl[b]].iter().find(|&&v| v < 0 || v as usize >= classes) {
                bail!(Index, "ctc_loss: target {v} is out of bounds for {classes} classes (log_probs' last dim)");
            }
        }
        Ok(Problem {
            max_time,
            batch,
            classes,
            blank: blank as usize,
            input_lengths: input_lengths.iter().map(|&l| l as usize).collect(),
            target_lengths: tl,
            target_starts,
            targets: flat,
            width: 2 * longest + 1,
        })
    }

    /// The label at lattice position `s` of batch entry `b`: blanks at even positions, the target between.
    #[inline(always)]
    fn label(&self, b: usize, s: usize) -> usize {
        if s.is_multiple_of(2) {
            self.blank
        } else {
            self.targets[self.target_starts[b] + s / 2] as usize
        }
    }

    /// Whether position `s` may be reached from `s - 2` (skipping the blank between two different labels).
    #[inline(always)]
    fn skips(&self, b: usize, s: usize) -> bool {
        s > 1 && self.label(b, s - 2) != self.label(b, s)
    }

    /// Lattice cells over the whole batch, the work the kernels' time is proportional to.
    fn cells(&self) -> usize {
        self.batch * self.max_time * self.width
    }
}

/// The scalar exp and log of the lattice: the C library's, as torch's kernel calls them (the crate's float32
/// `Float::exp`/`ln` are shaped for vector loops and ran this kernel 2.5× slower).
trait LatticeFloat: Float {
    fn exp_c(self) -> Self;
    fn ln_c(self) -> Self;
}
impl LatticeFloat for f32 {
    #[inline(always)]
    fn exp_c(self) -> f32 {
        f32::exp(self)
    }
    #[inline(always)]
    fn ln_c(self) -> f32 {
        f32::ln(self)
    }
}
impl LatticeFloat for f64 {
    #[inline(always)]
    fn exp_c(self) -> f64 {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln_c(self) -> f64 {
        f64::ln(self)
    }
}

#[inline(always)]
fn neg_inf<F: LatticeFloat>() -> F {
    F::from_f64(f64::NEG_INFINITY)
}

/// log(e^a + e^b + e^c) as torch's kernel computes it: around the largest, 0 where all are -inf.
#[inline(always)]
fn log_sum3<F: LatticeFloat>(a: F, b: F, c: F) -> F {
    let mut m = a;
    if b > m {
        m = b;
    }
    if c > m {
        m = c;
    }
    if m == neg_inf::<F>() {
        m = F::ZERO;
    }
    ((a - m).exp_c() + (b - m).exp_c() + (c - m).exp_c()).ln_c() + m
}

/// `task(b)` for every batch entry, on several threads when the lattice is large enough.
fn for_each_entry(p: &Problem, task: &(dyn Fn(usize) + Sync)) {
    if p.cells() >= crate::kernels::split::CTC_LATTICE_CELLS {
        par_for(p.batch, task);
    } else {
        (0..p.batch).for_each(task);
    }
}

/// Each batch entry's negative log likelihood (N) and its log alpha lattice (N, T, width), -inf outside
/// the entry's lengths.
fn forward<F: LatticeFloat>(lp: &[F], p: &Problem) -> (Vec<F>, Vec<F>) {
    let (t_max, width, n, classes) = (p.max_time, p.width, p.batch, p.classes);
    let mut nll = vec![F::ZERO; n];
    let mut alpha = vec![neg_inf::<F>(); n * t_max * width];
    let (nll_out, alpha_out) = (OutPtr(nll.as_mut_ptr()), OutPtr(alpha.as_mut_ptr()));
    for_each_entry(p, &|b| {
        #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointer fields
        let (nll_out, alpha_out) = (nll_out, alpha_out);
        // SAFETY: entry b writes only its own alpha slab and nll element; both buffers outlive the tasks
        let la = unsafe { std::slice::from_raw_parts_mut(alpha_out.0.add(b * t_max * width), t_max * width) };
        let (il, tl) = (p.input_lengths[b], p.target_lengths[b]);
        let lp_at = |t: usize, k: usize| lp[(t * n + b) * classes + k];
        let value = if il == 0 {
            // no frames: only the empty target has an alignment
            if tl == 0 {
                -F::ZERO
            } else {
                F::from_f64(f64::INFINITY)
            }
        } else {
            la[0] = lp_at(0, p.blank);
            if tl > 0 {
                la[1] = lp_at(0, p.label(b, 1));
            }
            let lanes = 2 * tl + 1;
            for t in 1..il {
                let (prev, cur) = la[(t - 1) * width..(t + 1) * width].split_at_mut(width);
                for s in 0..lanes {
                    let a2 = if s > 0 { prev[s - 1] } else { neg_inf::<F>() };
                    let a3 = if p.skips(b, s) { prev[s - 2] } else { neg_inf::<F>() };
                    cur[s] = log_sum3(prev[s], a2, a3) + lp_at(t, p.label(b, s));
                }
            }
            let last = &la[(il - 1) * width..];
            let ll = if tl == 0 { last[0] } else { log_sum3(last[lanes - 1], last[lanes - 2], neg_inf::<F>()) };
            -ll
        };
        // SAFETY: element b is written by task b only
        unsafe { *nll_out.0.add(b) = value };
    });
    (nll, alpha)
}

/// d(Σ_b grad_out[b] · nll[b]) as torch gives it: exp(lp) − exp(log Σ αβ + nll − lp) times the entry's
/// incoming gradient over its frames (the gradient through a log_softmax, not of the raw log probabilities),
/// zero past them, and zero for an infinite loss under `zero_infinity`.
fn backward<F: LatticeFloat>(
    lp: &[F],
    p: &Problem,
    nll: &[F],
    alpha: &[F],
    grad_out: &[F],
    zero_infinity: bool,
) -> Vec<F> {
    let (t_max, width, n, classes) = (p.max_time, p.width, p.batch, p.classes);
    let mut grad = vec![F::ZERO; t_max * n * classes];
    let out = OutPtr(grad.as_mut_ptr());
    for_each_entry(p, &|b| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let out = out;
        let (il, tl) = (p.input_lengths[b], p.target_lengths[b]);
        if il == 0 || (zero_infinity && nll[b] == F::from_f64(f64::INFINITY)) {
            return; // zeros
        }
        let lanes = 2 * tl + 1;
        let la = &alpha[b * t_max * width..];
        let lp_at = |t: usize, k: usize| lp[(t * n + b) * classes + k];
        // log Σ αβ over the lattice positions of each (frame, label)
        let mut lab = vec![neg_inf::<F>(); il * classes];
        let mut next = vec![neg_inf::<F>(); lanes];
        let mut beta = vec![neg_inf::<F>(); lanes];
        let last = il - 1;
        next[lanes - 1] = lp_at(last, p.blank);
        lab[last * classes + p.blank] = la[last * width + lanes - 1] + next[lanes - 1];
        if tl > 0 {
            let k = p.label(b, lanes - 2);
            next[lanes - 2] = lp_at(last, k);
            lab[last * classes + k] = la[last * width + lanes - 2] + next[lanes - 2];
        }
        for t in (0..last).rev() {
            for s in (0..lanes).rev() {
                let k = p.label(b, s);
                let b2 = if s + 1 < lanes { next[s + 1] } else { neg_inf::<F>() };
                let b3 = if s + 2 < lanes && p.skips(b, s + 2) { next[s + 2] } else { neg_inf::<F>() };
                beta[s] = log_sum3(next[s], b2, b3) + lp_at(t, k);
                let ab = la[t * width + s] + beta[s];
                let acc = &mut lab[t * classes + k];
                *acc = if *acc == neg_inf::<F>() {
                    ab
                } else {
                    let m = if *acc > ab { *acc } else { ab };
                    ((*acc - m).exp_c() + (ab - m).exp_c()).ln_c() + m
                };
            }
            std::mem::swap(&mut next, &mut beta);
        }
        let (loss, g) = (nll[b], grad_out[b]);
        for t in 0..il {
            for k in 0..classes {
                let x = lp_at(t, k);
                let v = (x.exp_c() - (lab[t * classes + k] + loss - x).exp_c()) * g;
                // SAFETY: entry b writes only the elements of its own column b of the (T, N, C) gradient
                unsafe { *out.0.add((t * n + b) * classes + k) = v };
            }
        }
    });
    grad
}

impl Tensor {
    /// `torch.ctc_loss` with the lengths as integers: `self` is log_probs (T, N, C), or (T, C) unbatched;
    /// `targets` (N, S) padded or 1-D concatenated; `reduction` 'mean' divides each loss by its target length
    /// (at least 1) and averages.
    pub fn ctc_loss(
        &self,
        targets: &Tensor,
        input_lengths: &[i64],
        target_lengths: &[i64],
        blank: i64,
        reduction: Reduction,
        zero_infinity: bool,
    ) -> Result<Tensor> {
        // autocast runs the losses in float32, as torch's CPU autocast lists ctc_loss
        crate::autocast::run(crate::autocast::Policy::Fp32, [Some(self)], |[log_probs]| {
            let log_probs = log_probs.expect("given");
            log_probs.ctc_loss_uncast(targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
        })
    }

    fn ctc_loss_uncast(
        &self,
        targets: &Tensor,
        input_lengths: &[i64],
        target_lengths: &[i64],
        blank: i64,
        reduction: Reduction,
        zero_infinity: bool,
    ) -> Result<Tensor> {
        let batched = self.ndim() == 3;
        let log_probs = if batched { self.clone() } else { self.unsqueeze(1)? };
        let res = log_probs.ctc_loss_per_entry(targets, input_lengths, target_lengths, blank, zero_infinity)?;
        let res = if zero_infinity {
            Tensor::where_(&res.eq(&c(f64::INFINITY))?, &Tensor::zeros(&[], res.dtype()), &res)?
        } else {
            res
        };
        match reduction {
            Reduction::Mean => {
                let lengths: Vec<f64> = target_lengths.iter().map(|&l| l.max(1) as f64).collect();
                let divisor = Tensor::from_vec(lengths, &[target_lengths.len()])?.to_dtype(res.dtype())?;
                res.div(&divisor)?.mean(None, false)
            }
            Reduction::Sum => res.sum(None, false),
            Reduction::None if batched => Ok(res),
            Reduction::None => res.squeeze_dim(0),
        }
    }

    /// torch's `_ctc_loss`: the unreduced loss of each batch entry of a (T, N, C) `self`.
    fn ctc_loss_per_entry(
        &self,
        targets: &Tensor,
        input_lengths: &[i64],
        target_lengths: &[i64],
        blank: i64,
        zero_infinity: bool,
    ) -> Result<Tensor> {
        let dtype = self.dtype();
        if !matches!(dtype, DType::F32 | DType::F64) {
            bail!(NotImplemented, "\"ctc_loss_cpu\" not implemented for '{}'", dtype.scalar_type_name());
        }
        if self.numel() == 0 {
            bail!(Runtime, "log_probs tensor must not be empty");
        }
        if self.ndim() != 3 {
            bail!(
                Runtime,
                "Expected 3-dimensional tensor, but got {}-dimensional tensor for argument #1 'log_probs' {CHECKED}",
                self.ndim()
            );
        }
        let p = Problem::new(self, targets, input_lengths, target_lengths, blank)?;
        let lp = self.detach().contiguous()?;
        let (nll, alpha) = crate::with_float_dtype!(dtype, F => lp.with_data(|l, xs: &[F]| {
            let (nll, alpha) = forward(&xs[l.contiguous_range().expect("contiguous")], &p);
            Ok::<_, crate::Error>((
                Tensor::from_vec(nll, &[p.batch])?,
                Tensor::from_vec(alpha, &[p.batch, p.max_time, p.width])?,
            ))
        })?, unreachable!("checked float"));
        let rule = |out: &Tensor| CtcLossBackward0 {
            log_probs: SavedTensor::input(self),
            targets: SavedTensor::input(targets),
            input_lengths: input_lengths.to_vec(),
            target_lengths: target_lengths.to_vec(),
            blank,
            zero_infinity,
            result0: SavedTensor::output(out),
            result1: SavedTensor::input(&alpha),
        };
        Ok(record(nll, &[self], rule))
    }
}

crate::backward_rule! {
    /// `ctc_loss`: the gradient of each entry's loss from its alpha and beta lattices (`backward` above).
    pub struct CtcLossBackward0 {
        log_probs: SavedTensor,
        targets: SavedTensor,
        input_lengths: Vec<i64>,
        target_lengths: Vec<i64>,
        blank: i64,
        zero_infinity: bool,
        result0: SavedTensor,
        result1: SavedTensor,
    }
}
impl Backward for CtcLossBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let recorded_log_probs = ctx.unpack(&self.log_probs)?;
        let log_probs = recorded_log_probs.detach();
        let targets = ctx.unpack(&self.targets)?;
        let p = Problem::new(&log_probs, &targets, &self.input_lengths, &self.target_lengths, self.blank)?;
        let dtype = log_probs.dtype();
        let lp = log_probs.contiguous()?;
        let nll = ctx.unpack(&self.result0)?.detach();
        let alpha = ctx.unpack(&self.result1)?;
        let grad_out = g.detach().to_dtype(dtype)?.expand(&[p.batch])?.contiguous()?;
        let grad = crate::with_float_dtype!(dtype, F => {
            let (lp, nll, alpha) = (lp.to_vec::<F>(), nll.to_vec::<F>(), alpha.to_vec::<F>());
            let grad_out = grad_out.to_vec::<F>();
            Tensor::from_vec(backward(&lp, &p, &nll, &alpha, &grad_out, self.zero_infinity), log_probs.shape())?
        }, unreachable!("a float forward"));
        // under create_graph the gradient has torch's node for `_ctc_loss_backward`, which has no derivative
        Ok(vec![Some(Tensor::without_derivative(&grad, &[&recorded_log_probs, g], "_ctc_loss_backward")?)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_probs(rows: &[[f64; 3]]) -> Tensor {
        let flat: Vec<f64> = rows.iter().flat_map(|r| r.iter().map(|p| p.ln())).collect();
        Tensor::from_vec(flat, &[rows.len(), 1, 3]).unwrap()
    }

    #[test]
    fn sums_every_alignment() {
        // target [1] over two frames: (1, 1), (0, 1), (1, 0)
        let p = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]];
        let lp = log_probs(&p);
        let target = Tensor::from_vec(vec![1i64], &[1, 1]).unwrap();
        let loss = lp.ctc_loss(&target, &[2], &[1], 0, Reduction::None, false).unwrap().to_vec::<f64>();
        let want = p[0][1] * p[1][1] + p[0][0] * p[1][1] + p[0][1] * p[1][0];
        assert!((loss[0] + want.ln()).abs() < 1e-12, "{loss:?}");
    }

    #[test]
    fn impossible_and_empty() {
        let lp = log_probs(&[[0.2, 0.5, 0.3]]);
        let repeated = Tensor::from_vec(vec![1i64, 1], &[1, 2]).unwrap();
        let loss = lp.ctc_loss(&repeated, &[1], &[2], 0, Reduction::None, false).unwrap().to_vec::<f64>();
        assert_eq!(loss[0], f64::INFINITY);
        let zeroed = lp.ctc_loss(&repeated, &[1], &[2], 0, Reduction::None, true).unwrap().to_vec::<f64>();
        assert_eq!(zeroed[0], 0.0);
        let empty = lp.ctc_loss(&repeated, &[0], &[0], 0, Reduction::None, false).unwrap().to_vec::<f64>();
        assert_eq!(empty[0], 0.0);
    }

    #[test]
    fn out_of_range_label_is_an_error_not_a_read() {
        let lp = log_probs(&[[0.2, 0.5, 0.3]]);
        let bad = Tensor::from_vec(vec![3i64], &[1, 1]).unwrap();
        assert!(lp.ctc_loss(&bad, &[1], &[1], 0, Reduction::None, false).is_err());
    }
}
