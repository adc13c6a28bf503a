//! Storages read by byte range, for PyTorch's zip checkpoints: the Python side parses the zip directory and
//! the pickle, then asks for each storage record (`archive/data/<key>`) by offset and element count, and for
//! each tensor as a view (sizes, strides, offset) of one of those storages. Everything a file claims is
//! checked here, with overflow-checked arithmetic, before any memory is allocated.
use super::read::Source;
use super::ReadMode;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use memmap2::MmapMut;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// Tensors with more dimensions than this are refused (PyTorch's own limit for most ops).
const MAX_DIMS: usize = 64;

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Runtime(format!("invalid checkpoint: {message}"))
}

/// The bytes `numel` elements of `dtype` take, if the range `offset..` of a source of `len` bytes holds them.
fn checked_range(dtype: DType, offset: u64, numel: usize, len: u64, what: &str) -> Result<()> {
    let bytes = numel.checked_mul(dtype.itemsize()).map(|b| b as u64);
    match bytes.and_then(|b| offset.checked_add(b)) {
        Some(end) if end <= len => Ok(()),
        _ => Err(invalid(format!(
            "{what} claims {numel} elements of {dtype} at byte {offset}, past the end of the {len} bytes there"
        ))),
    }
}

/// A checkpoint file that storages are read from: each read is a copy (`pread`), or with `ReadMode::Map` a
/// view of one private (copy-on-write) mapping of the whole file, shared by every storage read from it.
pub struct RecordFile {
    file: File,
    len: u64,
    map: Option<Arc<MmapMut>>,
}

impl RecordFile {
    pub fn open(path: &Path, mode: ReadMode) -> Result<RecordFile> {
        let file = File::open(path).map_err(|e| Error::io(&e, path))?;
        let meta = file.metadata().map_err(|e| Error::io(&e, path))?;
        if meta.is_dir() {
            return Err(Error::io(&std::io::Error::from_raw_os_error(libc::EISDIR), path));
        }
        let map = match mode {
            ReadMode::Map if meta.len() > 0 => {
                // SAFETY: a private mapping: writes through the tensors stay in this process. The file must not
                // be truncated meanwhile (as with any mapping); ferrograd's saves replace files, never rewrite them.
                let map = unsafe { memmap2::MmapOptions::new().map_copy(&file) }.map_err(|e| Error::io(&e, path))?;
                Some(Arc::new(map))
            }
            _ => None,
        };
        Ok(RecordFile { file, len: meta.len(), map })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `numel` elements of `dtype` starting at byte `offset` of the file, as a storage.
    pub fn storage(&self, dtype: DType, offset: u64, numel: usize, name: &str) -> Result<Arc<Storage>> {
        let len = self.map.as_ref().map_or(self.len, |m| m.len() as u64);
        checked_range(dtype, offset, numel, len, name)?;
        let buffer = match &self.map {
            Some(map) => {
                // the mapping is private and writable: tensors over it may be written (copy-on-write pages)
                let base = map.as_ptr() as *mut u8;
                Source::Map { map: map.clone(), base }.buffer(dtype, offset, numel, name)?
            }
            None => Source::File(&self.file).buffer(dtype, offset, numel, name)?,
        };
        Ok(Arc::new(Storage::new(buffer)))
    }
}

/// `numel` elements of `dtype` copied from `bytes[offset..]`.
pub fn storage_from_bytes(bytes: &[u8], dtype: DType, offset: u64, numel: usize, name: &str) -> Result<Arc<Storage>> {
    checked_range(dtype, offset, numel, bytes.len() as u64, name)?;
    Ok(Arc::new(Storage::new(Source::Bytes(bytes).buffer(dtype, offset, numel, name)?)))
}

/// The tensor with `sizes`, `strides` and `offset` (in elements) over `storage`, once every element it
/// reaches is inside the storage (negative values are refused by the caller's types).
pub fn view_of_storage(storage: &Arc<Storage>, sizes: &[usize], strides: &[usize], offset: usize) -> Result<Tensor> {
    if sizes.len() != strides.len() {
        return Err(invalid(format!("a tensor has {} sizes but {} strides", sizes.len(), strides.len())));
    }
    if sizes.len() > MAX_DIMS {
        return Err(invalid(format!("a tensor has {} dimensions (at most {MAX_DIMS})", sizes.len())));
    }
    let len = storage.read().len();
    let numel = sizes.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    // an empty view reaches no element: any offset is harmless (an empty slice past a storage's end has one)
    let end = match numel {
        Some(0) => Some(0),
        Some(_) => sizes
            .iter()
            .zip(strides)
            .try_fold(offset, |a, (&d, &s)| a.checked_add((d - 1).checked_mul(s)?))
            .and_then(|last| last.checked_add(1)),
        None => None,
    };
    match end {
        Some(end) if end <= len => {}
        _ => {
            return Err(invalid(format!(
                "a tensor (sizes {sizes:?}, strides {strides:?}, storage offset {offset}) reaches past the end of \
                 its storage ({len} elements)"
            )))
        }
    }
    let layout = Layout { shape: sizes.to_vec(), strides: strides.to_vec(), offset };
    Tensor::from_storage(storage.clone(), layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage(n: usize) -> Arc<Storage> {
        Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[n]).unwrap().storage().clone()
    }

    #[test]
    fn views_inside_the_storage_are_made_and_others_refused() {
        let s = storage(6);
        assert_eq!(view_of_storage(&s, &[2, 3], &[3, 1], 0).unwrap().shape(), &[2, 3]);
        assert_eq!(view_of_storage(&s, &[2], &[1], 4).unwrap().storage_offset(), 4);
        assert!(view_of_storage(&s, &[0, 7], &[1, 1], 9).is_ok());
        assert!(view_of_storage(&s, &[2, 3], &[3, 1], 1).is_err());
        assert!(view_of_storage(&s, &[1], &[1], 7).is_err());
        assert!(view_of_storage(&s, &[usize::MAX, 2], &[1, 1], 0).is_err());
        assert!(view_of_storage(&s, &[2, 2], &[usize::MAX, 1], 0).is_err());
        assert!(view_of_storage(&s, &[2], &[1, 1], 0).is_err());
    }

    #[test]
    fn byte_ranges_are_checked_before_reading() {
        let bytes = [0u8; 16];
        assert_eq!(storage_from_bytes(&bytes, DType::F32, 8, 2, "r").unwrap().read().len(), 2);
        assert!(storage_from_bytes(&bytes, DType::F32, 12, 2, "r").is_err());
        assert!(storage_from_bytes(&bytes, DType::F64, u64::MAX, 1, "r").is_err());
        assert!(storage_from_bytes(&bytes, DType::F64, 0, usize::MAX, "r").is_err());
        assert!(storage_from_bytes(&[0, 2], DType::Bool, 0, 2, "r").is_err());
    }
}
