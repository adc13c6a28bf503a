//! One LSTM layer in one direction over the whole sequence as one node, `MkldnnRnnLayerBackward0` as
//! PyTorch's CPU build names it (inputs: input, w_ih, w_hh, b_ih, b_hh, h0, c0). Forward: per step
//! x_t·W_ihᵀ + h·W_hhᵀ (bias preloaded) into a small gate buffer, then the fused cell. Backward: per
//! step the cell's gradient and one GEMM for dh; then dW_ih, dW_hh (and dx when the input needs it)
//! each as one GEMM over all steps, where a composition of per-step ops would run 3 small GEMMs and
//! several nodes per step.
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced_many};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::matmul::{matmul_acc_into, matmul_into, MatRef};
use crate::ops::rnn::{backward_row, forward_row, lstm_backward_ops, Gate};
use crate::pool;
use crate::tensor::Tensor;
use std::mem::MaybeUninit;

/// Runs `$body` with `$T` the Rust type of a float32 or float64 dtype (checked before).
macro_rules! with_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            _ => {
                type $T = f64;
                $body
            }
        }
    };
}

/// The sizes of one run and its direction.
#[derive(Clone, Copy)]
struct Dims {
    steps: usize,
    batch: usize,
    input: usize,
    hidden: usize,
    reverse: bool,
}

impl Dims {
    /// The time index of the s-th step taken.
    fn time(&self, s: usize) -> usize {
        if self.reverse {
            self.steps - 1 - s
        } else {
            s
        }
    }
    fn rows(&self) -> usize {
        self.steps * self.batch
    }
    /// Workspace elements per (time, batch) row: the cell's 5H (σ(i), σ(f), tanh(g), σ(o), tanh(c')),
    /// then the h and c that step started from.
    fn ws_width(&self) -> usize {
        7 * self.hidden
    }
}

/// A row-major matrix with row stride `stride`.
fn rows(stride: usize) -> MatRef {
    MatRef { offset: 0, row_stride: stride, col_stride: 1 }
}
/// The transpose of a row-major matrix with row stride `stride`.
fn transposed(stride: usize) -> MatRef {
    MatRef { offset: 0, row_stride: 1, col_stride: stride }
}

/// `f` over a tensor's elements in row-major order: borrowed when it is contiguous, else copied.
fn with_rows<T: Element, R>(t: &Tensor, f: impl FnOnce(&[T]) -> R) -> R {
    if t.is_contiguous() {
        let n = t.numel();
        t.with_data(|l, d: &[T]| f(&d[l.offset..l.offset + n]))
    } else {
        f(&t.to_vec::<T>())
    }
}

/// A buffer the parts of a time loop share, each reading and writing only its own batch rows.
struct Rows<T>(*mut T);
// SAFETY: parts touch disjoint ranges (see `slice`), and T is plain data.
unsafe impl<T: Send> Send for Rows<T> {}
// SAFETY: as for Send: no two parts reach the same element
unsafe impl<T: Send> Sync for Rows<T> {}
impl<T> Rows<T> {
    /// Safety: `start..start + len` lies inside the buffer and no other part touches it meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, start: usize, len: usize) -> &mut [T] {
        // SAFETY: the caller's contract above
        unsafe { std::slice::from_raw_parts_mut(self.0.add(start), len) }
    }
}

/// Rows of a batch never meet in a layer's recurrence, so the time loop runs as independent parts over
/// blocks of batch rows, one per thread, with no barrier per step (a part of fewer than 8 rows would run
/// its GEMMs poorly; small layers stay on one thread).
fn parts(d: &Dims) -> usize {
    let macs = d.rows() * d.hidden * 4 * d.hidden;
    if macs < crate::kernels::split::LSTM_STEP_MACS {
        return 1;
    }
    crate::kernels::threads::threads().min(d.batch / 8).max(1)
}

/// Runs `part(rows)` for each block of batch rows, on the pool's threads when there are several.
fn for_row_blocks(d: &Dims, part: impl Fn(std::ops::Range<usize>) + Sync) {
    let n = parts(d);
    let block = |p: usize| part(d.batch * p / n..d.batch * (p + 1) / n);
    if n == 1 {
        block(0)
    } else {
        crate::kernels::threads::par_for(n, &block)
    }
}

