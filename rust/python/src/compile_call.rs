//! The per-call half of `ferrograd.compile`'s cache: `CompiledCall` (whose Python subclass is
//! `_dynamo/capture.py`'s `CompiledFunction`) computes a call's guards and, for a call of tensors only that
//! has a graph, runs it, all in one call into the core. Everything else (a capture, a graph break, other
//! arguments, several outputs) goes to the subclass's `_call_slow`. On a batch-1 model the guards in Python,
//! three calls into the core and the lists between them cost more than the graph itself.
use crate::compile::PyCompiledGraph;
use crate::tensor::PyTensor;
use ferrograd_core::autograd::grad_mode;
use ferrograd_core::compile;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyAttributeError, PyReferenceError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyWeakrefMethods, PyWeakrefReference};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bumped by every plain attribute set on any module (`Module.__setattr__`/`__delattr__`, through
/// `_module_attribute_set`): a compiled call compares its modules' attributes (a Dropout's `p`, a flag its
/// `forward` reads; the graph holds their values as constants) only after one was set anywhere.
static MODULE_ATTRIBUTES: AtomicU64 = AtomicU64::new(0);

/// A plain attribute of some module was set or deleted.
#[pyfunction]
pub fn _module_attribute_set() {
    MODULE_ATTRIBUTES.fetch_add(1, Ordering::Relaxed);
}

/// The module whose parameters and buffers are inputs of the graph: weakly held by `Module.compile`'s cache
/// (which the module holds), strongly by `OptimizedModule`'s.
enum ModuleRef {
    Weak(Py<PyWeakrefReference>),
    Strong(Py<PyAny>),
}

/// Where a plain function reaches a module or tensor it does not take as an argument: a global it names (in
/// its globals dict) or a variable it closes over (a cell). A graph holds what it found there as constants.
enum Binding {
    Global { globals: Py<PyDict>, name: Py<PyString> },
    Cell(Py<PyAny>),
}

impl Binding {
    /// The object bound now; None when the name is gone or the cell is empty.
    fn read<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        match self {
            Binding::Global { globals, name } => globals.bind(py).get_item(name.bind(py)).ok().flatten(),
            Binding::Cell(cell) => cell.bind(py).getattr(intern!(py, "cell_contents")).ok(),
        }
    }
}

/// What a plain function's graphs were captured with, beyond its arguments (set by the subclass after a
/// capture, `_watch`): each binding and the object it held, and each module found there with its parameters
/// and buffers then. A call finding another object bound, or another tensor in a module, empties the cache
/// (the graphs hold the old ones as constants); the modules' training flags are part of the key, as a
/// compiled module's. The objects are held, so their addresses are not reused while they are compared.
struct Watch {
    bindings: Vec<(Binding, Py<PyAny>)>,
    modules: Vec<(Py<PyAny>, Vec<Py<PyAny>>)>,
}

#[pyclass(name = "CompiledCall", module = "ferrograd._core", subclass, frozen)]
pub struct PyCompiledCall {
    /// guards -> `(graph, out_spec)` or the subclass's marker for "runs eagerly"; out_spec None is one tensor
    cache: Py<PyDict>,
    module: Option<ModuleRef>,
    /// shared out of the lock before Python runs (a walk may run a property, or the collector)
    watch: Mutex<Option<Arc<Watch>>>,
    /// `MODULE_ATTRIBUTES` when the modules' attributes were last compared (`_check_attributes`)
    attributes_checked: AtomicU64,
}

/// A call's cache key, the graph's inputs, and their records (for the replay).
struct Guards<'py> {
    key: Bound<'py, PyBytes>,
    inputs: Vec<Bound<'py, PyTensor>>,
    records: Vec<Tensor>,
}

