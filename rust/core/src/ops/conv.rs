//! Convolution as im2col + GEMM.
//!
//! `im2col` lays every receptive field of an (N, C, H, W) input out as a column of an
//! (N, C·kh·kw, L) matrix (L output positions); a convolution is then one batched matrix product of
//! the (grouped) weight with it. `col2im` is its adjoint (columns summed back onto the image), so
//! the two ops are each other's backward and everything here differentiates again:
//! - input gradient  = col2im(Wᵀ · g)
//! - weight gradient = Σₙ g · im2col(x)ᵀ
//!
//! 1-D convolutions run as 2-D ones over a height of 1.
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, traced_product, MapAfter, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::conv::{col2im_sample, conv2d_backward, conv2d_forward, im2col_sample, ConvShape};
use crate::tensor::Tensor;
use crate::with_dtype;
use crate::DType;

/// A sliding window over the last two dims: kernel, stride, zero padding and dilation, each (h, w).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl Window {
    /// Number of window positions along dim `d` (0: height, 1: width) of an input of size `size`;
    /// None if the dilated kernel does not fit in the padded input.
    pub fn out_len(&self, d: usize, size: usize) -> Option<usize> {
        sliding_out_len(size, self.kernel[d], self.stride[d], self.padding[d], self.dilation[d])
    }
}

/// Number of positions of a window (kernel, stride, zero padding, dilation) along one dim of an input of
/// size `size`; None if the dilated kernel does not fit in the padded input.
pub(crate) fn sliding_out_len(
    size: usize,
    kernel: usize,
    stride: usize,
    padding: usize,
    dilation: usize,
) -> Option<usize> {
    // in u128: sizes from Python may be near usize::MAX, where usize arithmetic would wrap
    let span = dilation as u128 * (kernel as u128).saturating_sub(1) + 1;
    let padded = size as u128 + 2 * padding as u128;
    let out = (padded >= span).then(|| (padded - span) / (stride as u128).max(1) + 1)?;
    Some(usize::try_from(out).unwrap_or(usize::MAX))
}

/// The kernels' description of a convolution of `c_in` planes (all of a batch's, for the plain
/// im2col/col2im ops) by a window, into `c_out` channels.
fn conv_shape(batch: usize, c_in: usize, c_out: usize, hw: [usize; 2], win: &Window, out: [usize; 2]) -> ConvShape {
    ConvShape {
        batch,
        c_in,
        c_out,
        hw,
        out,
        kernel: win.kernel,
        stride: win.stride,
        padding: win.padding,
        dilation: win.dilation,
    }
}

/// (planes, H, W) image → (planes, kh·kw, L) columns, zero where the window reads padding.
fn im2col_kernel<T: Element>(x: &[T], planes: usize, hw: [usize; 2], win: &Window, out: [usize; 2]) -> Vec<T> {
    let mut cols =
        crate::pool::filled(crate::layout::numel(&[planes, win.kernel[0] * win.kernel[1], out[0] * out[1]]), T::ZERO);
    im2col_sample(x, &mut cols, out[0] * out[1], &conv_shape(1, planes, 0, hw, win, out));
    cols
}

/// (planes, kh·kw, L) columns → (planes, H, W) image, overlapping taps summed.
fn col2im_kernel<T: Element>(cols: &[T], planes: usize, hw: [usize; 2], win: &Window, out: [usize; 2]) -> Vec<T> {
    let mut img = crate::pool::filled(crate::layout::numel(&[planes, hw[0] * hw[1]]), T::ZERO);
    col2im_sample(cols, out[0] * out[1], &mut img, &conv_shape(1, planes, 0, hw, win, out));
    img
}

