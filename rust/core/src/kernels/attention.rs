//! Scaled dot-product attention forward and backward over contiguous (heads, L, E) blocks, one head at a
//! time in cache: scores, mask, softmax and the products with V never exist as (heads, L, S) tensors.
//! Each head's K and V are transposed into scratch first, so that every product is an axpy over a
//! contiguous row (which vectorizes) instead of a short dot product (which does not, in strict IEEE
//! order). At head size 16 and length 32 (the char-GPT of benches/workloads.py), the composition of
//! tensor ops cost ~10 kernels and (heads, L, S) temporaries per pass.
use crate::element::Float;
use crate::kernels::math::exp_shifted_f32_into;
use crate::kernels::simd::dispatch;
use crate::kernels::threads::{par_for, threads, OutPtr};
use std::mem::MaybeUninit;

/// A float the attention kernels run in: softmax's exponentials go through float32's vectorized exp.
pub trait AttentionFloat: Float {
    /// `out[i] = exp(x[i] - shift)`.
    fn exp_shifted(out: &mut [MaybeUninit<Self>], x: &[Self], shift: Self);
}
impl AttentionFloat for f32 {
    fn exp_shifted(out: &mut [MaybeUninit<f32>], x: &[f32], shift: f32) {
        exp_shifted_f32_into(out, x, shift)
    }
}
impl AttentionFloat for f64 {
    fn exp_shifted(out: &mut [MaybeUninit<f64>], x: &[f64], shift: f64) {
        for (o, &v) in out.iter_mut().zip(x) {
            o.write((v - shift).exp());
        }
    }
}

/// An additive mask broadcast to (heads, L, S): element (h, l, s) is at `head[h] + l·row + s·col`.
pub struct Mask<'a, T> {
    pub data: &'a [T],
    pub head: Vec<usize>,
    pub row: usize,
    pub col: usize,
}

/// A (heads, rows, cols) operand with unit column stride: row r of head h starts at `head[h] + r·row`.
pub struct View<'a, T> {
    pub data: &'a [T],
    pub head: Vec<usize>,
    pub row: usize,
}

impl<T: Copy> View<'_, T> {
    /// Head `h`'s rows.
    fn of(&self, h: usize) -> Rows<'_, T> {
        Rows { data: &self.data[self.head[h]..], row: self.row }
    }
}

/// One head's rows of a `View`.
#[derive(Clone, Copy)]
struct Rows<'a, T> {
    data: &'a [T],
    row: usize,
}

impl<'a, T> Rows<'a, T> {
    #[inline(always)]
    fn at(&self, r: usize, len: usize) -> &'a [T] {
        &self.data[r * self.row..r * self.row + len]
    }
}

/// An output written head by head, laid out as `head` and `row` say (heads never share an element).
pub struct OutView<T> {
    ptr: OutPtr<T>,
    head: Vec<usize>,
    row: usize,
}

impl<T> OutView<T> {
    /// Row r (of `len` elements) of head h.
    /// Safety: the caller is the only writer of head h, and the buffer outlives the returned slice.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)] // disjoint rows of one buffer, handed out by index (see Safety)
    unsafe fn at(&self, h: usize, r: usize, len: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.ptr.0.add(self.head[h] + r * self.row), len)
    }
}

/// The sizes of one call: `heads` blocks of query (L, E), key (S, E) and value (S, Ev).
#[derive(Clone, Copy)]
pub struct Dims {
    pub heads: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub scale: f64,
    pub causal: bool,
}

impl Dims {
    /// Key positions row `l` attends to: the causal mask keeps s ≤ l (top-left aligned, as torch's tril).
    #[inline(always)]
    fn live(&self, l: usize) -> usize {
        if self.causal {
            (l + 1).min(self.s)
        } else {
            self.s
        }
    }

    /// Parts the heads are split in: threads only when a part's work pays for the dispatch.
    fn parts(&self) -> usize {
        use crate::kernels::split::ATTENTION_WORK_PER_PART as WORK_PER_PART;
        let work = self.heads * self.l * self.s * (self.e + self.ev);
        if threads() <= 1 || work < 2 * WORK_PER_PART {
            1
        } else {
            (work / WORK_PER_PART).min(self.heads).min(threads() * 4)
        }
    }
}

