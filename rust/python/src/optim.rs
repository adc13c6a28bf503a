//! `OptimRule.step`: one call per `optimizer.step()`, over every parameter of every param group.
use crate::args::type_name;
use crate::errors::call_heavy;
use crate::py_tensor::PyTensor;
use ferrograd_core::optim::{
    self, Adadelta, Adagrad, Adam, Adamax, Asgd, Group, NAdam, Options, RAdam, RmsProp, Rprop, Sgd, Slot, Update,
};
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A param group's dict, read by option name. A hyper-parameter is a Python number, or a one-element tensor
/// as PyTorch allows for `lr`.
struct GroupOptions<'a, 'py>(&'a Bound<'py, PyDict>);

fn as_number(value: &Bound<'_, PyAny>) -> PyResult<f64> {
    value.extract::<f64>().or_else(|_| value.call_method0("__float__")?.extract::<f64>())
}

impl GroupOptions<'_, '_> {
    fn get(&self, key: &str) -> PyResult<Bound<'_, PyAny>> {
        self.0.get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }
}

impl Options for GroupOptions<'_, '_> {
    type Error = PyErr;
    fn number(&self, key: &str) -> PyResult<f64> {
        as_number(&self.get(key)?)
    }
    fn flag(&self, key: &str) -> PyResult<bool> {
        self.get(key)?.is_truthy()
    }
    fn pair(&self, key: &str) -> PyResult<(f64, f64)> {
        let pair = self.get(key)?;
        Ok((as_number(&pair.get_item(0)?)?, as_number(&pair.get_item(1)?)?))
    }
}

fn tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    list.try_iter()?
        .map(|t| {
            let t = t?;
            t.cast::<PyTensor>()
                .map(|t| t.get().get())
                .map_err(|_| PyTypeError::new_err(format!("expected a Tensor, got {}", type_name(&t))))
        })
        .collect()
}

/// One group as Python passes it: `(options, params, grads, buffers, counters, fresh)`.
type GroupRow<'py> =
    (Bound<'py, PyDict>, Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyList>, Bound<'py, PyList>, Vec<bool>);

/// A group as `(options, params, grads, buffers, counters, fresh)` from Python, one row per parameter.
fn group<U: Update>(item: &Bound<'_, PyAny>) -> PyResult<Group<U>> {
    let (options, params, grads, buffers, counters, fresh): GroupRow<'_> = item.extract()?;
    let (params, grads) = (tensors(&params)?, tensors(&grads)?);
    let (n, rows) = (params.len(), [grads.len(), buffers.len(), counters.len(), fresh.len()]);
    if rows.iter().any(|&r| r != n) {
        return Err(PyValueError::new_err("OptimRule.step: every list of a group needs one entry per parameter"));
    }
    let mut slots = Vec::with_capacity(n);
    for (i, (param, grad)) in params.into_iter().zip(grads).enumerate() {
        let buffers = tensors(&buffers.get_item(i)?)?;
        let counters = tensors(&counters.get_item(i)?)?;
        slots.push(Slot { param, grad, buffers, counters, fresh: fresh[i] });
    }
    Ok(Group { rule: U::from_options(&GroupOptions(&options))?, slots })
}

fn run<U: Update + Send>(py: Python<'_>, groups: &Bound<'_, PyList>) -> PyResult<()> {
    let groups: Vec<Group<U>> = groups.iter().map(|g| group(&g)).collect::<PyResult<_>>()?;
    let size = groups.iter().flat_map(|g| &g.slots).map(|s| s.param.numel()).sum();
    call_heavy(py, size, || optim::step(&groups))
}

/// `OptimRule`: one variant per update rule in `ferrograd_core::optim`. A Python optimizer class names its
/// rule (`_rule = _core.OptimRule.Adamax`) and reads the rule's state keys from it.
macro_rules! optim_rules {
    ($($rule:ident),* $(,)?) => {
        /// The update rule of a fused optimizer: its state keys, and `step` over every param group at once.
        #[pyclass(eq, eq_int, frozen, module = "ferrograd._core")]
        #[derive(Clone, Copy, PartialEq)]
        pub enum OptimRule {
            $($rule),*
        }

        #[pymethods]
        impl OptimRule {
            /// PyTorch's state keys of the per-element buffers the rule keeps for `group`'s options, in order.
            fn buffer_names(&self, group: &Bound<'_, PyDict>) -> PyResult<Vec<&'static str>> {
                match self {
                    $(OptimRule::$rule => Ok($rule::from_options(&GroupOptions(group))?.buffer_names()),)*
                }
            }

            /// The 0-dim counters as `(state key, first value)` pairs, `step` first.
            #[getter]
            fn counters(&self) -> &'static [(&'static str, f64)] {
                match self {
                    $(OptimRule::$rule => <$rule as Update>::COUNTERS,)*
                }
            }

            /// Updates every parameter of the groups in place in one pass; each group is
            /// `(options, params, grads, buffers, counters, fresh)`, one entry per parameter.
            fn step(&self, py: Python<'_>, groups: &Bound<'_, PyList>) -> PyResult<()> {
                match self {
                    $(OptimRule::$rule => run::<$rule>(py, groups),)*
                }
            }
        }
    };
}

optim_rules!(Sgd, Adam, RmsProp, Adagrad, Adamax, NAdam, Adadelta, RAdam, Rprop, Asgd);
