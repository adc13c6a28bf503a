//! Bindings for the recurrent layers' kernels (`nn.LSTM` calls one per layer and direction).
use crate::args::tensor_arg;
use crate::errors::call_heavy;
use crate::py_tensor::{wrap, PyTensor};
use ferrograd_core::lstm_layer::LstmWeights;
use pyo3::prelude::*;

/// One LSTM layer in one direction over time-major input (T, B, I): (output, h_n, c_n), one node.
#[pyfunction]
#[pyo3(signature = (input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse))]
pub fn _lstm_layer(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    w_ih: &Bound<'_, PyAny>,
    w_hh: &Bound<'_, PyAny>,
    b_ih: Option<&Bound<'_, PyAny>>,
    b_hh: Option<&Bound<'_, PyAny>>,
    hx: &Bound<'_, PyAny>,
    cx: &Bound<'_, PyAny>,
    reverse: bool,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>, Py<PyTensor>)> {
    let func = "lstm_layer";
    let arg = |obj: &Bound<'_, PyAny>, name: &str| tensor_arg(obj, func, name);
    let opt =
        |obj: Option<&Bound<'_, PyAny>>, name: &str| obj.filter(|o| !o.is_none()).map(|o| arg(o, name)).transpose();
    let (x, w_ih, w_hh) = (arg(input, "input")?, arg(w_ih, "w_ih")?, arg(w_hh, "w_hh")?);
    let (b_ih, b_hh) = (opt(b_ih, "b_ih")?, opt(b_hh, "b_hh")?);
    let (h0, c0) = (arg(hx, "hx")?, arg(cx, "cx")?);
    let weights = LstmWeights { w_ih: &w_ih, w_hh: &w_hh, b_ih: b_ih.as_ref(), b_hh: b_hh.as_ref() };
    let work = x.numel() * w_ih.shape().first().copied().unwrap_or(1);
    let [out, h_n, c_n] = call_heavy(py, work, || x.lstm_layer(&weights, &h0, &c0, reverse))?;
    Ok((wrap(py, out)?, wrap(py, h_n)?, wrap(py, c_n)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_lstm_layer, m)?)?;
    Ok(())
}
