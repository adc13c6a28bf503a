//! 3-D convolution (plain and transposed) as vol2col + GEMM.
//!
//! `vol2col` lays every receptive field of an (N, C, D, H, W) input out as a column of an
//! (N, C·kd·kh·kw, L) matrix (L output positions); a convolution is then one batched matrix product
//! of the (grouped) weight with it, and a transposed convolution the weight's transpose times the
//! input, summed back onto the output volume by `col2vol`, vol2col's adjoint. The two are each other's
//! backward, and the gradients below are written with them and matmul, so everything differentiates
//! again:
//! - convolution:  input gradient = col2vol(Wᵀ · g), weight gradient = Σₙ g · vol2col(x)ᵀ
//! - transposed:   input gradient = W · vol2col(g),  weight gradient = Σₙ x · vol2col(g)ᵀ
//!
//! The 2-D convolutions keep their own tuned per-sample kernels (`kernels/conv.rs`); this file is the
//! plain composite, threaded over the (sample, channel) volumes in vol2col/col2vol and inside the GEMM.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::threads::{par_for, threads, OutPtr};
use crate::ops::conv::{check_operands, sliding_out_len};
use crate::tensor::Tensor;
use crate::with_dtype;
use crate::DType;

/// A sliding window over the last three dims: kernel, stride, zero padding and dilation, each (d, h, w).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window3 {
    pub kernel: [usize; 3],
    pub stride: [usize; 3],
    pub padding: [usize; 3],
    pub dilation: [usize; 3],
}

impl Window3 {
    /// Number of window positions along dim `d` of an input of size `size`; None if the dilated kernel
    /// does not fit in the padded input.
    pub fn out_len(&self, d: usize, size: usize) -> Option<usize> {
        sliding_out_len(size, self.kernel[d], self.stride[d], self.padding[d], self.dilation[d])
    }

    fn taps(&self) -> usize {
        crate::layout::numel(&self.kernel)
    }

    /// The input position read by output `o` at tap `k` along dim `d`, as a signed index.
    #[inline(always)]
    fn source(&self, d: usize, o: usize, k: usize) -> isize {
        (o * self.stride[d] + k * self.dilation[d]) as isize - self.padding[d] as isize
    }

    /// The output positions `lo..hi` along dim `d` (of `out` in all, over an input of `size`) whose
    /// tap `k` reads inside the input.
    fn inside(&self, d: usize, k: usize, size: usize, out: usize) -> (usize, usize) {
        let (s, n) = (self.stride[d] as isize, size as isize);
        let first = self.source(d, 0, k);
        let lo = if first >= 0 { 0 } else { ((-first + s - 1) / s) as usize };
        let hi = if first >= n { 0 } else { (((n - 1 - first) / s) as usize + 1).min(out) };
        (lo.min(hi), hi)
    }

    /// Calls `row(column row, output (d, h) line, first input element of the line or None, lo, hi)` for
    /// every tap and output line of one volume: the line's outputs `lo..hi` read the input from that
    /// element on, one input stride apart; the others read padding.
    #[inline(always)]
    fn for_each_line(
        &self,
        vol: [usize; 3],
        out: [usize; 3],
        mut row: impl FnMut(usize, usize, Option<usize>, usize, usize),
    ) {
        let [kd, kh, kw] = self.kernel;
        for a in 0..kd {
            for b in 0..kh {
                for c in 0..kw {
                    let r = (a * kh + b) * kw + c;
                    let (lo, hi) = self.inside(2, c, vol[2], out[2]);
                    if lo == hi {
                        continue; // this tap reads padding on every line
                    }
                    let first_w = self.source(2, lo, c) as usize;
                    for od in 0..out[0] {
                        let id = self.source(0, od, a);
                        for oh in 0..out[1] {
                            let ih = self.source(1, oh, b);
                            let inside = id >= 0 && (id as usize) < vol[0] && ih >= 0 && (ih as usize) < vol[1];
                            let start = inside.then(|| (id as usize * vol[1] + ih as usize) * vol[2] + first_w);
                            row(r, od * out[1] + oh, start, lo, hi);
                        }
                    }
                }
            }
        }
    }
}