impl PyCompiledCall {
    fn module_of<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.module {
            None => Ok(None),
            Some(ModuleRef::Strong(m)) => Ok(Some(m.bind(py).clone())),
            Some(ModuleRef::Weak(w)) => match w.bind(py).upgrade() {
                Some(m) => Ok(Some(m)),
                None => Err(PyReferenceError::new_err("the compiled module no longer exists")),
            },
        }
    }

    /// A call's cache key and the graph's inputs (the module's parameters and buffers, then `args`).
    ///
    /// The key is one bytes object: the counts of module tensors and of arguments, grad mode, every module's
    /// training flag, then each input's shape, dtype, requires_grad, contiguity and the first input that is the
    /// same object (aliasing).
    fn guards<'py>(
        &self,
        py: Python<'py>,
        args: impl ExactSizeIterator<Item = Bound<'py, PyTensor>>,
    ) -> PyResult<Guards<'py>> {
        let n_args = args.len();
        let (mut inputs, training) = match self.module_of(py)? {
            Some(module) => module_state(py, &module)?,
            None => (Vec::with_capacity(n_args), Vec::new()),
        };
        let n_state = inputs.len();
        inputs.extend(args);
        let mut key = Vec::with_capacity(16 + training.len() + inputs.len() * 32);
        key.extend_from_slice(&(n_state as u32).to_le_bytes());
        key.extend_from_slice(&(n_args as u32).to_le_bytes());
        key.push(grad_mode::is_enabled() as u8);
        key.extend_from_slice(&(training.len() as u32).to_le_bytes());
        key.extend(training.iter().map(|&t| t as u8));
        self.watched_state(py, &mut key)?;
        let records = signature(&mut key, &inputs);
        Ok(Guards { key: PyBytes::new(py, &key), inputs, records })
    }

    /// After any module attribute was set, the subclass's `_check_attributes` compares the modules' attributes
    /// with those the graphs were captured with (and empties the cache when they differ).
    fn check_attributes(slf: &Bound<'_, Self>) -> PyResult<()> {
        let now = MODULE_ATTRIBUTES.load(Ordering::Relaxed);
        let this = slf.get();
        if this.attributes_checked.load(Ordering::Relaxed) != now {
            slf.call_method0(intern!(slf.py(), "_check_attributes"))?;
            this.attributes_checked.store(now, Ordering::Relaxed);
        }
        Ok(())
    }

    fn current_watch(&self) -> Option<Arc<Watch>> {
        self.watch.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The watched modules' training flags into `key`; when a binding or a module's tensors changed since the
    /// capture, the cache and the watch are dropped instead (the next capture watches anew).
    fn watched_state(&self, py: Python<'_>, key: &mut Vec<u8>) -> PyResult<()> {
        let Some(watch) = self.current_watch() else { return Ok(()) };
        let mut flags = Vec::new();
        let mut same = watch.bindings.iter().all(|(b, held)| b.read(py).is_some_and(|now| now.is(held.bind(py))));
        for (module, held) in &watch.modules {
            if !same {
                break;
            }
            let (tensors, training) = module_state(py, module.bind(py))?;
            same = tensors.len() == held.len() && tensors.iter().zip(held).all(|(t, h)| t.is(h.bind(py)));
            flags.extend(training);
        }
        if same {
            key.extend_from_slice(&(flags.len() as u32).to_le_bytes());
            key.extend(flags.iter().map(|&t| t as u8));
        } else {
            *self.watch.lock().unwrap_or_else(|e| e.into_inner()) = None;
            self.cache.bind(py).clear();
        }
        Ok(())
    }
}

/// Each tensor's shape, dtype, requires_grad, contiguity and the first position of the same object; the
/// tensors' records, for the replay.
fn signature(out: &mut Vec<u8>, tensors: &[Bound<'_, PyTensor>]) -> Vec<Tensor> {
    let mut firsts = Seen::default();
    let mut records = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        let first = firsts.first(t.as_ptr() as usize, i);
        let record = t.get().get();
        out.extend_from_slice(&(record.ndim() as u32).to_le_bytes());
        for &d in record.shape() {
            out.extend_from_slice(&(d as u64).to_le_bytes());
        }
        out.extend_from_slice(&[record.dtype() as u8, record.requires_grad() as u8, record.is_contiguous() as u8]);
        out.extend_from_slice(&(first as u32).to_le_bytes());
        records.push(record);
    }
    records
}

/// Objects met so far (by address) and where first: a scan while they are few (a small model, a call's
/// arguments), a hash map for a large model's hundreds of tensors and modules.
#[derive(Default)]
struct Seen {
    few: Vec<(usize, usize)>,
    many: HashMap<usize, usize>,
}

impl Seen {
    const FEW: usize = 32;

    /// Where `object` was first met, noting it at `at` if this is the first time.
    fn first(&mut self, object: usize, at: usize) -> usize {
        if self.many.is_empty() {
            if let Some(&(_, first)) = self.few.iter().find(|(o, _)| *o == object) {
                return first;
            }
            if self.few.len() < Self::FEW {
                self.few.push((object, at));
                return at;
            }
            self.many.extend(self.few.drain(..));
        }
        *self.many.entry(object).or_insert(at)
    }

    /// Whether `object` is met here for the first time.
    fn insert(&mut self, object: usize) -> bool {
        let count = self.few.len() + self.many.len();
        self.first(object, count) == count
    }
}