impl Tensor {
    /// (N, C, H, W) → (N, C·kh·kw, L) for `out` = (out_h, out_w) window positions (Im2ColBackward0).
    pub fn im2col(&self, win: &Window, out: [usize; 2]) -> Result<Tensor> {
        if self.ndim() != 4 {
            bail!(Runtime, "Expected 4D input tensor, but got input of size: {:?}", self.shape());
        }
        let [n, c, h, w] = [self.shape()[0], self.shape()[1], self.shape()[2], self.shape()[3]];
        let (kernel, item) = (win.kernel, self.dtype().itemsize());
        crate::alloc::check_new_shape(&[n, c, kernel[0], kernel[1], out[0], out[1]], item)?;
        let k = win.kernel[0] * win.kernel[1];
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"im2col_out_cpu\" not implemented for 'Bool'");
        }
        let cols = with_dtype!(self.dtype(), T => {
            let v = im2col_kernel(&self.to_vec::<T>(), n * c, [h, w], win, out);
            Tensor::from_vec(v, &[n, c * k, out[0] * out[1]])?
        });
        Ok(record(cols, &[self], |_| Im2ColBackward0 { window: *win, self_hw: [h, w], out_hw: out }))
    }

    /// (N, C·kh·kw, L) → (N, C, H, W): the adjoint of `im2col` (Col2ImBackward0).
    pub fn col2im(&self, win: &Window, hw: [usize; 2], out: [usize; 2]) -> Result<Tensor> {
        let win = *win;
        let eager = move |x: &[&Tensor]| x[0].col2im_eager(&win, hw, out);
        traced("col2im", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn col2im_eager(&self, win: &Window, hw: [usize; 2], out: [usize; 2]) -> Result<Tensor> {
        let (k, l) = (crate::layout::numel(&win.kernel), crate::layout::numel(&out));
        if self.ndim() != 3 || !self.shape()[1].is_multiple_of(k) || self.shape()[2] != l {
            bail!(
                Runtime,
                "Expected size of input's dimension 1 to be divisible by the product of kernel_size and a \
                dimension 2 of {l}, but got input of size: {:?}",
                self.shape()
            );
        }
        let (n, c) = (self.shape()[0], self.shape()[1] / k.max(1));
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"col2im_out_cpu\" not implemented for 'Bool'");
        }
        crate::alloc::check_new_shape(&[n, c, hw[0], hw[1]], self.dtype().itemsize())?;
        // overlapping taps are summed in the compute dtype (float32 for the halves), rounded once
        let img = with_dtype!(self.dtype().compute(), T => {
            let v = col2im_kernel(&self.to_vec::<T>(), n * c, hw, win, out);
            Tensor::from_vec(v, &[n, c, hw[0], hw[1]])?
        })
        .cast_detached(self.dtype());
        Ok(record(img, &[self], |_| Col2ImBackward0 { window: *win, out_hw: out }))
    }

    /// `conv1d`/`conv2d` on a batched input: (N, C, L) with (O, C/groups, k), or (N, C, H, W) with
    /// (O, C/groups, kh, kw); `win.kernel` is filled in from the weight. One node, ConvolutionBackward0.
    pub fn convolution(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window,
        groups: usize,
    ) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(input), Some(weight), bias]);
        let win = *win;
        let op = move |x: &[&Tensor], then: Option<&mut MapAfter>| match optional_args(x, given) {
            [Some(input), Some(weight), bias] => Tensor::convolution_eager(input, weight, bias, &win, groups, then),
            _ => unreachable!("input and weight are always given"),
        };
        traced_product("convolution", &operands, op)
    }

    fn convolution_eager(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window,
        groups: usize,
        then: Option<&mut MapAfter>,
    ) -> Result<Tensor> {
        let policy = crate::autocast::Policy::LowerPrecision;
        crate::autocast::run(policy, [Some(input), Some(weight), bias], |[x, w, b]| {
            Tensor::convolution_uncast(x.expect("given"), w.expect("given"), b, win, groups, then)
        })
    }

    /// The convolution and its record; a map in `then` runs over the output as it is made, on the one-group path.
    fn convolution_uncast(
        input: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: &Window,
        groups: usize,
        mut then: Option<&mut MapAfter>,
    ) -> Result<Tensor> {
        let spatial = input.ndim().saturating_sub(2);
        let (x, w) = lift_to_2d(&input.detach(), &weight.detach(), spatial)?;
        let (win, out_hw) = check_convolution(&x, &w, bias, win, groups, input, weight)?;
        let (n, c, o) = (x.shape()[0], x.shape()[1], w.shape()[0]);
        let mut out = match x.dtype() {
            DType::F32 if groups == 1 => direct_forward::<f32>(&x, &w, bias, &win, out_hw, then.as_deref_mut())?,
            DType::F64 if groups == 1 => direct_forward::<f64>(&x, &w, bias, &win, out_hw, then.as_deref_mut())?,
            _ => {
                let ck = c / groups * win.kernel[0] * win.kernel[1];
                let l = out_hw[0] * out_hw[1];
                let cols = x.im2col(&win, out_hw)?.reshape(&[n, groups, ck, l])?;
                let out = w.reshape(&[groups, o / groups, ck])?.matmul(&cols)?;
                let out = out.reshape(&[n, o, out_hw[0], out_hw[1]])?;
                match bias {
                    Some(b) => out.add(&b.detach().reshape(&[o, 1, 1])?)?,
                    None => out,
                }
            }
        };
        if spatial == 1 {
            out = out.squeeze_dim(2)?;
        }
        if let Some(then) = then {
            then.out = then.out.take().map(|mapped| mapped.reshape(out.shape())).transpose()?;
        }
        let rule = |_: &Tensor| ConvolutionBackward0 {
            window: win,
            groups,
            spatial,
            input: SavedTensor::input(input),
            weight: SavedTensor::input(weight),
        };
        match bias {
            Some(b) => Ok(record(out, &[input, weight, b], rule)),
            None => Ok(record(out, &[input, weight], rule)),
        }
    }
}

