//! `pad` (nn.functional.pad): constant, reflect, replicate and circular modes as index maps.
//!
//! Constant padding writes the input into a tensor filled with the value (`put_flat`, so negative
//! pads crop); the other modes read each output element from a computed input position
//! (`take_flat`), so repeated reads add their gradients. Negative pads crop in every mode, as torch.
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::for_each_index;
use crate::layout::{numel, Layout};
use crate::ops::copy::CopySlices;
use crate::ops::index::positions;
use crate::tensor::Tensor;
use crate::Scalar;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

impl PadMode {
    /// The mode `F.pad(mode=...)` names.
    pub fn from_name(name: &str) -> Result<PadMode> {
        Ok(match name {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "replicate" => PadMode::Replicate,
            "circular" => PadMode::Circular,
            other => bail!(NotImplemented, "Unrecognised padding mode {other}"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }
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

/// The checks torch's reflection and replication kernels make, in their order, over the `k` padded
/// dims (the last ones) of `shape`; returns the output shape.
fn reflect_or_replicate_shape(
    mode: PadMode,
    shape: &[usize],
    pairs: &[(isize, isize)],
    k: usize,
) -> Result<Vec<usize>> {
    let nd = shape.len();
    // a leading batch dim may be empty, no other
    let first = if nd == k + 2 { 1 } else { 0 };
    if shape[first..].contains(&0) {
        bail!(
            Runtime,
            "Expected {}D or {}D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions \
            for input, but got: {shape:?}",
            k + 1,
            k + 2
        );
    }
    if mode == PadMode::Reflect {
        for i in 0..k {
            let d = nd - 1 - i;
            let (s, (b, a)) = (shape[d] as isize, pairs[d]);
            if b >= s || a >= s {
                bail!(
                    Runtime,
                    "Argument #{}: Padding size should be less than the corresponding input dimension, but got: \
                    padding ({b}, {a}) at dimension {d} of input {shape:?}",
                    4 + 2 * i
                );
            }
        }
    }
    let out: Vec<isize> = shape.iter().zip(pairs).map(|(&s, &(b, a))| s as isize + b + a).collect();
    if out[nd - k..].iter().any(|&n| n < 1) {
        let (ins, outs) = (&shape[nd - k..], &out[nd - k..]);
        let names = &["D", "H", "W"][3 - k..];
        if k == 1 {
            bail!(Runtime, "input (W: {}) is too small. Calculated output W: {}", ins[0], outs[0]);
        }
        let calculated: Vec<String> = names.iter().zip(outs).map(|(n, o)| format!("{n}: {o}")).collect();
        let input: Vec<String> = names.iter().zip(ins).map(|(n, i)| format!("{n}: {i}")).collect();
        bail!(
            Runtime,
            "Calculated output {} must be >= 1 in every dimension (input {})",
            calculated.join(" "),
            input.join(", ")
        );
    }
    Ok(out.into_iter().map(|n| n as usize).collect())
}

/// torch's checks for circular padding (each pad at most the dim's size, no negative size), and
/// that what is left after cropping is enough to wrap once (torch's slice copies overlap otherwise).
fn circular_shape(shape: &[usize], pairs: &[(isize, isize)], k: usize) -> Result<Vec<usize>> {
    let nd = shape.len();
    let mut out = shape.to_vec();
    for d in nd - k..nd {
        let (s, (b, a)) = (shape[d] as isize, pairs[d]);
        if b > s || a > s {
            bail!(Runtime, "Padding value causes wrapping around more than once.");
        }
        let n = s + b + a;
        if n < 0 {
            bail!(Runtime, "Negative padding value is resulting in an empty dimension");
        }
        let kept = s - (-b).max(0) - (-a).max(0);
        if b.max(0) > kept || a.max(0) > kept {
            bail!(Runtime, "Padding value causes wrapping around more than once.");
        }
        out[d] = n as usize;
    }
    Ok(out)
}

impl Tensor {
    /// `F.pad`: `value` is what the caller gave (None when it gave none); only constant padding takes
    /// a value other than 0.
    pub fn pad(&self, pad: &[isize], mode: PadMode, value: Option<Scalar>) -> Result<Tensor> {
        let pad = pad.to_vec();
        let eager = move |x: &[&Tensor]| x[0].pad_eager(&pad, mode, value);
        let replay = eager.clone();
        traced("pad", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn pad_eager(&self, pad: &[isize], mode: PadMode, value: Option<Scalar>) -> Result<Tensor> {
        let nd = self.ndim();
        let pairs = pad_pairs(pad, nd)?;
        if mode == PadMode::Constant {
            return self.constant_pad(pad, &pairs, value.unwrap_or(Scalar::Int(0)));
        }
        if value.is_some_and(|v| v.to_f64() != 0.0) {
            bail!(Runtime, "Padding mode \"{}\" doesn't take in value argument", mode.name());
        }
        let k = pad.len() / 2;
        if !(1..=3).contains(&k) || !(nd == k + 1 || nd == k + 2) {
            bail!(
                NotImplemented,
                "Padding size {} is not supported for {nd}D input tensor.\n\
                Supported combinations for non-constant padding:\n  \
                - 2D or 3D input: padding size = 2 (pads last dimension)\n  \
                - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  \
                - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
                pad.len()
            );
        }
        let shape = self.shape();
        let out_shape = match mode {
            PadMode::Circular => circular_shape(shape, &pairs, k)?,
            _ => reflect_or_replicate_shape(mode, shape, &pairs, k)?,
        };
        if mode != PadMode::Circular && self.dtype() == DType::Bool {
            let kernel = if mode == PadMode::Reflect { "reflection" } else { "replication" };
            bail!(NotImplemented, "\"{kernel}_pad{k}d\" not implemented for 'Bool'");
        }
        // one i64 position per output element: a size from the caller's pads, checked before allocating
        crate::alloc::check_new_shape(&out_shape, std::mem::size_of::<i64>())?;
        let mut pos = Vec::with_capacity(numel(&out_shape));
        let strides = Layout::contiguous(shape).strides;
        for_each_index(&out_shape, |o| {
            let mut flat = 0;
            for d in 0..nd {
                let (s, (b, a)) = (shape[d] as isize, pairs[d]);
                // the position in the input (before it: negative)
                let p = o[d] as isize - b;
                let src = match mode {
                    // torch's checks keep p within (-s, 2s - 1): one reflection at most
                    PadMode::Reflect => {
                        let p = p.abs();
                        if p >= s {
                            2 * (s - 1) - p
                        } else {
                            p
                        }
                    }
                    PadMode::Replicate => p.clamp(0, s - 1),
                    _ => {
                        // the cropped input, wrapped
                        let (start, kept) = ((-b).max(0), s - (-b).max(0) - (-a).max(0));
                        start + (o[d] as isize - b.max(0)).rem_euclid(kept.max(1))
                    }
                };
                flat += src as usize * strides[d];
            }
            pos.push(flat as i64);
        });
        let (pos, padding) = (Arc::new(pos), pad.to_vec());
        // torch's node for this mode over `k` padded dims (circular padding is slice copies there)
        match (mode, k) {
            (PadMode::Reflect, 1) => self.take_flat(pos, &out_shape, ReflectionPad1DBackward0 { padding }),
            (PadMode::Reflect, 2) => self.take_flat(pos, &out_shape, ReflectionPad2DBackward0 { padding }),
            (PadMode::Reflect, _) => self.take_flat(pos, &out_shape, ReflectionPad3DBackward0 { padding }),
            (PadMode::Replicate, 1) => self.take_flat(pos, &out_shape, ReplicationPad1DBackward0 { padding }),
            (PadMode::Replicate, 2) => self.take_flat(pos, &out_shape, ReplicationPad2DBackward0 { padding }),
            (PadMode::Replicate, _) => self.take_flat(pos, &out_shape, ReplicationPad3DBackward0 { padding }),
            _ => self.take_flat(pos, &out_shape, CopySlices { geom: Layout::contiguous(&out_shape) }),
        }
    }

    /// Constant padding: the input written into a tensor filled with `value` (negative pads crop).
    fn constant_pad(&self, pad: &[isize], pairs: &[(isize, isize)], value: Scalar) -> Result<Tensor> {
        let (nd, shape) = (self.ndim(), self.shape());
        let mut out_shape = Vec::with_capacity(nd);
        for (&s, &(b, a)) in shape.iter().zip(pairs) {
            let n = s as isize + b + a;
            if n < 0 {
                bail!(Runtime, "narrow(): length must be non-negative.");
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
        let base = Tensor::try_full(&out_shape, value, self.dtype())?;
        base.put_flat(pos, self, false, ConstantPadNdBackward0 { pad: pad.to_vec() })
    }
}

// torch's nodes of the padding modes, with their saved pad lists (last dim first, as given)
crate::backward_rule! {
    pub struct ConstantPadNdBackward0 { pad: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReflectionPad1DBackward0 { padding: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReflectionPad2DBackward0 { padding: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReflectionPad3DBackward0 { padding: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReplicationPad1DBackward0 { padding: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReplicationPad2DBackward0 { padding: Vec<isize> }
}
crate::backward_rule! {
    pub struct ReplicationPad3DBackward0 { padding: Vec<isize> }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[f64]) -> Tensor {
        Tensor::from_vec(values.to_vec(), &[1, 1, values.len()]).unwrap()
    }

    fn padded(pad: &[isize], mode: PadMode) -> Result<Vec<f64>> {
        Ok(row(&[0.0, 1.0, 2.0, 3.0]).pad(pad, mode, None)?.to_vec::<f64>())
    }

    #[test]
    fn negative_pads_crop_in_every_mode() {
        // circular wraps what is left after cropping; reflect and replicate pad the whole input, then crop
        assert_eq!(padded(&[-1, 2], PadMode::Circular).unwrap(), [1.0, 2.0, 3.0, 1.0, 2.0]);
        assert_eq!(padded(&[2, -2], PadMode::Circular).unwrap(), [0.0, 1.0, 0.0, 1.0]);
        assert_eq!(padded(&[-2, 3], PadMode::Reflect).unwrap(), [2.0, 3.0, 2.0, 1.0, 0.0]);
        assert_eq!(padded(&[3, -2], PadMode::Reflect).unwrap(), [3.0, 2.0, 1.0, 0.0, 1.0]);
        assert_eq!(padded(&[-2, 3], PadMode::Replicate).unwrap(), [2.0, 3.0, 3.0, 3.0, 3.0]);
        assert_eq!(padded(&[-1, -1], PadMode::Constant).unwrap(), [1.0, 2.0]);
    }

    #[test]
    fn modes_are_checked_once_with_torch_messages() {
        assert!(PadMode::from_name("wrap").is_err());
        let message = |r: Result<Vec<f64>>| r.unwrap_err().to_string();
        assert!(message(padded(&[5, 0], PadMode::Circular)).contains("wrapping around more than once"));
        assert!(message(padded(&[3, -2], PadMode::Circular)).contains("wrapping around more than once"));
        assert!(message(padded(&[4, 0], PadMode::Reflect)).contains("Argument #4: Padding size should be less"));
        assert!(message(padded(&[-4, 0], PadMode::Replicate)).contains("Calculated output W: 0"));
        let with_value = row(&[1.0]).pad(&[1, 1], PadMode::Reflect, Some(Scalar::Int(2)));
        assert!(with_value.unwrap_err().to_string().contains("doesn't take in value argument"));
    }
}
