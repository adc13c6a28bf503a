//! Sampling functions over the generators: `rand`, `randn`, `manual_seed`, and the kernels behind `randint`,
//! `randperm`, `multinomial` and dropout's mask.
use crate::args::{self, dtype_arg, size_list};
use crate::creation::{finish, finish_into, out_dtype};
use crate::errors::call;
use crate::generator::{self, generator_arg};
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::random;
use pyo3::exceptions::{PyOverflowError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Out = PyResult<Py<PyTensor>>;

/// `rand(*size)` and `randn(*size)`: the same arguments, one sampler apart.
macro_rules! sampling_factory {
    ($name:ident, $sample:path) => {
        #[pyfunction]
        #[pyo3(signature = (*args, size=None, generator=None, out=None, dtype=None, device=None, requires_grad=false))]
        #[allow(clippy::too_many_arguments)] // torch's arguments, one each
        fn $name(
            py: Python<'_>,
            args: &Bound<'_, PyTuple>,
            size: Option<&Bound<'_, PyAny>>,
            generator: Option<&Bound<'_, PyAny>>,
            out: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            #[pyo3(from_py_with = args::requires_grad_arg)] requires_grad: bool,
        ) -> Out {
            let meta = args::device_is_meta(device)?;
            let name = stringify!($name);
            let gen = generator_arg(generator, name)?;
            let shape = args::size_or_keyword(args, size, name)?;
            let dtype = out_dtype(out, dtype_arg(dtype, name)?, name)?;
            let dtype = dtype.unwrap_or(ferrograd_core::dtype::default_float());
            if meta {
                return finish(py, call(|| ferrograd_core::Tensor::meta(&shape, dtype))?, requires_grad);
            }
            // a node without operands while a capture runs: each replay draws anew from the same generator
            let make = move || $sample(&gen, &shape, dtype);
            finish_into(py, name, out, call(|| ferrograd_core::compile::random_factory(name, make))?, requires_grad)
        }
    };
}
sampling_factory!(rand, random::rand);
sampling_factory!(randn, random::randn);

/// Seeds the default generator and returns it (`ferrograd.manual_seed` converts with `int()` first).
#[pyfunction]
fn manual_seed(seed: &Bound<'_, PyAny>) -> PyResult<generator::PyGenerator> {
    let seed = generator::seed_arg(seed)?;
    random::manual_seed(seed);
    Ok(generator::PyGenerator::default_handle())
}

#[pyfunction]
#[pyo3(signature = (low, high, size, generator=None))]
fn _randint(
    py: Python<'_>,
    low: i64,
    high: i128,
    size: &Bound<'_, PyTuple>,
    generator: Option<&Bound<'_, PyAny>>,
) -> Out {
    let gen = generator_arg(generator, "randint")?;
    let shape = size_list(size, "randint")?;
    // high may be 2^63, one past i64::MAX: int64's `random_()` range, which the samplers' seeds use
    // nodes while a capture runs: each replay draws anew from the same generator
    if high == 1i128 << 63 && low >= 0 {
        let span = (1u64 << 63) - low as u64;
        let make = move || random::randint_span(&gen, low, span, &shape);
        return wrap(py, call(|| ferrograd_core::compile::random_factory("randint", make))?);
    }
    let high = i64::try_from(high).map_err(|_| PyOverflowError::new_err("Overflow when unpacking long"))?;
    let make = move || random::randint(&gen, low, high, &shape);
    wrap(py, call(|| ferrograd_core::compile::random_factory("randint", make))?)
}

#[pyfunction]
#[pyo3(signature = (n, generator=None))]
fn _randperm(py: Python<'_>, n: i64, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "randperm")?;
    if n < 0 {
        return Err(PyRuntimeError::new_err(format!("n must be non-negative, got{n}")));
    }
    let make = move || random::randperm(&gen, n as usize);
    wrap(py, call(|| ferrograd_core::compile::random_factory("randperm", make))?)
}

#[pyfunction]
#[pyo3(signature = (probs, num_samples, replacement, generator=None))]
pub(crate) fn _multinomial(
    py: Python<'_>,
    probs: &Bound<'_, PyAny>,
    num_samples: i64,
    replacement: bool,
    generator: Option<&Bound<'_, PyAny>>,
) -> Out {
    let gen = generator_arg(generator, "multinomial")?;
    let p = args::tensor_arg(probs, "multinomial", "input")?;
    if num_samples <= 0 {
        return Err(PyRuntimeError::new_err("cannot sample n_sample <= 0 samples"));
    }
    let n = num_samples as usize;
    wrap(
        py,
        call(|| {
            random::traced_draw("multinomial", &gen, &[&p], move |g, x| random::multinomial(g, x[0], n, replacement))
        })?,
    )
}

/// `torch._standard_gamma`'s draws (no gradient here: `distributions` attaches torch's reparameterized one).
#[pyfunction]
#[pyo3(signature = (input, generator=None))]
fn _standard_gamma(py: Python<'_>, input: &Bound<'_, PyAny>, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "_standard_gamma")?;
    let alpha = args::tensor_arg(input, "_standard_gamma", "input")?;
    wrap(py, call(|| random::traced_draw("_standard_gamma", &gen, &[&alpha], |g, x| random::standard_gamma(g, x[0])))?)
}