/// Lanes of the register accumulators: every product below is Σ_j a_j · row_j over W-wide column
/// blocks held in registers (a row-at-a-time axpy through memory was store-bound: 2× slower than the
/// tensor-op composition). Scratch rows are padded to multiples of W with zeros.
const W: usize = 16;

fn padded(n: usize) -> usize {
    n.div_ceil(W) * W
}

/// `acc += a · b[..W]`.
#[inline(always)]
fn fma_block<T: Float>(acc: &mut [T; W], a: T, b: &[T]) {
    let b: &[T; W] = b[..W].try_into().expect("a W-wide block");
    for i in 0..W {
        acc[i] = acc[i] + a * b[i];
    }
}

/// `out[c..c + W] = Σ_{j in js} coef(j) · m[j·stride + c ..][..W]` for each W-block c of `out`
/// (out.len() a multiple of W).
#[inline(always)]
fn combine<T: Float>(out: &mut [T], js: std::ops::Range<usize>, coef: impl Fn(usize) -> T, m: &[T], stride: usize) {
    for c in (0..out.len()).step_by(W) {
        let mut acc = [T::ZERO; W];
        for j in js.clone() {
            fma_block(&mut acc, coef(j), &m[j * stride + c..]);
        }
        out[c..c + W].copy_from_slice(&acc);
    }
}

#[inline(always)]
fn dot<T: Float>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::ZERO, |acc, (&x, &y)| acc + x * y)
}

/// `rows` × `cols` of `src` into `dst` with rows padded to `stride` (the padding stays zero).
#[inline(always)]
fn pad_rows<T: Float>(dst: &mut [T], src: Rows<'_, T>, rows: usize, cols: usize, stride: usize) {
    for r in 0..rows {
        dst[r * stride..r * stride + cols].copy_from_slice(src.at(r, cols));
    }
}

/// `src` (rows × cols) transposed into `dst` (cols × stride, rows padded to `stride`).
#[inline(always)]
fn transpose_padded<T: Float>(dst: &mut [T], src: Rows<'_, T>, rows: usize, cols: usize, stride: usize) {
    for r in 0..rows {
        for (c, &x) in src.at(r, cols).iter().enumerate() {
            dst[c * stride + r] = x;
        }
    }
}

/// Row `l`'s scores into `out` (padded length; the first `n` count): q_l · kᵀ · scale + mask, with `kt`
/// the head's key transposed (E × SP).
#[inline(always)]
fn scores_row<T: Float>(
    out: &mut [T],
    n: usize,
    q: &[T],
    kt: &[T],
    d: &Dims,
    mask: Option<(&Mask<'_, T>, usize)>,
    l: usize,
) {
    let sp = padded(d.s);
    combine(&mut out[..padded(n)], 0..d.e, |e| q[e], kt, sp);
    let scale = T::from_f64(d.scale);
    for o in out[..n].iter_mut() {
        *o = *o * scale;
    }
    if let Some((m, h)) = mask {
        let base = m.head[h] + l * m.row;
        for (s, o) in out[..n].iter_mut().enumerate() {
            *o = *o + m.data[base + s * m.col];
        }
    }
}

/// Scratch of uninitialised elements.
fn uninit<T>(n: usize) -> Vec<MaybeUninit<T>> {
    let mut v = Vec::with_capacity(n);
    // Safety: MaybeUninit needs no initialisation.
    unsafe { v.set_len(n) };
    v
}

/// The first `n` elements of scratch that were just written.
#[inline(always)]
fn written<T>(v: &[MaybeUninit<T>], n: usize) -> &[T] {
    // Safety: callers pass the length they have just written.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<T>(), n) }
}

/// Forward of head `h`: its output rows (L × Ev) and row logsumexps (L), 0 where a row is masked
/// everywhere (its output is 0 too, torch's safe softmax).
#[inline(always)]
fn forward_head<T: AttentionFloat>(
    out: &OutView<T>,
    lse: &mut [T],
    x: &Inputs<'_, T>,
    mask: Option<&Mask<'_, T>>,
    d: &Dims,
    h: usize,
) {
    let (q, k, v) = (x.q.of(h), x.k.of(h), x.v.of(h));
    let (sp, evp) = (padded(d.s), padded(d.ev));
    let (mut kt, mut vp) = (vec![T::ZERO; d.e * sp], vec![T::ZERO; d.s * evp]);
    let (mut srow, mut orow, mut prow) = (vec![T::ZERO; sp], vec![T::ZERO; evp], uninit::<T>(sp));
    transpose_padded(&mut kt, k, d.s, d.e, sp);
    pad_rows(&mut vp, v, d.s, d.ev, evp);
    for (l, lse) in lse.iter_mut().enumerate() {
        let n = d.live(l);
        // Safety: this part is head h's only writer; the output outlives the call.
        let o = unsafe { out.at(h, l, d.ev) };
        if n == 0 {
            o.fill(T::ZERO);
            *lse = T::ZERO;
            continue;
        }
        scores_row(&mut srow, n, q.at(l, d.e), &kt, d, mask.map(|m| (m, h)), l);
        let row = &srow[..n];
        let m = row.iter().fold(T::from_f64(f64::NEG_INFINITY), |a, &b| if b > a { b } else { a });
        if m == T::from_f64(f64::NEG_INFINITY) {
            o.fill(T::ZERO);
            *lse = T::ZERO;
            continue;
        }
        T::exp_shifted(&mut prow[..n], row, m);
        let p = written(&prow, n);
        let sum = p.iter().fold(0.0f64, |a, &b| a + b.to_f64());
        combine(&mut orow, 0..n, |s| p[s], &vp, evp);
        let inv = T::from_f64(1.0 / sum);
        for (x, &y) in o.iter_mut().zip(&orow) {
            *x = y * inv;
        }
        *lse = m + T::from_f64(sum.ln());
    }
}

/// Runs `head(part's first head, part's last head)` over parts of the heads, in parallel when it pays.
fn over_heads(d: &Dims, head: &(dyn Fn(usize, usize) + Sync)) {
    let parts = d.parts();
    let per = d.heads.div_ceil(parts.max(1)).max(1);
    par_for(d.heads.div_ceil(per), &|p| head(p * per, ((p + 1) * per).min(d.heads)));
}

/// The operands of a forward call.
pub struct Inputs<'a, T> {
    pub q: View<'a, T>,
    pub k: View<'a, T>,
    pub v: View<'a, T>,
}