/// The elements of a tensor in row-major order (its storage when contiguous, else a copy).
fn elements<T: Element>(t: &Tensor) -> Result<Tensor> {
    if t.dtype() == T::DTYPE {
        t.contiguous()
    } else {
        t.to_dtype(T::DTYPE)
    }
}

fn with_elements<T: Element, R>(t: &Tensor, f: impl FnOnce(&[T]) -> R) -> Result<R> {
    let t = elements::<T>(t)?;
    Ok(t.with_data(|l, v: &[T]| f(&v[l.contiguous_range().expect("contiguous")])))
}

/// A one-group convolution of (N, C, H, W) `x` by `w` through the per-sample kernel (not recorded), with a map in
/// `then` (of this dtype) run over each block of samples as it is made.
fn direct_forward<T: Element>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    win: &Window,
    out: [usize; 2],
    then: Option<&mut MapAfter>,
) -> Result<Tensor> {
    let (n, c, o) = (x.shape()[0], x.shape()[1], w.shape()[0]);
    let s = conv_shape(n, c, o, [x.shape()[2], x.shape()[3]], win, out);
    let b = bias.map(|b| b.to_vec::<T>());
    let shape = [n, o, out[0], out[1]];
    let mapped = MapAfter::output::<T>(then.as_deref(), shape.iter().product());
    let epilogue = mapped.as_ref().map(|m| move |first: usize, part: &[T]| m.map_part(first, part));
    let epilogue = epilogue.as_ref().map(|e| e as &(dyn Fn(usize, &[T]) + Sync));
    let v =
        with_elements(x, |xs: &[T]| with_elements(w, |ws: &[T]| conv2d_forward(xs, ws, b.as_deref(), &s, epilogue)))??;
    if let (Some(mapped), Some(then)) = (mapped, then) {
        // Safety: `conv2d_forward` hands every block of samples over once written, and the blocks cover the output
        unsafe { mapped.finish(then, &shape)? };
    }
    Tensor::from_vec(v, &shape)
}

/// All three gradients of a one-group convolution from the kernel, shaped as `shapes` (not recorded).
fn direct_backward<T: Element>(
    g: &Tensor,
    x: &Tensor,
    w: &Tensor,
    s: &ConvShape,
    needs: [bool; 3],
    shapes: [&[usize]; 3],
) -> Result<[Option<Tensor>; 3]> {
    let grads = with_elements(g, |gs: &[T]| {
        with_elements(x, |xs: &[T]| with_elements(w, |ws: &[T]| conv2d_backward(gs, xs, ws, s, needs)))
    })???;
    let mut out: [Option<Tensor>; 3] = [None, None, None];
    for (slot, (v, shape)) in out.iter_mut().zip(grads.into_iter().zip(shapes)) {
        if let Some(v) = v {
            *slot = Some(Tensor::from_vec(v, shape)?);
        }
    }
    Ok(out)
}

