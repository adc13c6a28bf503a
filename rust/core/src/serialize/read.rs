//! Reading a checkpoint, or any safetensors file, trusting nothing in it.
//!
//! Order of checks: the file is at least 8 bytes; the header length fits in the file; the header is
//! JSON the crate accepts (its `Metadata` checks that the entries tile the data region exactly, with
//! overflow-checked sizes); the data region is exactly what the header describes; ferrograd's document
//! parses and every view stays inside its entry. Only then is memory allocated for the data, and only
//! as much as the bytes present.
use super::tree::{self, Document, TensorRecord};
use super::{Checkpoint, MapKind, ReadMode, TensorItem, Value};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{Buffer, Data, Storage};
use crate::tensor::Tensor;
use crate::with_dtype;
use memmap2::MmapMut;
use safetensors::tensor::Metadata;
use safetensors::Dtype;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

const LENGTH_BYTES: u64 = 8;
const MAX_HEADER_BYTES: u64 = 100_000_000;
/// Tensors with more dimensions than this are refused (PyTorch's own limit for most ops).
const MAX_DIMS: usize = 64;

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Runtime(format!("invalid safetensors file: {message}"))
}

/// Where the bytes come from.
pub(super) enum Source<'a> {
    File(&'a File),
    Bytes(&'a [u8]),
    /// A private (copy-on-write) mapping: tensors may point into it.
    Map {
        map: Arc<MmapMut>,
        base: *mut u8,
    },
}

impl Source<'_> {
    fn len(&self) -> Result<u64> {
        Ok(match self {
            Source::File(f) => f.metadata().map_err(|e| Error::Runtime(format!("reading the file failed: {e}")))?.len(),
            Source::Bytes(b) => b.len() as u64,
            Source::Map { map, .. } => map.len() as u64,
        })
    }

    /// Copies `len` bytes at `offset` to `dst`. The caller has checked the range against `len()`.
    ///
    /// # Safety
    /// `dst` must be valid for `len` bytes of writes.
    unsafe fn read_to(&self, offset: u64, dst: *mut u8, len: usize) -> Result<()> {
        match self {
            Source::File(f) => pread_exact(f, offset, dst, len),
            Source::Bytes(b) => {
                // SAFETY: the caller checked offset + len against the bytes' length; `dst` is valid for len
                // writes and cannot overlap a borrowed slice
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr().add(offset as usize), dst, len) };
                Ok(())
            }
            Source::Map { base, .. } => {
                // SAFETY: as above, against the mapping's length; a private (copy-on-write) mapping is
                // distinct from any Vec `dst` points into
                unsafe { std::ptr::copy_nonoverlapping(base.add(offset as usize), dst, len) };
                Ok(())
            }
        }
    }

    fn read_vec(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut v = Vec::with_capacity(len);
        // SAFETY: the vector has room for len bytes; its length is set only once read_to has written them
        unsafe {
            self.read_to(offset, v.as_mut_ptr(), len)?;
            v.set_len(len);
        }
        Ok(v)
    }

    /// One entry's elements as a buffer: copied into a fresh vector, or (mapped, aligned) shared.
    pub(super) fn buffer(&self, dtype: DType, offset: u64, numel: usize, name: &str) -> Result<Buffer> {
        with_dtype!(dtype, T => self.typed_buffer::<T>(offset, numel, name))
    }

    fn typed_buffer<T: Element>(&self, offset: u64, numel: usize, name: &str) -> Result<Buffer> {
        let bytes = numel * std::mem::size_of::<T>(); // checked against the data region already
        if let Source::Map { map, base } = self {
            // SAFETY: offset + bytes lies inside the mapping (checked against the data region by the caller)
            let ptr = unsafe { base.add(offset as usize) };
            if ptr.align_offset(std::mem::align_of::<T>()) == 0 {
                // SAFETY: those bytes are mapped and initialised (file contents), and nothing writes them yet
                check_bools::<T>(unsafe { std::slice::from_raw_parts(ptr, bytes) }, name)?;
                let owner = Box::new(map.clone());
                // SAFETY: numel elements of T, aligned, every bit pattern valid for T (bools checked just
                // above); `owner` keeps the mapping alive as long as the buffer, and the mapping is private to
                // this process, so the tensor is the only writer
                return Ok(T::buffer(unsafe { Data::from_external(ptr as *mut T, numel, owner) }));
            }
        }
        let mut v: Vec<T> = crate::pool::take(numel);
        // SAFETY: the vector has capacity for numel elements (bytes bytes); its length is set only after
        // they are written and the bools among them checked, so no invalid bool is ever read as one
        unsafe {
            self.read_to(offset, v.as_mut_ptr() as *mut u8, bytes)?;
            // the bytes are initialised now; a bool must be 0 or 1 before it may be read as one
            check_bools::<T>(std::slice::from_raw_parts(v.as_ptr() as *const u8, bytes), name)?;
            v.set_len(numel);
        }
        Ok(T::into_buffer(v))
    }
}

