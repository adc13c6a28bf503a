//! `grad_fn` objects: a Python face on a backward-graph node.
//!
//! Each node name has its own Python class (`MulBackward0`, `AccumulateGrad`, `CubeBackward`), a
//! subclass of `ferrograd.autograd.graph.Node` made on first use and cached. One node is one Python
//! object while that object lives: a weak cache keyed by the node's address finds it again. The object
//! holds the node (so the address cannot be reused while it is cached) and the cache holds the object
//! only weakly, so no cycle forms. Objects are made only when Python asks for a `grad_fn`.
use crate::tensor::objects::tensor_object;
use crate::tensor::PyTensor;
use ferrograd_core::autograd::{AccumulateGrad, CustomFunctionBackward, Field, Node};
use parking_lot::Mutex;
use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType, PyWeakrefMethods, PyWeakrefReference};
use pyo3::IntoPyObjectExt;
use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// What a saved field is called on the Python object: PyTorch's `_saved_<name>`, except a custom
/// function's `saved_tensors`.
const SAVED_PREFIX: &str = "_saved_";
const CUSTOM_SAVED: &str = "saved_tensors";
/// What `name()` puts before the name of a node that is not an op's backward.
const ENGINE_NAMESPACE: &str = "torch::autograd::";

#[pyclass(name = "Node", module = "ferrograd.autograd.graph", frozen, subclass, weakref)]
pub struct PyNode {
    pub node: Arc<Node>,
    metadata: PyOnceLock<Py<PyDict>>,
}

/// Live node objects by node address (see the module comment).
static OBJECTS: LazyLock<Mutex<HashMap<usize, Py<PyWeakrefReference>>>> = LazyLock::new(Default::default);
/// One class per node name.
static CLASSES: LazyLock<Mutex<HashMap<&'static str, Py<PyType>>>> = LazyLock::new(Default::default);

thread_local! {
    /// The node `Node.__new__` wraps: set just before a per-name class is called.
    static PENDING: Cell<Option<Arc<Node>>> = const { Cell::new(None) };
}

fn address(node: &Arc<Node>) -> usize {
    Arc::as_ptr(node) as *const () as usize
}

fn is_custom(node: &Node) -> bool {
    (node.rule() as &dyn Any).is::<CustomFunctionBackward>()
}

/// The class of nodes named `node.name()`, made once. (No lock is held while Python runs: making a
/// class can run arbitrary code through the garbage collector.)
fn class_of<'py>(py: Python<'py>, node: &Node) -> PyResult<Bound<'py, PyType>> {
    let name = node.name();
    if let Some(ty) = CLASSES.lock().get(name) {
        return Ok(ty.bind(py).clone());
    }
    let module = if is_custom(node) { "ferrograd.autograd.function" } else { "builtins" };
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", module)?;
    namespace.set_item("__slots__", PyTuple::empty(py))?;
    let bases = PyTuple::new(py, [py.get_type::<PyNode>()])?;
    let ty = py.get_type::<PyType>().call1((name, bases, namespace))?.cast_into::<PyType>()?;
    Ok(CLASSES.lock().entry(name).or_insert_with(|| ty.clone().unbind()).bind(py).clone())
}

/// The Python object of `node`: the live one if there is one, else a new one (then cached).
pub fn node_object(py: Python<'_>, node: &Arc<Node>) -> PyResult<Py<PyAny>> {
    let key = address(node);
    let cached = OBJECTS.lock().get(&key).map(|w| w.clone_ref(py));
    if let Some(obj) = cached.and_then(|w| w.bind(py).upgrade()) {
        return Ok(obj.unbind());
    }
    let ty = class_of(py, node)?;
    PENDING.set(Some(node.clone()));
    let made = ty.call0();
    PENDING.take();
    let obj = made?;
    let weak = PyWeakrefReference::new(&obj)?.unbind();
    let previous = OBJECTS.lock().insert(key, weak);
    drop(previous);
    Ok(obj.unbind())
}

/// A saved field as Python shows it (None for internal bookkeeping, which has no attribute). An integer shows as
/// torch's getters show it, as an unsigned 64-bit number: -1 is 2**64 - 1.
fn field_value(py: Python<'_>, node: &Arc<Node>, field: Field<'_>) -> Option<PyResult<Py<PyAny>>> {
    let unpack = |s| crate::errors::call(|| node.unpack_saved(s)).and_then(|t| tensor_object(py, t));
    let value = match field {
        Field::Tensor(Some(s)) => unpack(s).map(Py::into_any),
        Field::Tensor(None) | Field::None => Ok(py.None()),
        Field::Tensors(ts) => ts
            .iter()
            .map(unpack)
            .collect::<PyResult<Vec<_>>>()
            .and_then(|ts| PyTuple::new(py, ts))
            .map(|t| t.into_any().unbind()),
        Field::Int(v) => (v as u64).into_py_any(py),
        Field::ScalarInt(v) => v.into_py_any(py),
        Field::Ints(v) => PyTuple::new(py, v.into_iter().map(|v| v as u64)).map(|t| t.into_any().unbind()),
        Field::Float(v) => v.into_py_any(py),
        Field::Bool(v) => v.into_py_any(py),
        Field::Str(v) => v.into_py_any(py),
        Field::Opaque => return None,
    };
    Some(value)
}

/// The Python attribute name of a rule's field.
fn attribute_name(node: &Node, field: &str) -> String {
    if field == CUSTOM_SAVED && is_custom(node) {
        CUSTOM_SAVED.to_owned()
    } else {
        format!("{SAVED_PREFIX}{field}")
    }
}

