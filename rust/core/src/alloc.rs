//! The size check every tensor allocation goes through: an impossible size is an error (PyTorch's message)
//! before anything is asked of the allocator, never a Rust abort or a process killed for memory.
use crate::error::{Error, Result};

/// The largest block one allocation may ask for: what the machine could ever hold (memory and swap),
/// never more than `isize::MAX` (Rust's limit). Asking for more would make the OS refuse (an abort in
/// Rust) or, with overcommit, kill the process when the pages are touched.
fn allocation_cap() -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| machine_memory().unwrap_or(usize::MAX).min(isize::MAX as usize))
}

#[cfg(target_os = "linux")]
fn machine_memory() -> Option<usize> {
    // SAFETY: libc::sysinfo is plain integers, for which all zeros is a valid value
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: sysinfo fills the struct it is given and nothing else
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

/// torch's `std::vector<Tensor>` holds at most this many (PTRDIFF_MAX / sizeof(Tensor)).
const MAX_PIECES: usize = isize::MAX as usize / 8;
/// What one piece of a split costs here at the least: its tensor record and the Python view around it.
const BYTES_PER_PIECE: usize = 1024;

/// Checks, before any is built, that `count` pieces of a split (`chunk`, `split_with_sizes`) can exist:
/// torch's errors for a vector too long for its type, or for the memory.
pub fn check_piece_count(count: usize) -> Result<()> {
    if count > MAX_PIECES {
        return Err(Error::Runtime("cannot create std::vector larger than max_size()".into()));
    }
    if count as u128 * BYTES_PER_PIECE as u128 > allocation_cap() as u128 {
        return Err(Error::Runtime("std::bad_alloc".into()));
    }
    Ok(())
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
