//! Replacing a file so that a crash at any moment leaves either the old file or the new one.
//!
//! The new content goes to a temporary file beside the target, named `.<name>.<pid>-<n>.ferrograd-tmp`
//! and locked (flock) while it is written; it is flushed and fsynced, renamed over the target, and
//! the directory is fsynced so the rename itself is durable. A process killed mid-save leaves its
//! temporary file behind, unlocked: the next save to the same target removes such files (only
//! unlocked ones of exactly this naming, so a save in progress elsewhere is never touched).
use crate::error::{Error, Result};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const TEMP_SUFFIX: &str = ".ferrograd-tmp";
/// Attempts at a temporary name (each fails only when another process took or removed that name).
const CREATE_TRIES: usize = 16;

static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Writes a new file at `path` with `write`, atomically replacing what was there.
pub(super) fn replace(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> Result<()> {
    let mut replacement = Replacement::begin(path)?;
    if let Err(e) = write(&mut replacement.file) {
        replacement.abort();
        return Err(Error::io(&e, path));
    }
    replacement.commit()
}

/// A replacement in progress: the locked temporary file beside the target, which `commit` fsyncs and renames
/// over it. Dropped without `commit` (or after `abort`), the temporary file is removed and the target stays.
pub struct Replacement {
    pub file: File,
    temp_path: PathBuf,
    target: PathBuf,
    dir: PathBuf,
    /// The path the caller gave, for error messages.
    path: PathBuf,
    done: bool,
}

impl Replacement {
    pub fn begin(path: &Path) -> Result<Replacement> {
        let target = resolve_symlink(path);
        let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(Error::io(&io::Error::from_raw_os_error(libc::EISDIR), path));
        };
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if !dir.is_dir() {
            crate::bail!(Runtime, "Parent directory {} does not exist.", dir.display());
            // PyTorch's words
        }
        if target.is_dir() {
            return Err(Error::io(&io::Error::from_raw_os_error(libc::EISDIR), path));
            // before writing anything
        }
        remove_stale_temps(dir, name);
        let (temp_path, file) = create_temp(dir, name).map_err(|e| Error::io(&e, path))?;
        if let Ok(old) = fs::metadata(&target) {
            // a replaced checkpoint keeps its mode
            if let Err(e) = file.set_permissions(old.permissions()) {
                let _ = fs::remove_file(&temp_path);
                return Err(Error::io(&e, path));
            }
        }
        Ok(Replacement { file, temp_path, dir: dir.to_path_buf(), target, path: path.to_path_buf(), done: false })
    }

    /// Makes the written content durable and puts it in the target's place.
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        let renamed = self.file.sync_all().and_then(|()| fs::rename(&self.temp_path, &self.target));
        if let Err(e) = renamed {
            let _ = fs::remove_file(&self.temp_path);
            return Err(Error::io(&e, &self.path));
        }
        // the rename is in the directory: fsync it too, or a power cut may bring back the old entry
        sync_dir(&self.dir).map_err(|e| Error::io(&e, &self.dir))
    }

    /// Gives up: the temporary file goes, the target is untouched.
    pub fn abort(mut self) {
        self.discard();
    }

    fn discard(&mut self) {
        if !self.done {
            self.done = true;
            let _ = fs::remove_file(&self.temp_path);
        }
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        self.discard();
    }
}

/// A symlink is written through, as `open(path, "wb")` would: its target is replaced, the link stays.
fn resolve_symlink(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

fn temp_name(name: &OsStr, pid: u32, n: u64) -> OsString {
    let mut s = OsString::from(".");
    s.push(name);
    s.push(format!(".{pid}-{n}{TEMP_SUFFIX}"));
    s
}

/// Whether `file` is one of our temporary files for the target `name`.
fn is_temp_for(file: &OsStr, name: &OsStr) -> bool {
    let (file, name) = (file.as_encoded_bytes(), name.as_encoded_bytes());
    let Some(rest) = file.strip_prefix(b".").and_then(|r| r.strip_prefix(name)).and_then(|r| r.strip_prefix(b"."))
    else {
        return false;
    };
    let Some(middle) = rest.strip_suffix(TEMP_SUFFIX.as_bytes()) else { return false };
    let mut parts = middle.splitn(2, |&b| b == b'-');
    let digits = |p: Option<&[u8]>| p.is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit));
    digits(parts.next()) && digits(parts.next())
}

