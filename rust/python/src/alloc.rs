//! The extension's allocator: small blocks from mimalloc, large ones from the system.
//!
//! An op allocates a handful of small objects (graph node, shapes, handles); glibc's malloc/free took a
//! third of the time of an op on a small tensor, mimalloc a fraction of that. Large blocks (tensor data)
//! stay with the system allocator, which maps them on their own and gives the pages back the moment they
//! are freed: memory used by a dropped tensor shows up as freed at once, as users (and our tests) expect.
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes come from the system allocator.
const LARGE: usize = 64 * 1024;

pub struct SplitAllocator;

#[inline(always)]
fn is_large(size: usize) -> bool {
    size >= LARGE
}

// Safety: every block is freed (or resized) by the allocator that made it: both sides decide by the
// layout's size, which the caller passes back unchanged.
unsafe impl GlobalAlloc for SplitAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size()) {
            unsafe { System.alloc(layout) }
        } else {
            unsafe { MiMalloc.alloc(layout) }
        }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size()) {
            unsafe { System.alloc_zeroed(layout) }
        } else {
            unsafe { MiMalloc.alloc_zeroed(layout) }
        }
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(layout.size()) {
            unsafe { System.dealloc(ptr, layout) }
        } else {
            unsafe { MiMalloc.dealloc(ptr, layout) }
        }
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (is_large(layout.size()), is_large(new_size)) {
            (true, true) => unsafe { System.realloc(ptr, layout, new_size) },
            (false, false) => unsafe { MiMalloc.realloc(ptr, layout, new_size) },
            _ => {
                // crossing the threshold: move the block to the other allocator
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
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
