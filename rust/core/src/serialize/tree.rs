//! The JSON document in a checkpoint's `__metadata__["ferrograd"]`: the saved object as a tree, and
//! each tensor's view of a stored entry.
//!
//! ```json
//! {"version": 1,
//!  "tensors": [{"storage": "fc.weight", "shape": [4, 3], "strides": [3, 1], "offset": 0,
//!               "requires_grad": true}],
//!  "root": {"odict": ["fc.weight", {"tensor": 0}, "step", 3]}}
//! ```
//! Values: `null`, `true`/`false`, strings and integers (i64) stand for themselves; everything else
//! is a one-key object: `{"int": "<decimal>"}` (beyond i64), `{"float": "<shortest repr>"}` (exact,
//! incl. "inf", "-inf", "NaN"), `{"dtype": "float32"}`, `{"list" | "tuple" | "size": [...]}`,
//! `{"dict" | "odict": [k0, v0, k1, v1, ...]}`, `{"tensor": <index into "tensors">}`.
use super::{MapKind, SeqKind, Value, MAX_NESTING};
use crate::dtype::DType;
use crate::error::{Error, Result};
use serde_json::{json, Map, Value as Json};

pub(super) const FORMAT_VERSION: u64 = 1;
/// Python's `int(str)` refuses more digits than this by default.
const MAX_INT_DIGITS: usize = 4300;

/// How one saved tensor reads its stored entry (offset and strides in elements).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TensorRecord {
    pub storage: String,
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
    pub requires_grad: bool,
    pub parameter: bool,
}

#[derive(Debug)]
pub(super) struct Document {
    pub records: Vec<TensorRecord>,
    pub root: Value,
}

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Runtime(format!("invalid checkpoint metadata: {message}"))
}

const SEQ_TAGS: [(SeqKind, &str); 3] = [(SeqKind::List, "list"), (SeqKind::Tuple, "tuple"), (SeqKind::Size, "size")];
const MAP_TAGS: [(MapKind, &str); 2] = [(MapKind::Dict, "dict"), (MapKind::OrderedDict, "odict")];

fn seq_tag(kind: SeqKind) -> &'static str {
    SEQ_TAGS.iter().find(|(k, _)| *k == kind).map(|(_, t)| *t).expect("every kind has a tag")
}

fn map_tag(kind: MapKind) -> &'static str {
    MAP_TAGS.iter().find(|(k, _)| *k == kind).map(|(_, t)| *t).expect("every kind has a tag")
}

// ---- writing ----

pub(super) fn to_json(doc: &Document) -> Result<String> {
    let records: Vec<Json> = doc.records.iter().map(record_json).collect();
    let root = encode(&doc.root, 0)?;
    let text = json!({"version": FORMAT_VERSION, "tensors": records, "root": root}).to_string();
    Ok(text)
}

fn record_json(r: &TensorRecord) -> Json {
    let mut m = Map::new();
    m.insert("storage".into(), json!(r.storage));
    m.insert("shape".into(), json!(r.shape));
    m.insert("strides".into(), json!(r.strides));
    m.insert("offset".into(), json!(r.offset));
    if r.requires_grad {
        m.insert("requires_grad".into(), json!(true));
    }
    if r.parameter {
        m.insert("parameter".into(), json!(true));
    }
    Json::Object(m)
}

fn encode(v: &Value, depth: usize) -> Result<Json> {
    let nested = |items: &mut dyn Iterator<Item = &Value>| -> Result<Json> {
        if depth >= MAX_NESTING {
            crate::bail!(Value, "cannot save containers nested more than {MAX_NESTING} levels deep");
        }
        Ok(Json::Array(items.map(|x| encode(x, depth + 1)).collect::<Result<_>>()?))
    };
    Ok(match v {
        Value::None => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => json!(i),
        Value::BigInt(s) => json!({"int": s}),
        // Debug is the shortest text that parses back to the same bits ("0.1", "1e300", "inf", "NaN")
        Value::Float(f) => json!({"float": format!("{f:?}")}),
        Value::Str(s) => Json::String(s.clone()),
        Value::DType(d) => json!({"dtype": d.name()}),
        Value::Seq(kind, items) => json!({seq_tag(*kind): nested(&mut items.iter())?}),
        Value::Map(kind, pairs) => {
            json!({map_tag(*kind): nested(&mut pairs.iter().flat_map(|(k, v)| [k, v]))?})
        }
        Value::Tensor(i) => json!({"tensor": i}),
    })
}

