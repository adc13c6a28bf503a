//! Functions over several tensors: `where`, `cat`, `stack`, `einsum`, and the check of how many a split may make.
use crate::args::{self, type_name};
use crate::errors::{self, call};
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Out = PyResult<Py<PyTensor>>;

/// `where(condition, input, other)`; input and other may be numbers. `where(condition)` alone is
/// `nonzero(condition, as_tuple=True)`.
#[pyfunction(name = "where")]
#[pyo3(signature = (condition, input=None, other=None))]
fn where_fn(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    input: Option<&Bound<'_, PyAny>>,
    other: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let c = args::tensor_arg(condition, "where", "condition")?;
    let (input, other) = match (input, other) {
        (Some(input), Some(other)) => (input, other),
        (None, None) => {
            return Ok(crate::py_tensor::nonzero_tuple(py, &c)?.into_any());
        }
        (input, other) => {
            let given = type_name(input.or(other).expect("one of the two is given"));
            return Err(PyTypeError::new_err(format!(
                "where() received an invalid combination of arguments - got (Tensor, {given}), but expected one \
                of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n \
                * (Tensor condition, Number self, Tensor other)\n * (Tensor condition, Tensor input, Number other)\n \
                * (Tensor condition, Number self, Number other)\n"
            )));
        }
    };
    let a = args::operand_arg(input, "where", "input")?;
    let b = args::operand_arg(other, "where", "other")?;
    Ok(wrap(py, call(|| Tensor::where_(&c, &a, &b))?)?.into_any())
}

/// A sequence of tensors (`cat`, `stack`), with PyTorch's TypeError.
fn tensor_seq(tensors: &Bound<'_, PyAny>, func: &str) -> PyResult<Vec<Tensor>> {
    if tensors.cast::<PyTensor>().is_ok()
        || !(tensors.is_instance_of::<PyTuple>() || tensors.is_instance_of::<pyo3::types::PyList>())
    {
        return Err(PyTypeError::new_err(format!(
            "{func}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            type_name(tensors)
        )));
    }
    tensors
        .try_iter()?
        .enumerate()
        .map(|(i, t)| {
            let t = t?;
            t.cast::<PyTensor>().map(|t| t.get().get()).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{func}(): argument 'tensors' (position 1) must be tuple of Tensors, not {} (element {i})",
                    type_name(&t)
                ))
            })
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn cat(py: Python<'_>, tensors: &Bound<'_, PyAny>, #[pyo3(from_py_with = args::dim_arg)] dim: isize) -> Out {
    let ts = tensor_seq(tensors, "cat")?;
    wrap(py, call(|| Tensor::cat(&ts, dim))?)
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn stack(py: Python<'_>, tensors: &Bound<'_, PyAny>, #[pyo3(from_py_with = args::dim_arg)] dim: isize) -> Out {
    let ts = tensor_seq(tensors, "stack")?;
    wrap(py, call(|| Tensor::stack(&ts, dim))?)
}

/// `einsum(equation, *operands)`, or with the operands in one list or tuple.
#[pyfunction]
#[pyo3(signature = (equation, *operands))]
fn einsum(py: Python<'_>, equation: &Bound<'_, PyAny>, operands: &Bound<'_, PyTuple>) -> Out {
    let eq: String = equation.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "einsum(): argument 'equation' (position 1) must be str, not {}",
            type_name(equation)
        ))
    })?;
    if operands.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "einsum(): must specify the equation string and at least \
            one operand, or at least one operand and its subscripts list",
        ));
    }
    let ts = match operands.len() {
        1 if operands.get_item(0)?.cast::<PyTensor>().is_err() => tensor_seq(&operands.get_item(0)?, "einsum")?,
        _ => tensor_seq(operands.as_any(), "einsum")?,
    };
    let work: usize = ts.iter().map(|t| t.numel()).sum();
    wrap(py, errors::call_heavy(py, work, || ferrograd_core::einsum::einsum(&eq, &ts))?)
}

/// The core's check that `count` pieces of a split can exist (torch's `max_size()` and `bad_alloc` errors),
/// for the splits written in Python (`tensor_split`). A count past 64 bits is past any limit.
#[pyfunction]
fn _check_piece_count(count: &Bound<'_, PyAny>) -> PyResult<()> {
    let count = count.extract::<usize>().unwrap_or(usize::MAX);
    call(|| ferrograd_core::alloc::check_piece_count(count))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_check_piece_count, m)?)?;
    m.add_function(wrap_pyfunction!(where_fn, m)?)?;
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(einsum, m)?)?;
    Ok(())
}
