//! `torch.grid_sampler`, `grid_sampler_2d`, `grid_sampler_3d` (integer mode codes, as torch's) and
//! `affine_grid_generator`: the kernels behind `nn.functional.grid_sample` and `affine_grid`, whose
//! string arguments, defaults and checks live in Python.
use crate::args::tensor_arg;
use crate::errors::call_heavy;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::grid_sample::{GridInterpolation, GridPadding, SamplerDims};
use pyo3::prelude::*;

type Out = PyResult<Py<PyTensor>>;

fn sample(
    py: Python<'_>,
    func: &str,
    (input, grid): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    (interpolation_mode, padding_mode, align_corners): (i64, i64, bool),
    dims: Option<SamplerDims>,
) -> Out {
    let (x, g) = (tensor_arg(input, func, "input")?, tensor_arg(grid, func, "grid")?);
    let work = x.numel().max(g.numel());
    let out = call_heavy(py, work, || {
        let mode = GridInterpolation::from_code(interpolation_mode)?;
        let padding = GridPadding::from_code(padding_mode)?;
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
    interpolation_mode: i64,
    padding_mode: i64,
    align_corners: bool,
) -> Out {
    sample(py, "grid_sampler", (input, grid), (interpolation_mode, padding_mode, align_corners), None)
}

#[pyfunction]
pub fn grid_sampler_2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    grid: &Bound<'_, PyAny>,
    interpolation_mode: i64,
    padding_mode: i64,
    align_corners: bool,
) -> Out {
    let args = (interpolation_mode, padding_mode, align_corners);
    sample(py, "grid_sampler_2d", (input, grid), args, Some(SamplerDims::Two))
}

#[pyfunction]
pub fn grid_sampler_3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    grid: &Bound<'_, PyAny>,
    interpolation_mode: i64,
    padding_mode: i64,
    align_corners: bool,
) -> Out {
    let args = (interpolation_mode, padding_mode, align_corners);
    sample(py, "grid_sampler_3d", (input, grid), args, Some(SamplerDims::Three))
}

/// `affine_grid_generator(theta, size, align_corners)`.
#[pyfunction]
pub fn affine_grid_generator(py: Python<'_>, theta: &Bound<'_, PyAny>, size: Vec<i64>, align_corners: bool) -> Out {
    let theta = tensor_arg(theta, "affine_grid_generator", "theta")?;
    if let Some(&s) = size.iter().find(|&&s| s < 0) {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "Trying to create tensor with negative dimension {s}: {size:?}"
        )));
    }
    let size: Vec<usize> = size.iter().map(|&s| s as usize).collect();
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