// ---- reading ----

pub(super) fn from_json(text: &str) -> Result<Document> {
    // serde_json stops at 128 levels of nesting, so neither parsing nor `decode` can exhaust the stack
    let doc: Json = serde_json::from_str(text).map_err(invalid)?;
    let Json::Object(top) = doc else { return Err(invalid("not a JSON object")) };
    for key in top.keys() {
        if !matches!(key.as_str(), "version" | "tensors" | "root") {
            return Err(invalid(format!("unknown field '{key}'")));
        }
    }
    match top.get("version").and_then(Json::as_u64) {
        Some(FORMAT_VERSION) => {}
        Some(v) => {
            return Err(invalid(format!(
            "format version {v} is not one this ferrograd reads (version {FORMAT_VERSION}); a newer ferrograd wrote it"
        )))
        }
        None => return Err(invalid("missing or non-integer 'version'")),
    }
    let Some(Json::Array(records)) = top.get("tensors") else { return Err(invalid("missing 'tensors' list")) };
    let records = records.iter().enumerate().map(|(i, r)| record(i, r)).collect::<Result<Vec<_>>>()?;
    let root = top.get("root").ok_or_else(|| invalid("missing 'root'"))?;
    let root = decode(root, records.len())?;
    Ok(Document { records, root })
}

fn index_list(i: usize, field: &str, v: Option<&Json>) -> Result<Vec<usize>> {
    let Some(Json::Array(items)) = v else { return Err(invalid(format!("tensor {i}: '{field}' is not a list"))) };
    items
        .iter()
        .map(|x| {
            x.as_u64()
                .and_then(|u| usize::try_from(u).ok())
                .ok_or_else(|| invalid(format!("tensor {i}: '{field}' holds {x}, not a non-negative integer")))
        })
        .collect()
}

fn record(i: usize, r: &Json) -> Result<TensorRecord> {
    let Json::Object(m) = r else { return Err(invalid(format!("tensor {i} is not an object"))) };
    for key in m.keys() {
        if !matches!(key.as_str(), "storage" | "shape" | "strides" | "offset" | "requires_grad" | "parameter") {
            return Err(invalid(format!("tensor {i}: unknown field '{key}'")));
        }
    }
    let storage =
        m.get("storage").and_then(Json::as_str).ok_or_else(|| invalid(format!("tensor {i}: no 'storage' name")))?;
    let flag = |name: &str| match m.get(name) {
        None => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(other) => Err(invalid(format!("tensor {i}: '{name}' is {other}, not a bool"))),
    };
    let shape = index_list(i, "shape", m.get("shape"))?;
    let strides = index_list(i, "strides", m.get("strides"))?;
    if shape.len() != strides.len() {
        return Err(invalid(format!("tensor {i}: {} sizes but {} strides", shape.len(), strides.len())));
    }
    let offset = m
        .get("offset")
        .and_then(Json::as_u64)
        .and_then(|u| usize::try_from(u).ok())
        .ok_or_else(|| invalid(format!("tensor {i}: 'offset' is not a non-negative integer")))?;
    Ok(TensorRecord {
        storage: storage.to_string(),
        shape,
        strides,
        offset,
        requires_grad: flag("requires_grad")?,
        parameter: flag("parameter")?,
    })
}

fn decode(j: &Json, n_tensors: usize) -> Result<Value> {
    match j {
        Json::Null => Ok(Value::None),
        Json::Bool(b) => Ok(Value::Bool(*b)),
        Json::String(s) => Ok(Value::Str(s.clone())),
        Json::Number(n) => n.as_i64().map(Value::Int).ok_or_else(|| invalid(format!("bare number {n} is not an i64"))),
        Json::Array(_) => Err(invalid("untagged list")),
        Json::Object(m) => {
            let mut entries = m.iter();
            let (Some((tag, body)), None) = (entries.next(), entries.next()) else {
                return Err(invalid("a tagged value must have exactly one key"));
            };
            decode_tagged(tag, body, n_tensors)
        }
    }
}