/// Runs `volume(v, part)` on each `len`-element part of `out` (volume v's output), the parts in parallel chunks.
fn by_volumes<T: Element>(out: &mut [T], len: usize, volume: impl Fn(usize, &mut [T]) + Sync) {
    let volumes = out.len().checked_div(len).unwrap_or(0);
    let ptr = OutPtr(out.as_mut_ptr());
    let chunk = volumes.div_ceil(threads() * 4).max(1);
    par_for(volumes.div_ceil(chunk), &|part| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer
        let ptr = ptr;
        for v in part * chunk..((part + 1) * chunk).min(volumes) {
            // SAFETY: part v of `out` belongs to this call alone, and lies inside `out`.
            volume(v, unsafe { std::slice::from_raw_parts_mut(ptr.0.add(v * len), len) });
        }
    });
}

/// (volumes, D, H, W) → (volumes, kd·kh·kw, L) columns for `out` window positions, zero where a tap
/// reads padding.
fn vol2col_kernel<T: Element>(x: &[T], volumes: usize, vol: [usize; 3], win: &Window3, out: [usize; 3]) -> Vec<T> {
    let (rows, l, plane) = (win.taps(), crate::layout::numel(&out), crate::layout::numel(&vol));
    let mut cols = crate::pool::filled(crate::layout::numel(&[volumes, rows, l]), T::ZERO);
    let (ow, sw) = (out[2], win.stride[2]);
    by_volumes(&mut cols, rows * l, |v, dst| {
        let src = &x[v * plane..][..plane];
        win.for_each_line(vol, out, |r, line, start, lo, hi| {
            let Some(start) = start else { return };
            let d = &mut dst[r * l + line * ow..][lo..hi];
            if sw == 1 {
                d.copy_from_slice(&src[start..start + d.len()]);
            } else {
                d.iter_mut().enumerate().for_each(|(j, e)| *e = src[start + j * sw]);
            }
        });
    });
    cols
}

/// (volumes, kd·kh·kw, L) columns → (volumes, D, H, W), overlapping taps summed: vol2col's adjoint.
fn col2vol_kernel<T: Element>(cols: &[T], volumes: usize, vol: [usize; 3], win: &Window3, out: [usize; 3]) -> Vec<T> {
    let (rows, l, plane) = (win.taps(), crate::layout::numel(&out), crate::layout::numel(&vol));
    let mut img = crate::pool::filled(crate::layout::numel(&[volumes, plane]), T::ZERO);
    if l == 0 {
        return img;
    }
    let (ow, sw) = (out[2], win.stride[2]);
    by_volumes(&mut img, plane, |v, dst| {
        let src = &cols[v * rows * l..][..rows * l];
        win.for_each_line(vol, out, |r, line, start, lo, hi| {
            let Some(start) = start else { return };
            for (j, &e) in src[r * l + line * ow..][lo..hi].iter().enumerate() {
                let at = start + j * sw;
                dst[at] = T::add(dst[at], e);
            }
        });
    });
    img
}

/// The spatial dims of a 5-D tensor.
fn spatial(t: &Tensor) -> [usize; 3] {
    [t.shape()[2], t.shape()[3], t.shape()[4]]
}

