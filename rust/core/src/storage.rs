//! Typed element buffers, shared by every view of a tensor and versioned for in-place checks.
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shared_memory::SharedMapping;
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::any::Any;
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

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

    /// The shared mapping the elements live in (after `share_memory_`, or received from another process).
    pub fn shared(&self) -> Option<&SharedMapping> {
        match &self.owner {
            Owner::External(owner) => owner.downcast_ref::<SharedMapping>(),
            Owner::Vec(_) => None,
        }
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

/// Runs `$body` with `$d` bound to the buffer's data, and wraps the `Data` it returns in the same variant.
macro_rules! same_variant {
    ($buffer:expr, $d:ident => $body:expr) => {
        match $buffer {
            Buffer::Bool($d) => Buffer::Bool($body),
            Buffer::U8($d) => Buffer::U8($body),
            Buffer::I8($d) => Buffer::I8($body),
            Buffer::I16($d) => Buffer::I16($body),
            Buffer::I32($d) => Buffer::I32($body),
            Buffer::I64($d) => Buffer::I64($body),
            Buffer::F16($d) => Buffer::F16($body),
            Buffer::BF16($d) => Buffer::BF16($body),
            Buffer::F32($d) => Buffer::F32($body),
            Buffer::F64($d) => Buffer::F64($body),
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

    pub fn shared(&self) -> Option<&SharedMapping> {
        for_each_buffer!(self, d => d.shared())
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
    /// Set once numpy or DLPack holds a pointer into the buffer: a buffer replaced after that (`share_memory_`,
    /// `resize_`) is kept in `retired` until the storage drops, so no export is left pointing at freed memory.
    exported: AtomicBool,
    retired: Mutex<Vec<Buffer>>,
}

impl Storage {
    pub fn new(buffer: Buffer) -> Self {
        Storage::with_buffer(buffer, false)
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
        Storage::with_buffer(buffer, true)
    }

    fn with_buffer(buffer: Buffer, meta: bool) -> Self {
        Storage {
            buffer: RwLock::new(buffer),
            version: AtomicU64::new(0),
            meta,
            exported: AtomicBool::new(false),
            retired: Mutex::new(Vec::new()),
        }
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
        // every write into existing memory comes here (in-place ops, `copy_`, an optimizer's step): a replay would
        // drop it, so a capture that sees one runs eagerly, unless a traced op makes it (its replay writes again)
        crate::compile::unsupported_outside_ops("an in-place write to a tensor");
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    pub fn dtype(&self) -> DType {
        self.buffer.read_recursive().dtype()
    }

    /// Called before a pointer into the buffer leaves the core's locks (numpy arrays, DLPack capsules).
    pub fn mark_exported(&self) {
        self.exported.store(true, Ordering::Release);
    }

    /// Puts `new` in the place of the buffer `guard` holds; the old one is freed unless exported.
    fn replace(&self, guard: &mut Buffer, new: Buffer) {
        let old = std::mem::replace(guard, new);
        if self.exported.load(Ordering::Acquire) {
            self.retired.lock().push(old);
        }
    }

    /// Trades buffers with `other` (the same dtype and length) when both are private memory of the core's own that no
    /// export points into (not numpy's, not a shared mapping, not meta); false, with nothing moved, otherwise. What an
    /// in-place op's fresh result gives the tensor it writes, instead of a copy (`Tensor::write_result`); the caller
    /// bumps the version.
    pub(crate) fn trade_buffers(&self, other: &Storage) -> bool {
        let private = |s: &Storage| !s.meta && !s.exported.load(Ordering::Acquire);
        if std::ptr::eq(self, other) || !private(self) || !private(other) {
            return false;
        }
        let (mut mine, mut theirs) = (self.buffer.write(), other.buffer.write());
        let movable = |b: &Buffer| b.is_owned() && b.shared().is_none();
        if mine.dtype() != theirs.dtype() || mine.len() != theirs.len() || !movable(&mine) || !movable(&theirs) {
            return false;
        }
        std::mem::swap(&mut *mine, &mut *theirs);
        true
    }

    /// Whether the elements live in memory other processes can map (`Tensor.is_shared`).
    pub fn is_shared(&self) -> bool {
        self.buffer.read_recursive().shared().is_some()
    }

    /// `share_memory_`: moves the elements into a new shared mapping in place, so every tensor over this storage
    /// reads and writes the shared memory from now on. A no-op when already shared. Not a write of the values:
    /// the version counter stays (saved tensors are unchanged).
    pub fn share_memory(self: &Arc<Self>) -> Result<()> {
        if self.meta {
            return Err(Error::Runtime("_share_fd_: only available on CPU".into()));
        }
        let mut guard = self.buffer.write();
        if guard.shared().is_some() {
            return Ok(());
        }
        let bytes = guard.as_bytes();
        let mapping = SharedMapping::create(bytes.len())?;
        if !bytes.is_empty() {
            // SAFETY: the mapping was just made with room for exactly bytes.len() bytes, and is distinct from the
            // buffer's memory
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), mapping.as_ptr(), bytes.len()) };
        }
        let id = mapping.id();
        let shared = over_mapping(mapping, guard.dtype(), guard.len());
        self.replace(&mut guard, shared);
        drop(guard);
        remember(id, self);
        Ok(())
    }

    /// The shared file's descriptor (valid while this storage lives) and the elements' bytes, once shared.
    pub fn shared_fd(&self) -> Option<(i32, usize)> {
        let guard = self.buffer.read_recursive();
        let bytes = guard.len() * guard.dtype().itemsize();
        guard.shared().map(|m| (m.raw_fd(), bytes))
    }

    /// The storage over a shared file received from another process: `bytes` bytes of `dtype` elements (a
    /// multiple of its size, no more than the file holds). A file this process already maps as a storage of that
    /// dtype and at least that size gives that same storage back, as torch's shared-storage cache does.
    pub fn from_shared_fd(fd: OwnedFd, bytes: usize, dtype: DType) -> Result<Arc<Storage>> {
        let dtype = dtype.component();
        if !bytes.is_multiple_of(dtype.itemsize()) {
            return Err(Error::Value(format!(
                "_from_shared_fd: {bytes} bytes is not a whole number of {} elements",
                dtype.itemsize()
            )));
        }
        let numel = bytes / dtype.itemsize();
        let mapping = SharedMapping::open(fd, bytes)?;
        let id = mapping.id();
        if let Some(known) = known(id).filter(|s| s.dtype() == dtype && s.len() >= numel && !s.meta) {
            return Ok(known);
        }
        if dtype == DType::Bool && mapping.as_bytes().iter().any(|&b| b > 1) {
            return Err(Error::Runtime("_from_shared_fd: a bool storage holds bytes other than 0 and 1".into()));
        }
        let storage = Arc::new(Storage::new(over_mapping(mapping, dtype, numel)));
        remember(id, &storage);
        Ok(storage)
    }

    /// Makes the buffer at least `len` elements long for `resize_`: the old elements first, then zeros. Memory that
    /// ferrograd does not own (a numpy array's, a shared mapping) cannot grow, as in torch.
    pub fn grow(&self, len: usize) -> Result<()> {
        if self.meta {
            return Ok(()); // no elements at any size
        }
        let mut guard = self.buffer.write();
        if guard.len() >= len {
            return Ok(());
        }
        if !guard.is_owned() {
            return Err(Error::Runtime("Trying to resize storage that is not resizable".into()));
        }
        crate::alloc::checked_bytes(len, guard.dtype().itemsize())?;
        let grown = same_variant!(&*guard, d => {
            let old = d.as_slice();
            let mut v = crate::pool::try_filled(len, Default::default())?;
            v[..old.len()].copy_from_slice(old);
            Data::from_vec(v)
        });
        self.replace(&mut guard, grown);
        Ok(())
    }
}

/// A buffer of `numel` `dtype` elements over `mapping`, which it keeps alive.
fn over_mapping(mapping: SharedMapping, dtype: DType, numel: usize) -> Buffer {
    debug_assert!(numel * dtype.itemsize() <= mapping.bytes());
    let ptr = mapping.as_ptr();
    // SAFETY: the mapping holds numel * itemsize bytes (checked against the file's size when opened, sized so
    // when created), page-aligned; they are initialised (copied from a buffer, or file contents, zero-filled
    // past what was written), every bit pattern is valid for the numeric types and bools were checked to be 0/1;
    // the boxed mapping is the owner that keeps them mapped. Other processes may write the same memory
    // concurrently: racy plain-data updates, by design of shared-memory training (torch's Hogwild).
    let owner: Box<dyn Any + Send + Sync> = Box::new(mapping);
    macro_rules! wrap {
        ($($variant:ident: $t:ty),*) => {
            match dtype.component() {
                // SAFETY: see above
                $(DType::$variant => Buffer::$variant(unsafe { Data::from_external(ptr as *mut $t, numel, owner) }),)*
                DType::C64 | DType::C128 => unreachable!("component() is real"),
            }
        };
    }
    wrap!(Bool: bool, U8: u8, I8: i8, I16: i16, I32: i32, I64: i64, F16: half::f16, BF16: half::bf16, F32: f32,
          F64: f64)
}

/// The storages over shared files this process maps, by the file's (device, inode): a tensor received twice, or
/// sent to its own process, is the same storage.
type Registry = Mutex<HashMap<(u64, u64), Weak<Storage>>>;

fn registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

fn remember(id: (u64, u64), storage: &Arc<Storage>) {
    let mut map = registry().lock();
    map.retain(|_, s| s.strong_count() > 0);
    map.insert(id, Arc::downgrade(storage));
}

fn known(id: (u64, u64)) -> Option<Arc<Storage>> {
    registry().lock().get(&id).and_then(Weak::upgrade)
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