/// The transpose of a row-major `rows × cols` matrix, row-major (the gemm crate runs a product with a
/// contiguous right operand ~1.5× faster than with a transposed view at these sizes), in tiles so both
/// sides stay in cache.
fn transpose<T: Copy>(w: &[T], rows: usize, cols: usize) -> Vec<T> {
    const TILE: usize = 32;
    let mut t = Vec::with_capacity(rows * cols);
    let dst = t.spare_capacity_mut();
    for c0 in (0..cols).step_by(TILE) {
        for r0 in (0..rows).step_by(TILE) {
            for c in c0..(c0 + TILE).min(cols) {
                let (out, col) = (&mut dst[c * rows..(c + 1) * rows], &w[c..]);
                for r in r0..(r0 + TILE).min(rows) {
                    out[r].write(col[r * cols]);
                }
            }
        }
    }
    // Safety: the tiles cover every (r, c) once, so every element was written.
    unsafe { t.set_len(rows * cols) };
    t
}

/// A pooled buffer of `len` elements that its users write in full before anyone reads it (no zero-fill
/// pass over memory); `fill` gets the raw start and writes all `len` elements.
///
/// Safety: `fill` writes every element of `0..len` through the pointer.
unsafe fn written_in_full<T: Send + 'static>(len: usize, fill: impl FnOnce(*mut T)) -> Vec<T> {
    let mut v = pool::take::<T>(len);
    fill(v.spare_capacity_mut().as_mut_ptr().cast());
    // SAFETY: `fill` wrote all len elements (this function's contract); pool::take gave capacity len
    unsafe { v.set_len(len) };
    v
}

/// `out (m×n) = a · b` through the kernels' write-only product (`out` is not read).
fn product_into<T: Element>(out: &mut [T], a: &[T], ma: MatRef, b: &[T], mb: MatRef, m: usize, k: usize, n: usize) {
    // Safety: MaybeUninit<T> has T's layout, and the product only writes through it.
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<T>>(), out.len()) };
    matmul_into(dst, a, ma, b, mb, m, k, n)
}

struct Forward<T> {
    out: Vec<T>,
    h_n: Vec<T>,
    c_n: Vec<T>,
    ws: Vec<T>,
}

/// Each part projects its own rows of each step's input inside the time loop (x_t·W_ihᵀ, then
/// h·W_hhᵀ added, into a few-KB gate buffer that stays in cache), so the input projection runs on all
/// threads without a (T·B, 4H) gate buffer making a round trip through memory.
fn forward<T: Gate>(d: Dims, x: &[T], w_ih: &[T], w_hh: &[T], bias: Option<&[T]>, h0: &[T], c0: &[T]) -> Forward<T> {
    let (b, h, g4, wsw, inp) = (d.batch, d.hidden, 4 * d.hidden, d.ws_width(), d.input);
    let (w_ih_t, w_hh_t) = (transpose(w_ih, g4, inp), transpose(w_hh, g4, h));
    let (mut h_n, mut c_n) = (h0.to_vec(), c0.to_vec());
    let (hp, cp) = (Rows(h_n.as_mut_ptr()), Rows(c_n.as_mut_ptr()));
    let mut ws = Vec::new();
    let fill_out = |out: *mut T| {
        let fill_ws = |ws: *mut T| {
            let (op, wp) = (Rows(out), Rows(ws));
            for_row_blocks(&d, |block| {
                let (r0, m) = (block.start, block.len());
                // Safety: this part's batch rows r0..r0 + m, of each buffer and each step.
                let (h_cur, c_cur) = unsafe { (hp.slice(r0 * h, m * h), cp.slice(r0 * h, m * h)) };
                let mut gates = vec![T::ZERO; m * g4];
                for s in 0..d.steps {
                    let row0 = d.time(s) * b + r0;
                    // SAFETY: step s's rows row0..row0 + m belong to this part alone
                    let (step_out, step_ws) = unsafe { (op.slice(row0 * h, m * h), wp.slice(row0 * wsw, m * wsw)) };
                    let x_t = &x[row0 * inp..(row0 + m) * inp];
                    match bias {
                        Some(bias) => {
                            gates.chunks_exact_mut(g4).for_each(|r| r.copy_from_slice(bias));
                            matmul_acc_into(&mut gates, x_t, rows(inp), &w_ih_t, rows(g4), m, inp, g4, None);
                        }
                        None => product_into(&mut gates, x_t, rows(inp), &w_ih_t, rows(g4), m, inp, g4),
                    }
                    matmul_acc_into(&mut gates, h_cur, rows(h), &w_hh_t, rows(g4), m, h, g4, None);
                    for r in 0..m {
                        let (act, state) = step_ws[r * wsw..(r + 1) * wsw].split_at_mut(5 * h);
                        let (h_prev, c_prev) = state.split_at_mut(h);
                        h_prev.copy_from_slice(&h_cur[r * h..(r + 1) * h]);
                        c_prev.copy_from_slice(&c_cur[r * h..(r + 1) * h]);
                        let (x_row, out_row) = (&gates[r * g4..(r + 1) * g4], &mut step_out[r * h..(r + 1) * h]);
                        forward_row(x_row, c_prev, act, &mut c_cur[r * h..(r + 1) * h], out_row);
                    }
                    h_cur.copy_from_slice(step_out);
                }
            })
        };
        // Safety: each step writes its rows' 5H activations and 2H state of the workspace.
        ws = unsafe { written_in_full(d.rows() * wsw, fill_ws) };
    };
    // Safety: each step writes its rows of the output.
    let out = unsafe { written_in_full(d.rows() * h, fill_out) };
    Forward { out, h_n, c_n, ws }
}

