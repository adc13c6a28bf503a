//! Meta tensors (torch's `device='meta'`): shape, dtype and strides over a storage with no elements. View ops
//! only restride and so work on them unchanged; copies (clone, contiguous, casts) make new meta tensors; any
//! other kernel reaches the storage's `read`/`write`, which refuse it (`Storage::new_meta`).
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::sync::Arc;

impl Tensor {
    /// A contiguous meta tensor of `shape`: nothing is allocated however large it is, but its size must still
    /// be one torch could describe.
    pub fn meta(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let numel = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        let bytes = numel.and_then(|n| n.checked_mul(dtype.itemsize().max(1)));
        if !shape.contains(&0) && bytes.is_none_or(|b| b > isize::MAX as usize) {
            return Err(Error::Runtime(format!("Storage size calculation overflowed with sizes={shape:?}")));
        }
        Ok(Tensor::from_parts(Arc::new(Storage::new_meta(dtype)), Layout::contiguous(shape), dtype))
    }

    pub fn is_meta(&self) -> bool {
        self.0.storage.is_meta()
    }

    /// A meta tensor in `dtype` laid out in this tensor's memory order (torch's `preserve_format`), with no
    /// history: what `to('meta')` makes of any tensor.
    pub fn to_meta(&self, dtype: DType) -> Result<Tensor> {
        self.detach().map_in_memory_order(|x| Tensor::meta(x.shape(), dtype))
    }
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType;
    use crate::tensor::Tensor;

    #[test]
    fn a_meta_tensor_of_a_trillion_elements_allocates_nothing() {
        let t = Tensor::meta(&[1_000_000, 1_000_000], DType::F32).unwrap();
        assert!(t.is_meta());
        assert_eq!(t.numel(), 1_000_000_000_000);
        assert_eq!(t.storage().len(), 0);
        assert!(Tensor::meta(&[usize::MAX, 2], DType::F32).is_err());
    }

    #[test]
    fn reading_a_meta_tensor_unwinds_with_the_refusal_not_a_panic_message() {
        let t = Tensor::meta(&[3], DType::F32).unwrap();
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.to_vec::<f32>())).unwrap_err();
        let e = payload.downcast::<crate::Error>().expect("an Error payload");
        assert!(e.to_string().contains("attempted to run this operator with Meta tensors"));
    }

    #[test]
    fn clone_and_views_keep_the_shape_and_stay_meta() {
        let t = Tensor::meta(&[2, 3], DType::F64).unwrap();
        let c = t.permute(&[1, 0]).unwrap().clone_tensor().unwrap();
        assert!(c.is_meta());
        assert_eq!((c.shape(), c.strides()), (&[3, 2][..], &[1, 3][..]));
        let cast = t.to_dtype(DType::F32).unwrap();
        assert_eq!((cast.dtype(), cast.is_meta()), (DType::F32, true));
    }
}