fn decode_tagged(tag: &str, body: &Json, n_tensors: usize) -> Result<Value> {
    if let Some((kind, _)) = SEQ_TAGS.iter().find(|(_, t)| *t == tag) {
        let items = array(tag, body)?.iter().map(|x| decode(x, n_tensors)).collect::<Result<Vec<_>>>()?;
        if *kind == SeqKind::Size && !items.iter().all(|x| matches!(x, Value::Int(_))) {
            return Err(invalid("a size holds a non-integer"));
        }
        return Ok(Value::Seq(*kind, items));
    }
    if let Some((kind, _)) = MAP_TAGS.iter().find(|(_, t)| *t == tag) {
        let flat = array(tag, body)?;
        if flat.len() % 2 != 0 {
            return Err(invalid(format!("'{tag}' has an odd number of keys and values")));
        }
        let mut pairs = Vec::with_capacity(flat.len() / 2);
        for kv in flat.chunks_exact(2) {
            let key = decode(&kv[0], n_tensors)?;
            if !is_hashable(&key) {
                return Err(invalid(format!("a dict key of kind {} cannot be hashed", kind_name(&key))));
            }
            pairs.push((key, decode(&kv[1], n_tensors)?));
        }
        return Ok(Value::Map(*kind, pairs));
    }
    match tag {
        "int" => {
            let s = body.as_str().ok_or_else(|| invalid("'int' is not a string"))?;
            let digits = s.strip_prefix('-').unwrap_or(s);
            if digits.is_empty() || digits.len() > MAX_INT_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid(format!("'{}' is not a decimal integer", truncated(s))));
            }
            Ok(Value::BigInt(s.to_string()))
        }
        "float" => {
            let s = body.as_str().ok_or_else(|| invalid("'float' is not a string"))?;
            s.parse::<f64>().map(Value::Float).map_err(|_| invalid(format!("'{}' is not a float", truncated(s))))
        }
        "dtype" => {
            let s = body.as_str().ok_or_else(|| invalid("'dtype' is not a string"))?;
            DType::ALL
                .into_iter()
                .find(|d| d.name() == s)
                .map(Value::DType)
                .ok_or_else(|| invalid(format!("unknown dtype '{}'", truncated(s))))
        }
        "tensor" => match body.as_u64().and_then(|u| usize::try_from(u).ok()) {
            Some(i) if i < n_tensors => Ok(Value::Tensor(i)),
            _ => Err(invalid(format!("reference {body} names no tensor (there are {n_tensors})"))),
        },
        _ => Err(invalid(format!("unknown kind '{}'", truncated(tag)))),
    }
}

fn array<'a>(tag: &str, body: &'a Json) -> Result<&'a Vec<Json>> {
    body.as_array().ok_or_else(|| invalid(format!("'{tag}' does not hold a list")))
}