impl Tensor {
    /// (N, C, D, H, W) → (N, C·kd·kh·kw, L) for `out` window positions along (D, H, W), which need not be
    /// the input's own window count: positions past the input read zeros (Vol2ColBackward).
    pub fn vol2col(&self, win: &Window3, out: [usize; 3]) -> Result<Tensor> {
        if self.ndim() != 5 {
            bail!(Runtime, "Expected 5D input tensor, but got input of size: {:?}", self.shape());
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"vol2col\" not implemented for 'Bool'");
        }
        let (n, c, vol) = (self.shape()[0], self.shape()[1], spatial(self));
        crate::alloc::check_new_shape(&[n, c, win.taps(), crate::layout::numel(&out)], self.dtype().itemsize())?;
        let cols = with_dtype!(self.dtype(), T => {
            let x = self.detach().contiguous()?;
            let v = x.with_data(|l, xs: &[T]| {
                vol2col_kernel(&xs[l.contiguous_range().expect("contiguous")], n * c, vol, win, out)
            });
            Tensor::from_vec(v, &[n, c * win.taps(), crate::layout::numel(&out)])?
        });
        Ok(record(cols, &[self], |_| Vol2ColBackward { window: *win, self_dhw: vol, out_dhw: out }))
    }

    /// (N, C·kd·kh·kw, L) → (N, C, D, H, W) for `vol` = (D, H, W): the adjoint of `vol2col` with the same
    /// window and `out` positions (Col2VolBackward).
    pub fn col2vol(&self, win: &Window3, vol: [usize; 3], out: [usize; 3]) -> Result<Tensor> {
        let (k, l) = (win.taps(), crate::layout::numel(&out));
        if self.ndim() != 3 || !self.shape()[1].is_multiple_of(k.max(1)) || self.shape()[2] != l {
            bail!(Runtime, "col2vol: expected (N, C·{k}, {l}) columns, but got input of size: {:?}", self.shape());
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"col2vol\" not implemented for 'Bool'");
        }
        let (n, c) = (self.shape()[0], self.shape()[1] / k.max(1));
        crate::alloc::check_new_shape(&[n, c, vol[0], vol[1], vol[2]], self.dtype().itemsize())?;
        // overlapping taps are summed in the compute dtype (float32 for the halves), rounded once
        let img = with_dtype!(self.dtype().compute(), T => {
            let cols = if self.dtype() == T::DTYPE { self.detach().contiguous()? } else { self.to_dtype(T::DTYPE)? };
            let v = cols.with_data(|l, xs: &[T]| {
                col2vol_kernel(&xs[l.contiguous_range().expect("contiguous")], n * c, vol, win, out)
            });
            Tensor::from_vec(v, &[n, c, vol[0], vol[1], vol[2]])?
        })
        .cast_detached(self.dtype());
        Ok(record(img, &[self], |_| Col2VolBackward { window: *win, out_dhw: out }))
    }

    /// `conv3d` (or, `transposed`, `conv_transpose3d`) on a batched (N, C, D, H, W) input; `win.kernel`
    /// is taken from the weight, and `output_padding` (transposed only) widens the output past the
    /// last window. One node, ConvolutionBackward0, with torch's saved fields.
    pub fn convolution3d(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window3,
        groups: usize,
        transposed: Option<[usize; 3]>,
    ) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(input), Some(weight), bias]);
        let win = *win;
        let eager = move |x: &[&Tensor]| match optional_args(x, given) {
            [Some(x), Some(w), b] => Tensor::convolution3d_eager(x, w, b, &win, groups, transposed),
            _ => unreachable!("the input and weight are always given"),
        };
        traced("convolution", NodeKind::Opaque, &operands, || eager(&operands), || eager)
    }

    fn convolution3d_eager(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window3,
        groups: usize,
        transposed: Option<[usize; 3]>,
    ) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(input), Some(weight), bias], |[x, w, b]| {
            Tensor::convolution3d_uncast(x.expect("given"), w.expect("given"), b, win, groups, transposed)
        })
    }

    fn convolution3d_uncast(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window3,
        groups: usize,
        transposed: Option<[usize; 3]>,
    ) -> Result<Tensor> {
        let (win, out) = check_convolution3d(input, weight, bias, win, groups, transposed)?;
        let (x, w) = (input.detach(), weight.detach());
        let n = x.shape()[0];
        let y = match transposed {
            None => conv3d_forward(&x, &w, &win, groups, out)?,
            Some(_) => conv3d_adjoint(&x, &w, &win, groups, out)?,
        };
        let y = match bias {
            Some(b) => y.add(&b.detach().reshape(&[b.numel(), 1, 1, 1])?)?,
            None => y,
        };
        debug_assert_eq!(y.shape()[0], n);
        let rule = |_: &Tensor| Convolution3dBackward {
            stride: win.stride,
            padding: win.padding,
            dilation: win.dilation,
            groups,
            transposed: transposed.is_some(),
            output_padding: transposed.unwrap_or([0; 3]),
            kernel: win.kernel,
            input: SavedTensor::input(input),
            weight: SavedTensor::input(weight),
        };
        match bias {
            Some(b) => Ok(record(y, &[input, weight, b], rule)),
            None => Ok(record(y, &[input, weight], rule)),
        }
    }
}

