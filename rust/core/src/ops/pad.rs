//! `pad` (nn.functional.pad): constant, reflect and replicate modes as index maps.
//!
//! Constant padding writes the input into a tensor filled with the value (`put_flat`, so negative
//! pads crop); reflect and replicate read each output element from a computed input position
//! (`take_flat`), so repeated reads add their gradients.
use crate::bail;
use crate::error::Result;
use crate::layout::{numel, Layout};
use crate::ops::index::{for_each_index, positions};
use crate::tensor::Tensor;
use crate::Scalar;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Reflect,
    Replicate,
}

/// (before, after) for each dim of an `ndim` tensor, from PyTorch's last-dim-first pad list.
fn pad_pairs(pad: &[isize], ndim: usize) -> Result<Vec<(isize, isize)>> {
    if !pad.len().is_multiple_of(2) {
        bail!(Runtime, "Padding length must be divisible by 2");
    }
    if pad.len() / 2 > ndim {
        bail!(
            Runtime,
            "Padding length should be less than or equal to two times the input dimension but got padding \
            length {} and input of dimension {ndim}",
            pad.len()
        );
    }
    let mut pairs = vec![(0, 0); ndim];
    for (i, p) in pad.chunks(2).enumerate() {
        pairs[ndim - 1 - i] = (p[0], p[1]);
    }
    Ok(pairs)
}

impl Tensor {
    pub fn pad(&self, pad: &[isize], mode: PadMode, value: Scalar) -> Result<Tensor> {
        let nd = self.ndim();
        let pairs = pad_pairs(pad, nd)?;
        let shape = self.shape();
        if mode == PadMode::Constant {
            let mut out_shape = Vec::with_capacity(nd);
            for (d, (&s, &(b, a))) in shape.iter().zip(&pairs).enumerate() {
                let n = s as isize + b + a;
                if n < 0 {
                    bail!(
                        Runtime,
                        "The input size {s}, plus negative padding {b} and {a} resulted in a negative \
                        output size, which is invalid. Check dimension {d} of your input."
                    );
                }
                out_shape.push(n as usize);
            }
            let geom = Layout::contiguous(&out_shape);
            let pos = positions(shape, &geom, |i, o| {
                for d in 0..nd {
                    let p = i[d] as isize + pairs[d].0;
                    if p < 0 || p >= out_shape[d] as isize {
                        return false; // cropped by a negative pad
                    }
                    o[d] = p as usize;
                }
                true
            });
            let base = Tensor::full(&out_shape, value, self.dtype());
            return base.put_flat(pos, self, false, "ConstantPadNdBackward0");
        }
        let k = pad.len() / 2;
        if !(1..=3).contains(&k) || !(nd == k + 1 || nd == k + 2) {
            bail!(NotImplemented, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
        }
        if pad.iter().any(|&p| p < 0) {
            bail!(NotImplemented, "negative padding is only supported in constant mode");
        }
        let mut out_shape = Vec::with_capacity(nd);
        for (d, (&s, &(b, a))) in shape.iter().zip(&pairs).enumerate() {
            let limit = if mode == PadMode::Reflect { s as isize } else { isize::MAX };
            if mode == PadMode::Reflect && (b >= limit || a >= limit) {
                bail!(
                    Runtime,
                    "Argument #4: Padding size should be less than the corresponding input dimension, but \
                    got: padding ({b}, {a}) at dimension {d} of input {shape:?}"
                );
            }
            if mode == PadMode::Replicate && s == 0 && (b > 0 || a > 0) || s as isize + b + a < 0 {
                bail!(
                    Runtime,
                    "input tensor must have non-zero size in padded dims, or padding would leave output \
                    size {} < 1 at dimension {d}",
                    s as isize + b + a
                );
            }
            out_shape.push((s as isize + b + a) as usize);
        }
        let mut pos = Vec::with_capacity(numel(&out_shape));
        let strides = Layout::contiguous(shape).strides;
        for_each_index(&out_shape, |o| {
            let mut flat = 0;
            for d in 0..nd {
                let (s, p) = (shape[d] as isize, o[d] as isize - pairs[d].0);
                let src = match mode {
                    PadMode::Reflect => {
                        let p = p.abs();
                        if p >= s {
                            2 * (s - 1) - p
                        } else {
                            p
                        }
                    }
                    _ => p.clamp(0, s - 1),
                };
                flat += src as usize * strides[d];
            }
            pos.push(flat as i64);
        });
        let name = match (mode, k) {
            (PadMode::Reflect, 1) => "ReflectionPad1DBackward0",
            (PadMode::Reflect, 2) => "ReflectionPad2DBackward0",
            (PadMode::Reflect, _) => "ReflectionPad3DBackward0",
            (_, 1) => "ReplicationPad1DBackward0",
            (_, 2) => "ReplicationPad2DBackward0",
            _ => "ReplicationPad3DBackward0",
        };
        self.take_flat(Arc::new(pos), &out_shape, name)
    }
}
