//! Writing a checkpoint: one safetensors entry per distinct storage, the tree in `__metadata__`.
use super::tree::{self, Document, TensorRecord};
use super::{atomic, Checkpoint, SeqKind, Value};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::Storage;
use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::Dtype;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// The crate refuses headers above this size on load.
const MAX_HEADER_BYTES: usize = 100_000_000;
/// The crate pads the header so the data (and, in its dtype order, every entry) is 8-byte aligned.
const HEADER_ALIGN: usize = 8;

pub(super) fn safetensors_dtype(d: DType) -> Dtype {
    match d {
        DType::Bool => Dtype::BOOL,
        DType::U8 => Dtype::U8,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        // a storage's buffer is never complex: complex tensors keep their parts in float storages
        DType::C64 => Dtype::F32,
        DType::C128 => Dtype::F64,
    }
}

/// A checkpoint laid out for writing: the header (length prefix included) and the storages in file order.
pub struct Prepared {
    header: Vec<u8>,
    storages: Vec<Arc<Storage>>,
}

impl Prepared {
    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.header.len() + self.storages.iter().map(|s| s.read().as_bytes().len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        false // a file always has its header
    }

    pub fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(&self.header)?;
        for storage in &self.storages {
            w.write_all(storage.read().as_bytes())?;
        }
        Ok(())
    }
}

/// Writes `ckpt` to `path`, replacing any file there atomically.
pub fn save_path(ckpt: &Checkpoint, path: &Path) -> Result<()> {
    let prepared = prepare(ckpt)?;
    atomic::replace(path, |file| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        prepared.write_to(&mut w)?;
        w.flush()
    })
}

/// The file's bytes.
pub fn save_to_vec(ckpt: &Checkpoint) -> Result<Vec<u8>> {
    let prepared = prepare(ckpt)?;
    let mut out = Vec::with_capacity(prepared.len());
    prepared.write_to(&mut out).map_err(|e| Error::Runtime(format!("serializing the checkpoint failed: {e}")))?;
    Ok(out)
}

/// One stored entry: a storage and the name and shape it is stored under.
struct Entry {
    storage: Arc<Storage>,
    dtype: DType,
    name: String,
    shape: Vec<usize>,
}

