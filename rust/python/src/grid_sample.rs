//! `torch.grid_sampler`, `grid_sampler_2d`, `grid_sampler_3d` (integer mode codes, as torch's) and
//! `affine_grid_generator`: the kernels behind `nn.functional.grid_sample` and `affine_grid`, whose
//! string arguments, defaults and checks live in Python.
use crate::args::{int_arg_at, tensor_arg, tensor_arg_at, type_name};
use crate::errors::call_heavy;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::grid_sample::{GridInterpolation, GridPadding, SamplerDims};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

type Out = PyResult<Py<PyTensor>>;

/// A bool argument at `position` (from 1), refused as torch refuses it (ints too).
fn bool_arg_at(obj: &Bound<'_, PyAny>, func: &str, arg: &str, position: usize) -> PyResult<bool> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return obj.extract();
    }
    let kind = type_name(obj);
    Err(PyTypeError::new_err(format!("{func}(): argument '{arg}' (position {position}) must be bool, not {kind}")))
}

/// The five arguments of the `grid_sampler` functions, checked as torch checks them, and the sample.
fn sample(py: Python<'_>, func: &str, args: [&Bound<'_, PyAny>; 5], dims: Option<SamplerDims>) -> Out {
    let [input, grid, interpolation_mode, padding_mode, align_corners] = args;
    let x = tensor_arg_at(input, func, "input", 1)?;
    let g = tensor_arg_at(grid, func, "grid", 2)?;
    let mode = int_arg_at(interpolation_mode, func, "interpolation_mode", 3)?;
    let padding = int_arg_at(padding_mode, func, "padding_mode", 4)?;
    let align_corners = bool_arg_at(align_corners, func, "align_corners", 5)?;
    let work = x.numel().max(g.numel());
    let out = call_heavy(py, work, || {
        let (mode, padding) = (GridInterpolation::from_code(mode)?, GridPadding::from_code(padding)?);
        x.grid_sampler(&g, mode, padding, align_corners, dims)
    })?;
    wrap(py, out)
}

/// `grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)`: 2-D or 3-D by the input.
#[pyfunction]
pub fn grid_sampler(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    grid: &Bound<'_, PyAny>,
    interpolation_mode: &Bound<'_, PyAny>,
    padding_mode: &Bound<'_, PyAny>,
    align_corners: &Bound<'_, PyAny>,
) -> Out {
    sample(py, "grid_sampler", [input, grid, interpolation_mode, padding_mode, align_corners], None)
}

#[pyfunction]
pub fn grid_sampler_2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    grid: &Bound<'_, PyAny>,
    interpolation_mode: &Bound<'_, PyAny>,
    padding_mode: &Bound<'_, PyAny>,
    align_corners: &Bound<'_, PyAny>,
) -> Out {
    let args = [input, grid, interpolation_mode, padding_mode, align_corners];
    sample(py, "grid_sampler_2d", args, Some(SamplerDims::Two))
}

#[pyfunction]
pub fn grid_sampler_3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    grid: &Bound<'_, PyAny>,
    interpolation_mode: &Bound<'_, PyAny>,
    padding_mode: &Bound<'_, PyAny>,
    align_corners: &Bound<'_, PyAny>,
) -> Out {
    let args = [input, grid, interpolation_mode, padding_mode, align_corners];
    sample(py, "grid_sampler_3d", args, Some(SamplerDims::Three))
}

/// `affine_grid_generator(theta, size, align_corners)`.
#[pyfunction]
pub fn affine_grid_generator(py: Python<'_>, theta: &Bound<'_, PyAny>, size: Vec<i64>, align_corners: bool) -> Out {
    let theta = tensor_arg(theta, "affine_grid_generator", "theta")?;
    if let Some(&s) = size.iter().find(|&&s| s < 0).filter(|_| matches!(size.len(), 4 | 5)) {
        // torch's message names the base grid it failed to make: (N, *spatial, dims + 1)
        let mut base = vec![size[0]];
        base.extend(&size[2..]);
        base.push(size.len() as i64 - 1);
        return Err(PyRuntimeError::new_err(format!("Trying to create tensor with negative dimension {s}: {base:?}")));
    }
    let size: Vec<usize> = size.iter().map(|&s| s.max(0) as usize).collect();
    let work = size.iter().skip(2).fold(size.first().copied().unwrap_or(0), |n, &s| n.saturating_mul(s));
    wrap(py, call_heavy(py, work, || theta.affine_grid_generator(&size, align_corners))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(grid_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(grid_sampler_2d, m)?)?;
    m.add_function(wrap_pyfunction!(grid_sampler_3d, m)?)?;
    m.add_function(wrap_pyfunction!(affine_grid_generator, m)?)?;
    Ok(())
}
