//! The extension's allocator: small blocks from mimalloc, large ones from the system.
//!
//! An op allocates a handful of small objects (graph node, shapes, handles); glibc's malloc/free took a
//! third of the time of an op on a small tensor, mimalloc a fraction of that. Large blocks (tensor data)
//! stay with glibc, set at import (`tune_system_allocator`) to keep blocks below 32 MiB in its arenas for
//! reuse and to map larger ones on their own, whose pages go back the moment they are freed: memory used
//! by a dropped big tensor shows up as freed at once, as users (and our tests) expect. ferrograd's own
//! buffer pool (`ferrograd_core::pool`) recycles tensor buffers from 256 KiB.
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes come from the system allocator.
const LARGE: usize = 64 * 1024;
/// The alignment glibc's malloc gives every block on x86-64 and aarch64.
const MALLOC_ALIGN: usize = 16;

pub struct SplitAllocator;

/// Large blocks with a wider alignment: gemm's packing buffers (128 bytes), made and freed in every
/// product. Taken from `posix_memalign`, they fragment glibc's arenas: memalign asks its bins for size +
/// alignment and gives the slack back, so the block it frees is a little too small for the next request
/// of the same size. A worker thread's arena, which sees little else, grew by every LeNet step's packing
/// buffers until the fragments coalesced: 6.9 MB held, none of it in use (0.8 MB padded). Here a block
/// is one plain malloc of size + alignment, which the next request of that size reuses whole.
mod padded {
    use super::MALLOC_ALIGN;
    use std::alloc::{GlobalAlloc, Layout, System};

    fn outer(layout: Layout) -> Option<Layout> {
        Layout::from_size_align(layout.size().checked_add(layout.align())?, MALLOC_ALIGN).ok()
    }

    /// Safety: as `GlobalAlloc::alloc`; `zeroed` asks for zeroed memory.
    pub unsafe fn alloc(layout: Layout, zeroed: bool) -> *mut u8 {
        let Some(outer) = outer(layout) else { return std::ptr::null_mut() };
        // SAFETY: `outer` is `layout` grown by its alignment, so it is non-zero-sized as `layout` is
        let base = unsafe {
            if zeroed {
                System.alloc_zeroed(outer)
            } else {
                System.alloc(outer)
            }
        };
        if base.is_null() {
            return base;
        }
        // base is MALLOC_ALIGN-aligned, so at least that many (>= 8) bytes lie before the aligned start:
        // room to keep base itself
        let start = (base as usize + layout.align()) & !(layout.align() - 1);
        // SAFETY: start - base <= align, inside the block of size + align bytes; the pointer-sized slot before
        // `aligned` lies within the block too, since aligned - base >= MALLOC_ALIGN >= 8
        let aligned = unsafe { base.add(start - base as usize) };
        // SAFETY: as above, the slot is inside the block and belongs to no caller
        unsafe { (aligned as *mut *mut u8).sub(1).write_unaligned(base) };
        aligned
    }

