//! Typed element buffers, shared by every view of a tensor and versioned for in-place checks.
use crate::dtype::DType;
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
// SAFETY: as for Send; shared access only reads
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
        // SAFETY: ptr..ptr + len are initialised aligned elements kept alive by `owner` (from_vec's Vec or
        // from_external's contract); non-null since len > 0
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as in as_slice; `&mut self` makes this the only reference
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

    /// Whether ferrograd owns the memory (not borrowed from, say, a numpy array).
    pub fn is_owned(&self) -> bool {
        for_each_buffer!(self, d => d.is_owned())
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
    /// A meta tensor's storage (torch's `device='meta'`): an empty buffer of the dtype behind layouts of any
    /// size. `read` and `write` refuse it, so no kernel can index past its zero elements.
    meta: bool,
}

impl Storage {
    pub fn new(buffer: Buffer) -> Self {
        Storage { buffer: RwLock::new(buffer), version: AtomicU64::new(0), meta: false }
    }

    /// The storage of meta tensors of `dtype`: no elements, whatever the size of the layouts over it.
    pub fn new_meta(dtype: DType) -> Self {
        let buffer = match dtype.component() {
            DType::Bool => Buffer::Bool(Data::from_vec(Vec::new())),
            DType::U8 => Buffer::U8(Data::from_vec(Vec::new())),
            DType::I8 => Buffer::I8(Data::from_vec(Vec::new())),
            DType::I16 => Buffer::I16(Data::from_vec(Vec::new())),
            DType::I32 => Buffer::I32(Data::from_vec(Vec::new())),
            DType::I64 => Buffer::I64(Data::from_vec(Vec::new())),
            DType::F16 => Buffer::F16(Data::from_vec(Vec::new())),
            DType::BF16 => Buffer::BF16(Data::from_vec(Vec::new())),
            DType::F32 | DType::C64 => Buffer::F32(Data::from_vec(Vec::new())),
            DType::F64 | DType::C128 => Buffer::F64(Data::from_vec(Vec::new())),
        };
        Storage { buffer: RwLock::new(buffer), version: AtomicU64::new(0), meta: true }
    }

    pub fn is_meta(&self) -> bool {
        self.meta
    }

    /// The elements, for a kernel to read. A meta storage has none: the kernel's op unwinds with torch's
    /// error for an op without a meta kernel (the bindings turn it into NotImplementedError naming the op).
    pub fn read(&self) -> RwLockReadGuard<'_, Buffer> {
        if self.meta {
            std::panic::resume_unwind(Box::new(meta_refusal()));
        }
        self.buffer.read_recursive()
    }

    /// Write access; the caller bumps the version once the write is done. Refuses a meta storage as `read`.
    pub fn write(&self) -> RwLockWriteGuard<'_, Buffer> {
        if self.meta {
            std::panic::resume_unwind(Box::new(meta_refusal()));
        }
        self.buffer.write()
    }

    /// How many elements the buffer holds (none for a meta storage).
    pub fn len(&self) -> usize {
        self.buffer.read_recursive().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether ferrograd owns the memory (a meta storage owns its empty buffer).
    pub fn is_owned(&self) -> bool {
        self.buffer.read_recursive().is_owned()
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    pub fn dtype(&self) -> DType {
        self.buffer.read_recursive().dtype()
    }
}

/// What an op without a meta kernel raises on a meta tensor (torch's phrase; `REFUSING_OP` becomes the op's
/// name where the bindings know it).
pub fn meta_refusal() -> crate::Error {
    crate::Error::NotImplemented(format!(
        "aten::{}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel \
         registered",
        crate::dtype::REFUSING_OP
    ))
}
