//! The Rust half of `ferrograd.save` / `ferrograd.load`: Python objects to and from the core's
//! checkpoint tree (`ferrograd_core::serialize`), which does the file format and all the I/O.
use crate::dtype::PyDType;
use crate::errors::call;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::serialize::{self, Checkpoint, MapKind, ReadMode, SeqKind, TensorItem, Value, MAX_NESTING};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// The Python classes a checkpoint's kinds map to.
struct Classes<'py> {
    ordered_dict: Bound<'py, PyType>,
    size: Bound<'py, PyType>,
    /// `ferrograd.nn.Parameter`, where the package has it.
    parameter: Option<Bound<'py, PyType>>,
}

impl<'py> Classes<'py> {
    /// `import_nn`: whether `ferrograd.nn` may be imported for `Parameter`. A save needs it only when `nn` is
    /// already loaded (no Parameter exists before), so saving plain tensors doesn't load `nn` (lazy since
    /// `import ferrograd` stopped loading it); a load needs it only when the file holds a parameter.
    fn new(py: Python<'py>, import_nn: bool) -> PyResult<Self> {
        let class = |module: &str, name: &str| -> PyResult<Bound<'py, PyType>> {
            Ok(py.import(module)?.getattr(name)?.cast_into::<PyType>()?)
        };
        let loaded = || -> Option<Bound<'py, PyAny>> {
            py.import("sys").ok()?.getattr("modules").ok()?.get_item("ferrograd.nn.parameter").ok()
        };
        let module = if import_nn { py.import("ferrograd.nn.parameter").ok().map(|m| m.into_any()) } else { loaded() };
        let parameter = module.and_then(|m| m.getattr("Parameter").ok()).and_then(|p| p.cast_into::<PyType>().ok());
        Ok(Classes {
            ordered_dict: class("collections", "OrderedDict")?,
            size: class("ferrograd._size", "Size")?,
            parameter,
        })
    }
}

/// Walks the object to save, turning it into the core's tree.
struct Encoder<'py> {
    classes: Classes<'py>,
    /// id() of each tensor object seen → its index, so one object saved twice loads as one object.
    seen: HashMap<usize, usize>,
    tensors: Vec<TensorItem>,
    /// Subscripts from the saved object to the current value, for error messages.
    path: Vec<String>,
    /// id() of the containers on the current path (a container inside itself cannot be saved).
    open: HashSet<usize>,
}

const SUPPORTED: &str = "tensors, dicts (str or int keys), lists, tuples, str, int, float, bool, None and dtypes";

impl<'py> Encoder<'py> {
    fn at(&self) -> String {
        format!("obj{}", self.path.concat())
    }

    fn value(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        if obj.is_none() {
            return Ok(Value::None);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if obj.is_instance_of::<PyInt>() {
            return Ok(match obj.extract::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::BigInt(obj.call_method0("__index__")?.str()?.to_string()),
            });
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Value::Str(s.to_str()?.to_string()));
        }
        if let Ok(t) = obj.cast::<PyTensor>() {
            return Ok(self.tensor(obj, t.get().get()));
        }
        if let Ok(d) = obj.cast::<PyDType>() {
            return Ok(Value::DType(d.get().dtype));
        }
        let is_container =
            obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
        if !is_container && is_numpy_scalar(obj) {
            return self.value(&obj.call_method0("item")?); // np.int64(3) is saved (and loads) as 3
        }
        if !is_container {
            return Err(PyTypeError::new_err(format!(
                "ferrograd.save: cannot save an object of type {} (at {}); checkpoints hold {SUPPORTED}",
                crate::args::type_name(obj),
                self.at()
            )));
        }
        let id = obj.as_ptr() as usize;
        if self.path.len() >= MAX_NESTING {
            return Err(PyValueError::new_err(format!(
                "ferrograd.save: containers are nested more than {MAX_NESTING} levels deep (at {})",
                self.at()
            )));
        }
        if !self.open.insert(id) {
            return Err(PyValueError::new_err(format!("ferrograd.save: {} contains itself", self.at())));
        }
        let value = self.container(obj);
        self.open.remove(&id);
        value
    }

    fn tensor(&mut self, obj: &Bound<'py, PyAny>, tensor: ferrograd_core::Tensor) -> Value {
        let next = self.tensors.len();
        let index = *self.seen.entry(obj.as_ptr() as usize).or_insert(next);
        if index == next {
            let parameter = self.classes.parameter.as_ref().is_some_and(|p| obj.is_instance(p).unwrap_or(false));
            self.tensors.push(TensorItem { tensor, parameter });
        }
        Value::Tensor(index)
    }

    fn container(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        if let Ok(d) = obj.cast::<PyDict>() {
            let kind = if obj.is_instance(&self.classes.ordered_dict)? { MapKind::OrderedDict } else { MapKind::Dict };
            let mut pairs = Vec::with_capacity(d.len());
            for (k, v) in d.iter() {
                let key = self.value(&k)?;
                if matches!(key, Value::Seq(SeqKind::List, _) | Value::Map(..) | Value::Tensor(_)) {
                    return Err(PyTypeError::new_err(format!(
                        "ferrograd.save: cannot save a dict key of type {} (at {})",
                        crate::args::type_name(&k),
                        self.at()
                    )));
                }
                self.path.push(format!("[{}]", k.repr()?));
                let value = self.value(&v);
                self.path.pop();
                pairs.push((key, value?));
            }
            return Ok(Value::Map(kind, pairs));
        }
        let kind = if obj.is_instance_of::<PyList>() {
            SeqKind::List
        } else if obj.is_instance(&self.classes.size)? {
            SeqKind::Size
        } else if obj.is_exact_instance_of::<PyTuple>() {
            SeqKind::Tuple
        } else {
            // a namedtuple would come back as a plain tuple, its field names lost: refuse rather than surprise
            return Err(PyTypeError::new_err(format!(
                "ferrograd.save: cannot save a {} (a tuple subclass, at {}); save tuple(obj) or a dict instead",
                crate::args::type_name(obj),
                self.at()
            )));
        };
        let mut items = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            self.path.push(format!("[{i}]"));
            let value = self.value(&item?);
            self.path.pop();
            items.push(value?);
        }
        Ok(Value::Seq(kind, items))
    }
}

