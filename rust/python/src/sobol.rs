//! The kernels behind `quasirandom.SobolEngine` (torch's `_sobol_engine_*`): the direction numbers, the
//! scramble, the draw and the fast-forward over int64 state tensors the Python class keeps.
use crate::args::{self, dtype_arg};
use crate::errors::{call, call_heavy};
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::random;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

type Pair = PyResult<(Py<PyTensor>, Py<PyTensor>)>;

fn count_arg(n: &Bound<'_, PyAny>, func: &str) -> PyResult<u64> {
    // an int past int64 is torch's ValueError (its argument parser's), not a type error
    if n.is_instance_of::<PyInt>() && !n.is_instance_of::<PyBool>() && n.extract::<i64>().is_err() {
        return Err(PyValueError::new_err("Overflow when unpacking long long"));
    }
    let n = args::int_arg_at(n, func, "n", 2)?;
    u64::try_from(n).map_err(|_| PyValueError::new_err(format!("n must be non-negative, but got {n}")))
}

/// How many dimensions the packed Joe–Kuo table covers.
#[pyfunction]
fn _sobol_table_dimensions() -> usize {
    random::sobol_table_dimensions()
}

#[pyfunction]
fn _sobol_initial_state(py: Python<'_>, dimension: usize) -> PyResult<Py<PyTensor>> {
    wrap(py, call(|| random::sobol_initial_state(dimension))?)
}

#[pyfunction]
fn _sobol_scramble(
    py: Python<'_>,
    sobolstate: &Bound<'_, PyAny>,
    shift_bits: &Bound<'_, PyAny>,
    ltm: &Bound<'_, PyAny>,
) -> Pair {
    let state = args::tensor_arg(sobolstate, "_sobol_engine_scramble_", "self")?;
    let shift_bits = args::tensor_arg(shift_bits, "_sobol_engine_scramble_", "shift_bits")?;
    let ltm = args::tensor_arg(ltm, "_sobol_engine_scramble_", "ltm")?;
    let size = ltm.numel();
    let (state, shift) = call_heavy(py, size, || random::sobol_scramble(&state, &shift_bits, &ltm))?;
    Ok((wrap(py, state)?, wrap(py, shift)?))
}

/// `n` points after `quasi` (the point of index `num_generated`) and the last point's integers.
#[pyfunction]
#[pyo3(signature = (quasi, n, sobolstate, num_generated, dtype=None))]
fn _sobol_draw(
    py: Python<'_>,
    quasi: &Bound<'_, PyAny>,
    n: &Bound<'_, PyAny>,
    sobolstate: &Bound<'_, PyAny>,
    num_generated: u64,
    dtype: Option<&Bound<'_, PyAny>>,
) -> Pair {
    let n = count_arg(n, "_sobol_engine_draw")?;
    let quasi = args::tensor_arg(quasi, "_sobol_engine_draw", "quasi")?;
    let state = args::tensor_arg(sobolstate, "_sobol_engine_draw", "sobolstate")?;
    let dtype = dtype_arg(dtype, "_sobol_engine_draw")?.unwrap_or(ferrograd_core::DType::F32);
    let size = (n as usize).saturating_mul(quasi.numel());
    let (points, last) = call_heavy(py, size, || random::sobol_draw(&quasi, n as usize, &state, num_generated, dtype))?;
    Ok((wrap(py, points)?, wrap(py, last)?))
}

/// `quasi` moved `n` points on from the point of index `num_generated`.
#[pyfunction]
fn _sobol_fast_forward(
    py: Python<'_>,
    quasi: &Bound<'_, PyAny>,
    n: &Bound<'_, PyAny>,
    sobolstate: &Bound<'_, PyAny>,
    num_generated: u64,
) -> PyResult<Py<PyTensor>> {
    let n = count_arg(n, "_sobol_engine_ff_")?;
    let quasi = args::tensor_arg(quasi, "_sobol_engine_ff_", "self")?;
    let state = args::tensor_arg(sobolstate, "_sobol_engine_ff_", "sobolstate")?;
    wrap(py, call(|| random::sobol_fast_forward(&quasi, n, &state, num_generated))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sobol_table_dimensions, m)?)?;
    m.add_function(wrap_pyfunction!(_sobol_initial_state, m)?)?;
    m.add_function(wrap_pyfunction!(_sobol_scramble, m)?)?;
    m.add_function(wrap_pyfunction!(_sobol_draw, m)?)?;
    m.add_function(wrap_pyfunction!(_sobol_fast_forward, m)?)?;
    Ok(())
}
