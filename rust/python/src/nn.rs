//! Kernels behind `ferrograd.nn.functional` (argument handling and defaults live in Python).
use crate::args::{self, int_arg_at, tensor_arg, type_name};
use crate::convert::as_scalar;
use crate::errors::{self, call, call_heavy};
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::batch_norm::{BatchNormMode, ChannelTensors};
use ferrograd_core::conv::Window;
use ferrograd_core::conv3d::Window3;
use ferrograd_core::loss::{LossKind, LossWeights};
use ferrograd_core::pad::PadMode;
use ferrograd_core::unpool::UnpoolDims;
use ferrograd_core::upsample::UpsampleMode;
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

type Out = PyResult<Py<PyTensor>>;

fn optional(obj: Option<&Bound<'_, PyAny>>, func: &str, arg: &str) -> PyResult<Option<Tensor>> {
    obj.filter(|o| !o.is_none()).map(|o| tensor_arg(o, func, arg)).transpose()
}

fn reduction_arg(reduction: &str) -> PyResult<ferrograd_core::loss::Reduction> {
    use ferrograd_core::loss::Reduction;
    match reduction {
        "mean" => Ok(Reduction::Mean),
        "sum" => Ok(Reduction::Sum),
        "none" => Ok(Reduction::None),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!("{reduction} is not a valid value for reduction"))),
    }
}

/// The kernel of `nn.functional.nll_loss` (argument handling lives in Python).
#[pyfunction]
fn _nll_loss(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    weight: Option<&Bound<'_, PyAny>>,
    ignore_index: i64,
    reduction: &str,
) -> Out {
    let x = args::tensor_arg(input, "nll_loss", "input")?;
    let t = args::tensor_arg(target, "nll_loss", "target")?;
    let w = weight.filter(|w| !w.is_none()).map(|w| args::tensor_arg(w, "nll_loss", "weight")).transpose()?;
    let r = reduction_arg(reduction)?;
    wrap(py, call(|| x.nll_loss(&t, w.as_ref(), ignore_index, r))?)
}

/// The kernel of `torch.ctc_loss` once the lengths are integers (their conversion and checks live in Python).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _ctc_loss(
    py: Python<'_>,
    log_probs: &Bound<'_, PyAny>,
    targets: &Bound<'_, PyAny>,
    input_lengths: Vec<i64>,
    target_lengths: Vec<i64>,
    blank: i64,
    reduction: &str,
    zero_infinity: bool,
) -> Out {
    let x = tensor_arg(log_probs, "ctc_loss", "log_probs")?;
    let t = tensor_arg(targets, "ctc_loss", "targets")?;
    let r = reduction_arg(reduction)?;
    let work = x.numel() * t.shape().last().copied().unwrap_or(1).max(1);
    let result = call_heavy(py, work, || x.ctc_loss(&t, &input_lengths, &target_lengths, blank, r, zero_infinity))?;
    wrap(py, result)
}

/// `values` (composed in Python from `input`) under torch's NotImplemented node for `op`.
#[pyfunction]
fn _without_derivative(py: Python<'_>, values: &Bound<'_, PyAny>, input: &Bound<'_, PyAny>, op: &str) -> Out {
    let v = tensor_arg(values, op, "values")?;
    let x = tensor_arg(input, op, "input")?;
    wrap(py, call(|| Tensor::without_derivative(&v, &[&x], op))?)
}

#[pyfunction]
fn _mse_loss(py: Python<'_>, input: &Bound<'_, PyAny>, target: &Bound<'_, PyAny>, reduction: &str) -> Out {
    let x = args::tensor_arg(input, "mse_loss", "input")?;
    let t = args::tensor_arg(target, "mse_loss", "target")?;
    let r = reduction_arg(reduction)?;
    wrap(py, call(|| x.mse_loss(&t, r))?)
}

#[pyfunction]
#[pyo3(signature = (input, weight, bias=None))]
fn _linear(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Option<&Bound<'_, PyAny>>,
) -> Out {
    let x = args::tensor_arg(input, "linear", "input")?;
    let w = args::tensor_arg(weight, "linear", "weight")?;
    let b = bias.filter(|b| !b.is_none()).map(|b| args::tensor_arg(b, "linear", "bias")).transpose()?;
    wrap(py, errors::call_heavy(py, x.numel() + w.numel(), || Tensor::linear(&x, &w, b.as_ref()))?)
}

