//! `pixel_shuffle` and `pixel_unshuffle`: channels traded for a picture `r` times taller and wider, or back.
//! Each is a reshape, a permutation and one copy; the gradient of one is the other.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::error::Result;
use crate::tensor::Tensor;

/// Which way the channels go: into the picture (shuffle) or out of it (unshuffle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Shuffle,
    Unshuffle,
}

impl Direction {
    fn op(self) -> &'static str {
        match self {
            Direction::Shuffle => "pixel_shuffle",
            Direction::Unshuffle => "pixel_unshuffle",
        }
    }
    fn factor(self) -> &'static str {
        match self {
            Direction::Shuffle => "upscale_factor",
            Direction::Unshuffle => "downscale_factor",
        }
    }
}

impl Tensor {
    /// (*, C·r², H, W) → (*, C, H·r, W·r): each group of r² channels spread over an r×r block of pixels.
    pub fn pixel_shuffle(&self, upscale_factor: i64) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].pixel_shuffle_eager(upscale_factor);
        traced("pixel_shuffle", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn pixel_shuffle_eager(&self, upscale_factor: i64) -> Result<Tensor> {
        let out = self.detach().rearrange_pixels(upscale_factor, Direction::Shuffle)?;
        Ok(record(out, &[self], |_| PixelShuffleBackward0 { upscale_factor }))
    }

    /// (*, C, H·r, W·r) → (*, C·r², H, W): the inverse of `pixel_shuffle`.
    pub fn pixel_unshuffle(&self, downscale_factor: i64) -> Result<Tensor> {
        let eager = move |x: &[&Tensor]| x[0].pixel_unshuffle_eager(downscale_factor);
        traced("pixel_unshuffle", NodeKind::Opaque, &[self], || eager(&[self]), || eager)
    }

    fn pixel_unshuffle_eager(&self, downscale_factor: i64) -> Result<Tensor> {
        let out = self.detach().rearrange_pixels(downscale_factor, Direction::Unshuffle)?;
        Ok(record(out, &[self], |_| PixelUnshuffleBackward0 { downscale_factor }))
    }

    /// The shuffle's values: the last three dims split as (C, r, r, H, W) ↔ (C, H, r, W, r), then copied.
    fn rearrange_pixels(&self, factor: i64, direction: Direction) -> Result<Tensor> {
        let (op, n) = (direction.op(), self.ndim());
        if n < 3 {
            bail!(Runtime, "{op} expects input to have at least 3 dimensions, but got input with {n} dimension(s)");
        }
        if factor <= 0 {
            bail!(Runtime, "{op} expects a positive {}, but got {factor}", direction.factor());
        }
        let r = usize::try_from(factor).expect("positive");
        let (lead, chw) = self.shape().split_at(n - 3);
        let (c, h, w) = (chw[0], chw[1], chw[2]);
        let too_large = || crate::error::Error::Runtime(format!("{op}: {} {r} is too large", direction.factor()));
        let (blocked, picture, out_chw) = match direction {
            Direction::Shuffle => {
                let rr = r.checked_mul(r).ok_or_else(too_large)?;
                if c % rr != 0 {
                    bail!(
                        Runtime,
                        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of \
                         upscale_factor, but input.size(-3)={c} is not divisible by {rr}"
                    );
                }
                let (hr, wr) = (h.checked_mul(r).ok_or_else(too_large)?, w.checked_mul(r).ok_or_else(too_large)?);
                ([c / rr, r, r, h, w], [0, 3, 1, 4, 2], [c / rr, hr, wr])
            }
            Direction::Unshuffle => {
                for (side, size, d) in [("height", h, -2), ("width", w, -1)] {
                    if size % r != 0 {
                        bail!(
                            Runtime,
                            "pixel_unshuffle expects {side} to be divisible by downscale_factor, but \
                             input.size({d})={size} is not divisible by {r}"
                        );
                    }
                }
                let rr = r.checked_mul(r).ok_or_else(too_large)?;
                let cr = c.checked_mul(rr).ok_or_else(too_large)?;
                ([c, h / r, r, w / r, r], [0, 2, 4, 1, 3], [cr, h / r, w / r])
            }
        };
        let b = lead.len();
        let split: Vec<usize> = lead.iter().copied().chain(blocked).collect();
        let perm: Vec<isize> = (0..b).chain(picture.iter().map(|p| b + p)).map(|d| d as isize).collect();
        let out_shape: Vec<usize> = lead.iter().copied().chain(out_chw).collect();
        self.reshape(&split)?.permute(&perm)?.contiguous()?.reshape(&out_shape)
    }
}

crate::backward_rule! {
    /// `pixel_shuffle(r)`: the gradient unshuffled.
    pub struct PixelShuffleBackward0 {
        upscale_factor: i64,
    }
}
impl Backward for PixelShuffleBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.pixel_unshuffle(self.upscale_factor))
    }
}

crate::backward_rule! {
    /// `pixel_unshuffle(r)`: the gradient shuffled.
    pub struct PixelUnshuffleBackward0 {
        downscale_factor: i64,
    }
}
impl Backward for PixelUnshuffleBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.pixel_shuffle(self.downscale_factor))
    }
}
