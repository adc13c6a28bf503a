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

/// CRC-32 (IEEE, as zip uses) tables for slice-by-8: `TABLES[k][b]` is the CRC of byte `b` followed by `k` zeros.
const CRC_TABLES: [[u32; 256]; 8] = crc_tables();

const fn crc_tables() -> [[u32; 256]; 8] {
    let mut tables = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        tables[0][i] = c;
        i += 1;
    }
    let mut t = 1;
    while t < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = tables[t - 1][i];
            tables[t][i] = (prev >> 8) ^ tables[0][(prev & 0xFF) as usize];
            i += 1;
        }
        t += 1;
    }
    tables
}

/// The CRC-32 of `bytes` (zip's checksum of a record).
pub fn crc32(bytes: &[u8]) -> u32 {
    let t = &CRC_TABLES;
    let mut crc = !0u32;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let lo = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        crc = t[7][(lo & 0xFF) as usize]
            ^ t[6][((lo >> 8) & 0xFF) as usize]
            ^ t[5][((lo >> 16) & 0xFF) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][c[4] as usize]
            ^ t[2][c[5] as usize]
            ^ t[1][c[6] as usize]
            ^ t[0][c[7] as usize];
    }
    for &b in chunks.remainder() {
        crc = (crc >> 8) ^ t[0][((crc ^ b as u32) & 0xFF) as usize];
    }
    !crc
}

/// Writes the whole of `bytes` to the open file descriptor `fd` at its position.
pub fn write_all_fd(fd: i32, bytes: &[u8]) -> Result<()> {
    let mut done = 0;
    while done < bytes.len() {
        // SAFETY: the pointer and length describe the live slice `bytes[done..]`.
        let n = unsafe { libc::write(fd, bytes[done..].as_ptr() as *const libc::c_void, bytes.len() - done) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::Runtime(format!("writing the checkpoint failed: {err}")));
        }
        done += n as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_the_standard_check_values() {
        assert_eq!(super::crc32(b""), 0);
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
        let long: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let bytewise =
            long.iter().fold(!0u32, |c, &b| (c >> 8) ^ super::CRC_TABLES[0][((c ^ b as u32) & 0xFF) as usize]);
        assert_eq!(super::crc32(&long), !bytewise);
    }

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
