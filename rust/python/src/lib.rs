//! ferrograd's Python module `ferrograd._core`: argument conversion and error mapping around the core.
mod alloc;
mod args;
mod autocast;

#[global_allocator]
static ALLOCATOR: alloc::SplitAllocator = alloc::SplitAllocator;

mod autograd;
mod chain;
mod combine;
mod compile;
mod compile_call;
mod complex;
mod convert;
mod creation;
mod dlpack;
mod dtype;
mod dtype_defaults;
mod errors;
mod generator;
mod grad_mode;
mod grid_sample;
mod hooks;
mod indexing;
mod linalg;
mod nn;
mod node;
mod optim;
mod profiler;
mod random;
mod rnn;
mod tensor;
mod threads;
/// The name other binding files use for the `Tensor` class's module.
use tensor as py_tensor;
mod serialize;
mod shared_memory;
mod sobol;
mod sparse;
mod special;
mod torch_format;

use dtype::PyDType;
use py_tensor::PyTensor;
use pyo3::prelude::*;

/// Every `grad_fn` name the core's backward rules can produce (for the README's op list).
#[pyfunction]
fn _grad_fn_names() -> Vec<&'static str> {
    ferrograd_core::autograd::grad_fn_names()
}

/// Returns the large buffers waiting for reuse to the system.
#[pyfunction]
fn _empty_pool() {
    ferrograd_core::pool::clear();
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    alloc::tune_system_allocator();
    m.add_class::<PyTensor>()?;
    m.add_class::<PyDType>()?;
    m.add_class::<generator::PyGenerator>()?;
    m.add("default_generator", generator::PyGenerator::default_handle())?;
    m.add_class::<node::PyNode>()?;
    m.add_class::<hooks::RemovableHandle>()?;
    m.add_class::<compile::PyCompiledGraph>()?;
    m.add_function(wrap_pyfunction!(compile::_capture_begin, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_finish, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_abort, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_unsupported, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_is_capturing, m)?)?;
    m.add_function(wrap_pyfunction!(compile::_capture_effect, m)?)?;
    m.add_class::<compile_call::PyCompiledCall>()?;
    m.add_function(wrap_pyfunction!(compile_call::_module_attribute_set, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_grad, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(alloc::_allocator_round_trip, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_check_new_shape, m)?)?;
    m.add_function(wrap_pyfunction!(args::_set_default_meta, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_backward, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_attach_custom, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_special, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_special_names, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_xlogy, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_xlog1py, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_zeta, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_igamma, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_igammac, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::var_mean, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::std_mean, m)?)?;
    dtype::register(m)?;
    dtype_defaults::register(m)?;
    creation::register(m)?;
    random::register(m)?;
    sobol::register(m)?;
    grad_mode::register(m)?;
    combine::register(m)?;
    complex::register(m)?;
    m.add_function(wrap_pyfunction!(_empty_pool, m)?)?;
    m.add_function(wrap_pyfunction!(_grad_fn_names, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_unary_ops, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_param_unary_ops, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::_method_forms, m)?)?;
    m.add_function(wrap_pyfunction!(chain::_chain_layers, m)?)?;
    m.add_function(wrap_pyfunction!(chain::_register_chain_layers, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::search::searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::search::bucketize, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::isin, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::block_diag, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_mul_number, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::_div_number, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::cdist, m)?)?;
    m.add_function(wrap_pyfunction!(py_tensor::pdist, m)?)?;
    m.add_class::<optim::OptimRule>()?;
    nn::register(m)?;
    grid_sample::register(m)?;
    linalg::register(m)?;
    rnn::register(m)?;
    sparse::register(m)?;
    special::register(m)?;
    threads::register(m)?;
    autocast::register(m)?;
    serialize::register(m)?;
    shared_memory::register(m)?;
    profiler::register(m)?;
    Ok(())
}