/// One of the pointwise losses of `input` against `target` (`func` names it in argument errors).
fn pointwise_loss(
    py: Python<'_>,
    func: &str,
    (input, target): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    kind: LossKind,
    reduction: &str,
    (weight, pos_weight): (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
) -> Out {
    let x = tensor_arg(input, func, "input")?;
    let t = tensor_arg(target, func, "target")?;
    let w = optional(weight, func, "weight")?;
    let pw = optional(pos_weight, func, "pos_weight")?;
    let r = reduction_arg(reduction)?;
    let weights = LossWeights { weight: w.as_ref(), pos_weight: pw.as_ref() };
    wrap(py, call_heavy(py, x.numel(), || x.pointwise_loss(&t, kind, weights, r))?)
}

/// The kernel of `nn.functional.smooth_l1_loss` (SmoothL1LossBackward0).
#[pyfunction]
pub fn _smooth_l1_loss(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    reduction: &str,
    beta: f64,
) -> Out {
    let kind = LossKind::SmoothL1 { beta };
    pointwise_loss(py, "smooth_l1_loss", (input, target), kind, reduction, (None, None))
}

/// The kernel of `nn.functional.binary_cross_entropy` (BinaryCrossEntropyBackward0).
#[pyfunction]
#[pyo3(signature = (input, target, reduction, weight=None))]
pub fn _binary_cross_entropy(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    reduction: &str,
    weight: Option<&Bound<'_, PyAny>>,
) -> Out {
    let kind = LossKind::BinaryCrossEntropy;
    pointwise_loss(py, "binary_cross_entropy", (input, target), kind, reduction, (weight, None))
}

/// The kernel of `nn.functional.binary_cross_entropy_with_logits` (BinaryCrossEntropyWithLogitsBackward0).
#[pyfunction]
#[pyo3(signature = (input, target, reduction, weight=None, pos_weight=None))]
pub fn _binary_cross_entropy_with_logits(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    reduction: &str,
    weight: Option<&Bound<'_, PyAny>>,
    pos_weight: Option<&Bound<'_, PyAny>>,
) -> Out {
    let kind = LossKind::BinaryCrossEntropyWithLogits;
    let func = "binary_cross_entropy_with_logits";
    pointwise_loss(py, func, (input, target), kind, reduction, (weight, pos_weight))
}

/// `pixel_shuffle(input, upscale_factor)`: (*, C·r², H, W) → (*, C, H·r, W·r).
#[pyfunction]
pub fn pixel_shuffle(py: Python<'_>, input: &Bound<'_, PyAny>, upscale_factor: &Bound<'_, PyAny>) -> Out {
    let x = tensor_arg(input, "pixel_shuffle", "input")?;
    let r = int_arg_at(upscale_factor, "pixel_shuffle", "upscale_factor", 2)?;
    wrap(py, call_heavy(py, x.numel(), || x.pixel_shuffle(r))?)
}

/// `pixel_unshuffle(input, downscale_factor)`: (*, C, H·r, W·r) → (*, C·r², H, W).
#[pyfunction]
pub fn pixel_unshuffle(py: Python<'_>, input: &Bound<'_, PyAny>, downscale_factor: &Bound<'_, PyAny>) -> Out {
    let x = tensor_arg(input, "pixel_unshuffle", "input")?;
    let r = int_arg_at(downscale_factor, "pixel_unshuffle", "downscale_factor", 2)?;
    wrap(py, call_heavy(py, x.numel(), || x.pixel_unshuffle(r))?)
}

/// `embedding_bag`'s tensors and mode, converted.
fn bag_tensors(
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    mode: &str,
    per_sample_weights: Option<&Bound<'_, PyAny>>,
) -> PyResult<([Tensor; 3], Option<Tensor>, ferrograd_core::embedding_bag::BagMode)> {
    use ferrograd_core::embedding_bag::BagMode;
    let w = tensor_arg(weight, "embedding_bag", "weight")?;
    let i = tensor_arg(indices, "embedding_bag", "indices")?;
    let o = tensor_arg(offsets, "embedding_bag", "offsets")?;
    let psw = optional(per_sample_weights, "embedding_bag", "per_sample_weights")?;
    let mode = match mode {
        "sum" => BagMode::Sum,
        "mean" => BagMode::Mean,
        "max" => BagMode::Max,
        _ => return Err(PyValueError::new_err("mode has to be one of sum, mean or max")),
    };
    Ok(([w, i, o], psw, mode))
}

/// Backend of `nn.functional.embedding_bag`: 1-D indices and offsets, a checked mode and padding_idx.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _embedding_bag(
    py: Python<'_>,
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    mode: &str,
    per_sample_weights: Option<&Bound<'_, PyAny>>,
    include_last_offset: bool,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> Out {
    let ([w, i, o], psw, mode) = bag_tensors(weight, indices, offsets, mode, per_sample_weights)?;
    let result = call_heavy(py, i.numel() * w.shape().get(1).copied().unwrap_or(0), || {
        Tensor::embedding_bag(&w, &i, &o, mode, psw.as_ref(), include_last_offset, padding_idx, scale_grad_by_freq)
    })?;
    wrap(py, result)
}

/// `torch.embedding_bag`'s tuple: the bags, offset2bag, bag_size, max_indices.
type BagOutputs = (Py<PyTensor>, Py<PyTensor>, Py<PyTensor>, Py<PyTensor>);

/// Backend of `torch.embedding_bag`: as `_embedding_bag`, with torch's three auxiliary outputs.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _embedding_bag_with_aux(
    py: Python<'_>,
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    mode: &str,
    per_sample_weights: Option<&Bound<'_, PyAny>>,
    include_last_offset: bool,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> PyResult<BagOutputs> {
    let ([w, i, o], psw, mode) = bag_tensors(weight, indices, offsets, mode, per_sample_weights)?;
    let (out, aux) = call_heavy(py, i.numel() * w.shape().get(1).copied().unwrap_or(0), || {
        let psw = psw.as_ref();
        Tensor::embedding_bag_with_aux(&w, &i, &o, mode, psw, include_last_offset, padding_idx, scale_grad_by_freq)
    })?;
    Ok((wrap(py, out)?, wrap(py, aux.offset2bag)?, wrap(py, aux.bag_size)?, wrap(py, aux.max_indices)?))
}

#[pyfunction]
pub fn _layer_norm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    normalized_shape: Vec<usize>,
    weight: Option<&Bound<'_, PyAny>>,
    bias: Option<&Bound<'_, PyAny>>,
    eps: f64,
) -> Out {
    let x = tensor_arg(input, "layer_norm", "input")?;
    let w = optional(weight, "layer_norm", "weight")?;
    let b = optional(bias, "layer_norm", "bias")?;
    wrap(py, call_heavy(py, x.numel(), || x.layer_norm(&normalized_shape, w.as_ref(), b.as_ref(), eps))?)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _batch_norm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    running_mean: Option<&Bound<'_, PyAny>>,
    running_var: Option<&Bound<'_, PyAny>>,
    weight: Option<&Bound<'_, PyAny>>,
    bias: Option<&Bound<'_, PyAny>>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Out {
    let x = tensor_arg(input, "batch_norm", "input")?;
    let [rm, rv, w, b] =
        [(running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"), (bias, "bias")]
            .map(|(t, name)| optional(t, "batch_norm", name));
    let (rm, rv, w, b) = (rm?, rv?, w?, b?);
    let given =
        ChannelTensors { weight: w.as_ref(), bias: b.as_ref(), running_mean: rm.as_ref(), running_var: rv.as_ref() };
    let mode = BatchNormMode { training, momentum, eps };
    wrap(py, call_heavy(py, x.numel(), || x.batch_norm(given, mode))?)
}

#[pyfunction]
pub fn _embedding(
    py: Python<'_>,
    indices: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    padding_idx: Option<usize>,
) -> Out {
    let i = tensor_arg(indices, "embedding", "input")?;
    let w = tensor_arg(weight, "embedding", "weight")?;
    wrap(py, call(|| Tensor::embedding(&w, &i, padding_idx))?)
}

#[pyfunction]
pub fn _pad(py: Python<'_>, input: &Bound<'_, PyAny>, pad: Vec<isize>, mode: &str, value: &Bound<'_, PyAny>) -> Out {
    let x = tensor_arg(input, "pad", "input")?;
    let mode = call(|| PadMode::from_name(mode))?;
    let value = if value.is_none() {
        None
    } else {
        Some(as_scalar(value).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "pad(): argument 'value' (position 4) must be float, not {}",
                type_name(value)
            ))
        })?)
    };
    wrap(py, call(|| x.pad(&pad, mode, value))?)
}