/// conv3d of (N, C, D, H, W) `x` by (O, C/groups, kd, kh, kw) `w` to `out` positions (not recorded
/// unless the operands are: the backward calls it on graph tensors).
fn conv3d_forward(x: &Tensor, w: &Tensor, win: &Window3, groups: usize, out: [usize; 3]) -> Result<Tensor> {
    let (n, c, o) = (x.shape()[0], x.shape()[1], w.shape()[0]);
    let (ck, l) = (c / groups * win.taps(), crate::layout::numel(&out));
    let cols = x.vol2col(win, out)?.reshape(&[n, groups, ck, l])?;
    let y = w.reshape(&[groups, o / groups, ck])?.matmul(&cols)?;
    y.reshape(&[n, o, out[0], out[1], out[2]])
}

/// conv_transpose3d of (N, C_in, D, H, W) `x` by (C_in, C_out/groups, kd, kh, kw) `w` to an `out`
/// volume: each input position's contribution `Wᵀ · x` as columns, summed onto the output by col2vol.
fn conv3d_adjoint(x: &Tensor, w: &Tensor, win: &Window3, groups: usize, out: [usize; 3]) -> Result<Tensor> {
    let (n, c, vol) = (x.shape()[0], x.shape()[1], spatial(x));
    let (per_group, o_per_group) = (c / groups, w.shape()[1]);
    let window = o_per_group * win.taps();
    let l = crate::layout::numel(&vol);
    let wt = w.reshape(&[groups, per_group, window])?.transpose(1, 2)?;
    let cols = wt.matmul(&x.reshape(&[n, groups, per_group, l])?)?.reshape(&[n, groups * window, l])?;
    cols.col2vol(win, out, vol)
}

/// `Σₙ b · aᵀ` over (N, groups, ·, L) operands `a` and `b`, computed as `(Σₙ a · bᵀ)ᵀ`: both products run along
/// the long L side, and the GEMM takes it with the wide column matrix on the left (a stride-1 operand) about six
/// times as fast (cnn3d's first layer: 3.5 against 21 ms for 4 × (8 × 16384) · (16384 × 81)).
fn summed_products_transposed(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.matmul(&b.transpose(2, 3)?)?.sum(Some(&[0]), false)?.transpose(1, 2)
}

/// PyTorch's checks of a 3-D convolution's operands, in its order; returns the window with the
/// weight's kernel and the output size.
fn check_convolution3d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    win: &Window3,
    groups: usize,
    transposed: Option<[usize; 3]>,
) -> Result<(Window3, [usize; 3])> {
    check_operands(input, weight, bias, "compute_columns3d", input.ndim() == 5 && weight.ndim() == 5)?;
    let win = Window3 { kernel: [weight.shape()[2], weight.shape()[3], weight.shape()[4]], ..*win };
    if groups == 0 {
        bail!(Runtime, "non-positive groups is not supported");
    }
    if win.stride.contains(&0) {
        bail!(Runtime, "non-positive stride is not supported");
    }
    if win.dilation.contains(&0) {
        bail!(Runtime, "dilation should be greater than zero, but got {:?}", win.dilation);
    }
    let (c, w0) = (input.shape()[1], weight.shape()[0]);
    if w0 % groups != 0 {
        bail!(
            Runtime,
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of \
            size [{:?}] instead",
            weight.shape()
        );
    }
    let (channels, out_channels) = match transposed {
        None => (weight.shape()[1] * groups, w0),
        Some(_) => (w0, weight.shape()[1] * groups),
    };
    if channels != c {
        let given = if transposed.is_some() { "transposed=1".to_string() } else { format!("groups={groups}") };
        bail!(
            Runtime,
            "Given {given}, weight of size {:?}, expected input{:?} to have {channels} channels, but got {c} \
            channels instead",
            weight.shape(),
            input.shape()
        );
    }
    if let Some(b) = bias {
        if b.ndim() != 1 || b.shape()[0] != out_channels {
            let transposed_note = if transposed.is_some() { "transposed=1, " } else { "" };
            bail!(
                Runtime,
                "Given {transposed_note}weight of size {:?}, expected bias to be 1-dimensional with {out_channels} \
                elements, but got bias of size {:?} instead",
                weight.shape(),
                b.shape()
            );
        }
    }
    if win.kernel.contains(&0) {
        let [d, h, w] = win.kernel;
        bail!(Runtime, "kernel size should be greater than zero, but got: {d} x {h} x {w} (TxHxW)");
    }
    let vol = spatial(input);
    let out = match transposed {
        None => conv_out_size(&win, vol)?,
        Some(output_padding) => transposed_out_size(&win, vol, output_padding)?,
    };
    crate::alloc::check_new_shape(&[input.shape()[0], out_channels, out[0], out[1], out[2]], input.dtype().itemsize())?;
    Ok((win, out))
}

