//! `max_unpool2d` / `max_unpool3d`: a max pool's partial inverse. Each input value is written into a
//! zero output at the flat position its index gives within its (H, W) or (D, H, W) plane; the gradient
//! reads the output's gradient back at those positions (a gather, so it differentiates again).
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::with_dtype;

/// How many spatial dims an unpool fills: two (`max_unpool2d`) or three (`max_unpool3d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnpoolDims {
    Two,
    Three,
}

impl UnpoolDims {
    fn count(self) -> usize {
        match self {
            UnpoolDims::Two => 2,
            UnpoolDims::Three => 3,
        }
    }
    fn op_name(self) -> &'static str {
        match self {
            UnpoolDims::Two => "max_unpool2d",
            UnpoolDims::Three => "max_unpool3d",
        }
    }
    fn kernel_name(self) -> &'static str {
        match self {
            UnpoolDims::Two => "max_unpooling2d",
            UnpoolDims::Three => "max_unpooling3d",
        }
    }
}

impl AsField for UnpoolDims {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

impl Tensor {
    /// `max_unpool2d` / `max_unpool3d` to the spatial `output_size`, with torch's checks in its order;
    /// `stride` is the 3-D op's (which checks it is positive). Of two values with one index, the later wins
    /// (torch's kernel writes each plane in order).
    pub fn max_unpool(
        &self,
        indices: &Tensor,
        output_size: &[usize],
        stride: Option<&[i64]>,
        dims: UnpoolDims,
    ) -> Result<Tensor> {
        let n = dims.count();
        if indices.dtype() != crate::DType::I64 {
            bail!(Runtime, "elements in indices should be type int64 but got: {}", indices.dtype().scalar_type_name());
        }
        let nd = self.ndim();
        if nd != n + 1 && nd != n + 2 {
            bail!(
                Runtime,
                "Input to {} should be a {}d or {}d Tensor, but got a tensor with {nd} dimensions.",
                dims.kernel_name(),
                n + 1,
                n + 2
            );
        }
        if output_size.len() != n {
            bail!(Runtime, "{}: output_size must have {n} elements, got {}", dims.op_name(), output_size.len());
        }
        if self.shape() != indices.shape() {
            bail!(
                Runtime,
                "Expected shape of indices to be same as that of the input tensor ({:?}) but got indices tensor \
                with shape: {:?}",
                self.shape(),
                indices.shape()
            );
        }
        if let Some(d) = (1..nd).find(|&d| self.shape()[d] == 0) {
            bail!(
                Runtime,
                "{}_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but input \
                has sizes {:?} with dimension {d} being empty",
                dims.kernel_name(),
                self.shape()
            );
        }
        if let Some(stride) = stride {
            if stride.iter().any(|&s| s <= 0) {
                bail!(Runtime, "strides should be greater than zero, but got stride: {stride:?}");
            }
        }
        if !self.dtype().is_float() {
            bail!(NotImplemented, "\"{}\" not implemented for '{}'", dims.op_name(), self.dtype().scalar_type_name());
        }
        let lead = &self.shape()[..nd - n];
        let mut shape = lead.to_vec();
        shape.extend_from_slice(output_size);
        crate::alloc::check_new_shape(&shape, self.dtype().itemsize())?;
        let out_plane: usize = output_size.iter().product();
        let in_plane: usize = self.shape()[nd - n..].iter().product();
        let idx = indices.to_vec::<i64>();
        let out = with_dtype!(self.dtype(), T => {
            let mut out = crate::pool::try_filled(crate::layout::numel(&shape), T::ZERO)?;
            // an empty output plane takes nothing (torch checks no index then)
            if out_plane > 0 {
                let values = self.to_vec::<T>();
                // torch's kernel writes on past a bad index and reports the last one
                let mut invalid = None;
                for (p, (vals, at)) in values.chunks(in_plane).zip(idx.chunks(in_plane)).enumerate() {
                    for (&v, &i) in vals.iter().zip(at) {
                        if i < 0 || i as u64 >= out_plane as u64 {
                            invalid = Some(i);
                        } else {
                            out[p * out_plane + i as usize] = v;
                        }
                    }
                }
                if let Some(i) = invalid {
                    let sizes: Vec<String> = output_size.iter().map(ToString::to_string).collect();
                    bail!(Runtime, "Found an invalid max index: {i} (output volumes are of size {})", sizes.join("x"));
                }
            }
            Tensor::from_vec(out, &shape)?
        });
        let rule = |_: &Tensor| MaxUnpoolBackward { dims, indices: SavedTensor::input(indices) };
        Ok(record(out, &[self], rule))
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.dims) {
        UnpoolDims::Two => "MaxUnpool2DBackward0",
        UnpoolDims::Three => "MaxUnpool3DBackward0",
    };
    /// `max_unpool2d`/`3d`: the gradient at each input element is the output's gradient at its index in
    /// its plane (torch's `max_pool_double_backward`: a gather over the flattened planes).
    pub struct MaxUnpoolBackward {
        dims: UnpoolDims,
        indices: SavedTensor,
    }
}
impl Backward for MaxUnpoolBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let indices = ctx.unpack(&self.indices)?;
        let n = self.dims.count() as isize;
        let last = g.ndim() as isize - 1;
        let gathered = g.flatten(last + 1 - n, last)?.gather(-1, &indices.flatten(last + 1 - n, last)?)?;
        one(gathered.reshape(indices.shape()))
    }
}