    /// Safety: `ptr` came from `alloc` with this `layout`.
    pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
        // SAFETY: `alloc` wrote the block's base in the slot just before `ptr`
        let base = unsafe { (ptr as *mut *mut u8).sub(1).read_unaligned() };
        // SAFETY: `base` came from System with `outer(layout)`, which succeeded when the block was made
        unsafe { System.dealloc(base, outer(layout).unwrap_unchecked()) }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Source {
    Mimalloc,
    System,
    PaddedSystem,
}

#[inline(always)]
fn source(size: usize, align: usize) -> Source {
    if size < LARGE {
        Source::Mimalloc
    } else if align <= MALLOC_ALIGN {
        Source::System
    } else {
        Source::PaddedSystem
    }
}

// Safety: every block is freed (or resized) by the allocator that made it: both sides decide by the
// layout's size and alignment, which the caller passes back unchanged.
unsafe impl GlobalAlloc for SplitAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout goes unchanged to the allocator its size and alignment pick
        unsafe {
            match source(layout.size(), layout.align()) {
                Source::Mimalloc => MiMalloc.alloc(layout),
                Source::System => System.alloc(layout),
                Source::PaddedSystem => padded::alloc(layout, false),
            }
        }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`
        unsafe {
            match source(layout.size(), layout.align()) {
                Source::Mimalloc => MiMalloc.alloc_zeroed(layout),
                Source::System => System.alloc_zeroed(layout),
                Source::PaddedSystem => padded::alloc(layout, true),
            }
        }
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the same layout picks the same allocator that made `ptr` (see the impl's note)
        unsafe {
            match source(layout.size(), layout.align()) {
                Source::Mimalloc => MiMalloc.dealloc(ptr, layout),
                Source::System => System.dealloc(ptr, layout),
                Source::PaddedSystem => padded::dealloc(ptr, layout),
            }
        }
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (from, to) = (source(layout.size(), layout.align()), source(new_size, layout.align()));
        match (from, to) {
            // SAFETY: `ptr` came from this allocator, which both sizes pick again
            (Source::System, Source::System) => unsafe { System.realloc(ptr, layout, new_size) },
            // SAFETY: as above
            (Source::Mimalloc, Source::Mimalloc) => unsafe { MiMalloc.realloc(ptr, layout, new_size) },
            _ => {
                // another allocator, or a padded block (whose start moves): a new block and a copy
                // SAFETY: the caller guarantees new_size, rounded up to the alignment, does not overflow
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                // SAFETY: new_size is non-zero (realloc's contract)
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: both blocks hold at least the smaller size; `ptr` is freed once, with its layout
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                new
            }
        }
    }
}

/// Sets glibc's malloc to keep blocks below 32 MiB in its arenas and to hand memory back once 8 MiB lie
/// free at an arena's top, unless the user has set either through glibc's own variables.
///
/// glibc's defaults adapt: every block of 128 KiB and more is mapped on its own until one is freed, and then
/// the mapping threshold rises to that block's size and the trim threshold to twice it. A training step's
/// tensors are mostly 64 KiB–4 MiB, so what a step paid in page faults depended on which sizes it happened to
/// free first. Where the trim threshold ended low, the arenas' tops were given back and faulted in again on
/// every step: T7's step took 20,000 faults (60,000 once gemm's buffers were padded) against 7,000 with
/// these two settings. 32 MiB is the ceiling glibc's own adaptation stops at on 64-bit; larger tensors are
/// still mapped on their own and given back the moment they are freed.
///
/// The settings are process-wide (glibc has no per-caller ones), so a program that imports ferrograd beside
/// other work can keep glibc's defaults with `FERROGRAD_TUNE_MALLOC=0`, at the page-fault cost above.
pub fn tune_system_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::tune();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::ffi::c_int;

    /// `mallopt` parameters, from glibc's <malloc.h>.
    #[repr(i32)]
    #[derive(Clone, Copy)]
    enum MallocParam {
        TrimThreshold = -1,
        MmapThreshold = -3,
    }

    const MMAP_THRESHOLD: c_int = 32 << 20;
    const TRIM_THRESHOLD: c_int = 8 << 20;

    unsafe extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }

    fn user_has_set_malloc() -> bool {
        let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some()
            || std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_some()
            || tunables.contains("malloc.mmap_threshold")
            || tunables.contains("malloc.trim_threshold")
    }

    fn user_has_opted_out() -> bool {
        std::env::var_os("FERROGRAD_TUNE_MALLOC").is_some_and(|v| v == "0")
    }

    pub fn tune() {
        if user_has_set_malloc() || user_has_opted_out() {
            return;
        }
        for (param, value) in
            [(MallocParam::MmapThreshold, MMAP_THRESHOLD), (MallocParam::TrimThreshold, TRIM_THRESHOLD)]
        {
            // Safety: mallopt takes any parameter and value; it returns 0 for one it rejects, which leaves
            // glibc's default in place
            unsafe { mallopt(param as c_int, value) };
        }
    }
}

/// Test hook (not public API): runs one block of `size` bytes at `align` through the extension's allocator
/// (zeroed, then plain, then grown to twice the size) and reports what a caller relies on: whether the
/// zeroed block read as zeros, the plain and the grown block's addresses modulo `align` (0 when aligned),
/// and whether growing kept the bytes written. The error for a layout Rust rejects.
#[pyo3::pyfunction]
pub fn _allocator_round_trip(size: usize, align: usize) -> pyo3::PyResult<(bool, usize, usize, bool)> {
    use pyo3::exceptions::{PyMemoryError, PyValueError};
    // a test hook writes every byte it asks for: sizes beyond what the tests use are refused, not tried
    const MAX_TEST_BYTES: usize = 64 << 20;
    if size > MAX_TEST_BYTES {
        return Err(PyValueError::new_err(format!("size {size} above the test hook's {MAX_TEST_BYTES} bytes")));
    }
    let invalid = |e: std::alloc::LayoutError| PyValueError::new_err(format!("invalid layout: {e}"));
    let layout = Layout::from_size_align(size.max(1), align).map_err(invalid)?;
    let grown_layout = Layout::from_size_align(layout.size() * 2, align).map_err(invalid)?;
    let failed = || PyMemoryError::new_err("allocation failed");
    let a = &SplitAllocator;
    // Safety: each block is non-empty, written and read within its layout, and freed with it
    unsafe {
        let zeroed = a.alloc_zeroed(layout);
        if zeroed.is_null() {
            return Err(failed());
        }
        let all_zero = std::slice::from_raw_parts(zeroed, layout.size()).iter().all(|&b| b == 0);
        a.dealloc(zeroed, layout);
        let block = a.alloc(layout);
        if block.is_null() {
            return Err(failed());
        }
        let block_offset = block as usize % align;
        block.write_bytes(0xA5, layout.size());
        let grown = a.realloc(block, layout, grown_layout.size());
        if grown.is_null() {
            a.dealloc(block, layout);
            return Err(failed());
        }
        let kept = std::slice::from_raw_parts(grown, layout.size()).iter().all(|&b| b == 0xA5);
        let grown_offset = grown as usize % align;
        a.dealloc(grown, grown_layout);
        Ok((all_zero, block_offset, grown_offset, kept))
    }
}
