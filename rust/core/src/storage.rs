//! Typed element buffers, shared by every view of a tensor and versioned for in-place checks.
use crate::dtype::DType;
use crate::error::{Error, Result};
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};

/// Elements owned by ferrograd, or borrowed from another owner (a numpy array) that is kept alive.
pub struct Data<T: Send + 'static> {
    ptr: *mut T,
    len: usize,
    owner: Owner<T>,
}

enum Owner<T> {
    Vec(Vec<T>),
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

impl<T: Send + 'static> Drop for Data<T> {
    fn drop(&mut self) {
        if let Owner::Vec(v) = &mut self.owner {
            crate::pool::give(std::mem::take(v));
        }
    }
}

// Safety: `Data` is either a Vec (Send + Sync for these element types) or memory kept alive by a
// Send + Sync owner; access goes through the storage's lock.
unsafe impl<T: Send + 'static> Send for Data<T> {}
unsafe impl<T: Send + Sync + 'static> Sync for Data<T> {}

impl<T: Send + 'static> Data<T> {
    pub fn from_vec(mut v: Vec<T>) -> Self {
        Data { ptr: v.as_mut_ptr(), len: v.len(), owner: Owner::Vec(v) }
    }

    /// # Safety
    /// `ptr` must point to `len` initialised, aligned elements that stay valid while `owner` lives.
    pub unsafe fn from_external(ptr: *mut T, len: usize, owner: Box<dyn Any + Send + Sync>) -> Self {
        Data { ptr, len, owner: Owner::External(owner) }
    }

    /// Whether ferrograd owns the memory (not borrowed from, say, a numpy array).
    pub fn is_owned(&self) -> bool {
        matches!(self.owner, Owner::Vec(_))
    }

    pub fn as_slice(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

/// One variant per dtype, named as the dtype; `for_each_buffer!` reaches the data whatever the variant.
pub enum Buffer {
    Bool(Data<bool>),
    U8(Data<u8>),
    I8(Data<i8>),
    I16(Data<i16>),
    I32(Data<i32>),
    I64(Data<i64>),
    F16(Data<half::f16>),
    BF16(Data<half::bf16>),
    F32(Data<f32>),
    F64(Data<f64>),
}

/// Runs `$body` with `$d` bound to the buffer's data, whichever dtype it holds.
macro_rules! for_each_buffer {
    ($buffer:expr, $d:ident => $body:expr) => {
        match $buffer {
            Buffer::Bool($d) => $body,
            Buffer::U8($d) => $body,
            Buffer::I8($d) => $body,
            Buffer::I16($d) => $body,
            Buffer::I32($d) => $body,
            Buffer::I64($d) => $body,
            Buffer::F16($d) => $body,
            Buffer::BF16($d) => $body,
            Buffer::F32($d) => $body,
            Buffer::F64($d) => $body,
        }
    };
}

impl Buffer {
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::U8(_) => DType::U8,
            Buffer::I8(_) => DType::I8,
            Buffer::I16(_) => DType::I16,
            Buffer::I32(_) => DType::I32,
            Buffer::I64(_) => DType::I64,
            Buffer::F16(_) => DType::F16,
            Buffer::BF16(_) => DType::BF16,
            Buffer::F32(_) => DType::F32,
            Buffer::F64(_) => DType::F64,
        }
    }

    pub fn len(&self) -> usize {
        for_each_buffer!(self, d => d.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Raw start pointer, for zero-copy export (numpy, DLPack); valid while the storage lives.
    pub fn as_ptr(&self) -> *const u8 {
        for_each_buffer!(self, d => d.ptr as *const u8)
    }

    /// The elements' bytes in memory order (what a checkpoint stores).
    pub fn as_bytes(&self) -> &[u8] {
        let len = self.len() * self.dtype().itemsize();
        if len == 0 {
            return &[];
        }
        // Safety: `len` initialised elements start at the pointer (see `Data`); every bit pattern is a u8.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), len) }
    }
}

pub struct Storage {
    buffer: RwLock<Buffer>,
    /// Bumped by every in-place write through any view; saved tensors compare against it.
    version: AtomicU64,
}

impl Storage {
    pub fn new(buffer: Buffer) -> Self {
        Storage { buffer: RwLock::new(buffer), version: AtomicU64::new(0) }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Buffer> {
        self.buffer.read_recursive()
    }

    /// Write access; the caller bumps the version once the write is done.
    pub fn write(&self) -> RwLockWriteGuard<'_, Buffer> {
        self.buffer.write()
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    pub fn dtype(&self) -> DType {
        self.read().dtype()
    }
}

/// The largest block one allocation may ask for: what the machine could ever hold (memory and swap),
/// never more than `isize::MAX` (Rust's limit). Asking for more would make the OS refuse (an abort in
/// Rust) or, with overcommit, kill the process when the pages are touched.
fn allocation_cap() -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| machine_memory().unwrap_or(usize::MAX).min(isize::MAX as usize))
}