fn window(kernel: [usize; 2], stride: [usize; 2], padding: [usize; 2], dilation: [usize; 2]) -> Window {
    Window { kernel, stride, padding, dilation }
}

/// `conv1d`/`conv2d` on batched input; `stride`, `padding`, `dilation` are (h, w) (h ignored in 1-D).
#[pyfunction]
pub fn _convolution(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Option<&Bound<'_, PyAny>>,
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    groups: usize,
) -> Out {
    let x = tensor_arg(input, "convolution", "input")?;
    let w = tensor_arg(weight, "convolution", "weight")?;
    let b = optional(bias, "convolution", "bias")?;
    let win = window([1, 1], stride, padding, dilation);
    let work = x.numel().saturating_mul(w.numel().max(1));
    wrap(py, call_heavy(py, work, || Tensor::convolution(&x, &w, b.as_ref(), &win, groups))?)
}

#[pyfunction]
pub fn _max_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    ceil_mode: bool,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let x = tensor_arg(input, "max_pool2d", "input")?;
    let win = window(kernel, stride, padding, dilation);
    let (values, indices) = call_heavy(py, x.numel(), || x.max_pool2d(&win, ceil_mode))?;
    Ok((wrap(py, values)?, wrap(py, indices)?))
}

#[pyfunction]
#[pyo3(signature = (input, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override=None))]
pub fn _avg_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Out {
    let x = tensor_arg(input, "avg_pool2d", "input")?;
    let win = window(kernel, stride, padding, [1, 1]);
    wrap(py, call_heavy(py, x.numel(), || x.avg_pool2d(&win, ceil_mode, count_include_pad, divisor_override))?)
}

