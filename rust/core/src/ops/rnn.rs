//! The LSTM cell's pointwise part as one node. From the (B, 4H) gate pre-activations (input and hidden
//! projections summed; gate order i, f, g, o, as torch) and the cell state c (B, H):
//! c' = σ(f)·c + σ(i)·tanh(g) and h = σ(o)·tanh(c'). Written with tensor ops this is ~11 nodes per
//! time step (chunk, three sigmoids, two tanh, three products, a sum), each a pass over memory; here it
//! is one pass forward, and one pass backward when the backward is not itself recorded.
use crate::autograd::{record_outputs, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::traced_pair;
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::math::{sigmoid_f32_into, tanh_f32_into};
use crate::ops::formula::c as constant;
use crate::tensor::Tensor;
use std::mem::MaybeUninit;

/// The two activations over slices in a dtype's own precision (float32's are the vectorized kernels
/// the sigmoid and tanh ops run, so the fused cell and the composition agree to a few ulp).
pub(crate) trait Gate: Float {
    fn sigmoid_into(out: &mut [Self], x: &[Self]);
    fn tanh_into(out: &mut [Self], x: &[Self]);
}
/// An initialised slice as the kernels' output type (same layout; they only write).
fn as_uninit(out: &mut [f32]) -> &mut [MaybeUninit<f32>] {
    // Safety: MaybeUninit<f32> has f32's layout, and the kernels only write through it.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}
impl Gate for f32 {
    fn sigmoid_into(out: &mut [f32], x: &[f32]) {
        sigmoid_f32_into(as_uninit(out), x)
    }
    fn tanh_into(out: &mut [f32], x: &[f32]) {
        tanh_f32_into(as_uninit(out), x)
    }
}
impl Gate for f64 {
    fn sigmoid_into(out: &mut [f64], x: &[f64]) {
        out.iter_mut().zip(x).for_each(|(o, &v)| *o = 1.0 / (1.0 + (-v).exp()));
    }
    fn tanh_into(out: &mut [f64], x: &[f64]) {
        out.iter_mut().zip(x).for_each(|(o, &v)| *o = v.tanh());
    }
}

/// One batch row of a step: from the row's 4H pre-activations and old cell state, writes the 5H
/// workspace (σ(i), σ(f), tanh(g), σ(o), tanh(c')), the new cell state and h.
pub(crate) fn forward_row<T: Gate>(x: &[T], old: &[T], ws: &mut [T], cell: &mut [T], h: &mut [T]) {
    let n = old.len();
    let (act, tc) = ws[..5 * n].split_at_mut(4 * n);
    T::sigmoid_into(&mut act[..2 * n], &x[..2 * n]);
    T::tanh_into(&mut act[2 * n..3 * n], &x[2 * n..3 * n]);
    T::sigmoid_into(&mut act[3 * n..], &x[3 * n..4 * n]);
    let (i, rest) = act.split_at(n);
    let (f, rest) = rest.split_at(n);
    let (g, o) = rest.split_at(n);
    for j in 0..n {
        cell[j] = f[j] * old[j] + i[j] * g[j];
    }
    T::tanh_into(tc, &cell[..n]);
    for ((y, &oj), &t) in h[..n].iter_mut().zip(o).zip(tc.iter()) {
        *y = oj * t;
    }
}

/// One batch row's gradients: the 4H gate pre-activations' and the old cell state's, from the row's
/// workspace, old cell state and the gradients of h and c'.
pub(crate) fn backward_row<T: Gate>(w: &[T], old: &[T], gh: &[T], gc: &[T], dg: &mut [T], dc: &mut [T]) {
    let n = old.len();
    let one = T::from_f64(1.0);
    let (i, f, g, o, tc) = (&w[..n], &w[n..2 * n], &w[2 * n..3 * n], &w[3 * n..4 * n], &w[4 * n..5 * n]);
    let (d_i, rest) = dg[..4 * n].split_at_mut(n);
    let (d_f, rest) = rest.split_at_mut(n);
    let (d_g, d_o) = rest.split_at_mut(n);
    for j in 0..n {
        let cell_grad = gc[j] + gh[j] * o[j] * (one - tc[j] * tc[j]);
        d_i[j] = cell_grad * g[j] * i[j] * (one - i[j]);
        d_f[j] = cell_grad * old[j] * f[j] * (one - f[j]);
        d_g[j] = cell_grad * i[j] * (one - g[j] * g[j]);
        d_o[j] = gh[j] * tc[j] * o[j] * (one - o[j]);
        dc[j] = cell_grad * f[j];
    }
}

/// (h, c', workspace): the workspace is (B, 5H) per row: σ(i), σ(f), tanh(g), σ(o), tanh(c').
fn forward_kernel<T: Gate>(gates: &[T], c: &[T], hidden: usize) -> (Vec<T>, Vec<T>, Vec<T>) {
    let n = hidden;
    let rows = c.len() / n.max(1);
    let (mut h, mut c_new, mut ws) = (vec![T::ZERO; rows * n], vec![T::ZERO; rows * n], vec![T::ZERO; rows * 5 * n]);
    for b in 0..rows {
        let (row, cells) = (b * n..(b + 1) * n, &mut c_new[b * n..(b + 1) * n]);
        forward_row(&gates[4 * b * n..], &c[row.clone()], &mut ws[5 * b * n..], cells, &mut h[row]);
    }
    (h, c_new, ws)
}

/// (d gates, d c) from the workspace, the old cell state and the outputs' gradients.
fn backward_kernel<T: Gate>(ws: &[T], c: &[T], gh: &[T], gc: &[T], hidden: usize) -> (Vec<T>, Vec<T>) {
    let n = hidden;
    let rows = c.len() / n.max(1);
    let (mut dg, mut dc) = (vec![T::ZERO; rows * 4 * n], vec![T::ZERO; rows * n]);
    for b in 0..rows {
        let r = b * n..(b + 1) * n;
        let (w, d) = (&ws[5 * b * n..], &mut dg[4 * b * n..]);
        backward_row(w, &c[r.clone()], &gh[r.clone()], &gc[r.clone()], d, &mut dc[r]);
    }
    (dg, dc)
}

impl Tensor {
    /// One LSTM step's pointwise math: (h, c') from the (B, 4H) gate pre-activations `self` and the
    /// (B, H) cell state `c`, one node (`LstmCellBackward`) for both outputs.
    pub fn lstm_cell_pointwise(&self, c: &Tensor) -> Result<(Tensor, Tensor)> {
        let eager = |x: &[&Tensor]| x[0].lstm_cell_pointwise_eager(x[1]).map(|(h, c)| vec![h, c]);
        traced_pair("lstm_cell", &[self, c], || eager(&[self, c]), || eager)
    }

    fn lstm_cell_pointwise_eager(&self, c: &Tensor) -> Result<(Tensor, Tensor)> {
        if self.ndim() != 2 || c.ndim() != 2 || self.shape()[0] != c.shape()[0] || self.shape()[1] != 4 * c.shape()[1] {
            bail!(
                Runtime,
                "lstm cell: expected gates of shape (B, 4H) and a cell state of shape (B, H), but got {:?} and {:?}",
                self.shape(),
                c.shape()
            );
        }
        if self.dtype() != c.dtype() || !matches!(self.dtype(), DType::F32 | DType::F64) {
            bail!(
                Runtime,
                "lstm cell: expected float32 or float64 gates and cell state of one dtype, but got {} and {}",
                self.dtype().scalar_type_name(),
                c.dtype().scalar_type_name()
            );
        }
        let (rows, hidden) = (c.shape()[0], c.shape()[1]);
        let (gates_d, c_d) = (self.detach(), c.detach());
        let (h, c_new, ws) = match self.dtype() {
            DType::F32 => lstm_forward::<f32>(&gates_d, &c_d, rows, hidden)?,
            _ => lstm_forward::<f64>(&gates_d, &c_d, rows, hidden)?,
        };
        let rule = LstmCellBackward {
            hidden,
            gates: SavedTensor::input(self),
            cell: SavedTensor::input(c),
            workspace: SavedTensor::input(&ws),
        };
        let mut out = record_outputs(vec![h, c_new], &[self, c], rule).into_iter();
        Ok((out.next().expect("two outputs"), out.next().expect("two outputs")))
    }
}

fn lstm_forward<T: Gate>(gates: &Tensor, c: &Tensor, rows: usize, hidden: usize) -> Result<(Tensor, Tensor, Tensor)> {
    let (h, c_new, ws) = forward_kernel(&gates.to_vec::<T>(), &c.to_vec::<T>(), hidden);
    Ok((
        Tensor::from_vec(h, &[rows, hidden])?,
        Tensor::from_vec(c_new, &[rows, hidden])?,
        Tensor::from_vec(ws, &[rows, 5 * hidden])?,
    ))
}

crate::backward_rule! {
    /// The LSTM cell's pointwise part: inputs (gates, c), outputs (h, c'). The workspace holds the
    /// activations and tanh(c') for the one-pass backward; a recorded backward (create_graph) works
    /// from the saved gates instead, with tensor ops, so it differentiates again.
    pub struct LstmCellBackward {
        hidden: usize,
        gates: SavedTensor,
        cell: SavedTensor,
        workspace: SavedTensor,
    }
}
impl Backward for LstmCellBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        self.apply_outputs(ctx, &[Some(g.clone()), None])
    }
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        let (gh, gc) = (grads.first().cloned().flatten(), grads.get(1).cloned().flatten());
        let c = ctx.unpack(&self.cell)?;
        let fused = !crate::autograd::grad_mode::is_enabled()
            && [&gh, &gc].iter().all(|t| t.as_ref().is_none_or(|t| t.dtype() == c.dtype() && t.shape() == c.shape()));
        let (dg, dc) = if fused {
            let ws = ctx.unpack(&self.workspace)?;
            match c.dtype() {
                DType::F32 => lstm_backward::<f32>(&ws, &c, gh.as_ref(), gc.as_ref(), self.hidden)?,
                _ => lstm_backward::<f64>(&ws, &c, gh.as_ref(), gc.as_ref(), self.hidden)?,
            }
        } else {
            lstm_backward_ops(&ctx.unpack(&self.gates)?, &c, gh.as_ref(), gc.as_ref())?
        };
        Ok(vec![ctx.needs(0).then_some(dg), ctx.needs(1).then_some(dc)])
    }
}

