//! 2-D convolution kernels (one group, float32/float64): per sample, im2col into a buffer of the
//! thread's own and one GEMM with the weight, samples split across threads; the backward pass computes
//! the input, weight and bias gradients in one sweep over the samples. The column matrix of a sample
//! is (C·kh·kw, L) for L output positions, and each of its rows is filled (or, in col2im, summed
//! back) a whole output row at a time: the range of output columns whose tap reads inside the image
//! is worked out once per row, so the copies are plain (contiguous at stride 1) slice loops.
//!
//! Before, the composite (im2col over the batch by a closure per element, a batched matmul against
//! the broadcast weight, a bias add; backward recomputed im2col and summed per-sample weight products)
//! took 2.9 ms forward and 6.4 ms backward for LeNet-5's two layers at batch 64, where PyTorch takes
//! ~0.6 and ~1.5.
use crate::element::Element;
use crate::kernels::matmul::{matmul_into_serial, Epilogue, MatRef};
use crate::kernels::threads::{par_for, threads, OutPtr};
use std::mem::MaybeUninit;

/// The shape of a convolution: channels in and out, image and output sizes, and the window.
#[derive(Clone, Copy, Debug)]
pub struct ConvShape {
    pub batch: usize,
    pub c_in: usize,
    pub c_out: usize,
    pub hw: [usize; 2],
    pub out: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl ConvShape {
    fn taps(&self) -> usize {
        self.kernel[0] * self.kernel[1]
    }
    /// Rows of a sample's column matrix: C·kh·kw.
    fn ck(&self) -> usize {
        self.c_in * self.taps()
    }
    /// Output positions per channel.
    fn l(&self) -> usize {
        self.out[0] * self.out[1]
    }
    fn plane(&self) -> usize {
        self.hw[0] * self.hw[1]
    }

    /// The input position read by output `o` at tap `k` along dim `d`, as a signed index.
    #[inline(always)]
    fn source(&self, d: usize, o: usize, k: usize) -> isize {
        (o * self.stride[d] + k * self.dilation[d]) as isize - self.padding[d] as isize
    }

    /// The output positions `lo..hi` along dim `d` whose tap `k` reads inside the input.
    fn inside(&self, d: usize, k: usize) -> (usize, usize) {
        let (s, n, out) = (self.stride[d] as isize, self.hw[d] as isize, self.out[d]);
        let first = self.source(d, 0, k); // input position of output 0
        let lo = if first >= 0 { 0 } else { ((-first + s - 1) / s) as usize };
        let hi = if first >= n { 0 } else { (((n - 1 - first) / s) as usize + 1).min(out) };
        (lo.min(hi), hi)
    }

    /// Calls `row(column row, output row oi, input row ih or None, lo, hi, first input column)` for
    /// every (channel, tap, output row) of one sample.
    #[inline(always)]
    fn for_each_row(&self, mut row: impl FnMut(usize, usize, Option<usize>, usize, usize, isize)) {
        let [kh, kw] = self.kernel;
        for c in 0..self.c_in {
            for ki in 0..kh {
                for kj in 0..kw {
                    let r = (c * kh + ki) * kw + kj;
                    let (lo, hi) = self.inside(1, kj);
                    let first_w = self.source(1, 0, kj);
                    for oi in 0..self.out[0] {
                        let ih = self.source(0, oi, ki);
                        let ih = (ih >= 0 && (ih as usize) < self.hw[0])
                            .then(|| c * self.plane() + ih as usize * self.hw[1]);
                        row(r, oi, ih, lo, hi, first_w);
                    }
                }
            }
        }
    }
}

/// One sample's (C, H, W) image → its (C·kh·kw, L) column matrix (zeros where a tap reads padding),
/// whose rows start `ld` elements apart in `cols` (L for a sample's own matrix; wider when several
/// samples' matrices sit side by side).
pub fn im2col_sample<T: Element>(x: &[T], cols: &mut [T], ld: usize, s: &ConvShape) {
    let (ow, sw) = (s.out[1], s.stride[1]);
    if ow == 0 {
        return;
    }
    if s.padding == [0, 0] {
        return im2col_inside(x, cols, ld, s);
    }
    if ow < PADDED_COPY_BELOW_WIDTH {
        let (padded, inside) = padded_sample(x, s);
        im2col_inside(&padded, cols, ld, &inside);
        crate::pool::give(padded);
        return;
    }
    s.for_each_row(|r, oi, line, lo, hi, first_w| {
        let dst = &mut cols[r * ld + oi * ow..][..ow];
        let Some(line) = line else {
            dst.fill(T::ZERO);
            return;
        };
        dst[..lo].fill(T::ZERO);
        dst[hi..].fill(T::ZERO);
        let start = (line as isize + first_w + (lo * sw) as isize) as usize;
        if sw == 1 {
            copy_row(&mut dst[lo..hi], &x[start..start + (hi - lo)]);
        } else {
            for (j, d) in dst[lo..hi].iter_mut().enumerate() {
                *d = x[start + j * sw];
            }
        }
    });
}

/// `im2col_sample` when every tap reads inside (no padding, stride 1 along the width): whole rows, no
/// ranges to work out.
fn im2col_inside<T: Element>(x: &[T], cols: &mut [T], ld: usize, s: &ConvShape) {
    let ([kh, kw], [oh, ow], width, sw) = (s.kernel, s.out, s.hw[1], s.stride[1]);
    for c in 0..s.c_in {
        let img = &x[c * s.plane()..][..s.plane()];
        for ki in 0..kh {
            for kj in 0..kw {
                let r = (c * kh + ki) * kw + kj;
                let dst = &mut cols[r * ld..][..oh * ow];
                for (oi, d) in dst.chunks_exact_mut(ow).enumerate() {
                    let start = (oi * s.stride[0] + ki * s.dilation[0]) * width + kj * s.dilation[1];
                    if sw == 1 {
                        copy_row(d, &img[start..start + ow]);
                    } else {
                        let src = &img[start..start + (ow - 1) * sw + 1];
                        d.iter_mut().zip(src.iter().step_by(sw)).for_each(|(d, &v)| *d = v);
                    }
                }
            }
        }
    }
}

/// Output widths below which a padded image is written out for im2col/col2im (`padded_sample`). Wider rows
/// keep the per-row ranges: their cost is spread over many elements, and copying the image is not free.
const PADDED_COPY_BELOW_WIDTH: usize = 64;

/// A sample's image with its zero padding written out (a pool buffer), and the shape that reads it
/// without padding. Copying the small image once costs less than working out, for every column row,
/// which part of each output row reads padding: on 8×8 images (ResNet's last stage) those per-row
/// ranges, fills and short copies took as long as the GEMM.
fn padded_sample<T: Element>(x: &[T], s: &ConvShape) -> (Vec<T>, ConvShape) {
    let ([ph, pw], [h, w], inside) = (s.padding, s.hw, padded_shape(s));
    let [hp, wp] = inside.hw;
    let mut padded = crate::pool::filled(s.c_in * hp * wp, T::ZERO);
    for c in 0..s.c_in {
        for i in 0..h {
            copy_row(&mut padded[(c * hp + i + ph) * wp + pw..][..w], &x[(c * h + i) * w..][..w]);
        }
    }
    (padded, inside)
}

/// The shape that reads a sample's padded image (`padded_sample`) without padding.
fn padded_shape(s: &ConvShape) -> ConvShape {
    let ([ph, pw], [h, w]) = (s.padding, s.hw);
    ConvShape { hw: [h + 2 * ph, w + 2 * pw], padding: [0, 0], ..*s }
}

/// `dst.copy_from_slice(src)` for the short rows of small images, without a `memcpy` call per row
/// (which took more time than the GEMM in LeNet's second layer, 10-element rows): eight elements at a
/// time, the last eight overlapping. The blocks are guarded one by one, not a `while` loop: LLVM turns
/// a loop of whole-block copies back into a `memcpy` call (it did, and LeNet's step spent 10 % in it).
#[inline(always)]
fn copy_row<T: Copy>(dst: &mut [T], src: &[T]) {
    let n = dst.len();
    if !(8..=64).contains(&n) {
        return dst.copy_from_slice(src);
    }
    let (dst, src) = (&mut dst[..n], &src[..n]);
    let blocks = n / 8;
    for b in 0..8 {
        if b < blocks {
            dst[8 * b..8 * b + 8].copy_from_slice(&src[8 * b..8 * b + 8]);
        }
    }
    if !n.is_multiple_of(8) {
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    }
}

/// `dst += src` elementwise, eight at a time where the row allows (as `copy_row`).
#[inline(always)]
fn add_row<T: Element>(dst: &mut [T], src: &[T]) {
    let n = dst.len();
    let mut i = 0;
    while i + 8 <= n {
        let (d, s) = (&mut dst[i..i + 8], &src[i..i + 8]);
        for j in 0..8 {
            d[j] = T::add(d[j], s[j]);
        }
        i += 8;
    }
    for j in i..n {
        dst[j] = T::add(dst[j], src[j]);
    }
}

/// The adjoint of `im2col_sample`: a sample's column matrix (rows `ld` apart) summed onto its
/// (C, H, W) image, which must start zeroed (or hold what the sums add to).
pub fn col2im_sample<T: Element>(cols: &[T], ld: usize, img: &mut [T], s: &ConvShape) {
    let (ow, sw) = (s.out[1], s.stride[1]);
    if ow == 0 {
        return;
    }
    if s.padding == [0, 0] {
        return col2im_inside(cols, ld, img, s);
    }
    if ow < PADDED_COPY_BELOW_WIDTH {
        // summed onto the padded image, whose inside is then added to `img` (as `padded_sample`)
        let ([ph, pw], [h, w], inside) = (s.padding, s.hw, padded_shape(s));
        let mut padded = crate::pool::filled(s.c_in * inside.plane(), T::ZERO);
        col2im_inside(cols, ld, &mut padded, &inside);
        for c in 0..s.c_in {
            for i in 0..h {
                let src = &padded[(c * inside.hw[0] + i + ph) * inside.hw[1] + pw..][..w];
                add_row(&mut img[(c * h + i) * w..][..w], src);
            }
        }
        crate::pool::give(padded);
        return;
    }
    s.for_each_row(|r, oi, line, lo, hi, first_w| {
        let Some(line) = line else { return };
        let src = &cols[r * ld + oi * ow..][lo..hi];
        let start = (line as isize + first_w + (lo * sw) as isize) as usize;
        if sw == 1 {
            for (d, &v) in img[start..start + src.len()].iter_mut().zip(src) {
                *d = T::add(*d, v);
            }
        } else {
            for (j, &v) in src.iter().enumerate() {
                img[start + j * sw] = T::add(img[start + j * sw], v);
            }
        }
    });
}

/// `col2im_sample` when every tap reads inside (as `im2col_inside`).
fn col2im_inside<T: Element>(cols: &[T], ld: usize, img: &mut [T], s: &ConvShape) {
    let ([kh, kw], [oh, ow], width, sw) = (s.kernel, s.out, s.hw[1], s.stride[1]);
    for c in 0..s.c_in {
        let plane = &mut img[c * s.plane()..][..s.plane()];
        for ki in 0..kh {
            for kj in 0..kw {
                let r = (c * kh + ki) * kw + kj;
                for (oi, src) in cols[r * ld..][..oh * ow].chunks_exact(ow).enumerate() {
                    let start = (oi * s.stride[0] + ki * s.dilation[0]) * width + kj * s.dilation[1];
                    if sw == 1 {
                        add_row(&mut plane[start..start + ow], src);
                    } else {
                        let dst = &mut plane[start..start + (ow - 1) * sw + 1];
                        dst.iter_mut().step_by(sw).zip(src).for_each(|(d, &v)| *d = T::add(*d, v));
                    }
                }
            }
        }
    }
}

/// Samples whose column matrices go side by side into one GEMM: enough for ~1024 columns, so that a
/// small layer (LeNet's second: 16 × 150 weights, 100 positions) still makes a product the GEMM
/// runs near its peak (per sample, that layer's forward ran at 19 GFLOP/s against PyTorch's 46); but
/// fewer, down to ~512, where the column matrix would outgrow the core's L2 (`COLUMNS_IN_CACHE`).
fn block_len(s: &ConvShape) -> usize {
    let columns = (COLUMNS_IN_CACHE / s.ck().max(1)).clamp(512, 1024);
    columns.div_ceil(s.l().max(1)).clamp(1, 64)
}

/// Column-matrix elements that stay in L2 between im2col and the GEMM that reads them (1 MiB of float32).
/// ResNet's 64-channel 3×3 layer on 8×8 images (ck = 576): 16 samples a block (2.4 MB of columns) took
/// 0.87 ms forward, 8 samples 0.65 ms, 4 samples 0.60 ms.
const COLUMNS_IN_CACHE: usize = 1 << 18;

/// A scratch buffer of `len` elements (recycled through the pool: fresh ones cost a page fault per
/// 4 KiB on every call, an eighth of a LeNet layer's backward).
fn scratch<T: Element>(len: usize) -> Vec<T> {
    let mut v = crate::pool::take(len);
    v.resize(len, T::ZERO);
    v
}

/// Output channels from which the weight gradient is computed transposed. Both operands of that product
/// run along the long nb·l side, and gemm takes it about twice as fast with the longer of o and ck as
/// the output's rows: LeNet's second layer (o = 16, ck = 150, nb·l = 1100) 99 µs as g · colsᵀ against
/// 52 µs as cols · gᵀ; its first (o = 6, ck = 25, nb·l = 1568) 5.3 against 6.4 µs.
const TRANSPOSED_WEIGHT_GRAD_FROM: usize = 16;

/// Parts (one per thread) that a batch is split into.
fn parts_of(batch: usize) -> usize {
    threads().min(batch).max(1)
}

/// Runs `part(p, first, end)` on each part of the batch's samples, in parallel.
fn by_samples(batch: usize, part: impl Fn(usize, usize, usize) + Sync) {
    let parts = parts_of(batch);
    par_for(parts, &|p| part(p, batch * p / parts, batch * (p + 1) / parts));
}

fn uninit<T>(v: &mut [T]) -> &mut [MaybeUninit<T>] {
    // Safety: MaybeUninit<T> has T's layout, and what the product writes is a valid T.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<MaybeUninit<T>>(), v.len()) }
}

/// A row-major matrix with rows `ld` apart.
fn rows(ld: usize) -> MatRef {
    MatRef { offset: 0, row_stride: ld, col_stride: 1 }
}

/// (N, C, H, W) input and (O, C, kh, kw) weight (contiguous) → (N, O, out_h, out_w), plus the bias; `then` runs over
/// each block of samples' outputs as soon as they are written.
pub fn conv2d_forward<T: Element>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    s: &ConvShape,
    then: Option<Epilogue<'_, T>>,
) -> Vec<T> {
    let (ck, l, o, c_plane) = (s.ck(), s.l(), s.c_out, s.c_in * s.plane());
    let len = s.batch * o * l;
    let mut out: Vec<T> = crate::pool::take(len);
    let dst = OutPtr(out.spare_capacity_mut().as_mut_ptr().cast::<T>());
    let block = block_len(s);
    by_samples(s.batch, |_, first, end| {
        #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
        let dst = dst;
        let (mut cols, mut prod) = (scratch::<T>(ck * block * l), scratch::<T>(o * block * l));
        for b0 in (first..end).step_by(block) {
            let nb = block.min(end - b0);
            let ld = nb * l;
            for i in 0..nb {
                im2col_sample(&x[(b0 + i) * c_plane..][..c_plane], &mut cols[i * l..], ld, s);
            }
            // (o × ck) · (ck × nb·l), then each sample's o × l block to its place, plus the bias
            matmul_into_serial(uninit(&mut prod[..o * ld]), w, rows(ck), &cols, rows(ld), o, ck, ld);
            for i in 0..nb {
                // Safety: sample b0 + i's o·l outputs belong to this part alone.
                let y = unsafe { std::slice::from_raw_parts_mut(dst.0.add((b0 + i) * o * l), o * l) };
                for (oc, row) in y.chunks_mut(l).enumerate() {
                    let src = &prod[oc * ld + i * l..][..l];
                    match bias {
                        Some(b) => row.iter_mut().zip(src).for_each(|(d, &v)| *d = T::add(v, b[oc])),
                        None => row.copy_from_slice(src),
                    }
                }
            }
            if let Some(then) = then {
                // Safety: samples b0..b0 + nb, all written just above, and written by no one else
                then(b0 * o * l, unsafe { std::slice::from_raw_parts(dst.0.add(b0 * o * l), nb * o * l) });
            }
        }
        crate::pool::give(cols);
        crate::pool::give(prod);
    });
    // Safety: every sample's outputs were written above.
    unsafe { out.set_len(len) };
    out
}