/// 1-D operands as 2-D ones over a height of 1.
fn lift_to_2d(x: &Tensor, w: &Tensor, spatial: usize) -> Result<(Tensor, Tensor)> {
    if spatial == 1 && w.ndim() == 3 {
        Ok((x.unsqueeze(2)?, w.unsqueeze(2)?))
    } else {
        Ok((x.clone(), w.clone()))
    }
}

/// PyTorch's checks of a convolution's operands (on the 2-D lifted forms); returns the window with
/// the weight's kernel size and the output size.
fn check_convolution(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    win: &Window,
    groups: usize,
    input: &Tensor,
    weight: &Tensor,
) -> Result<(Window, [usize; 2])> {
    check_operands(input, weight, bias, "slow_conv2d_cpu", x.ndim() == 4 && w.ndim() == 4)?;
    let win = Window { kernel: [w.shape()[2], w.shape()[3]], ..*win };
    if win.kernel.contains(&0) {
        bail!(Runtime, "weight should have at least three dimensions with non-zero sizes, got {:?}", weight.shape());
    }
    if groups == 0 {
        bail!(Runtime, "non-positive groups is not supported");
    }
    if win.stride.contains(&0) {
        bail!(Runtime, "non-positive stride is not supported");
    }
    if win.dilation.contains(&0) {
        let given = if input.ndim() == 3 { &win.dilation[1..] } else { &win.dilation[..] };
        bail!(Runtime, "dilation should be greater than zero, but got {given:?}");
    }
    let (c, o) = (x.shape()[1], w.shape()[0]);
    if o % groups != 0 {
        bail!(
            Runtime,
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got \
            weight of size [{:?}] instead",
            weight.shape()
        );
    }
    if w.shape()[1] * groups != c {
        bail!(
            Runtime,
            "Given groups={groups}, weight of size {:?}, expected input{:?} to have {} channels, but got \
            {c} channels instead",
            weight.shape(),
            input.shape(),
            w.shape()[1] * groups
        );
    }
    if let Some(b) = bias {
        if b.ndim() != 1 || b.shape()[0] != o {
            bail!(
                Runtime,
                "Given weight of size {:?}, expected bias to be 1-dimensional with {o} elements, but got \
                bias of size {:?} instead",
                weight.shape(),
                b.shape()
            );
        }
    }
    let (h, wd) = (x.shape()[2], x.shape()[3]);
    match (win.out_len(0, h), win.out_len(1, wd)) {
        (Some(oh), Some(ow)) => Ok((win, [oh, ow])),
        _ => {
            let one_d = input.ndim() == 3;
            let padded = |d: usize, s: usize| s + 2 * win.padding[d];
            let kernel = |d: usize| win.dilation[d] * (win.kernel[d] - 1) + 1;
            if one_d {
                bail!(
                    Runtime,
                    "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't \
                    be greater than actual input size",
                    padded(1, wd),
                    kernel(1)
                );
            }
            bail!(
                Runtime,
                "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size \
                can't be greater than actual input size",
                padded(0, h),
                padded(1, wd),
                kernel(0),
                kernel(1)
            );
        }
    }
}

/// PyTorch's first checks of a convolution's operands: one dtype, not bool (`bool_kernel` names the kernel its
/// error names), and input and weight of the convolution's rank (`ranks_match`).
pub(crate) fn check_operands(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    bool_kernel: &str,
    ranks_match: bool,
) -> Result<()> {
    if input.dtype() != weight.dtype() || bias.is_some_and(|b| b.dtype() != input.dtype()) {
        let other = if input.dtype() != weight.dtype() { weight.dtype() } else { bias.unwrap().dtype() };
        bail!(
            Runtime,
            "expected scalar type {} but found {}",
            input.dtype().scalar_type_name(),
            other.scalar_type_name()
        );
    }
    if input.dtype() == DType::Bool {
        bail!(NotImplemented, "\"{bool_kernel}\" not implemented for 'Bool'");
    }
    if !ranks_match {
        bail!(
            Runtime,
            "Expected {}-dimensional input for {}-dimensional weight {:?}, but got {}-dimensional input of \
            size {:?} instead",
            weight.ndim(),
            weight.ndim(),
            weight.shape(),
            input.ndim(),
            input.shape()
        );
    }
    Ok(())
}