fn lstm_backward<T: Gate>(
    ws: &Tensor,
    c: &Tensor,
    gh: Option<&Tensor>,
    gc: Option<&Tensor>,
    hidden: usize,
) -> Result<(Tensor, Tensor)> {
    let shape = c.shape().to_vec();
    let grad_or_zero = |t: Option<&Tensor>| t.map_or_else(|| vec![T::ZERO; c.numel()], |t| t.to_vec::<T>());
    let (gh, gc) = (grad_or_zero(gh), grad_or_zero(gc));
    let (dg, dc) = backward_kernel(&ws.to_vec::<T>(), &c.to_vec::<T>(), &gh, &gc, hidden);
    Ok((Tensor::from_vec(dg, &[shape[0], 4 * hidden])?, Tensor::from_vec(dc, &shape)?))
}

/// The same gradients with tensor ops (recorded when create_graph is on).
pub(crate) fn lstm_backward_ops(
    gates: &Tensor,
    c: &Tensor,
    gh: Option<&Tensor>,
    gc: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    let parts = gates.chunk(4, 1)?;
    let (i, f, g, o) = (parts[0].sigmoid()?, parts[1].sigmoid()?, parts[2].tanh()?, parts[3].sigmoid()?);
    let tc = f.mul(c)?.add(&i.mul(&g)?)?.tanh()?;
    let one_minus = |t: &Tensor| constant(1.0).sub(t);
    let zero = Tensor::zeros(c.shape(), c.dtype());
    let gh = gh.cloned().unwrap_or_else(|| zero.clone());
    let cell_grad = gc.cloned().unwrap_or(zero).add(&gh.mul(&o)?.mul(&one_minus(&tc.mul(&tc)?)?)?)?;
    let di = cell_grad.mul(&g)?.mul(&i)?.mul(&one_minus(&i)?)?;
    let df = cell_grad.mul(c)?.mul(&f)?.mul(&one_minus(&f)?)?;
    let dgg = cell_grad.mul(&i)?.mul(&one_minus(&g.mul(&g)?)?)?;
    let d_o = gh.mul(&tc)?.mul(&o)?.mul(&one_minus(&o)?)?;
    Ok((Tensor::cat(&[di, df, dgg, d_o], 1)?, cell_grad.mul(&f)?))
}