/// The gradients of `conv2d_forward` from the output gradient `g` (N, O, out_h, out_w): input
/// (N, C, H, W), weight (O, C, kh, kw) and bias (O), each only when asked for.
pub fn conv2d_backward<T: Element>(g: &[T], x: &[T], w: &[T], s: &ConvShape, needs: [bool; 3]) -> [Option<Vec<T>>; 3] {
    let (ck, l, o, c_plane) = (s.ck(), s.l(), s.c_out, s.c_in * s.plane());
    let mut gi = needs[0].then(|| crate::pool::filled(s.batch * c_plane, T::ZERO));
    let gi_ptr = OutPtr(gi.as_mut().map_or(std::ptr::null_mut(), |v| v.as_mut_ptr()));
    let parts = parts_of(s.batch);
    // per part: weight gradient (o·ck) then bias gradient (o), summed over the parts afterwards
    let acc_len = o * ck + o;
    let mut partial = vec![T::ZERO; parts * acc_len];
    let partial_ptr = OutPtr(partial.as_mut_ptr());
    let block = block_len(s);
    by_samples(s.batch, |p, first, end| {
        #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointers
        let (gi_ptr, partial_ptr) = (gi_ptr, partial_ptr);
        // Safety: part p's slice of `partial` belongs to it alone.
        let acc = unsafe { std::slice::from_raw_parts_mut(partial_ptr.0.add(p * acc_len), acc_len) };
        let (gw_acc, gb_acc) = acc.split_at_mut(o * ck);
        let (mut cols, mut gblock) = (scratch::<T>(ck * block * l), scratch::<T>(o * block * l));
        let mut prod = vec![T::ZERO; o * ck];
        for b0 in (first..end).step_by(block) {
            let nb = block.min(end - b0);
            let ld = nb * l;
            // the block's output gradients side by side: (o × nb·l)
            for i in 0..nb {
                for (oc, src) in g[(b0 + i) * o * l..][..o * l].chunks(l).enumerate() {
                    gblock[oc * ld + i * l..][..l].copy_from_slice(src);
                }
            }
            let gb = &gblock[..o * ld];
            if needs[1] {
                for i in 0..nb {
                    im2col_sample(&x[(b0 + i) * c_plane..][..c_plane], &mut cols[i * l..], ld, s);
                }
                if o >= TRANSPOSED_WEIGHT_GRAD_FROM {
                    // gwᵀ (ck × o) = cols (ck × nb·l) · gᵀ (nb·l × o), summed in transposed
                    let gt = MatRef { offset: 0, row_stride: 1, col_stride: ld };
                    matmul_into_serial(uninit(&mut prod), &cols, rows(ld), gb, gt, ck, ld, o);
                    for (r, row) in prod.chunks(o).enumerate() {
                        for (oc, &v) in row.iter().enumerate() {
                            gw_acc[oc * ck + r] = T::add(gw_acc[oc * ck + r], v);
                        }
                    }
                } else {
                    // gw (o × ck) = g (o × nb·l) · colsᵀ (nb·l × ck)
                    let ct = MatRef { offset: 0, row_stride: 1, col_stride: ld };
                    matmul_into_serial(uninit(&mut prod), gb, rows(ld), &cols, ct, o, ld, ck);
                    gw_acc.iter_mut().zip(&prod).for_each(|(a, &v)| *a = T::add(*a, v));
                }
            }
            if needs[2] {
                for (b, row) in gb_acc.iter_mut().zip(gb.chunks(ld)) {
                    *b = row.iter().fold(*b, |a, &v| T::add(a, v));
                }
            }
            if needs[0] {
                // wᵀ (ck × o) · g (o × nb·l), then each sample's columns summed back onto its image
                let wt = MatRef { offset: 0, row_stride: 1, col_stride: ck };
                matmul_into_serial(uninit(&mut cols[..ck * ld]), w, wt, gb, rows(ld), ck, o, ld);
                for i in 0..nb {
                    // Safety: sample b0 + i's input gradient belongs to this part alone.
                    let img = unsafe { std::slice::from_raw_parts_mut(gi_ptr.0.add((b0 + i) * c_plane), c_plane) };
                    col2im_sample(&cols[i * l..], ld, img, s);
                }
            }
        }
        crate::pool::give(cols);
        crate::pool::give(gblock);
    });
    let mut sums = partial[..acc_len].to_vec();
    for part in partial.chunks(acc_len).skip(1) {
        sums.iter_mut().zip(part).for_each(|(a, &v)| *a = T::add(*a, v));
    }
    let gb = sums.split_off(o * ck);
    [gi.take(), needs[1].then_some(sums), needs[2].then_some(gb)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_conv(x: &[f64], w: &[f64], s: &ConvShape) -> Vec<f64> {
        let (c, o, [h, wd], [oh, ow], [kh, kw]) = (s.c_in, s.c_out, s.hw, s.out, s.kernel);
        let mut out = vec![0.0; s.batch * o * oh * ow];
        for n in 0..s.batch {
            for oc in 0..o {
                for i in 0..oh {
                    for j in 0..ow {
                        let mut acc = 0.0;
                        for ic in 0..c {
                            for ki in 0..kh {
                                for kj in 0..kw {
                                    let (y, xx) = (s.source(0, i, ki), s.source(1, j, kj));
                                    if y >= 0 && (y as usize) < h && xx >= 0 && (xx as usize) < wd {
                                        let xi = ((n * c + ic) * h + y as usize) * wd + xx as usize;
                                        acc += x[xi] * w[((oc * c + ic) * kh + ki) * kw + kj];
                                    }
                                }
                            }
                        }
                        out[((n * o + oc) * oh + i) * ow + j] = acc;
                    }
                }
            }
        }
        out
    }

    fn shapes() -> Vec<ConvShape> {
        type Pair = [usize; 2];
        let mk = |batch, c_in, c_out, hw: Pair, kernel: Pair, stride: Pair, padding: Pair, dilation: Pair| {
            let out =
                [0, 1].map(|d: usize| (hw[d] + 2 * padding[d] - (dilation[d] * (kernel[d] - 1) + 1)) / stride[d] + 1);
            ConvShape { batch, c_in, c_out, hw, out, kernel, stride, padding, dilation }
        };
        vec![
            mk(3, 1, 2, [8, 9], [5, 5], [1, 1], [0, 0], [1, 1]),
            mk(5, 3, 4, [7, 6], [3, 2], [2, 1], [1, 2], [1, 2]),
            mk(2, 2, 3, [9, 9], [3, 3], [3, 2], [2, 1], [2, 1]),
            // ResNet's 3×3, padding 1, stride 1 (the padded copy), and its stride-2 form (ranges per row)
            mk(4, 3, 5, [8, 8], [3, 3], [1, 1], [1, 1], [1, 1]),
            mk(4, 3, 5, [8, 8], [3, 3], [2, 2], [1, 1], [1, 1]),
            // rows as wide as PADDED_COPY_BELOW_WIDTH and wider: the per-row ranges, at strides 1 and 2
            mk(2, 2, 3, [3, 64], [3, 3], [1, 1], [1, 1], [1, 1]),
            mk(2, 1, 2, [4, 140], [3, 3], [2, 2], [1, 1], [1, 1]),
            // 16 positions: blocks of 64 samples, the last one partial
            mk(70, 2, 3, [6, 6], [3, 3], [1, 1], [0, 0], [1, 1]),
            // enough output channels for the transposed weight gradient, over two blocks
            mk(67, 2, 17, [5, 6], [3, 3], [1, 1], [1, 0], [1, 1]),
        ]
    }

    #[test]
    fn forward_and_gradients_match_the_naive_convolution() {
        for s in shapes() {
            let nx = s.batch * s.c_in * s.plane();
            let nw = s.c_out * s.ck();
            let x: Vec<f64> = (0..nx).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
            let w: Vec<f64> = (0..nw).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
            let b: Vec<f64> = (0..s.c_out).map(|i| i as f64 - 1.5).collect();
            let mut want = naive_conv(&x, &w, &s);
            let per = s.l();
            for (i, v) in want.iter_mut().enumerate() {
                *v += b[i / per % s.c_out];
            }
            assert_eq!(conv2d_forward(&x, &w, Some(&b), &s, None), want, "{s:?}");
            // gradients through the adjoint identity <g, conv(x, w)> = <gi, x> = <gw, w>, exact in integers
            let g: Vec<f64> = (0..want.len()).map(|i| ((i * 3) % 7) as f64 - 3.0).collect();
            let [gi, gw, gb] = conv2d_backward(&g, &x, &w, &s, [true, true, true]);
            let (gi, gw, gb) = (gi.unwrap(), gw.unwrap(), gb.unwrap());
            let y = naive_conv(&x, &w, &s);
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            assert_eq!(dot(&g, &y), dot(&gi, &x), "input gradient {s:?}");
            assert_eq!(dot(&g, &y), dot(&gw, &w), "weight gradient {s:?}");
            // and entry by entry against finite differences of the (linear) naive convolution
            for k in [0, nw / 2, nw - 1] {
                let mut w1 = w.clone();
                w1[k] += 1.0;
                let diff: Vec<f64> = naive_conv(&x, &w1, &s).iter().zip(&y).map(|(a, b)| a - b).collect();
                assert_eq!(dot(&g, &diff), gw[k], "weight {k} {s:?}");
            }
            for k in [0, nx / 3, nx - 1] {
                let mut x1 = x.clone();
                x1[k] += 1.0;
                let diff: Vec<f64> = naive_conv(&x1, &w, &s).iter().zip(&y).map(|(a, b)| a - b).collect();
                assert_eq!(dot(&g, &diff), gi[k], "input {k} {s:?}");
            }
            for (oc, &v) in gb.iter().enumerate() {
                let want: f64 = g.iter().enumerate().filter(|(i, _)| i / per % s.c_out == oc).map(|(_, v)| v).sum();
                assert_eq!(v, want);
            }
            let [none, gw2, none2] = conv2d_backward(&g, &x, &w, &s, [false, true, false]);
            assert!(none.is_none() && none2.is_none() && gw2.unwrap() == gw);
        }
    }

    /// Every row length the block copies handle (and the plain copies either side), at an offset,
    /// with the destination's neighbours left alone.
    #[test]
    fn short_row_copies_match_copy_from_slice() {
        let src: Vec<f32> = (0..80).map(|v| v as f32 + 0.5).collect();
        for n in 0..=70 {
            let mut dst = vec![-1.0f32; n + 3];
            copy_row(&mut dst[1..n + 1], &src[2..n + 2]);
            assert_eq!(&dst[1..n + 1], &src[2..n + 2], "n = {n}");
            assert!(dst[0] == -1.0 && dst[n + 1..].iter().all(|&v| v == -1.0), "n = {n}");
        }
    }
}
