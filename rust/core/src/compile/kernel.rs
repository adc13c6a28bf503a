//! The slice-kernel handles a node may carry for fusion: captured from the node's own op when it is
//! recorded (`traced_fusable`), each is the very function eager's contiguous fast path calls for that op
//! and dtype (the unary registry's per-dtype slice kernel, the binary op's contiguous or scalar kernel,
//! the reduction's run kernel). `fuse.rs` runs a chain chunk by chunk through them; nodes without one
//! are replayed node by node.
use crate::kernels::threads::OutPtr;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// `out[i] = f(x[i])` over one contiguous chunk (a unary op, or a binary op with its number folded in).
pub(crate) type MapFn<T> = Arc<dyn Fn(&mut [MaybeUninit<T>], &[T]) + Send + Sync>;
/// `out[i] = f(a[i], b[i])` over two contiguous chunks of one length.
pub(crate) type ZipFn<T> = Arc<dyn Fn(&mut [MaybeUninit<T>], &[T], &[T]) + Send + Sync>;

/// An elementwise node's kernel for one dtype.
#[derive(Clone)]
pub(crate) enum Elementwise<T> {
    /// Reads `operands[operand]` (the node's only graph value; the other operand, if any, is a number
    /// folded into `f` as eager's scalar path folds it).
    Map { operand: usize, f: MapFn<T> },
    /// Reads `operands[0]` and `operands[1]`, both graph values of the output's shape.
    Zip(ZipFn<T>),
}

/// A full reduction that can close a fused chain: each chunk is reduced by the op's run kernel
/// (`kernels::sum::sum_run`, `ops::extreme::extreme_run`), then the chunks' results are combined in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Extreme { is_max: bool },
}

/// A sum, mean, amax or amin over the last dim, kept (`[.., C]` to `[.., 1]`), that a row group (`fuse/rows.rs`) runs
/// row by row: a sum with the run kernel eager's last-dim sum calls for each row (`kernels::sum::sum_run`, then `/ C`
/// for a mean), an extreme by eager's rule (`ops::extreme::extreme_run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowReduction {
    Sum,
    Mean,
    Extreme { is_max: bool },
}

/// What a node can be fused with.
#[derive(Clone)]
pub(crate) enum SliceKernel {
    F32(Elementwise<f32>),
    F64(Elementwise<f64>),
    /// Float32 or float64 in, the same dtype out.
    Reduce(Reduction),
    /// Over rows of `row` elements (the operand's last dim at capture, which guards keep).
    RowReduce {
        reduction: RowReduction,
        row: usize,
    },
}

impl SliceKernel {
    /// A map kernel reading operand `operand`, for a float dtype.
    pub(crate) fn map<F32, F64>(dtype: crate::DType, operand: usize, f32: F32, f64: F64) -> Option<SliceKernel>
    where
        F32: FnOnce() -> MapFn<f32>,
        F64: FnOnce() -> MapFn<f64>,
    {
        match dtype {
            crate::DType::F32 => Some(SliceKernel::F32(Elementwise::Map { operand, f: f32() })),
            crate::DType::F64 => Some(SliceKernel::F64(Elementwise::Map { operand, f: f64() })),
            _ => None,
        }
    }

    /// The operand indices this kernel reads as chunks (for the capture's checks).
    pub(crate) fn reads(&self) -> Vec<usize> {
        let elementwise = |operand: Option<usize>| operand.map_or(vec![0, 1], |k| vec![k]);
        match self {
            SliceKernel::F32(Elementwise::Map { operand, .. }) | SliceKernel::F64(Elementwise::Map { operand, .. }) => {
                elementwise(Some(*operand))
            }
            SliceKernel::F32(Elementwise::Zip(_)) | SliceKernel::F64(Elementwise::Zip(_)) => elementwise(None),
            SliceKernel::Reduce(_) | SliceKernel::RowReduce { .. } => vec![0],
        }
    }