/// The gradients of (input, w_ih, w_hh, bias, h0, c0); the bias's serves both b_ih and b_hh. The
/// input's is only computed when asked for (a data batch needs none).
struct Gradients<T> {
    input: Option<Vec<T>>,
    w_ih: Vec<T>,
    w_hh: Vec<T>,
    bias: Vec<T>,
    h0: Vec<T>,
    c0: Vec<T>,
}

fn backward<T: Gate>(
    d: Dims,
    x: &[T],
    w_ih: &[T],
    w_hh: &[T],
    ws: &[T],
    g_out: Option<&[T]>,
    g_h: Option<&[T]>,
    g_c: Option<&[T]>,
    need_input: bool,
) -> Gradients<T> {
    let (b, h, g4, wsw) = (d.batch, d.hidden, 4 * d.hidden, d.ws_width());
    let state = |g: Option<&[T]>| g.map_or_else(|| vec![T::ZERO; b * h], <[T]>::to_vec);
    let (mut dh0, mut dc0) = (state(g_h), state(g_c));
    let (hp, cp) = (Rows(dh0.as_mut_ptr()), Rows(dc0.as_mut_ptr()));
    let fill = |dg: *mut T| {
        let dgp = Rows(dg);
        for_row_blocks(&d, |block| {
            let (r0, m) = (block.start, block.len());
            // Safety: this part's batch rows r0..r0 + m, of each buffer and each step.
            let (dh, dc) = unsafe { (hp.slice(r0 * h, m * h), cp.slice(r0 * h, m * h)) };
            let (mut gh, mut dc_prev) = (vec![T::ZERO; m * h], vec![T::ZERO; m * h]);
            for s in (0..d.steps).rev() {
                let row0 = d.time(s) * b + r0;
                match g_out {
                    Some(go) => gh.iter_mut().zip(&*dh).zip(&go[row0 * h..]).for_each(|((y, &a), &o)| *y = a + o),
                    None => gh.copy_from_slice(dh),
                }
                // SAFETY: this part's rows of step s, as in the forward
                let step_dg = unsafe { dgp.slice(row0 * g4, m * g4) };
                for r in 0..m {
                    let w = &ws[(row0 + r) * wsw..(row0 + r + 1) * wsw];
                    let (dg, rr) = (&mut step_dg[r * g4..(r + 1) * g4], r * h..(r + 1) * h);
                    backward_row(&w[..5 * h], &w[6 * h..], &gh[rr.clone()], &dc[rr.clone()], dg, &mut dc_prev[rr]);
                }
                dc.copy_from_slice(&dc_prev);
                product_into(dh, step_dg, rows(g4), w_hh, rows(h), m, g4, h);
            }
        })
    };
    // Safety: each step writes its rows' 4H gate gradients.
    let dgates = unsafe { written_in_full(d.rows() * g4, fill) };
    let input = need_input.then(|| {
        let mut input = pool::take::<T>(d.rows() * d.input);
        input.resize(d.rows() * d.input, T::ZERO);
        product_into(&mut input, &dgates, rows(g4), w_ih, rows(d.input), d.rows(), g4, d.input);
        input
    });
    let mut dw_ih = vec![T::ZERO; g4 * d.input];
    product_into(&mut dw_ih, &dgates, transposed(g4), x, rows(d.input), g4, d.rows(), d.input);
    let mut dw_hh = vec![T::ZERO; g4 * h];
    let h_prev = MatRef { offset: 5 * h, row_stride: wsw, col_stride: 1 };
    product_into(&mut dw_hh, &dgates, transposed(g4), ws, h_prev, g4, d.rows(), h);
    let mut bias = vec![T::ZERO; g4];
    for r in dgates.chunks_exact(g4) {
        bias.iter_mut().zip(r).for_each(|(acc, &v)| *acc = *acc + v);
    }
    pool::give(dgates);
    Gradients { input, w_ih: dw_ih, w_hh: dw_hh, bias, h0: dh0, c0: dc0 }
}

