//! Recycling of large element buffers. A fresh 40 MB allocation costs ~10,000 page faults the first time
//! it is written; a buffer handed back by a dropped tensor costs none. Small buffers go straight to the
//! system allocator, which is already fast for them. A full pool lets its oldest buffers go for a new one, so it
//! follows the sizes a program uses now.
use crate::error::Result;
use parking_lot::Mutex;
use std::any::{Any, TypeId};
use std::collections::HashMap;

/// Buffers below this many bytes are not pooled.
const MIN_BYTES: usize = 256 * 1024;
/// At most this many bytes wait in the pool; beyond it, freed buffers go back to the system.
const MAX_POOLED_BYTES: usize = 512 * 1024 * 1024;
const MAX_BUFFERS_PER_TYPE: usize = 16;

struct Pool {
    free: HashMap<TypeId, Box<dyn Any + Send>>,
    bytes: usize,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// An empty vector with room for at least `len` elements, recycled when a large one is free; the
/// error when the machine cannot hold it (checked before asking, then asked for fallibly).
pub fn try_take<T: Send + 'static>(len: usize) -> Result<Vec<T>> {
    let bytes = crate::alloc::checked_bytes(len, std::mem::size_of::<T>())?;
    if bytes >= MIN_BYTES {
        if let Some(v) = recycled(len) {
            return Ok(v);
        }
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| crate::alloc::out_of_memory(bytes as u128))?;
    Ok(v)
}

fn recycled<T: Send + 'static>(len: usize) -> Option<Vec<T>> {
    let mut guard = POOL.lock();
    let pool = guard.as_mut()?;
    let list = pool.free.get_mut(&TypeId::of::<T>()).and_then(|b| b.downcast_mut::<Vec<Vec<T>>>())?;
    // best fit among buffers no more than twice as large as needed
    let best = list
        .iter()
        .enumerate()
        .filter(|(_, v)| v.capacity() >= len && v.capacity() <= 2 * len)
        .min_by_key(|(_, v)| v.capacity())
        .map(|(i, _)| i)?;
    let v = list.remove(best); // not swap_remove: the list stays oldest first
    pool.bytes -= v.capacity() * std::mem::size_of::<T>();
    Some(v)
}

/// `try_take` for callers that cannot return an error: an impossible size unwinds with the error as
/// payload (no panic message), which the bindings' `call` raises as that error.
pub fn take<T: Send + 'static>(len: usize) -> Vec<T> {
    try_take(len).unwrap_or_else(|e| std::panic::resume_unwind(Box::new(e)))
}

/// Unwinds with the error (as `take`) unless `len` elements of `T` could be allocated: for buffers made
/// outside the pool.
pub fn ensure_fits<T>(len: usize) {
    if let Err(e) = crate::alloc::checked_bytes(len, std::mem::size_of::<T>()) {
        std::panic::resume_unwind(Box::new(e));
    }
}

/// A vector of `len` copies of `value`, on a recycled buffer when possible.
pub fn try_filled<T: Copy + Send + 'static>(len: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_take(len)?;
    v.resize(len, value);
    Ok(v)
}

/// `try_filled` for callers that cannot return an error (see `take`).
pub fn filled<T: Copy + Send + 'static>(len: usize, value: T) -> Vec<T> {
    try_filled(len, value).unwrap_or_else(|e| std::panic::resume_unwind(Box::new(e)))
}

/// Hands a buffer back for reuse (or frees it).
pub fn give<T: Send + 'static>(mut v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < MIN_BYTES {
        return;
    }
    v.clear();
    let mut evicted: Vec<Vec<T>> = Vec::new();
    {
        let mut guard = POOL.lock();
        let pool = guard.get_or_insert_with(|| Pool { free: HashMap::new(), bytes: 0 });
        let list = pool
            .free
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(Vec::<Vec<T>>::new()))
            .downcast_mut::<Vec<Vec<T>>>()
            .expect("one list type per TypeId");
        // the oldest make room (the list is in the order buffers came back): a pool full of sizes no longer asked
        // for turned the sizes in use away, so each of their buffers was faulted in afresh (a 4096×1000 float32
        // cross_entropy's backward ran 3× slower after a sweep of other ops than alone)
        while !list.is_empty() && (list.len() >= MAX_BUFFERS_PER_TYPE || pool.bytes + bytes > MAX_POOLED_BYTES) {
            let old = list.remove(0);
            pool.bytes -= old.capacity() * std::mem::size_of::<T>();
            evicted.push(old);
        }
        if pool.bytes + bytes <= MAX_POOLED_BYTES {
            pool.bytes += bytes;
            list.push(v);
        }
    }
    // freed outside the lock: giving a large buffer back to the system takes a while
    drop(evicted);
}

/// Frees every pooled buffer (for tests and memory-tight callers).
pub fn clear() {
    *POOL.lock() = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_come_back() {
        clear();
        let v: Vec<f64> = filled(1 << 20, 1.0);
        let ptr = v.as_ptr();
        give(v);
        let w: Vec<f64> = take(1 << 20);
        assert_eq!(w.as_ptr(), ptr);
        assert!(w.is_empty() && w.capacity() >= 1 << 20);
        let small: Vec<f64> = take(10);
        assert!(small.capacity() >= 10);
        give(w);
        let other: Vec<f32> = take(1 << 20); // another type never gets an f64 buffer
        assert_ne!(other.as_ptr() as usize, ptr as usize);
        clear();
    }

    #[test]
    fn a_pool_full_of_other_sizes_makes_room_for_the_newest() {
        clear();
        // as many buffers of one size as the pool keeps of a type, then one of another size
        let old: Vec<Vec<u16>> = (0..MAX_BUFFERS_PER_TYPE).map(|_| filled(1 << 18, 1u16)).collect();
        old.into_iter().for_each(give);
        let new: Vec<u16> = filled(1 << 21, 1u16);
        let ptr = new.as_ptr();
        give(new);
        let again: Vec<u16> = take(1 << 21);
        assert_eq!(again.as_ptr(), ptr);
        clear();
    }
}