/// softmax(q·kᵀ·scale + mask)·v for each head into `out` (laid out as `out_head` and `out_row` say, over a
/// buffer of `out_len`); returns (out's buffer, logsumexp (heads, L)).
pub fn attention_forward<T: AttentionFloat>(
    x: &Inputs<'_, T>,
    mask: Option<&Mask<'_, T>>,
    d: &Dims,
    out_head: Vec<usize>,
    out_row: usize,
) -> (Vec<T>, Vec<T>) {
    let (mut out, mut lse) = (vec![T::ZERO; d.heads * d.l * d.ev], vec![T::ZERO; d.heads * d.l]);
    let ov = OutView { ptr: OutPtr(out.as_mut_ptr()), head: out_head, row: out_row };
    let pl = OutPtr(lse.as_mut_ptr());
    over_heads(d, &|first, last| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrapper, not its raw pointer
        let pl = pl;
        for h in first..last {
            // Safety: head h's lse is written by this part alone, while lse lives.
            let ls = unsafe { std::slice::from_raw_parts_mut(pl.0.add(h * d.l), d.l) };
            dispatch!(forward_head(&ov, ls, x, mask, d, h));
        }
    });
    (out, lse)
}

/// The inputs of one backward call, all contiguous: the forward's q, k, v, output and logsumexp, and
/// the output's gradient.
pub struct Saved<'a, T> {
    pub x: Inputs<'a, T>,
    pub out: View<'a, T>,
    pub lse: &'a [T],
    pub grad: View<'a, T>,
}

