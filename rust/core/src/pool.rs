//! Recycling of large element buffers. A fresh 40 MB allocation costs ~10,000 page faults the first time
//! it is written; a buffer handed back by a dropped tensor costs none. Small buffers go straight to the
//! system allocator, which is already fast for them.
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

/// An empty vector with room for at least `len` elements, recycled when a large one is free.
pub fn take<T: Send + 'static>(len: usize) -> Vec<T> {
    let bytes = len * std::mem::size_of::<T>();
    if bytes < MIN_BYTES {
        return Vec::with_capacity(len);
    }
    let mut guard = POOL.lock();
    if let Some(pool) = guard.as_mut() {
        if let Some(list) = pool.free.get_mut(&TypeId::of::<T>()).and_then(|b| b.downcast_mut::<Vec<Vec<T>>>()) {
            // best fit among buffers no more than twice as large as needed
            let best = list
                .iter()
                .enumerate()
                .filter(|(_, v)| v.capacity() >= len && v.capacity() <= 2 * len)
                .min_by_key(|(_, v)| v.capacity())
                .map(|(i, _)| i);
            if let Some(i) = best {
                let v = list.swap_remove(i);
                pool.bytes -= v.capacity() * std::mem::size_of::<T>();
                return v;
            }
        }
    }
    drop(guard);
    Vec::with_capacity(len)
}

/// A vector of `len` copies of `value`, on a recycled buffer when possible.
pub fn filled<T: Copy + Send + 'static>(len: usize, value: T) -> Vec<T> {
    let mut v = take(len);
    v.resize(len, value);
    v
}

/// Hands a buffer back for reuse (or frees it).
pub fn give<T: Send + 'static>(mut v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < MIN_BYTES {
        return;
    }
    v.clear();
    let mut guard = POOL.lock();
    let pool = guard.get_or_insert_with(|| Pool { free: HashMap::new(), bytes: 0 });
    if pool.bytes + bytes > MAX_POOLED_BYTES {
        return;
    }
    let list = pool
        .free
        .entry(TypeId::of::<T>())
        .or_insert_with(|| Box::new(Vec::<Vec<T>>::new()))
        .downcast_mut::<Vec<Vec<T>>>()
        .expect("one list type per TypeId");
    if list.len() < MAX_BUFFERS_PER_TYPE {
        pool.bytes += bytes;
        list.push(v);
    }
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
}
