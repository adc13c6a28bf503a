//! The profiler's Python face: starting and stopping it, user ranges, and the name of the op a binding
//! runs. Every op enters the core through `errors::call` / `call_heavy`; while the profiler is on, they
//! time the call under the name of the binding it came from, read from the type name of the closure it
//! passed (`<impl PyTensor>::__add__::{{closure}}` → `aten::add`), so no binding names itself.
use ferrograd_core::profiler::{self, Event, EventKind};
use parking_lot::Mutex;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// Bindings that are not ops (they run other ops, convert data, or only keep books): they record no event.
const NOT_OPS: &[&str] = &[
    "finish",
    "backward",
    "grad",
    "backward_inputs",
    "retain_grad",
    "requires_grad_",
    "set_requires_grad",
    "set_data",
    "set_grad",
    "register_hook",
    "field_value",
    "get_state",
    "set_state",
    "check_new_shape",
    "panic_for_tests",
    "set_default_dtype",
    "parse_items",
    "build",
    "collect",
    "format",
    "load",
    "save",
];

/// Bindings (and the helpers they call through) whose Rust name is not the op's PyTorch name.
const RENAMED: &[(&str, &str)] = &[
    ("new_tensor", "tensor"),
    ("tensor_from_data", "tensor"),
    ("from_numpy_copy", "from_numpy"),
    ("from_numpy_shared", "from_numpy"),
    ("matmul_op", "matmul"),
    ("where_fn", "where"),
    ("where_method", "where"),
    ("truediv", "div"),
    ("rtruediv", "div"),
    ("floordiv", "floor_divide"),
    ("rfloordiv", "floor_divide"),
    ("radd", "add"),
    ("rmul", "mul"),
    ("rmatmul", "matmul"),
    ("rpow", "pow"),
    ("and", "bitwise_and"),
    ("or", "bitwise_or"),
    ("xor", "bitwise_xor"),
    ("invert", "bitwise_not"),
    ("bool", "is_nonzero"),
    ("float", "item"),
    ("int", "item"),
    ("index", "item"),
    ("iter", "unbind"),
    ("advanced", "index"),
    ("apply_index", "index"),
    ("assign_index", "index_put_"),
    ("index_item", "select"),
    ("cast_to", "to"),
    ("cast_input", "to"),
    ("big_t", "numpy_T"),
    ("m_t", "mT"),
    ("filled", "full"),
    ("fill", "fill_"),
    ("py_new", "empty"),
    ("clamp_impl", "clamp"),
    ("scatter_impl", "scatter"),
    ("var_std", "var"),
    ("reduce_over", "sum"),
    ("dropout_mask", "dropout"),
    ("inplace_scaled", "mul"),
    // the optimizers' one fused pass over every parameter (`_optimizer_step`, by its update rule's type)
    ("sgd", "_fused_sgd_"),
    ("adam", "_fused_adam_"),
    ("adagrad", "_fused_adagrad_"),
];

/// In-place dunders (`__iadd__`) are the trailing-underscore ops (`add_`).
const IN_PLACE_DUNDERS: &[&str] = &["iadd", "isub", "imul", "idiv", "ipow", "iand", "ior", "ixor", "imatmul"];

/// The binding function a closure was written in: the path segment before its first `::{{closure}}` (a helper
/// generic over the binding's own closure names the binding inside its type arguments, which come first). A
/// helper generic over an op type (`unary::<Relu>`) is named by that type, in snake case.
fn binding_name(closure_type: &str) -> Option<String> {
    let end = closure_type.find("::{{closure}}")?;
    let path = &closure_type[..end];
    if let Some(args) = path.strip_suffix('>') {
        let open = args.find('<')?;
        let op_type = args[open + 1..].split([',', '<']).next()?.rsplit("::").next()?;
        if op_type.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Some(snake_case(op_type));
        }
        return args[..open].rsplit([':', '<', ' ', '&']).next().map(str::to_owned);
    }
    path.rsplit([':', '<', ' ', '&']).next().filter(|s| !s.is_empty()).map(str::to_owned)
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// PyTorch's name for the op a binding runs, None for bindings that are not ops.
fn aten_name(binding: &str) -> Option<String> {
    let bare = binding.strip_prefix("__").and_then(|b| b.strip_suffix("__"));
    let name = match bare {
        Some(d) if IN_PLACE_DUNDERS.contains(&d) => format!("{}_", &d[1..]),
        Some(d) => d.to_owned(),
        // `_linear`, `_convolution`: the bindings the Python facade calls, named as the op
        None => binding.strip_prefix('_').unwrap_or(binding).to_owned(),
    };
    if NOT_OPS.contains(&name.as_str()) {
        return None;
    }
    let name = RENAMED.iter().find(|(from, _)| *from == name).map_or(name, |(_, to)| (*to).to_owned());
    Some(format!("aten::{name}"))
}

/// Names by closure type, worked out once each (there are as many as there are call sites).
static NAMES: Mutex<Option<HashMap<&'static str, Option<&'static str>>>> = Mutex::new(None);

/// The event name for a call whose closure has type `F`; None for calls that record no event.
pub fn op_name<F>() -> Option<Cow<'static, str>> {
    let closure_type = std::any::type_name::<F>();
    let mut names = NAMES.lock();
    let name = *names.get_or_insert_with(HashMap::new).entry(closure_type).or_insert_with(|| {
        let name = binding_name(closure_type).and_then(|b| aten_name(&b))?;
        Some(Box::leak(name.into_boxed_str()))
    });
    name.map(Cow::Borrowed)
}

#[pyfunction]
pub fn _profiler_start(record_shapes: bool) -> PyResult<()> {
    // the one error is a profile already running (`errors` imports this module, so not `errors::to_py`)
    profiler::start(record_shapes).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pyfunction]
pub fn _profiler_enabled() -> bool {
    profiler::is_enabled()
}

/// One event as Python reads it: (name, kind, start ns, end ns, thread, input shapes or None, sequence nr).
type PyEvent = (String, u8, u64, u64, u64, Option<Vec<Vec<usize>>>, i64);

fn to_py_event(e: Event) -> PyEvent {
    (e.name.into_owned(), e.kind as u8, e.start_ns, e.end_ns, e.thread, e.input_shapes, e.sequence_nr)
}

/// Stops the profiler and returns its events, by thread and start.
#[pyfunction]
pub fn _profiler_stop() -> Vec<PyEvent> {
    profiler::stop().into_iter().map(to_py_event).collect()
}

/// Test hook: the core's event buffer (length, capacity).
#[pyfunction]
pub fn _profiler_buffered() -> (usize, usize) {
    profiler::buffered()
}

/// The profiler clock, in nanoseconds (a user range's start).
#[pyfunction]
pub fn _profiler_now() -> u64 {
    profiler::now_ns()
}

/// Ends a user range (`record_function`) begun at `start_ns` on this thread.
#[pyfunction]
pub fn _profiler_record_range(name: String, start_ns: u64) {
    if profiler::is_enabled() {
        profiler::push(Event {
            name: Cow::Owned(name),
            kind: EventKind::UserAnnotation,
            start_ns,
            end_ns: profiler::now_ns(),
            thread: profiler::thread_id(),
            input_shapes: profiler::records_shapes().then(Vec::new),
            sequence_nr: -1,
        });
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_profiler_start, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_stop, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_now, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_buffered, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_record_range, m)?)?;
    Ok(())
}