#[pyfunction]
pub fn _adaptive_avg_pool2d(py: Python<'_>, input: &Bound<'_, PyAny>, output_size: [usize; 2]) -> Out {
    let x = tensor_arg(input, "adaptive_avg_pool2d", "input")?;
    wrap(py, call_heavy(py, x.numel(), || x.adaptive_avg_pool2d(output_size))?)
}

fn window3(kernel: [usize; 3], stride: [usize; 3], padding: [usize; 3], dilation: [usize; 3]) -> Window3 {
    Window3 { kernel, stride, padding, dilation }
}

/// `conv3d` on batched input, or with `output_padding` given, `conv_transpose3d`; window arguments are
/// (d, h, w) and the argument checks that need no tensor live in Python.
#[pyfunction]
#[pyo3(signature = (input, weight, bias, stride, padding, dilation, groups, output_padding=None))]
pub fn _convolution3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Option<&Bound<'_, PyAny>>,
    stride: [usize; 3],
    padding: [usize; 3],
    dilation: [usize; 3],
    groups: usize,
    output_padding: Option<[usize; 3]>,
) -> Out {
    let x = tensor_arg(input, "convolution", "input")?;
    let w = tensor_arg(weight, "convolution", "weight")?;
    let b = optional(bias, "convolution", "bias")?;
    let win = window3([1, 1, 1], stride, padding, dilation);
    let work = x.numel().saturating_mul(w.numel().max(1));
    wrap(py, call_heavy(py, work, || Tensor::convolution3d(&x, &w, b.as_ref(), &win, groups, output_padding))?)
}

#[pyfunction]
pub fn _max_pool3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel: [usize; 3],
    stride: [usize; 3],
    padding: [usize; 3],
    dilation: [usize; 3],
    ceil_mode: bool,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let x = tensor_arg(input, "max_pool3d", "input")?;
    let win = window3(kernel, stride, padding, dilation);
    let (values, indices) = call_heavy(py, x.numel(), || x.max_pool3d(&win, ceil_mode))?;
    Ok((wrap(py, values)?, wrap(py, indices)?))
}

#[pyfunction]
#[pyo3(signature = (input, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override=None))]
pub fn _avg_pool3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel: [usize; 3],
    stride: [usize; 3],
    padding: [usize; 3],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Out {
    let x = tensor_arg(input, "avg_pool3d", "input")?;
    let win = window3(kernel, stride, padding, [1, 1, 1]);
    wrap(py, call_heavy(py, x.numel(), || x.avg_pool3d(&win, ceil_mode, count_include_pad, divisor_override))?)
}

#[pyfunction]
pub fn _adaptive_max_pool3d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: [usize; 3],
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let x = tensor_arg(input, "adaptive_max_pool3d", "input")?;
    let (values, indices) = call_heavy(py, x.numel(), || x.adaptive_max_pool3d(output_size))?;
    Ok((wrap(py, values)?, wrap(py, indices)?))
}

