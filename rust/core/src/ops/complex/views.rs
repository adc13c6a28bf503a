//! `view_as_real` and `view_as_complex`: one storage read as complex elements or as their (re, im) pairs.
use crate::autograd::{one, record, Backward, Ctx, Grads};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use crate::{bail, Error};
use std::sync::Arc;

/// The size of the last dim of a complex tensor's real view: (re, im).
const PAIR: usize = 2;

impl Tensor {
    /// A view of this tensor's storage through `layout` read as `dtype` (a complex tensor's pairs, or pairs read
    /// as complex elements), with no history.
    pub(crate) fn view_with_dtype(&self, layout: Layout, dtype: DType) -> Tensor {
        let mut t = Tensor::from_parts(self.0.storage.clone(), layout, dtype);
        Arc::get_mut(&mut t.0).expect("fresh tensor").is_view = true;
        t
    }

    /// `torch.view_as_real`: a complex tensor's (re, im) pairs as a real tensor with a last dim of size 2,
    /// sharing its storage.
    pub fn view_as_real(&self) -> Result<Tensor> {
        if !self.is_complex() {
            bail!(Type, "view_as_real is only supported for complex tensors");
        }
        Ok(record(self.pairs(), &[self], |_| ViewAsRealBackward0))
    }

    /// The complex layout a real tensor's pairs make, with torch's checks (`view_as_complex`).
    fn complex_layout(&self) -> Result<Layout> {
        if !matches!(self.dtype(), DType::F32 | DType::F64) {
            return Err(Error::NotImplemented(format!(
                "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar \
                type: {}",
                self.dtype().scalar_type_name()
            )));
        }
        let layout = self.layout();
        let Some((&last, outer)) = layout.shape.split_last() else {
            bail!(Runtime, "Input tensor must have one or more dimensions");
        };
        if last != PAIR {
            bail!(Runtime, "Tensor must have a last dimension of size 2");
        }
        let (&last_stride, outer_strides) = layout.strides.split_last().expect("as many strides as dims");
        if last_stride != 1 {
            bail!(Runtime, "Tensor must have a last dimension with stride 1");
        }
        if outer_strides.iter().any(|s| !s.is_multiple_of(PAIR)) {
            bail!(Runtime, "Tensor must have a stride divisible by 2 for all but last dimension");
        }
        if !layout.offset.is_multiple_of(PAIR) {
            bail!(Runtime, "Tensor must have a storage_offset divisible by 2");
        }
        Ok(Layout {
            shape: outer.to_vec(),
            strides: outer_strides.iter().map(|s| s / PAIR).collect(),
            offset: layout.offset / PAIR,
        })
    }

    /// `torch.view_as_complex`: a float tensor whose last dim holds (re, im) pairs as a complex tensor sharing
    /// its storage.
    pub fn view_as_complex(&self) -> Result<Tensor> {
        let layout = self.complex_layout()?;
        let out = self.view_with_dtype(layout, self.dtype().to_complex());
        Ok(record(out, &[self], |_| ViewAsComplexBackward0))
    }

    /// `view_as_complex` of pairs laid out in any way (a gradient may be expanded, or start at an odd offset):
    /// a copy when they cannot be viewed.
    pub(crate) fn pairs_as_complex(&self) -> Result<Tensor> {
        if self.complex_layout().is_ok() {
            return self.view_as_complex();
        }
        // a fresh row-major copy starts at offset 0 with a last stride of 1
        let dense = if self.is_contiguous() { self.clone_tensor()? } else { self.contiguous()? };
        dense.view_as_complex()
    }
}

crate::backward_rule! {
    /// `view_as_real`: the pairs' gradient read as complex numbers (dL/dre + i dL/dim).
    pub struct ViewAsRealBackward0;
}
impl Backward for ViewAsRealBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.pairs_as_complex())
    }
}

crate::backward_rule! {
    /// `view_as_complex`: the complex gradient's pairs.
    pub struct ViewAsComplexBackward0;
}
impl Backward for ViewAsComplexBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.view_as_real())
    }
}