/// A module tree's parameters and buffers (each tensor once: every module's parameters, then every module's
/// buffers, modules in pre-order, as `parameters()` then `buffers()`) and each module's training flag, read
/// from the modules' `__dict__`s (attribute lookups would walk each class's MRO).
fn module_state<'py>(py: Python<'py>, module: &Bound<'py, PyAny>) -> PyResult<(Vec<Bound<'py, PyTensor>>, Vec<bool>)> {
    let registry = |state: &Bound<'py, PyDict>, name: &Bound<'py, PyString>| -> PyResult<Bound<'py, PyDict>> {
        match state.get_item(name)? {
            Some(d) => Ok(d.cast_into::<PyDict>()?),
            None => Err(PyAttributeError::new_err(format!(
                "a module in the tree has no {name} (Module.__init__() was not called)"
            ))),
        }
    };
    let mut states: Vec<(Bound<'py, PyAny>, Bound<'py, PyDict>)> = Vec::new();
    let mut seen = Seen::default();
    let mut stack = vec![module.clone()];
    while let Some(current) = stack.pop() {
        if !seen.insert(current.as_ptr() as usize) {
            continue;
        }
        let state = instance_dict(&current)?;
        let children = registry(&state, intern!(py, "_modules"))?;
        // pushed last-first, so that the first child is walked next (pre-order, as `modules()`)
        let at = stack.len();
        stack.extend(children.iter().map(|(_, c)| c).filter(|c| !c.is_none()));
        stack[at..].reverse();
        states.push((current, state));
    }
    let mut tensors: Vec<Bound<'py, PyTensor>> = Vec::new();
    let mut ids = Seen::default();
    for name in [intern!(py, "_parameters"), intern!(py, "_buffers")] {
        for (_, state) in &states {
            for (_, t) in registry(state, name)?.iter() {
                if !t.is_none() && ids.insert(t.as_ptr() as usize) {
                    tensors.push(t.cast_into::<PyTensor>()?);
                }
            }
        }
    }
    let mut training = Vec::with_capacity(states.len());
    for (module, state) in &states {
        let flag = match state.get_item(intern!(py, "training"))? {
            Some(flag) => flag,
            None => module.getattr(intern!(py, "training"))?, // a property (OptimizedModule's)
        };
        training.push(flag.is_truthy()?);
    }
    Ok((tensors, training))
}

/// An object's `__dict__`, read as its `__dict__` descriptor does (an attribute lookup would walk the class's
/// MRO and `Module.__getattr__`).
fn instance_dict<'py>(object: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    // SAFETY: `object` is a live object and the GIL is held; the result is a new reference or NULL with an
    // exception set, which `from_owned_ptr_or_err` takes either way
    let dict = unsafe {
        Bound::from_owned_ptr_or_err(
            object.py(),
            pyo3::ffi::PyObject_GenericGetDict(object.as_ptr(), std::ptr::null_mut()),
        )
    }?;
    Ok(dict.cast_into::<PyDict>()?)
}

/// The arguments as tensors, when every one is a tensor (the common call).
fn all_tensors<'py>(args: &Bound<'py, PyTuple>) -> Option<Vec<Bound<'py, PyTensor>>> {
    args.iter().map(|a| a.cast_into::<PyTensor>().ok()).collect()
}

