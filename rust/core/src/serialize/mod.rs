//! Checkpoints (`ferrograd.save` / `ferrograd.load`) in the safetensors format.
//!
//! A file is plain safetensors (8-byte little-endian header length, a JSON header, the raw
//! little-endian data), written and validated with the `safetensors` crate's `Metadata`. Each
//! distinct storage is stored once. A tensor that covers its storage densely (offset 0, row-major,
//! every element) names the storage's entry and gives it its shape, so a saved `state_dict()` reads
//! in any safetensors loader with the same names and values; a storage no tensor covers densely is
//! stored flat under `<first tensor's name>.__storage__`. The object around the tensors (nested
//! dicts, lists, tuples, numbers, ...) and every tensor's view of its storage (shape, strides,
//! offset, requires_grad) go in one JSON document kept in the header's `__metadata__` under
//! `"ferrograd"` (see `tree`). Loading executes nothing: it parses, checks every length, name and
//! offset against the bytes present, then copies (or maps) the data.
//!
//! Files are replaced atomically (`atomic`): a crash mid-save leaves the previous file intact.
mod atomic;
mod read;
mod records;
#[cfg(test)]
mod tests;
mod tree;
mod write;

use crate::dtype::DType;
use crate::tensor::Tensor;

pub use atomic::Replacement;
pub use read::{load_bytes, load_path};
pub use records::{crc32, storage_from_bytes, view_of_storage, write_all_fd, RecordFile};
pub use write::{prepare, save_path, save_to_vec, Prepared};

/// Containers nested deeper than this are refused on save (and cannot appear on load): the JSON
/// that describes them stays under serde_json's recursion limit of 128 levels.
pub const MAX_NESTING: usize = 50;

/// The object saved around the tensors, as a tree. Tensors are indices into `Checkpoint::tensors`,
/// so one tensor object saved twice is one tensor loaded twice.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond i64, in decimal.
    BigInt(String),
    Float(f64),
    Str(String),
    DType(DType),
    Seq(SeqKind, Vec<Value>),
    /// Keys and values in insertion order.
    Map(MapKind, Vec<(Value, Value)>),
    Tensor(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqKind {
    List,
    Tuple,
    /// `ferrograd.Size` (a tuple of ints).
    Size,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapKind {
    Dict,
    OrderedDict,
}

/// One saved tensor object.
#[derive(Clone)]
pub struct TensorItem {
    pub tensor: Tensor,
    /// Saved from (and loaded as) an `nn.Parameter`.
    pub parameter: bool,
}

/// What `save` writes and `load` returns.
pub struct Checkpoint {
    pub root: Value,
    pub tensors: Vec<TensorItem>,
}

/// Memory-maps the file on load instead of reading it (the tensors then share the mapping's pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    Read,
    Map,
}

#[cfg(not(target_endian = "little"))]
compile_error!("safetensors data is little-endian; checkpoint I/O copies storages byte for byte");