/// `torch.poisson`'s counts, drawn as torch's CPU kernel draws them.
#[pyfunction]
#[pyo3(signature = (input, generator=None))]
fn _poisson(py: Python<'_>, input: &Bound<'_, PyAny>, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "poisson")?;
    let rates = args::tensor_arg(input, "poisson", "input")?;
    wrap(py, call(|| random::traced_draw("poisson", &gen, &[&rates], |g, x| random::poisson(g, x[0])))?)
}

/// `torch.binomial`'s counts for `count` and `prob` of one shape and dtype, drawn as torch's CPU kernel.
#[pyfunction]
#[pyo3(signature = (count, prob, generator=None))]
fn _binomial(
    py: Python<'_>,
    count: &Bound<'_, PyAny>,
    prob: &Bound<'_, PyAny>,
    generator: Option<&Bound<'_, PyAny>>,
) -> Out {
    let gen = generator_arg(generator, "binomial")?;
    let count = args::tensor_arg(count, "binomial", "count")?;
    let prob = args::tensor_arg(prob, "binomial", "prob")?;
    wrap(py, call(|| random::traced_draw("binomial", &gen, &[&count, &prob], |g, x| random::binomial(g, x[0], x[1])))?)
}

/// Dropout's mask for `input`: 1 / (1 - p) with probability 1 - p, else 0, in `input`'s shape and dtype
/// (one pass; `dropout` multiplies by it).
#[pyfunction]
#[pyo3(signature = (input, p, generator=None))]
fn _dropout_mask(py: Python<'_>, input: &Bound<'_, PyAny>, p: f64, generator: Option<&Bound<'_, PyAny>>) -> Out {
    let gen = generator_arg(generator, "dropout")?;
    let x = args::tensor_arg(input, "dropout", "input")?;
    wrap(py, call(|| random::dropout_mask(&gen, &x, p))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rand, m)?)?;
    m.add_function(wrap_pyfunction!(randn, m)?)?;
    m.add_function(wrap_pyfunction!(manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(_randint, m)?)?;
    m.add_function(wrap_pyfunction!(_randperm, m)?)?;
    m.add_function(wrap_pyfunction!(_multinomial, m)?)?;
    m.add_function(wrap_pyfunction!(_dropout_mask, m)?)?;
    m.add_function(wrap_pyfunction!(_standard_gamma, m)?)?;
    m.add_function(wrap_pyfunction!(_poisson, m)?)?;
    m.add_function(wrap_pyfunction!(_binomial, m)?)?;
    Ok(())
}