/// The layer's parameters as `nn.LSTM` keeps them (biases absent when `bias=False`).
pub struct LstmWeights<'a> {
    pub w_ih: &'a Tensor,
    pub w_hh: &'a Tensor,
    pub b_ih: Option<&'a Tensor>,
    pub b_hh: Option<&'a Tensor>,
}

impl Tensor {
    /// One LSTM layer over time-major `self` (T, B, I) from the state (h0, c0), each (B, H), in time
    /// order or `reverse`d: (output (T, B, H), h_n, c_n), one node for all three.
    pub fn lstm_layer(&self, w: &LstmWeights<'_>, h0: &Tensor, c0: &Tensor, reverse: bool) -> Result<[Tensor; 3]> {
        let args = [Some(self), Some(w.w_ih), Some(w.w_hh), w.b_ih, w.b_hh, Some(h0), Some(c0)];
        let (operands, given) = operand_list(args);
        let eager = move |x: &[&Tensor]| match optional_args(x, given) {
            [Some(x), Some(w_ih), Some(w_hh), b_ih, b_hh, Some(h0), Some(c0)] => {
                x.lstm_layer_eager(&LstmWeights { w_ih, w_hh, b_ih, b_hh }, h0, c0, reverse).map(Vec::from)
            }
            _ => unreachable!("the input, weights and state are always given"),
        };
        let mut outs = traced_many("lstm_layer", &operands, || eager(&operands), || eager)?.into_iter();
        match (outs.next(), outs.next(), outs.next()) {
            (Some(out), Some(h), Some(c)) => Ok([out, h, c]),
            _ => unreachable!("an LSTM layer gives its outputs and last state"),
        }
    }

    fn lstm_layer_eager(&self, w: &LstmWeights<'_>, h0: &Tensor, c0: &Tensor, reverse: bool) -> Result<[Tensor; 3]> {
        let d = check(self, w, h0, c0, reverse)?;
        let (shape_out, shape_state) = ([d.steps, d.batch, d.hidden], [d.batch, d.hidden]);
        let (out, h_n, c_n, ws) = with_float!(self.dtype(), T => {
            let bias: Option<Vec<T>> = match (w.b_ih, w.b_hh) {
                (Some(a), Some(b)) => Some(a.to_vec::<T>().iter().zip(b.to_vec::<T>()).map(|(&x, y)| x + y).collect()),
                (Some(a), None) | (None, Some(a)) => Some(a.to_vec::<T>()),
                (None, None) => None,
            };
            let (w_ih, w_hh) = (w.w_ih.to_vec::<T>(), w.w_hh.to_vec::<T>());
            let (h0, c0) = (h0.to_vec::<T>(), c0.to_vec::<T>());
            let f = with_rows(self, |x: &[T]| forward(d, x, &w_ih, &w_hh, bias.as_deref(), &h0, &c0));
            (
                Tensor::from_vec(f.out, &shape_out)?,
                Tensor::from_vec(f.h_n, &shape_state)?,
                Tensor::from_vec(f.c_n, &shape_state)?,
                Tensor::from_vec(f.ws, &[d.steps, d.batch, d.ws_width()])?,
            )
        });
        let absent = Tensor::zeros(&[0], self.dtype());
        let (b_ih, b_hh) = (w.b_ih.unwrap_or(&absent), w.b_hh.unwrap_or(&absent));
        let rule = MkldnnRnnLayerBackward0 {
            input: SavedTensor::input(self),
            weight0: SavedTensor::input(w.w_ih),
            weight1: SavedTensor::input(w.w_hh),
            weight2: w.b_ih.map(SavedTensor::input),
            weight3: w.b_hh.map(SavedTensor::input),
            hx_: SavedTensor::input(h0),
            cx_: SavedTensor::input(c0),
            result3: SavedTensor::input(&ws),
            reverse,
            hidden_size: d.hidden,
            has_biases: w.b_ih.is_some() || w.b_hh.is_some(),
        };
        let outs = record_outputs(vec![out, h_n, c_n], &[self, w.w_ih, w.w_hh, b_ih, b_hh, h0, c0], rule);
        let mut outs = outs.into_iter();
        let mut next = || outs.next().expect("three outputs");
        Ok([next(), next(), next()])
    }
}