fn check_bools<T: Element>(bytes: &[u8], name: &str) -> Result<()> {
    if T::DTYPE == DType::Bool {
        if let Some(i) = bytes.iter().position(|&b| b > 1) {
            return Err(invalid(format!(
                "bool tensor '{name}' holds the byte {} at element {i} (not 0 or 1)",
                bytes[i]
            )));
        }
    }
    Ok(())
}

/// `pread` until `len` bytes have arrived (the file may be shorter than it was a moment ago).
fn pread_exact(f: &File, offset: u64, dst: *mut u8, len: usize) -> Result<()> {
    use std::os::fd::AsRawFd;
    let mut done = 0;
    while done < len {
        let at = libc::off_t::try_from(offset + done as u64).map_err(|_| invalid("offset beyond off_t"))?;
        // SAFETY: dst + done is valid for len - done bytes of writes (read_to's contract); the fd is open
        let n = unsafe { libc::pread(f.as_raw_fd(), dst.add(done) as *mut libc::c_void, len - done, at) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::Runtime(format!("reading the file failed: {err}")));
        }
        if n == 0 {
            return Err(invalid("the file ended early (was it truncated while being read?)"));
        }
        done += n as usize;
    }
    Ok(())
}

pub fn load_path(path: &Path, mode: ReadMode) -> Result<Checkpoint> {
    let file = File::open(path).map_err(|e| Error::io(&e, path))?;
    let meta = file.metadata().map_err(|e| Error::io(&e, path))?;
    if meta.is_dir() {
        return Err(Error::io(&std::io::Error::from_raw_os_error(libc::EISDIR), path));
    }
    match mode {
        ReadMode::Read => load(&Source::File(&file)),
        ReadMode::Map => {
            if meta.len() < LENGTH_BYTES {
                return Err(too_short(meta.len())); // nothing to map
            }
            // private: writes to the tensors stay in this process and never reach the file
            // SAFETY: memmap2's one condition is that the file is not changed underneath the mapping. A private
            // mapping keeps our writes out of the file; another process truncating the file while it is mapped
            // would fault on access (SIGBUS), the same condition torch's `mmap=True` and numpy's memmap accept
            let mut map = unsafe { memmap2::MmapOptions::new().map_copy(&file) }.map_err(|e| Error::io(&e, path))?;
            let base = map.as_mut_ptr();
            load(&Source::Map { map: Arc::new(map), base })
        }
    }
}

pub fn load_bytes(bytes: &[u8]) -> Result<Checkpoint> {
    load(&Source::Bytes(bytes))
}

fn torch_file() -> Error {
    invalid(
        "it is a zip or a pickle, as torch.save writes, not safetensors; ferrograd never unpickles. Convert it with \
         PyTorch: safetensors.torch.save_file(torch.load(path), 'model.safetensors') for a state dict",
    )
}

fn too_short(len: u64) -> Error {
    invalid(format!("it is {len} bytes long, too short for the 8-byte header length"))
}

/// A stored entry (absolute byte offset in the source).
struct Entry {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
    numel: usize,
    begin: u64,
}

fn load(src: &Source) -> Result<Checkpoint> {
    let file_len = src.len()?;
    if file_len < LENGTH_BYTES {
        return Err(too_short(file_len));
    }
    let first = src.read_vec(0, 8)?;
    // a zip (torch.save) or a raw pickle (its legacy format), told apart only once the file fails as safetensors
    let from_torch = first.starts_with(b"PK\x03\x04") || first[0] == 0x80 && (2..=5).contains(&first[1]);
    let not_safetensors = |e: Error| if from_torch { torch_file() } else { e };
    let n = u64::from_le_bytes(first.try_into().expect("8 bytes"));
    if n > file_len - LENGTH_BYTES {
        return Err(not_safetensors(invalid(format!(
            "the header length field says {n} bytes but only {} follow it (truncated, or not a safetensors file)",
            file_len - LENGTH_BYTES
        ))));
    }
    if n > MAX_HEADER_BYTES {
        let e = invalid(format!("the header is {n} bytes, above the format's limit of {MAX_HEADER_BYTES}"));
        return Err(not_safetensors(e));
    }
    let header = src.read_vec(LENGTH_BYTES, n as usize)?;
    let metadata: Metadata =
        serde_json::from_slice(&header).map_err(|e| not_safetensors(invalid(format!("header: {e}"))))?;
    let data_start = LENGTH_BYTES + n;
    let data_len = metadata.data_len() as u64;
    if data_start.checked_add(data_len) != Some(file_len) {
        return Err(invalid(format!(
            "the header describes {data_len} bytes of data but the file holds {} after the header (truncated or \
                padded)",
            file_len - data_start
        )));
    }
    let entries = entries(&metadata, data_start)?;
    let document = match metadata.metadata().as_ref().and_then(|m| m.get("ferrograd")) {
        Some(text) => tree::from_json(text)?,
        None => plain_document(&entries),
    };
    build(src, &entries, document)
}