/// Backward of head `h` into its dq (L × E), dk (S × E) and dv (S × Ev): the weights P and the score
/// gradients dS of the head are kept (L × SP each, in L1 at these sizes), then every gradient is one
/// register-blocked product.
#[inline(always)]
fn backward_head<T: AttentionFloat>(
    dq: &mut [T],
    dk: &mut [T],
    dv: &mut [T],
    x: &Saved<'_, T>,
    mask: Option<&Mask<'_, T>>,
    d: &Dims,
    h: usize,
) {
    let (q, k, v) = (x.x.q.of(h), x.x.k.of(h), x.x.v.of(h));
    let (o, g, lse) = (x.out.of(h), x.grad.of(h), &x.lse[h * d.l..]);
    let (sp, ep, evp) = (padded(d.s), padded(d.e), padded(d.ev));
    let (mut kt, mut vt) = (vec![T::ZERO; d.e * sp], vec![T::ZERO; d.ev * sp]);
    let (mut qp, mut kp, mut gp) = (vec![T::ZERO; d.l * ep], vec![T::ZERO; d.s * ep], vec![T::ZERO; d.l * evp]);
    transpose_padded(&mut kt, k, d.s, d.e, sp);
    transpose_padded(&mut vt, v, d.s, d.ev, sp);
    pad_rows(&mut qp, q, d.l, d.e, ep);
    pad_rows(&mut kp, k, d.s, d.e, ep);
    pad_rows(&mut gp, g, d.l, d.ev, evp);
    let (mut pm, mut dsm) = (vec![T::ZERO; d.l * sp], vec![T::ZERO; d.l * sp]);
    let (mut srow, mut prow, mut dp) = (vec![T::ZERO; sp], uninit::<T>(sp), vec![T::ZERO; sp]);
    let scale = T::from_f64(d.scale);
    for l in 0..d.l {
        let n = d.live(l);
        if n == 0 {
            continue;
        }
        scores_row(&mut srow, n, q.at(l, d.e), &kt, d, mask.map(|m| (m, h)), l);
        T::exp_shifted(&mut prow[..n], &srow[..n], lse[l]);
        let p = written(&prow, n);
        let gl = g.at(l, d.ev);
        // Σ_s p·dp over the row equals g_l · o_l
        let centre = dot(gl, o.at(l, d.ev));
        combine(&mut dp[..padded(n)], 0..d.ev, |e| gl[e], &vt, sp);
        let (pr, dsr) = (&mut pm[l * sp..l * sp + n], &mut dsm[l * sp..l * sp + n]);
        for s in 0..n {
            pr[s] = p[s];
            dsr[s] = p[s] * (dp[s] - centre) * scale;
        }
    }
    // key s is seen by rows l ≥ s only, when causal
    let first = |s: usize| if d.causal { s.min(d.l) } else { 0 };
    let mut row = vec![T::ZERO; ep.max(evp)];
    for s in 0..d.s {
        combine(&mut row[..evp], first(s)..d.l, |l| pm[l * sp + s], &gp, evp);
        dv[s * d.ev..(s + 1) * d.ev].copy_from_slice(&row[..d.ev]);
        combine(&mut row[..ep], first(s)..d.l, |l| dsm[l * sp + s], &qp, ep);
        dk[s * d.e..(s + 1) * d.e].copy_from_slice(&row[..d.e]);
    }
    for l in 0..d.l {
        combine(&mut row[..ep], 0..d.live(l), |s| dsm[l * sp + s], &kp, ep);
        dq[l * d.e..(l + 1) * d.e].copy_from_slice(&row[..d.e]);
    }
}

/// The gradients (dq, dk, dv) of `attention_forward` from its saved inputs and results.
pub fn attention_backward<T: AttentionFloat>(
    x: &Saved<'_, T>,
    mask: Option<&Mask<'_, T>>,
    d: &Dims,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let mut dq = vec![T::ZERO; d.heads * d.l * d.e];
    let mut dk = vec![T::ZERO; d.heads * d.s * d.e];
    let mut dv = vec![T::ZERO; d.heads * d.s * d.ev];
    let (pq, pk, pv) = (OutPtr(dq.as_mut_ptr()), OutPtr(dk.as_mut_ptr()), OutPtr(dv.as_mut_ptr()));
    over_heads(d, &|first, last| {
        #[allow(clippy::redundant_locals)] // captures the Sync wrappers, not their raw pointers
        let (pq, pk, pv) = (pq, pk, pv);
        for h in first..last {
            // Safety: head h's blocks of dq, dk and dv are written by this part alone, while they live.
            let (gq, gk, gv) = unsafe {
                (
                    std::slice::from_raw_parts_mut(pq.0.add(h * d.l * d.e), d.l * d.e),
                    std::slice::from_raw_parts_mut(pk.0.add(h * d.s * d.e), d.s * d.e),
                    std::slice::from_raw_parts_mut(pv.0.add(h * d.s * d.ev), d.s * d.ev),
                )
            };
            dispatch!(backward_head(gq, gk, gv, x, mask, d, h));
        }
    });
    (dq, dk, dv)
}