fn truncated(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn is_hashable(v: &Value) -> bool {
    match v {
        Value::Seq(SeqKind::Tuple | SeqKind::Size, items) => items.iter().all(is_hashable),
        Value::Seq(SeqKind::List, _) | Value::Map(..) | Value::Tensor(_) => false,
        _ => true,
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Seq(kind, _) => seq_tag(*kind),
        Value::Map(kind, _) => map_tag(*kind),
        Value::Tensor(_) => "tensor",
        _ => "scalar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(root: Value, n_tensors: usize) -> Value {
        let records = (0..n_tensors)
            .map(|i| TensorRecord {
                storage: format!("s{i}"),
                shape: vec![2, 3],
                strides: vec![3, 1],
                offset: i,
                requires_grad: i % 2 == 0,
                parameter: i == 1,
            })
            .collect::<Vec<_>>();
        let text = to_json(&Document { records: records.clone(), root }).unwrap();
        let doc = from_json(&text).unwrap();
        assert_eq!(doc.records, records);
        doc.root
    }

    #[test]
    fn values_round_trip_exactly() {
        let floats = [0.1, -0.0, 1e300, 5e-324, f64::INFINITY, f64::NEG_INFINITY, 1.0 / 3.0];
        let root = Value::Map(
            MapKind::OrderedDict,
            vec![
                (Value::Str("a".into()), Value::Seq(SeqKind::List, floats.iter().map(|&f| Value::Float(f)).collect())),
                (Value::Int(0), Value::Seq(SeqKind::Tuple, vec![Value::None, Value::Bool(true), Value::Int(i64::MIN)])),
                (Value::Seq(SeqKind::Tuple, vec![Value::Int(1)]), Value::Tensor(1)),
                (Value::Str("big".into()), Value::BigInt("-1267650600228229401496703205376".into())),
                (Value::Str("dt".into()), Value::DType(DType::BF16)),
                (Value::Str("size".into()), Value::Seq(SeqKind::Size, vec![Value::Int(2), Value::Int(3)])),
                (Value::Str("t".into()), Value::Tensor(0)),
            ],
        );
        let back = round_trip(root.clone(), 2);
        assert_eq!(back, root);
        let nan = round_trip(Value::Float(f64::NAN), 0);
        assert!(matches!(nan, Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn nesting_is_bounded_on_save_and_load() {
        let mut v = Value::None;
        for _ in 0..MAX_NESTING {
            v = Value::Seq(SeqKind::List, vec![v]);
        }
        assert_eq!(round_trip(v.clone(), 0), v);
        let deeper = Value::Seq(SeqKind::List, vec![v]);
        let doc = Document { records: vec![], root: deeper };
        assert!(to_json(&doc).unwrap_err().to_string().contains("nested more than"));
        let bomb = format!(
            r#"{{"version":1,"tensors":[],"root":{}null{}}}"#,
            "{\"list\":[".repeat(100_000),
            "]}".repeat(100_000)
        );
        assert!(from_json(&bomb).unwrap_err().to_string().contains("recursion limit"));
    }

    #[test]
    fn malformed_documents_are_refused() {
        let cases = [
            (r#"{"version":2,"tensors":[],"root":null}"#, "format version 2"),
            (r#"{"version":1,"tensors":[],"root":{"tensor":0}}"#, "names no tensor"),
            (r#"{"version":1,"tensors":[],"root":{"pickle":"x"}}"#, "unknown kind 'pickle'"),
            (r#"{"version":1,"tensors":[],"root":{"dict":[1]}}"#, "odd number"),
            (r#"{"version":1,"tensors":[],"root":{"dict":[{"list":[]},1]}}"#, "cannot be hashed"),
            (r#"{"version":1,"tensors":[],"root":{"int":"12a"}}"#, "not a decimal integer"),
            (r#"{"version":1,"tensors":[],"root":{"float":"one"}}"#, "not a float"),
            (r#"{"version":1,"tensors":[],"root":1.5}"#, "bare number"),
            (r#"{"version":1,"tensors":[],"root":[1]}"#, "untagged list"),
            (r#"{"version":1,"tensors":[],"root":{"size":[1.5]}}"#, "bare number"),
            (r#"{"version":1,"tensors":[],"root":null,"x":1}"#, "unknown field 'x'"),
            (
                r#"{"version":1,"tensors":[{"storage":"a","shape":[2],"strides":[-1],"offset":0}],"root":null}"#,
                "not a non-negative integer",
            ),
            (
                r#"{"version":1,"tensors":[{"storage":"a","shape":[2,2],"strides":[1],"offset":0}],"root":null}"#,
                "2 sizes but 1 strides",
            ),
            (r#"{"version":1,"tensors":[{"shape":[],"strides":[],"offset":0}],"root":null}"#, "no 'storage'"),
            ("not json", "invalid checkpoint metadata"),
        ];
        for (text, phrase) in cases {
            let err = from_json(text).err().unwrap_or_else(|| panic!("accepted {text}")).to_string();
            assert!(err.contains(phrase), "{text}: {err}");
        }
    }
}