/// `fractional_max_pool2d` (`dims` 2) or `fractional_max_pool3d` (3): (values, int64 indices); sizes as given
/// (torch's checks of their lengths and signs are the core's), the (N, C, dims) samples drawn by the caller.
#[pyfunction]
pub fn _fractional_max_pool(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dims: usize,
    kernel_size: Vec<i64>,
    output_size: Vec<i64>,
    random_samples: &Bound<'_, PyAny>,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let func = if dims == 2 { "fractional_max_pool2d" } else { "fractional_max_pool3d" };
    let x = tensor_arg(input, func, "input")?;
    let samples = args::tensor_arg_at(random_samples, func, "random_samples", 4)?;
    let work = x.numel().saturating_mul(kernel_size.iter().map(|&k| k.max(1) as usize).product::<usize>());
    let (values, indices) = call_heavy(py, work, || x.fractional_max_pool(dims, &kernel_size, &output_size, &samples))?;
    Ok((wrap(py, values)?, wrap(py, indices)?))
}

#[pyfunction]
pub fn _adaptive_avg_pool3d(py: Python<'_>, input: &Bound<'_, PyAny>, output_size: [usize; 3]) -> Out {
    let x = tensor_arg(input, "adaptive_avg_pool3d", "input")?;
    wrap(py, call_heavy(py, x.numel(), || x.adaptive_avg_pool3d(output_size))?)
}

/// `max_unpool2d` (no `stride`) or `max_unpool3d` (with the `stride` it checks) to the spatial `output_size`;
/// the output-size arithmetic lives in Python, as in torch.
#[pyfunction]
#[pyo3(signature = (input, indices, output_size, stride=None))]
pub fn _max_unpool(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    output_size: Vec<usize>,
    stride: Option<Vec<i64>>,
) -> Out {
    let func = if stride.is_some() { "max_unpool3d" } else { "max_unpool2d" };
    let x = tensor_arg(input, func, "input")?;
    let idx = tensor_arg(indices, func, "indices")?;
    let dims = if stride.is_some() { UnpoolDims::Three } else { UnpoolDims::Two };
    wrap(py, call_heavy(py, x.numel(), || x.max_unpool(&idx, &output_size, stride.as_deref(), dims))?)
}

/// `interpolate`'s kernels: `mode` is one of nearest, nearest-exact, linear (any of linear, bilinear,
/// trilinear), bicubic, area; the argument checks and output-size computation live in Python.
#[pyfunction]
pub fn _upsample(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    mode: &str,
    output_size: Vec<i64>,
    scales: Vec<Option<f64>>,
    align_corners: bool,
) -> Out {
    let x = tensor_arg(input, "interpolate", "input")?;
    let mode = match mode {
        "nearest" => UpsampleMode::Nearest,
        "nearest-exact" => UpsampleMode::NearestExact,
        "linear" => UpsampleMode::Linear,
        "bicubic" => UpsampleMode::Cubic,
        "area" => UpsampleMode::Area,
        _ => return Err(PyValueError::new_err(format!("unknown upsample mode '{mode}'"))),
    };
    let work = output_size
        .iter()
        .fold(x.shape()[..2.min(x.ndim())].iter().product::<usize>(), |n, &s| n.saturating_mul(s.max(0) as usize));
    wrap(py, call_heavy(py, work.max(x.numel()), || x.upsample(mode, &output_size, &scales, align_corners))?)
}

/// `unfold` on a 4-D input to `out` = (out_h, out_w) blocks (Im2ColBackward0); checks live in Python.
#[pyfunction]
pub fn _im2col(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    out: [usize; 2],
) -> Out {
    let x = tensor_arg(input, "unfold", "input")?;
    let win = window(kernel, stride, padding, dilation);
    check_blocks(&win, [x.shape().get(2).copied().unwrap_or(0), x.shape().get(3).copied().unwrap_or(0)], out)?;
    wrap(py, call_heavy(py, x.numel(), || x.im2col(&win, out))?)
}

/// `fold` of (N, C·kh·kw, L) columns into (N, C, H, W) (Col2ImBackward0); checks live in Python.
#[pyfunction]
pub fn _col2im(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    out: [usize; 2],
) -> Out {
    let x = tensor_arg(input, "fold", "input")?;
    let win = window(kernel, stride, padding, dilation);
    check_blocks(&win, output_size, out)?;
    wrap(py, call_heavy(py, x.numel(), || x.col2im(&win, output_size, out))?)
}

