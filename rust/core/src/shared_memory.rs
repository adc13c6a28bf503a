//! Memory that other processes can map: an anonymous file (`memfd_create`) mapped `MAP_SHARED`, what
//! `share_memory_` moves a storage's elements into. A forked child inherits the mapping; another process
//! maps the same file from its descriptor (sent over a Unix socket by Python's `multiprocessing`).
use crate::error::{Error, Result};
use std::os::fd::{AsRawFd, OwnedFd};

/// One mapping of a shared file; unmapped (and the descriptor closed) when the last storage over it drops.
pub struct SharedMapping {
    ptr: *mut u8,
    /// Bytes mapped (the elements'); 0 maps nothing.
    bytes: usize,
    fd: OwnedFd,
    /// The file's identity (device, inode): the same memory whichever descriptor names it.
    id: (u64, u64),
}

// SAFETY: the mapping is plain memory owned by this value (unmapped only in Drop); the raw pointer is not tied
// to a thread, and every access to the elements goes through the storage's lock
unsafe impl Send for SharedMapping {}
// SAFETY: `&SharedMapping` only hands out the pointer, the length and the descriptor's number
unsafe impl Sync for SharedMapping {}

/// A descriptor of our own for the file `fd` names (which the caller keeps): received descriptors are duplicated
/// so that the storage's lifetime is independent of the sender's objects.
pub fn duplicate(fd: i32) -> std::io::Result<OwnedFd> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) on any integer is defined: a closed or bad descriptor gives -1 (EBADF)
    let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `dup` is a descriptor just made, owned by nobody else
    Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(dup) })
}

/// The file's metadata (through std's fstat, which works on every glibc the wheel supports), and the descriptor.
fn metadata(fd: OwnedFd, what: &str) -> Result<(OwnedFd, std::fs::Metadata)> {
    let file = std::fs::File::from(fd);
    let meta = file.metadata().map_err(|e| Error::Runtime(format!("{what}: fstat failed: {e}")))?;
    Ok((OwnedFd::from(file), meta))
}

fn os_error(what: &str) -> Error {
    Error::Runtime(format!("{what}: {}", std::io::Error::last_os_error()))
}

impl SharedMapping {
    /// A new shared file of `bytes` bytes (zeros), mapped.
    #[cfg(target_os = "linux")]
    pub fn create(bytes: usize) -> Result<SharedMapping> {
        crate::alloc::checked_bytes(bytes, 1)?;
        // Through the raw syscall, not glibc's wrapper: that arrived in glibc 2.27, and the wheel targets 2.17.
        // SAFETY: the name is a NUL-terminated literal; memfd_create only reads it
        let raw = unsafe { libc::syscall(libc::SYS_memfd_create, c"ferrograd-shm".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(os_error("share_memory_: memfd_create failed"));
        }
        // SAFETY: `raw` is a descriptor just opened by memfd_create and owned by nobody else
        let fd = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(raw as i32) };
        let file = std::fs::File::from(fd);
        file.set_len(bytes as u64).map_err(|e| Error::Runtime(format!("share_memory_: ftruncate failed: {e}")))?;
        let fd = OwnedFd::from(file);
        Self::map(fd, bytes)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn create(_bytes: usize) -> Result<SharedMapping> {
        Err(Error::Runtime("share_memory_: shared memory needs Linux's memfd_create".into()))
    }

    /// Maps `bytes` bytes of the shared file `fd` (received from another process); refused when the file is
    /// shorter, since touching a page past its end would kill the process (SIGBUS).
    pub fn open(fd: OwnedFd, bytes: usize) -> Result<SharedMapping> {
        let (fd, meta) = metadata(fd, "_from_shared_fd")?;
        if !meta.file_type().is_file() {
            return Err(Error::Value("_from_shared_fd: the descriptor is not a regular (shared memory) file".into()));
        }
        let size = meta.len();
        if bytes as u64 > size {
            return Err(Error::Value(format!("_from_shared_fd: {bytes} bytes asked of a shared file of {size} bytes")));
        }
        Self::map(fd, bytes)
    }

    fn map(fd: OwnedFd, bytes: usize) -> Result<SharedMapping> {
        let (fd, meta) = metadata(fd, "share_memory_")?;
        let id = (std::os::unix::fs::MetadataExt::dev(&meta), std::os::unix::fs::MetadataExt::ino(&meta));
        if bytes == 0 {
            // nothing to map: a dangling pointer aligned for every element type, never dereferenced
            let ptr = std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut u8;
            return Ok(SharedMapping { ptr, bytes, fd, id });
        }
        // SAFETY: a fresh shared mapping of `bytes` bytes of a file at least that long (checked by the callers),
        // at an address the kernel picks; it overlaps nothing Rust owns
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(os_error("share_memory_: mmap failed"));
        }
        Ok(SharedMapping { ptr: ptr as *mut u8, bytes, fd, id })
    }

    /// The first byte (page-aligned, so aligned for every element type).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The mapped bytes.
    pub fn as_bytes(&self) -> &[u8] {
        if self.bytes == 0 {
            return &[];
        }
        // SAFETY: ptr..ptr + bytes is mapped readable while self lives (u8 has no invalid bit patterns)
        unsafe { std::slice::from_raw_parts(self.ptr, self.bytes) }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The descriptor's number, valid while this mapping lives (a sender duplicates it).
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    pub fn id(&self) -> (u64, u64) {
        self.id
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        if self.bytes > 0 {
            // SAFETY: ptr..ptr + bytes is the mapping made in `map`, and no storage reads it any more (this value
            // is dropped with the last buffer over it); the descriptor closes with `fd`
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.bytes) };
        }
    }
}