impl AsField for Window {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    /// `im2col`: its adjoint, `col2im`.
    pub struct Im2ColBackward0 {
        window: Window,
        self_hw: [usize; 2],
        out_hw: [usize; 2],
    }
}
impl Backward for Im2ColBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.col2im(&self.window, self.self_hw, self.out_hw))
    }
}

crate::backward_rule! {
    /// `col2im`: its adjoint, `im2col`.
    pub struct Col2ImBackward0 {
        window: Window,
        out_hw: [usize; 2],
    }
}
impl Backward for Col2ImBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.im2col(&self.window, self.out_hw))
    }
}

crate::backward_rule! {
    /// `conv1d`/`conv2d`: the inputs are (input, weight, bias if given).
    pub struct ConvolutionBackward0 {
        window: Window,
        groups: usize,
        spatial: usize,
        input: SavedTensor,
        weight: SavedTensor,
    }
}
impl Backward for ConvolutionBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, w) = (ctx.unpack(&self.input)?, ctx.unpack(&self.weight)?);
        let needs = [ctx.needs(0), ctx.needs(1), ctx.needs(2)];
        let grads = convolution_grad(g, &x, &w, &self.window, self.groups, self.spatial, needs)?;
        Ok(grads.into_iter().take(ctx.num_inputs()).collect())
    }
}

/// The backward of `convolution`: gradients of input, weight and (if there is one) bias.
fn convolution_grad(
    g: &Tensor,
    input: &Tensor,
    weight: &Tensor,
    win: &Window,
    groups: usize,
    spatial: usize,
    needs: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    let (x, w) = lift_to_2d(input, weight, spatial)?;
    let g = if spatial == 1 { g.unsqueeze(2)? } else { g.clone() };
    let (n, c, h, wd) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let (o, oh, ow) = (w.shape()[0], g.shape()[2], g.shape()[3]);
    // not recorded (create_graph=False): all three gradients from the kernel in one sweep
    let direct = groups == 1 && !crate::autograd::grad_mode::is_enabled() && g.dtype() == x.dtype();
    if direct && matches!(x.dtype(), DType::F32 | DType::F64) {
        let s = conv_shape(n, c, o, [h, wd], win, [oh, ow]);
        let shapes = [input.shape(), weight.shape(), &[o][..]];
        return match x.dtype() {
            DType::F32 => direct_backward::<f32>(&g, &x, &w, &s, needs, shapes),
            _ => direct_backward::<f64>(&g, &x, &w, &s, needs, shapes),
        };
    }
    let ck = c / groups * win.kernel[0] * win.kernel[1];
    let g2 = g.reshape(&[n, groups, o / groups, oh * ow])?;
    let grad_input = if needs[0] {
        let cols = w.reshape(&[groups, o / groups, ck])?.transpose(1, 2)?.matmul(&g2)?;
        let gi = cols.reshape(&[n, c * win.kernel[0] * win.kernel[1], oh * ow])?.col2im(win, [h, wd], [oh, ow])?;
        Some(gi.reshape(input.shape())?)
    } else {
        None
    };
    let grad_weight = if needs[1] {
        let cols = x.im2col(win, [oh, ow])?.reshape(&[n, groups, ck, oh * ow])?;
        let gw = g2.matmul(&cols.transpose(2, 3)?)?.sum(Some(&[0]), false)?;
        Some(gw.reshape(weight.shape())?)
    } else {
        None
    };
    let grad_bias = if needs[2] { Some(g.sum(Some(&[0, 2, 3]), false)?) } else { None };
    Ok([grad_input, grad_weight, grad_bias])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        let win = Window { kernel: [2, 3], stride: [2, 1], padding: [1, 1], dilation: [1, 2] };
        let hw = [5, 6];
        let out = [win.out_len(0, hw[0]).unwrap(), win.out_len(1, hw[1]).unwrap()];
        let x: Vec<f64> = (0..2 * 30).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let cols = im2col_kernel(&x, 2, hw, &win, out);
        let y: Vec<f64> = (0..cols.len()).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
        let back = col2im_kernel(&y, 2, hw, &win, out);
        let lhs: f64 = cols.iter().zip(&y).map(|(a, b)| a * b).sum();
        let rhs: f64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
        assert_eq!(lhs, rhs);
    }
}