fn is_numpy_scalar(obj: &Bound<'_, PyAny>) -> bool {
    let generic = obj.py().import("numpy").and_then(|np| np.getattr("generic"));
    generic.is_ok_and(|g| obj.is_instance(&g).unwrap_or(false))
}

/// Rebuilds Python objects from a loaded tree.
struct Decoder<'py> {
    py: Python<'py>,
    classes: Classes<'py>,
    items: Vec<TensorItem>,
    objects: Vec<Option<Bound<'py, PyAny>>>,
}

impl<'py> Decoder<'py> {
    fn value(&mut self, v: &Value) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match v {
            Value::None => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Value::Int(i) => i.into_pyobject(py)?.into_any(),
            Value::BigInt(s) => py.get_type::<PyInt>().call1((s.as_str(),))?,
            Value::Float(f) => PyFloat::new(py, *f).into_any(),
            Value::Str(s) => PyString::new(py, s).into_any(),
            Value::DType(d) => Bound::new(py, PyDType { dtype: *d })?.into_any(),
            Value::Seq(kind, items) => {
                let items = items.iter().map(|x| self.value(x)).collect::<PyResult<Vec<_>>>()?;
                match kind {
                    SeqKind::List => PyList::new(py, items)?.into_any(),
                    SeqKind::Tuple => PyTuple::new(py, items)?.into_any(),
                    SeqKind::Size => self.classes.size.call1((PyTuple::new(py, items)?,))?,
                }
            }
            Value::Map(kind, pairs) => {
                let dict = match kind {
                    MapKind::Dict => PyDict::new(py).into_any(),
                    MapKind::OrderedDict => self.classes.ordered_dict.call0()?,
                };
                for (k, x) in pairs {
                    let (k, x) = (self.value(k)?, self.value(x)?);
                    dict.set_item(k, x)?;
                }
                dict
            }
            Value::Tensor(i) => self.tensor(*i)?,
        })
    }

    fn tensor(&mut self, i: usize) -> PyResult<Bound<'py, PyAny>> {
        if let Some(obj) = &self.objects[i] {
            return Ok(obj.clone());
        }
        let item = &self.items[i];
        let t = wrap(self.py, item.tensor.clone())?.into_bound(self.py).into_any();
        let obj = match (&self.classes.parameter, item.parameter) {
            (Some(parameter), true) => {
                let kwargs = PyDict::new(self.py);
                kwargs.set_item("requires_grad", item.tensor.requires_grad())?;
                parameter.call((t,), Some(&kwargs))?
            }
            _ => t,
        };
        self.objects[i] = Some(obj.clone());
        Ok(obj)
    }
}

fn encode(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Checkpoint> {
    let mut enc = Encoder {
        classes: Classes::new(py, false)?,
        seen: HashMap::new(),
        tensors: Vec::new(),
        path: Vec::new(),
        open: HashSet::new(),
    };
    let root = enc.value(obj)?;
    Ok(Checkpoint { root, tensors: enc.tensors })
}

/// Saves `obj` to `path` (atomically), or returns the file's bytes when `path` is None.
#[pyfunction]
#[pyo3(signature = (obj, path=None))]
pub fn _save(py: Python<'_>, obj: &Bound<'_, PyAny>, path: Option<PathBuf>) -> PyResult<Option<Py<PyBytes>>> {
    let ckpt = encode(py, obj)?;
    match path {
        Some(path) => {
            py.detach(|| call(|| serialize::save_path(&ckpt, &path)))?;
            Ok(None)
        }
        None => {
            // written straight into the bytes object: one buffer of the file's size, not two
            let prepared = py.detach(|| call(|| serialize::prepare(&ckpt)))?;
            let bytes = PyBytes::new_with(py, prepared.len(), |mut buf| {
                py.detach(|| prepared.write_to(&mut buf))
                    .map_err(|e| PyRuntimeError::new_err(format!("serializing the checkpoint failed: {e}")))
            })?;
            Ok(Some(bytes.unbind()))
        }
    }
}

/// Loads a checkpoint (or any safetensors file) from a path, or from the bytes of one.
#[pyfunction]
#[pyo3(signature = (source, mmap=false))]
pub fn _load(py: Python<'_>, source: &Bound<'_, PyAny>, mmap: bool) -> PyResult<Py<PyAny>> {
    let ckpt = if let Ok(bytes) = source.cast::<PyBytes>() {
        let data = bytes.as_bytes();
        py.detach(|| call(|| serialize::load_bytes(data)))?
    } else {
        let path: PathBuf = source.extract()?;
        let mode = if mmap { ReadMode::Map } else { ReadMode::Read };
        py.detach(|| call(|| serialize::load_path(&path, mode)))?
    };
    let n = ckpt.tensors.len();
    let has_parameters = ckpt.tensors.iter().any(|item| item.parameter);
    let classes = Classes::new(py, has_parameters)?;
    let mut dec = Decoder { py, classes, items: ckpt.tensors, objects: vec![None; n] };
    Ok(dec.value(&ckpt.root)?.unbind())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_save, m)?)?;
    m.add_function(wrap_pyfunction!(_load, m)?)?;
    crate::torch_format::register(m)
}