#[pymethods]
impl PyCompiledCall {
    /// `module`: None, the module, or a weak reference to it.
    #[new]
    #[pyo3(signature = (*_args, module = None, **_kwargs))]
    fn new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        module: Option<Bound<'_, PyAny>>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> Self {
        let module = module.filter(|m| !m.is_none()).map(|m| match m.cast_into::<PyWeakrefReference>() {
            Ok(weak) => ModuleRef::Weak(weak.unbind()),
            Err(e) => ModuleRef::Strong(e.into_inner().unbind()),
        });
        PyCompiledCall {
            cache: PyDict::new(py).unbind(),
            module,
            watch: Mutex::new(None),
            attributes_checked: AtomicU64::new(MODULE_ATTRIBUTES.load(Ordering::Relaxed)),
        }
    }

    /// Watch what a plain function's capture reached besides its arguments: `bindings` as `(globals, name)`
    /// or `(cell, None)`, and the modules among the bound objects. The cache is emptied: its keys were made
    /// without the modules' flags.
    fn _watch(&self, py: Python<'_>, bindings: Vec<(Bound<'_, PyAny>, Option<Bound<'_, PyString>>)>) -> PyResult<()> {
        let mut watched = Vec::with_capacity(bindings.len());
        for (holder, name) in bindings {
            let binding = match name {
                Some(name) => Binding::Global { globals: holder.cast_into::<PyDict>()?.unbind(), name: name.unbind() },
                None => Binding::Cell(holder.unbind()),
            };
            if let Some(now) = binding.read(py) {
                watched.push((binding, now.unbind()));
            }
        }
        let module_type = py.import("ferrograd.nn")?.getattr("Module")?;
        let mut modules = Vec::new();
        for (_, held) in &watched {
            let held = held.bind(py);
            if held.is_instance(&module_type)? && !modules.iter().any(|(m, _): &(Py<PyAny>, _)| m.is(held)) {
                let (tensors, _) = module_state(py, held)?;
                modules.push((held.clone().unbind(), tensors.into_iter().map(|t| t.into_any().unbind()).collect()));
            }
        }
        let watch = (!watched.is_empty()).then(|| Arc::new(Watch { bindings: watched, modules }));
        *self.watch.lock().unwrap_or_else(|e| e.into_inner()) = watch;
        self.cache.bind(py).clear();
        Ok(())
    }

    /// Whether a plain function's bindings are watched (`_watch`).
    #[getter]
    fn _watching(&self) -> bool {
        self.current_watch().is_some()
    }

    /// The modules among the watched bindings' objects (none while nothing is watched).
    #[getter]
    fn _watched_modules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let watch = self.current_watch();
        PyList::new(py, watch.iter().flat_map(|w| w.modules.iter()).map(|(m, _)| m.clone_ref(py)))
    }

    /// What the garbage collector follows from here: a cycle through a compiled module (a module holding its own
    /// `OptimizedModule`) is then broken by clearing the modules' dicts, which is all it takes.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.cache)?;
        match &self.module {
            Some(ModuleRef::Weak(w)) => visit.call(w)?,
            Some(ModuleRef::Strong(m)) => visit.call(m)?,
            None => {}
        }
        // a lock held elsewhere (a walk the collector interrupted) leaves these unvisited: never collected
        // through here, which is safe
        if let Ok(watch) = self.watch.try_lock() {
            for (binding, held) in watch.iter().flat_map(|w| w.bindings.iter()) {
                match binding {
                    Binding::Global { globals, name } => {
                        visit.call(globals)?;
                        visit.call(name)?;
                    }
                    Binding::Cell(cell) => visit.call(cell)?,
                }
                visit.call(held)?;
            }
            for (module, tensors) in watch.iter().flat_map(|w| w.modules.iter()) {
                visit.call(module)?;
                for t in tensors {
                    visit.call(t)?;
                }
            }
        }
        Ok(())
    }

    /// The captured graphs by guards (and the guards that run eagerly).
    #[getter]
    fn cache(&self, py: Python<'_>) -> Py<PyDict> {
        self.cache.clone_ref(py)
    }

    /// The module whose tensors are inputs; None for a plain function.
    #[getter]
    fn module<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.module_of(py)
    }

    /// `(key, inputs)` for a call with these tensors (the cache key is `key` itself for a call of tensors
    /// only; the subclass pairs it with the arguments' structure otherwise).
    fn _guards<'py>(
        slf: &Bound<'py, Self>,
        tensors: Vec<Bound<'py, PyTensor>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyList>)> {
        let py = slf.py();
        Self::check_attributes(slf)?;
        let guards = slf.get().guards(py, tensors.into_iter())?;
        Ok((guards.key, PyList::new(py, guards.inputs)?))
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        let plain = kwargs.is_none_or(|k| k.is_empty()) && !compile::is_capturing();
        let mut guards = py.None().into_bound(py);
        if let Some(tensors) = plain.then(|| all_tensors(args)).flatten() {
            Self::check_attributes(slf)?;
            let Guards { key, inputs, records } = this.guards(py, tensors.into_iter())?;
            if let Some(entry) = this.cache.bind(py).get_item(&key)? {
                if let Ok(entry) = entry.cast::<PyTuple>() {
                    if let (Ok(graph), Ok(spec)) = (entry.get_item(0), entry.get_item(1)) {
                        if let (Ok(graph), true) = (graph.cast::<PyCompiledGraph>(), spec.is_none()) {
                            // a stale graph is left to `_call_slow`, which drops it and captures anew
                            if graph.get().is_current() {
                                let mut outs = graph.get().run(py, records)?;
                                if outs.len() == 1 {
                                    return Ok(outs.remove(0).into_bound(py).into_any());
                                }
                            }
                        }
                    }
                }
            }
            guards = (key, PyList::new(py, inputs)?).into_pyobject(py)?.into_any();
        }
        let kwargs = kwargs.map_or_else(|| PyDict::new(py), |k| k.clone());
        slf.call_method1(intern!(py, "_call_slow"), (args, kwargs, guards))
    }
}