fn check(x: &Tensor, w: &LstmWeights<'_>, h0: &Tensor, c0: &Tensor, reverse: bool) -> Result<Dims> {
    let dtype = x.dtype();
    let all = [Some(w.w_ih), Some(w.w_hh), w.b_ih, w.b_hh, Some(h0), Some(c0)];
    if !matches!(dtype, DType::F32 | DType::F64) || all.iter().flatten().any(|t| t.dtype() != dtype) {
        bail!(Runtime, "lstm layer: expected float32 or float64 input, weights and state of one dtype");
    }
    if x.ndim() != 3 || w.w_ih.ndim() != 2 || w.w_hh.ndim() != 2 {
        bail!(Runtime, "lstm layer: expected a 3-D input and 2-D weights, but got {:?}", x.shape());
    }
    let (steps, batch, input) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    let hidden = w.w_hh.shape()[1];
    let gates = [4 * hidden];
    let state = [batch, hidden];
    if steps == 0
        || w.w_ih.shape() != [4 * hidden, input]
        || w.w_hh.shape() != [4 * hidden, hidden]
        || [w.b_ih, w.b_hh].iter().flatten().any(|b| b.shape() != gates)
        || h0.shape() != state
        || c0.shape() != state
    {
        bail!(
            Runtime,
            "lstm layer: sizes do not match: input {:?}, w_ih {:?}, w_hh {:?}, h0 {:?}, c0 {:?}",
            x.shape(),
            w.w_ih.shape(),
            w.w_hh.shape(),
            h0.shape(),
            c0.shape()
        );
    }
    Ok(Dims { steps, batch, input, hidden, reverse })
}

crate::backward_rule! {
    /// One LSTM layer and direction; fields named as PyTorch's (`result3` is the workspace: per
    /// (time, batch) row the cell's activations and the state the step started from).
    pub struct MkldnnRnnLayerBackward0 {
        input: SavedTensor,
        weight0: SavedTensor,
        weight1: SavedTensor,
        weight2: Option<SavedTensor>,
        weight3: Option<SavedTensor>,
        hx_: SavedTensor,
        cx_: SavedTensor,
        result3: SavedTensor,
        reverse: bool,
        hidden_size: usize,
        has_biases: bool,
    }
}