    pub(crate) fn is_elementwise(&self) -> bool {
        !matches!(self, SliceKernel::Reduce(_) | SliceKernel::RowReduce { .. })
    }

    /// The map kernel for dtype `T`, if this is one.
    pub(crate) fn map_fn<T: 'static>(&self) -> Option<&MapFn<T>> {
        let f: &dyn std::any::Any = match self {
            SliceKernel::F32(Elementwise::Map { f, .. }) => f,
            SliceKernel::F64(Elementwise::Map { f, .. }) => f,
            _ => return None,
        };
        f.downcast_ref()
    }
}

/// An elementwise op's map kernel for a product to run over each part of its output as soon as that part is made
/// (`fuse/epilogue.rs`), while it is in cache: the mapped values go to a buffer of their own, and the product's
/// values stay as they are.
pub(crate) struct MapAfter<'a> {
    pub(crate) kernel: &'a SliceKernel,
    /// The mapped values, without history; None when the product took a path that does not run the map.
    pub(crate) out: Option<crate::tensor::Tensor>,
}

impl<'a> MapAfter<'a> {
    /// The buffer for the map over a product of `len` elements of dtype `T`, when the map is for that dtype.
    pub(crate) fn output<T: crate::element::Element>(
        then: Option<&MapAfter<'a>>,
        len: usize,
    ) -> Option<MappedOutput<'a, T>> {
        let f = then?.kernel.map_fn::<T>()?;
        let mut values: Vec<T> = crate::pool::take(len);
        let at = OutPtr(values.as_mut_ptr());
        Some(MappedOutput { f, values, at, len })
    }
}

/// Where a map run as a product's epilogue writes: a buffer of the product's length, filled part by part.
pub(crate) struct MappedOutput<'a, T> {
    f: &'a MapFn<T>,
    values: Vec<T>,
    at: OutPtr<T>,
    len: usize,
}

impl<T: crate::element::Element> MappedOutput<'_, T> {
    /// The map over the product's elements `first..first + part.len()`, into the same elements of the buffer (what a
    /// `kernels::matmul::Epilogue` calls).
    pub(crate) fn map_part(&self, first: usize, part: &[T]) {
        assert!(first.checked_add(part.len()).is_some_and(|end| end <= self.len), "a product's part leaves its output");
        // SAFETY: inside the buffer's capacity of `len` (asserted); a product hands over parts that never overlap, so
        // no two calls write the same slot.
        let dst = unsafe { std::slice::from_raw_parts_mut(self.at.0.add(first).cast::<MaybeUninit<T>>(), part.len()) };
        (self.f)(dst, part)
    }

    /// The mapped values as a tensor of `shape`, into `then.out`.
    ///
    /// Safety: `map_part` ran over every one of the product's `len` elements.
    pub(crate) unsafe fn finish(mut self, then: &mut MapAfter, shape: &[usize]) -> crate::error::Result<()> {
        // SAFETY: the caller's contract: every slot was written by the map
        unsafe { self.values.set_len(self.len) };
        then.out = Some(crate::tensor::Tensor::from_vec(self.values, shape)?);
        Ok(())
    }
}

/// An elementwise op's record over `values`, made from `input` by the op's own kernel elsewhere (a product's
/// epilogue): eager's node with eager's saved tensors, as if the op had run (in the current grad mode).
pub(crate) type RecordFn =
    Arc<dyn Fn(&crate::tensor::Tensor, crate::tensor::Tensor) -> crate::tensor::Tensor + Send + Sync>;

/// A product op (`linear`, `addmm`, `convolution`) as its node replays it, with a map to run over its output as it is
/// made: the op's eager entry point, the same code, with the map handed down to its kernel.
pub(crate) type ProductFn = Arc<
    dyn Fn(&[&crate::tensor::Tensor], &mut MapAfter<'_>) -> crate::error::Result<crate::tensor::Tensor> + Send + Sync,
>;