impl PyNode {
    fn accumulate_grad(&self) -> Option<&AccumulateGrad> {
        (self.node.rule() as &dyn Any).downcast_ref::<AccumulateGrad>()
    }

    /// The names of the attributes this node's fields give.
    fn field_attributes(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.node.rule().fields(&mut |name, f| {
            if !matches!(f, Field::Opaque) {
                names.push(attribute_name(&self.node, name));
            }
        });
        names
    }
}

impl Drop for PyNode {
    fn drop(&mut self) {
        // this object's weak reference is already cleared; a newer object for the node keeps its entry
        let key = address(&self.node);
        let removed = Python::attach(|py| {
            let mut objects = OBJECTS.lock();
            let dead = objects.get(&key).is_some_and(|w| w.bind(py).upgrade().is_none());
            if dead {
                objects.remove(&key)
            } else {
                None
            }
        });
        drop(removed);
    }
}

#[pymethods]
impl PyNode {
    #[new]
    fn py_new() -> PyResult<Self> {
        let node = PENDING.take().ok_or_else(|| PyTypeError::new_err("cannot create 'Node' instances"))?;
        Ok(PyNode { node, metadata: PyOnceLock::new() })
    }

    /// PyTorch's name: its engine's own nodes (AccumulateGrad, CopySlices, ...) carry their C++
    /// namespace, `torch::autograd::AccumulateGrad`, while the class is plain `AccumulateGrad`.
    fn name(&self) -> String {
        let name = self.node.name();
        if name.contains("Backward") || is_custom(&self.node) {
            name.to_owned()
        } else {
            format!("{ENGINE_NAMESPACE}{name}")
        }
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!("<{} object at {:#x}>", slf.get().node.name(), slf.as_ptr() as usize)
    }

    /// `((node or None, input_nr), ...)`, one pair per input of the op.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Bound<'py, PyTuple>> = self
            .node
            .next_edges()
            .iter()
            .map(|e| match e {
                Some(e) => {
                    let n = node_object(py, &e.node)?;
                    PyTuple::new(py, [n, e.input_nr.into_pyobject(py)?.into_any().unbind()])
                }
                None => PyTuple::new(py, [py.None(), 0u32.into_pyobject(py)?.into_any().unbind()]),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }

    /// `((shape, dtype name) or None, ...)`: the gradient each of `next_functions` receives (for
    /// `ferrograd.viz`).
    #[getter]
    fn _next_metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = self
            .node
            .next_edges()
            .iter()
            .map(|e| match e {
                Some(e) => (PyTuple::new(py, &e.shape)?, e.dtype.name()).into_py_any(py),
                None => Ok(py.None()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    /// A dict for the user's own notes on this node (the same dict each time).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<PyDict> {
        self.metadata.get_or_init(py, || PyDict::new(py).unbind()).clone_ref(py)
    }

    /// `_saved_<name>` (the tensors and arguments the rule kept), `variable` of an AccumulateGrad.
    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let this = slf.get();
        if name == "variable" {
            if let Some(acc) = this.accumulate_grad() {
                return crate::tensor::objects::leaf_object(py, acc.variable()).map_or_else(
                    || Err(PyAttributeError::new_err("the leaf of this AccumulateGrad no longer has a Python object")),
                    |t| Ok(t.into_any()),
                );
            }
        }
        let mut found = None;
        this.node.rule().fields(&mut |field, f| {
            if found.is_none() && attribute_name(&this.node, field) == name {
                found = field_value(py, &this.node, f);
            }
        });
        found.unwrap_or_else(|| {
            let type_name = slf.get_type().name()?;
            Err(PyAttributeError::new_err(format!("'{type_name}' object has no attribute '{name}'")))
        })
    }

    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Py<PyList>> {
        let py = slf.py();
        let names = py.get_type::<pyo3::types::PyAny>().call_method1("__dir__", (slf,))?.cast_into::<PyList>()?;
        for attr in slf.get().field_attributes() {
            names.append(attr)?;
        }
        if slf.get().accumulate_grad().is_some() {
            names.append("variable")?;
        }
        names.sort()?;
        Ok(names.unbind())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyNode>().map(|o| Arc::ptr_eq(&self.node, &o.get().node)).unwrap_or(false)
    }

    fn __hash__(&self) -> isize {
        Arc::as_ptr(&self.node) as *const () as isize
    }

    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        let id = self.node.add_post_hook(crate::hooks::post_hook(hook));
        crate::hooks::node_handle(py, &self.node, id)
    }

    fn register_prehook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<crate::hooks::RemovableHandle>> {
        let id = self.node.add_pre_hook(crate::hooks::pre_hook(hook));
        crate::hooks::node_handle(py, &self.node, id)
    }

    #[getter]
    fn _sequence_nr(&self) -> u64 {
        self.node.sequence_nr()
    }
}

#[pymethods]
impl PyTensor {
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.get().grad_fn().map(|n| node_object(py, n)).transpose()
    }

    /// Deprecated name of `grad_fn` from the old Variable API.
    #[getter]
    fn creator(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let warnings = py.import("warnings")?;
        let cat = py.import("builtins")?.getattr("DeprecationWarning")?;
        warnings.call_method1("warn", (".creator is deprecated, use .grad_fn instead", cat, 2))?;
        self.grad_fn(py)
    }
}