impl Backward for MkldnnRnnLayerBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None, None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let grad = |i: usize| grads.get(i).cloned().flatten();
        let (g_out, g_h, g_c) = (grad(0), grad(1), grad(2));
        let x = ctx.unpack(&self.input)?;
        let (w_ih, w_hh) = (ctx.unpack(&self.weight0)?, ctx.unpack(&self.weight1)?);
        let (b_ih, b_hh) = (ctx.unpack_opt(&self.weight2)?, ctx.unpack_opt(&self.weight3)?);
        let (h0, c0) = (ctx.unpack(&self.hx_)?, ctx.unpack(&self.cx_)?);
        let d = Dims {
            steps: x.shape()[0],
            batch: x.shape()[1],
            input: x.shape()[2],
            hidden: self.hidden_size,
            reverse: self.reverse,
        };
        let [gx, gw_ih, gw_hh, gb, gh0, gc0] = if crate::autograd::grad_mode::is_enabled() {
            let w = LstmWeights { w_ih: &w_ih, w_hh: &w_hh, b_ih: b_ih.as_ref(), b_hh: b_hh.as_ref() };
            backward_ops(d, &x, &w, &h0, &c0, [g_out.as_ref(), g_h.as_ref(), g_c.as_ref()])?.map(Some)
        } else {
            let ws = ctx.unpack(&self.result3)?;
            with_float!(x.dtype(), T => {
                let v = |t: &Option<Tensor>| t.as_ref().map(|t| t.to_vec::<T>());
                let (gh, gc) = (v(&g_h), v(&g_c));
                let (wi, wh) = (w_ih.to_vec::<T>(), w_hh.to_vec::<T>());
                let (gh, gc) = (gh.as_deref(), gc.as_deref());
                let g = with_rows(&x, |xv: &[T]| {
                    with_rows(&ws, |wsv: &[T]| {
                        let run = |go: Option<&[T]>| backward(d, xv, &wi, &wh, wsv, go, gh, gc, ctx.needs(0));
                        match &g_out {
                            Some(go) => with_rows(go, |go: &[T]| run(Some(go))),
                            None => run(None),
                        }
                    })
                });
                [
                    g.input.map(|v| Tensor::from_vec(v, x.shape())).transpose()?,
                    Some(Tensor::from_vec(g.w_ih, w_ih.shape())?),
                    Some(Tensor::from_vec(g.w_hh, w_hh.shape())?),
                    Some(Tensor::from_vec(g.bias, &[4 * d.hidden])?),
                    Some(Tensor::from_vec(g.h0, h0.shape())?),
                    Some(Tensor::from_vec(g.c0, c0.shape())?),
                ]
            })
        };
        let keep = |i: usize, t: Option<Tensor>| t.filter(|_| ctx.needs(i));
        Ok(vec![
            keep(0, gx),
            keep(1, gw_ih),
            keep(2, gw_hh),
            keep(3, gb.clone()),
            keep(4, gb),
            keep(5, gh0),
            keep(6, gc0),
        ])
    }
}

/// The same gradients with tensor ops, recorded (create_graph): the forward is recomputed with ops
/// from the saved inputs and each step's gradient taken by the cell's differentiable formulas.
fn backward_ops(
    d: Dims,
    x: &Tensor,
    w: &LstmWeights<'_>,
    h0: &Tensor,
    c0: &Tensor,
    g: [Option<&Tensor>; 3],
) -> Result<[Tensor; 6]> {
    let (rows, g4) = (d.rows(), 4 * d.hidden);
    let x2 = x.reshape(&[rows, d.input])?;
    let mut xg = x2.mm(&w.w_ih.t()?)?;
    for b in [w.b_ih, w.b_hh].into_iter().flatten() {
        xg = xg.add(b)?;
    }
    let xg = xg.reshape(&[d.steps, d.batch, g4])?;
    let (mut h, mut c) = (h0.clone(), c0.clone());
    let mut saved: Vec<Option<(Tensor, Tensor, Tensor)>> = vec![None; d.steps];
    for s in 0..d.steps {
        let t = d.time(s);
        let gates = xg.select(0, t as isize)?.add(&h.mm(&w.w_hh.t()?)?)?;
        let (h_next, c_next) = gates.lstm_cell_pointwise(&c)?;
        saved[t] = Some((gates, c, h));
        (h, c) = (h_next, c_next);
    }
    let zero = Tensor::zeros(&[d.batch, d.hidden], x.dtype());
    let (mut dh, mut dc) = (g[1].cloned().unwrap_or_else(|| zero.clone()), g[2].cloned().unwrap_or(zero));
    let mut dgates: Vec<Option<Tensor>> = vec![None; d.steps];
    for s in (0..d.steps).rev() {
        let t = d.time(s);
        let (gates, c_prev, _) = saved[t].as_ref().expect("every step ran");
        let gh = match g[0] {
            Some(go) => dh.add(&go.select(0, t as isize)?)?,
            None => dh,
        };
        let (dg, dc_prev) = lstm_backward_ops(gates, c_prev, Some(&gh), Some(&dc))?;
        dh = dg.mm(w.w_hh)?;
        dc = dc_prev;
        dgates[t] = Some(dg);
    }
    let dgates: Vec<Tensor> = dgates.into_iter().flatten().collect();
    let h_prev: Vec<Tensor> = saved.into_iter().flatten().map(|(_, _, h)| h).collect();
    let dg = Tensor::stack(&dgates, 0)?.reshape(&[rows, g4])?;
    let h_prev = Tensor::stack(&h_prev, 0)?.reshape(&[rows, d.hidden])?;
    let dgt = dg.t()?;
    Ok([dg.mm(w.w_ih)?.reshape(x.shape())?, dgt.mm(&x2)?, dgt.mm(&h_prev)?, dg.sum(Some(&[0]), false)?, dh, dc])
}