fn conv_out_size(win: &Window3, vol: [usize; 3]) -> Result<[usize; 3]> {
    match [0, 1, 2].map(|d| win.out_len(d, vol[d])) {
        [Some(a), Some(b), Some(c)] => Ok([a, b, c]),
        _ => {
            let padded = |d: usize| vol[d] as u128 + 2 * win.padding[d] as u128;
            let span = |d: usize| win.dilation[d] as u128 * (win.kernel[d] as u128 - 1) + 1;
            bail!(
                Runtime,
                "Calculated padded input size per channel: ({} x {} x {}). Kernel size: ({} x {} x {}). Kernel size \
                can't be greater than actual input size",
                padded(0),
                padded(1),
                padded(2),
                span(0),
                span(1),
                span(2)
            );
        }
    }
}

fn transposed_out_size(win: &Window3, vol: [usize; 3], output_padding: [usize; 3]) -> Result<[usize; 3]> {
    let bad = (0..3).any(|d| output_padding[d] >= win.stride[d] && output_padding[d] >= win.dilation[d]);
    if bad {
        let [p, s, d] = [output_padding, win.stride, win.dilation];
        bail!(
            Runtime,
            "output padding must be smaller than either stride or dilation, but got output_padding_depth: {} \
            output_padding_height: {} output_padding_width: {} stride_depth: {} stride_height: {} stride_width: {} \
            dilation_depth: {} dilation_height: {} dilation_width: {}",
            p[0],
            p[1],
            p[2],
            s[0],
            s[1],
            s[2],
            d[0],
            d[1],
            d[2]
        );
    }
    // in i128: sizes from Python may be near usize::MAX
    let size = |d: usize| {
        (vol[d] as i128 - 1) * win.stride[d] as i128 - 2 * win.padding[d] as i128
            + win.dilation[d] as i128 * (win.kernel[d] as i128 - 1)
            + output_padding[d] as i128
            + 1
    };
    let out = [size(0), size(1), size(2)];
    if out.iter().any(|&o| o < 1) {
        bail!(
            Runtime,
            "Given input size per channel: ({} x {} x {}). Calculated output size per channel: ({} x {} x {}). \
            Output size is too small",
            vol[0],
            vol[1],
            vol[2],
            out[0],
            out[1],
            out[2]
        );
    }
    let fit = |o: i128| usize::try_from(o).unwrap_or(usize::MAX);
    Ok(out.map(fit))
}

impl crate::autograd::AsField for Window3 {
    fn as_field(&self) -> crate::autograd::Field<'_> {
        crate::autograd::Field::Opaque
    }
}

crate::backward_rule! {
    names = ["Vol2ColBackward"];
    /// `vol2col`: its adjoint, `col2vol`.
    pub struct Vol2ColBackward {
        window: Window3,
        self_dhw: [usize; 3],
        out_dhw: [usize; 3],
    }
}
impl Backward for Vol2ColBackward {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        crate::autograd::one(g.col2vol(&self.window, self.self_dhw, self.out_dhw))
    }
}

crate::backward_rule! {
    names = ["Col2VolBackward"];
    /// `col2vol`: its adjoint, `vol2col`.
    pub struct Col2VolBackward {
        window: Window3,
        out_dhw: [usize; 3],
    }
}
impl Backward for Col2VolBackward {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        crate::autograd::one(g.vol2col(&self.window, self.out_dhw))
    }
}