#[cfg(target_os = "linux")]
fn machine_memory() -> Option<usize> {
    // Safety: sysinfo fills the struct it is given and nothing else.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return None;
    }
    let unit = (info.mem_unit as u64).max(1);
    let total = (info.totalram as u64).saturating_add(info.totalswap as u64).saturating_mul(unit);
    usize::try_from(total).ok()
}

#[cfg(not(target_os = "linux"))]
fn machine_memory() -> Option<usize> {
    None
}

/// PyTorch's error for an allocation the machine cannot make.
pub fn out_of_memory(bytes: u128) -> Error {
    Error::Runtime(format!(
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot \
        allocate memory)"
    ))
}

/// The bytes of a new buffer of `numel` elements of `itemsize` bytes, or the error that it cannot be made:
/// tensor data is checked here before it is allocated.
pub fn checked_bytes(numel: usize, itemsize: usize) -> Result<usize> {
    let bytes = numel as u128 * itemsize as u128;
    if bytes > allocation_cap() as u128 {
        return Err(out_of_memory(bytes));
    }
    Ok(bytes as usize)
}

/// Checks that a new tensor of `shape` with `itemsize`-byte elements can be made; its number of
/// elements. A size that overflows gets PyTorch's message for that, one too large its out-of-memory one.
pub fn check_new_shape(shape: &[usize], itemsize: usize) -> Result<usize> {
    if shape.contains(&0) {
        return Ok(0);
    }
    let numel = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let fits = numel.and_then(|n| n.checked_mul(itemsize.max(1))).is_some_and(|b| b <= isize::MAX as usize);
    let (Some(numel), true) = (numel, fits) else {
        return Err(Error::Runtime(format!("Storage size calculation overflowed with sizes={shape:?}")));
    };
    checked_bytes(numel, itemsize)?;
    Ok(numel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors_before_any_allocation() {
        let msg = |r: Result<usize>| r.unwrap_err().to_string();
        assert_eq!(
            msg(check_new_shape(&[1 << 40, 1 << 40], 4)),
            "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"
        );
        assert_eq!(
            msg(check_new_shape(&[1 << 62], 8)),
            "Storage size calculation overflowed with sizes=[4611686018427387904]"
        );
        assert!(msg(check_new_shape(&[1 << 50], 4)).contains("you tried to allocate 4503599627370496 bytes"));
        assert_eq!(check_new_shape(&[1 << 62, 1 << 62, 0], 8).unwrap(), 0);
        assert_eq!(check_new_shape(&[2, 3], 4).unwrap(), 6);
        assert!(crate::pool::try_take::<f64>(usize::MAX / 4).is_err());
        assert!(crate::pool::try_take::<f32>(1 << 50).is_err());
    }

    #[test]
    fn an_impossible_size_in_an_infallible_path_unwinds_with_the_error() {
        let payload = std::panic::catch_unwind(|| crate::pool::take::<f32>(1 << 50)).unwrap_err();
        let err = payload.downcast::<Error>().expect("the error is the payload");
        assert!(err.to_string().contains("can't allocate memory"));
    }
}