/// Removes temporary files of killed saves to the same target: those nobody holds the lock of.
fn remove_stale_temps(dir: &Path, name: &OsStr) {
    let Ok(listing) = fs::read_dir(dir) else { return };
    for entry in listing.flatten() {
        if !is_temp_for(&entry.file_name(), name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let Ok(file) = File::open(entry.path()) else { continue };
        // the writer holds the lock from just after creating the file until it is renamed; the lock is
        // released only when that process ends. A writer that created its file but has not locked it
        // yet checks, once locked, that the file is still there (see create_temp) and starts over.
        if file.try_lock().is_ok() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn create_temp(dir: &Path, name: &OsStr) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    for _ in 0..CREATE_TRIES {
        let path = dir.join(temp_name(name, pid, NEXT_TEMP.fetch_add(1, Ordering::Relaxed)));
        let file = match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => continue, // another save is removing it as stale
            Err(TryLockError::Error(e)) => return Err(e),
        }
        if still_linked(&path, &file) {
            return Ok((path, file));
        }
    }
    Err(io::Error::other("could not create a temporary file for the save (too many concurrent saves?)"))
}

/// Whether `path` still names `file` (a stale-file sweep may have removed it before we locked it).
#[cfg(unix)]
fn still_linked(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_linked(path: &Path, _file: &File) -> bool {
    path.exists()
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(()) // directories cannot be opened for syncing here; the rename is still atomic
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrograd-atomic-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn temp_names_are_recognised_exactly() {
        let name = OsStr::new("model.st");
        assert!(is_temp_for(&temp_name(name, 12, 3), name));
        assert!(!is_temp_for(&temp_name(OsStr::new("model.st.bak"), 12, 3), name));
        assert!(!is_temp_for(OsStr::new(".model.st.12-x.ferrograd-tmp"), name));
        assert!(!is_temp_for(OsStr::new(".model.st.12.ferrograd-tmp"), name));
        assert!(!is_temp_for(OsStr::new("model.st"), name));
    }

    #[test]
    fn replaces_and_leaves_no_temp_files() {
        let dir = scratch("replace");
        let path = dir.join("ckpt");
        fs::write(&path, b"old").unwrap();
        replace(&path, |f| io::Write::write_all(f, b"new")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(listing(&dir), ["ckpt"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = scratch("failed");
        let path = dir.join("ckpt");
        fs::write(&path, b"old").unwrap();
        let err = replace(&path, |f| {
            io::Write::write_all(f, b"half")?;
            Err(io::Error::other("disk on fire"))
        });
        assert!(err.unwrap_err().to_string().contains("disk on fire"));
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(&dir), ["ckpt"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stale_temps_go_and_locked_ones_stay() {
        let dir = scratch("stale");
        let path = dir.join("ckpt");
        let stale = dir.join(temp_name(OsStr::new("ckpt"), 1, 1));
        let busy = dir.join(temp_name(OsStr::new("ckpt"), 1, 2));
        let other = dir.join(temp_name(OsStr::new("other"), 1, 1));
        for p in [&stale, &busy, &other] {
            fs::write(p, b"partial").unwrap();
        }
        let held = File::open(&busy).unwrap();
        held.lock().unwrap();
        replace(&path, |f| io::Write::write_all(f, b"x")).unwrap();
        let expected =
            ["ckpt", busy.file_name().unwrap().to_str().unwrap(), other.file_name().unwrap().to_str().unwrap()];
        let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(listing(&dir), expected);
        drop(held);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through() {
        let dir = scratch("symlink");
        let real = dir.join("real");
        fs::write(&real, b"old").unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        replace(&link, |f| io::Write::write_all(f, b"new")).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        fs::remove_dir_all(&dir).unwrap();
    }
}