crate::backward_rule! {
    names = ["ConvolutionBackward0"];
    /// `conv3d` / `conv_transpose3d`: the inputs are (input, weight, bias if given); the fields are
    /// torch's (`kernel` is the weight's, kept to rebuild the window).
    pub struct Convolution3dBackward {
        stride: [usize; 3],
        padding: [usize; 3],
        dilation: [usize; 3],
        groups: usize,
        transposed: bool,
        output_padding: [usize; 3],
        kernel: [usize; 3],
        input: SavedTensor,
        weight: SavedTensor,
    }
}
impl Backward for Convolution3dBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, w) = (ctx.unpack(&self.input)?, ctx.unpack(&self.weight)?);
        let win = Window3 { kernel: self.kernel, stride: self.stride, padding: self.padding, dilation: self.dilation };
        let groups = self.groups;
        let (n, c, vol) = (x.shape()[0], x.shape()[1], spatial(&x));
        let (gvol, l) = (spatial(g), crate::layout::numel(&spatial(g)));
        let grad_input = if !ctx.needs(0) {
            None
        } else if self.transposed {
            // the transposed convolution's adjoint is the plain one, over the output's gradient
            Some(conv3d_forward(g, &w, &win, groups, vol)?)
        } else {
            Some(conv3d_adjoint(g, &w, &win, groups, vol)?)
        };
        let grad_weight = if !ctx.needs(1) {
            None
        } else if self.transposed {
            // (C_in, C_out/groups, k): Σₙ x (per group C_in/groups × L_in) · vol2col(g)ᵀ
            let o_per_group = g.shape()[1] / groups;
            let window = o_per_group * win.taps();
            let l_in = crate::layout::numel(&vol);
            let cols = g.vol2col(&win, vol)?.reshape(&[n, groups, window, l_in])?;
            let xs = x.reshape(&[n, groups, c / groups, l_in])?;
            Some(summed_products_transposed(&cols, &xs)?.reshape(w.shape())?)
        } else {
            // (O, C/groups, k): Σₙ g (per group O/groups × L) · vol2col(x)ᵀ
            let o = g.shape()[1];
            let ck = c / groups * win.taps();
            let cols = x.vol2col(&win, gvol)?.reshape(&[n, groups, ck, l])?;
            let g2 = g.reshape(&[n, groups, o / groups, l])?;
            Some(summed_products_transposed(&cols, &g2)?.reshape(w.shape())?)
        };
        let grad_bias =
            if ctx.num_inputs() > 2 && ctx.needs(2) { Some(g.sum(Some(&[0, 2, 3, 4]), false)?) } else { None };
        Ok([grad_input, grad_weight, grad_bias].into_iter().take(ctx.num_inputs()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn col2vol_is_the_adjoint_of_vol2col() {
        let win = Window3 { kernel: [2, 3, 2], stride: [2, 1, 3], padding: [1, 1, 0], dilation: [1, 2, 1] };
        let vol = [4, 5, 7];
        let out = [0, 1, 2].map(|d| win.out_len(d, vol[d]).unwrap());
        let x: Vec<f64> = (0..2 * 140).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let cols = vol2col_kernel(&x, 2, vol, &win, out);
        let y: Vec<f64> = (0..cols.len()).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
        let back = col2vol_kernel(&y, 2, vol, &win, out);
        let lhs: f64 = cols.iter().zip(&y).map(|(a, b)| a * b).sum();
        let rhs: f64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
        assert_eq!(lhs, rhs);
    }

    #[test]
    fn vol2col_reads_each_tap() {
        // one 1×2×3 volume, a 1×2×2 kernel with padding 1 along the width: the tap at (0, 1, 0) reads
        // input column w - 1 for output column w
        let win = Window3 { kernel: [1, 2, 2], stride: [1, 1, 1], padding: [0, 0, 1], dilation: [1, 1, 1] };
        let x: Vec<f64> = (1..=6).map(f64::from).collect();
        let out = [1, 1, 4];
        let cols = vol2col_kernel(&x, 1, [1, 2, 3], &win, out);
        assert_eq!(&cols[8..12], &[0.0, 4.0, 5.0, 6.0]);
        assert_eq!(&cols[12..16], &[4.0, 5.0, 6.0, 0.0]);
    }
}