fn entries(metadata: &Metadata, data_start: u64) -> Result<Vec<Entry>> {
    metadata
        .offset_keys()
        .into_iter()
        .map(|name| {
            let info = metadata.info(&name).expect("offset_keys names entries");
            let dtype = dtype_of(info.dtype).ok_or_else(|| {
                invalid(format!("tensor '{name}' has dtype {}, which ferrograd does not support", info.dtype))
            })?;
            if info.shape.len() > MAX_DIMS {
                return Err(invalid(format!(
                    "tensor '{name}' has {} dimensions (at most {MAX_DIMS})",
                    info.shape.len()
                )));
            }
            // the crate checked numel × size against the entry's byte range without overflow
            let numel = info.shape.iter().product();
            let begin = data_start + info.data_offsets.0 as u64;
            Ok(Entry { name, dtype, shape: info.shape.clone(), numel, begin })
        })
        .collect()
}

fn dtype_of(d: Dtype) -> Option<DType> {
    DType::ALL.into_iter().find(|&x| super::write::safetensors_dtype(x) == d)
}

/// A file without ferrograd's document: a dict of its entries, in file order, each whole.
fn plain_document(entries: &[Entry]) -> Document {
    let records = entries
        .iter()
        .map(|e| TensorRecord {
            storage: e.name.clone(),
            shape: e.shape.clone(),
            strides: crate::layout::contiguous_strides(&e.shape),
            offset: 0,
            requires_grad: false,
            parameter: false,
        })
        .collect();
    let pairs = entries.iter().enumerate().map(|(i, e)| (Value::Str(e.name.clone()), Value::Tensor(i))).collect();
    Document { records, root: Value::Map(MapKind::Dict, pairs) }
}

/// The largest element index a view touches, plus one (0 for an empty view), or None on overflow.
fn extent(r: &TensorRecord) -> Option<usize> {
    let numel = r.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    if numel == 0 {
        return Some(0);
    }
    r.shape
        .iter()
        .zip(&r.strides)
        .try_fold(r.offset, |a, (&d, &s)| a.checked_add((d - 1).checked_mul(s)?))?
        .checked_add(1)
}

fn build(src: &Source, entries: &[Entry], doc: Document) -> Result<Checkpoint> {
    let by_name: HashMap<&str, usize> = entries.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let mut entry_of = Vec::with_capacity(doc.records.len());
    for (i, r) in doc.records.iter().enumerate() {
        let &e = by_name.get(r.storage.as_str()).ok_or_else(|| {
            invalid(format!("tensor {i} reads the entry '{}', which the file does not have", r.storage))
        })?;
        let entry = &entries[e];
        if r.shape.len() > MAX_DIMS {
            return Err(invalid(format!("tensor {i} has {} dimensions (at most {MAX_DIMS})", r.shape.len())));
        }
        match extent(r) {
            Some(end) if end <= entry.numel && r.offset <= entry.numel => {}
            _ => {
                return Err(invalid(format!(
                    "tensor {i} (sizes {:?}, strides {:?}, offset {}) reaches past the end of '{}' ({} elements)",
                    r.shape, r.strides, r.offset, entry.name, entry.numel
                )))
            }
        }
        if r.requires_grad && !entry.dtype.is_float() {
            return Err(invalid(format!("tensor {i} requires grad but is {}", entry.dtype)));
        }
        entry_of.push(e);
    }
    // every check passed: allocate and fill the storages that some tensor reads, each once
    let mut storages: Vec<Option<Arc<Storage>>> = vec![None; entries.len()];
    let mut tensors = Vec::with_capacity(doc.records.len());
    for (r, &e) in doc.records.iter().zip(&entry_of) {
        let storage = match &storages[e] {
            Some(s) => s.clone(),
            None => {
                let entry = &entries[e];
                let s = Arc::new(Storage::new(src.buffer(entry.dtype, entry.begin, entry.numel, &entry.name)?));
                storages[e] = Some(s.clone());
                s
            }
        };
        let layout = Layout { shape: r.shape.clone(), strides: r.strides.clone(), offset: r.offset };
        let tensor = Tensor::from_storage(storage, layout)?.with_requires_grad(r.requires_grad)?;
        tensors.push(TensorItem { tensor, parameter: r.parameter });
    }
    Ok(Checkpoint { root: doc.root, tensors })
}
