//! Round trips through the bytes and the file system, and files that lie (the Python suite has many more).
use super::*;
use crate::layout::Layout;

fn item(tensor: Tensor) -> TensorItem {
    TensorItem { tensor, parameter: false }
}

fn view(t: &Tensor, shape: &[usize], strides: &[usize], offset: usize) -> Tensor {
    let layout = Layout { shape: shape.to_vec(), strides: strides.to_vec(), offset };
    Tensor::from_storage(t.storage().clone(), layout).unwrap()
}

/// {"w": t, "w.T": t.T, "tail": t[1:], "again": t, "b": bools, "n": 7}
fn sample() -> Checkpoint {
    let t = Tensor::from_vec((0..6).map(|x| x as f32 * 1.5).collect::<Vec<_>>(), &[2, 3]).unwrap();
    let bools = Tensor::from_vec(vec![true, false, true], &[3]).unwrap();
    let tensors =
        vec![item(t.clone()), item(view(&t, &[3, 2], &[1, 3], 0)), item(view(&t, &[1, 3], &[3, 1], 3)), item(bools)];
    let key = |s: &str| Value::Str(s.into());
    let root = Value::Map(
        MapKind::OrderedDict,
        vec![
            (key("w"), Value::Tensor(0)),
            (key("w.T"), Value::Tensor(1)),
            (key("tail"), Value::Tensor(2)),
            (key("again"), Value::Tensor(0)),
            (key("b"), Value::Tensor(3)),
            (key("n"), Value::Int(7)),
        ],
    );
    Checkpoint { root, tensors }
}

fn check_sample(back: &Checkpoint) {
    let original = sample();
    assert_eq!(back.root, original.root);
    assert_eq!(back.tensors.len(), 4);
    for (a, b) in original.tensors.iter().zip(&back.tensors) {
        assert_eq!(a.tensor.layout(), b.tensor.layout());
        assert_eq!(a.tensor.to_vec::<f64>(), b.tensor.to_vec::<f64>());
    }
    let t = &back.tensors;
    assert!(t[0].tensor.same_storage(&t[1].tensor) && t[0].tensor.same_storage(&t[2].tensor));
    assert!(!t[0].tensor.same_storage(&t[3].tensor));
}

#[test]
fn round_trips_through_bytes_and_files() {
    let bytes = save_to_vec(&sample()).unwrap();
    check_sample(&load_bytes(&bytes).unwrap());
    let dir = std::env::temp_dir().join(format!("ferrograd-serialize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sample.safetensors");
    save_path(&sample(), &path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    check_sample(&load_path(&path, ReadMode::Read).unwrap());
    check_sample(&load_path(&path, ReadMode::Map).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shared_storage_is_stored_once_under_the_dense_tensor_name() {
    let bytes = save_to_vec(&sample()).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut names = st.names();
    names.sort();
    assert_eq!(names, ["b", "w"]);
    assert_eq!(st.tensor("w").unwrap().shape(), [2, 3]);
}

#[test]
fn every_truncation_and_a_lying_length_are_refused() {
    let bytes = save_to_vec(&sample()).unwrap();
    for end in 0..bytes.len() {
        let err = load_bytes(&bytes[..end]).err().expect("a truncated file loaded").to_string();
        assert!(err.starts_with("invalid safetensors file"), "{end}: {err}");
    }
    let mut lying = bytes.clone();
    lying[..8].copy_from_slice(&(1u64 << 63).to_le_bytes());
    assert!(load_bytes(&lying).err().unwrap().to_string().contains("9223372036854775808 bytes"));
}

fn raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn headers_that_lie_are_refused_before_allocating() {
    let cases: [(&str, &[u8], &str); 4] = [
        (r#"{"a":{"dtype":"F32","shape":[1099511627776],"data_offsets":[0,4398046511104]}}"#, &[0; 4], "describes"),
        (r#"{"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}}"#, &[], "overflow"),
        (r#"{"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}"#, &[0, 7], "holds the byte 7"),
        (r#"{"a":{"dtype":"U32","shape":[1],"data_offsets":[0,4]}}"#, &[0; 4], "dtype U32"),
    ];
    for (header, data, phrase) in cases {
        let err = load_bytes(&raw(header, data)).err().unwrap().to_string();
        assert!(err.contains(phrase), "{header}: {err}");
    }
}

#[test]
fn a_plain_file_loads_as_a_dict_of_its_entries() {
    let header = r#"{"__metadata__":{"format":"np"},"x":{"dtype":"I16","shape":[2],"data_offsets":[0,4]}}"#;
    let ckpt = load_bytes(&raw(header, &[1, 0, 0xff, 0xff])).unwrap();
    assert_eq!(ckpt.root, Value::Map(MapKind::Dict, vec![(Value::Str("x".into()), Value::Tensor(0))]));
    assert_eq!(ckpt.tensors[0].tensor.to_vec::<i64>(), [1, -1]);
}