/// Lays `ckpt` out: names its entries, describes every tensor's view, builds the header.
pub fn prepare(ckpt: &Checkpoint) -> Result<Prepared> {
    let names = tensor_names(&ckpt.root, ckpt.tensors.len());
    let mut used: HashSet<String> = HashSet::from(["__metadata__".to_string()]);
    let mut unique = |name: String| {
        let mut candidate = name.clone();
        let mut n = 1;
        while !used.insert(candidate.clone()) {
            candidate = format!("{name}.{n}");
            n += 1;
        }
        candidate
    };

    // group the tensors by storage, in order of first appearance
    let mut group_of: HashMap<*const Storage, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, item) in ckpt.tensors.iter().enumerate() {
        let key = Arc::as_ptr(item.tensor.storage());
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }

    let mut entries = Vec::with_capacity(groups.len());
    let mut entry_of_tensor = vec![0; ckpt.tensors.len()];
    for members in &groups {
        let first = &ckpt.tensors[members[0]].tensor;
        let storage = first.storage().clone();
        let (len, dtype) = {
            let buffer = storage.read();
            (buffer.len(), buffer.dtype())
        };
        let covers = |i: &&usize| {
            let t = &ckpt.tensors[**i].tensor;
            t.storage_offset() == 0 && t.is_contiguous() && t.numel() == len
        };
        let (name, shape) = match members.iter().find(covers) {
            Some(&i) => (unique(names[i].clone()), ckpt.tensors[i].tensor.shape().to_vec()),
            None => (unique(format!("{}.__storage__", names[members[0]])), vec![len]),
        };
        for &i in members {
            entry_of_tensor[i] = entries.len();
        }
        entries.push(Entry { storage, dtype, name, shape });
    }

    let records = ckpt
        .tensors
        .iter()
        .zip(&entry_of_tensor)
        .map(|(item, &e)| {
            let t = &item.tensor;
            if t.dtype() != entries[e].dtype {
                crate::bail!(Runtime, "a {} tensor reads a {} storage", t.dtype(), entries[e].dtype);
            }
            // an empty view may point past its storage's end; any offset within it reads the same nothing
            let len = entries[e].shape.iter().product::<usize>();
            let offset = if t.numel() == 0 { t.storage_offset().min(len) } else { t.storage_offset() };
            Ok(TensorRecord {
                storage: entries[e].name.clone(),
                shape: t.shape().to_vec(),
                strides: t.strides().to_vec(),
                offset,
                requires_grad: t.requires_grad(),
                parameter: item.parameter,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let document = tree::to_json(&Document { records, root: ckpt.root.clone() })?;
    header(entries, document)
}

/// The header as the crate writes it: entries sorted by descending alignment, then name; padded to 8 bytes.
fn header(mut entries: Vec<Entry>, document: String) -> Result<Prepared> {
    entries
        .sort_by(|a, b| safetensors_dtype(b.dtype).cmp(&safetensors_dtype(a.dtype)).then_with(|| a.name.cmp(&b.name)));
    let mut offset = 0;
    let mut infos = Vec::with_capacity(entries.len());
    for e in &entries {
        let bytes = e.shape.iter().product::<usize>() * e.dtype.itemsize();
        let info = TensorInfo {
            dtype: safetensors_dtype(e.dtype),
            shape: e.shape.clone(),
            data_offsets: (offset, offset + bytes),
        };
        infos.push((e.name.clone(), info));
        offset += bytes;
    }
    // "format": "pt" is what Hugging Face tools look for in a torch state dict
    let extra = [("ferrograd", document.as_str()), ("format", "pt")];
    let mut json = header_json(&extra, &infos)?.into_bytes();
    // the crate must read back what we wrote: its Metadata checks every entry's offsets and size
    serde_json::from_slice::<Metadata>(&json).map_err(|e| Error::Runtime(format!("safetensors header: {e}")))?;
    json.resize(json.len().next_multiple_of(HEADER_ALIGN), b' ');
    if json.len() > MAX_HEADER_BYTES {
        crate::bail!(
            Value,
            "the checkpoint's header would be {} bytes, above safetensors' limit of {MAX_HEADER_BYTES}",
            json.len()
        );
    }
    let mut header = Vec::with_capacity(8 + json.len());
    header.extend_from_slice(&(json.len() as u64).to_le_bytes());
    header.extend_from_slice(&json);
    Ok(Prepared { header, storages: entries.into_iter().map(|e| e.storage).collect() })
}

/// The header's JSON in a fixed order (the crate's own writer orders `__metadata__` by a random hash,
/// so the same checkpoint would not always give the same bytes): metadata first, entries by offset.
fn header_json(extra: &[(&str, &str)], infos: &[(String, TensorInfo)]) -> Result<String> {
    let text = |e: serde_json::Error| Error::Runtime(format!("safetensors header: {e}"));
    let mut json = String::from("{\"__metadata__\":{");
    for (i, (key, value)) in extra.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        json += &format!(
            "{sep}{}:{}",
            serde_json::to_string(key).map_err(text)?,
            serde_json::to_string(value).map_err(text)?
        );
    }
    json.push('}');
    for (name, info) in infos {
        json +=
            &format!(",{}:{}", serde_json::to_string(name).map_err(text)?, serde_json::to_string(info).map_err(text)?);
    }
    json.push('}');
    Ok(json)
}

/// Each tensor's name: the keys and indices on the way to its first appearance, joined by dots
/// (a state dict's own keys); a tensor saved by itself is "tensor".
fn tensor_names(root: &Value, n: usize) -> Vec<String> {
    fn walk(v: &Value, path: &mut Vec<String>, names: &mut [Option<String>]) {
        match v {
            Value::Tensor(i) if names[*i].is_none() => {
                names[*i] = Some(if path.is_empty() { "tensor".into() } else { path.join(".") });
            }
            Value::Seq(_, items) => {
                for (i, x) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(x, path, names);
                    path.pop();
                }
            }
            Value::Map(_, pairs) => {
                for (k, x) in pairs {
                    path.push(key_text(k));
                    walk(x, path, names);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut names = vec![None; n];
    walk(root, &mut Vec::new(), &mut names);
    names.into_iter().enumerate().map(|(i, name)| name.unwrap_or_else(|| format!("tensor.{i}"))).collect()
}

fn key_text(k: &Value) -> String {
    match k {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(s) => s.clone(),
        Value::Bool(b) => (if *b { "True" } else { "False" }).into(),
        Value::None => "None".into(),
        Value::Float(f) => format!("{f:?}"),
        Value::DType(d) => d.name().into(),
        Value::Seq(SeqKind::Tuple | SeqKind::Size, items) => items.iter().map(key_text).collect::<Vec<_>>().join("_"),
        _ => "key".into(),
    }
}