/// The kernels index by these sizes: they must be the window's own block counts.
fn check_blocks(win: &Window, hw: [usize; 2], out: [usize; 2]) -> PyResult<()> {
    let valid = win.kernel.iter().chain(&win.stride).chain(&win.dilation).all(|&v| v > 0);
    if !valid || win.out_len(0, hw[0]) != Some(out[0]) || win.out_len(1, hw[1]) != Some(out[1]) {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "sliding blocks {out:?} do not match the window {win:?} over {hw:?}"
        )));
    }
    Ok(())
}

/// One LSTM step's pointwise part: (h, c') from the (B, 4H) gate pre-activations and the cell state,
/// one node for both (the time loop of `nn.LSTM` calls it once per step).
#[pyfunction]
pub fn _lstm_cell(
    py: Python<'_>,
    gates: &Bound<'_, PyAny>,
    cx: &Bound<'_, PyAny>,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let g = tensor_arg(gates, "lstm_cell", "gates")?;
    let c = tensor_arg(cx, "lstm_cell", "cx")?;
    let (h, c_new) = call_heavy(py, g.numel(), || g.lstm_cell_pointwise(&c))?;
    Ok((wrap(py, h)?, wrap(py, c_new)?))
}

/// `native_dropout`'s output: `input * mask`, scaled by `1 / (1 - p)` in training (NativeDropoutBackward0), `mask`
/// the kept elements.
#[pyfunction]
pub fn _native_dropout_apply(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    mask: &Bound<'_, PyAny>,
    p: f64,
    train: bool,
) -> Out {
    let x = tensor_arg(input, "native_dropout", "input")?;
    let m = tensor_arg(mask, "native_dropout", "mask")?;
    wrap(py, call_heavy(py, x.numel(), || x.native_dropout_apply(&m, p, train))?)
}

/// Attention without dropout as one node: softmax(q·kᵀ·scale + attn_mask)·v over equal batch dims,
/// `attn_mask` an additive float mask (bool masks and is_causal already turned into one).
#[pyfunction]
#[pyo3(signature = (query, key, value, attn_mask, scale, is_causal))]
pub fn _scaled_dot_product_attention(
    py: Python<'_>,
    query: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    attn_mask: Option<&Bound<'_, PyAny>>,
    scale: f64,
    is_causal: bool,
) -> Out {
    let func = "scaled_dot_product_attention";
    let (q, k, v) =
        (tensor_arg(query, func, "query")?, tensor_arg(key, func, "key")?, tensor_arg(value, func, "value")?);
    let mask = optional(attn_mask, func, "attn_mask")?;
    let work = q.numel() * k.shape().get(k.ndim().saturating_sub(2)).copied().unwrap_or(1);
    let out = call_heavy(py, work, || q.scaled_dot_product_attention(&k, &v, mask.as_ref(), scale, is_causal))?;
    wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_mse_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_linear, m)?)?;
    m.add_function(wrap_pyfunction!(_smooth_l1_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_cross_entropy_with_logits, m)?)?;
    m.add_function(wrap_pyfunction!(_layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding_bag, m)?)?;
    m.add_function(wrap_pyfunction!(_ctc_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding_bag_with_aux, m)?)?;
    m.add_function(wrap_pyfunction!(_without_derivative, m)?)?;
    m.add_function(wrap_pyfunction!(pixel_shuffle, m)?)?;
    m.add_function(wrap_pyfunction!(pixel_unshuffle, m)?)?;
    m.add_function(wrap_pyfunction!(_embedding, m)?)?;
    m.add_function(wrap_pyfunction!(_pad, m)?)?;
    m.add_function(wrap_pyfunction!(_convolution, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_avg_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_avg_pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(_convolution3d, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool3d, m)?)?;
    m.add_function(wrap_pyfunction!(_avg_pool3d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_avg_pool3d, m)?)?;
    m.add_function(wrap_pyfunction!(_adaptive_max_pool3d, m)?)?;
    m.add_function(wrap_pyfunction!(_fractional_max_pool, m)?)?;
    m.add_function(wrap_pyfunction!(_max_unpool, m)?)?;
    m.add_function(wrap_pyfunction!(_upsample, m)?)?;
    m.add_function(wrap_pyfunction!(_im2col, m)?)?;
    m.add_function(wrap_pyfunction!(_col2im, m)?)?;
    m.add_function(wrap_pyfunction!(_lstm_cell, m)?)?;
    m.add_function(wrap_pyfunction!(_native_dropout_apply, m)?)?;
    m.add_function(wrap_pyfunction!(_scaled_dot_product_attention, m)?)?;
    Ok(())
}
