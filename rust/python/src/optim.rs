//! `_optimizer_step`: one call per `optimizer.step()`, over every parameter of every param group.
use crate::args::type_name;
use crate::errors::call_heavy;
use crate::py_tensor::PyTensor;
use ferrograd_core::optim::{self, Adagrad, Adam, Adamax, Group, NAdam, RmsProp, Sgd, Slot, Update, WeightDecay};
use ferrograd_core::Tensor;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A hyper-parameter of a param group as a float (a Python number, or a one-element tensor as PyTorch
/// allows for `lr`).
fn number(group: &Bound<'_, PyDict>, key: &str) -> PyResult<f64> {
    let value = group.get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))?;
    value.extract::<f64>().or_else(|_| value.call_method0("__float__")?.extract::<f64>())
}

fn flag(group: &Bound<'_, PyDict>, key: &str) -> PyResult<bool> {
    group.get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))?.is_truthy()
}

fn betas(group: &Bound<'_, PyDict>) -> PyResult<(f64, f64)> {
    let b = group.get_item("betas")?.ok_or_else(|| PyKeyError::new_err("betas"))?;
    let item = |i: usize| -> PyResult<f64> {
        let v = b.get_item(i)?;
        v.extract::<f64>().or_else(|_| v.call_method0("__float__")?.extract::<f64>())
    };
    Ok((item(0)?, item(1)?))
}

fn sgd(g: &Bound<'_, PyDict>) -> PyResult<Sgd> {
    Ok(Sgd {
        lr: number(g, "lr")?,
        momentum: number(g, "momentum")?,
        dampening: number(g, "dampening")?,
        weight_decay: number(g, "weight_decay")?,
        nesterov: flag(g, "nesterov")?,
        maximize: flag(g, "maximize")?,
    })
}

fn adam(g: &Bound<'_, PyDict>) -> PyResult<Adam> {
    let (beta1, beta2) = betas(g)?;
    Ok(Adam {
        lr: number(g, "lr")?,
        beta1,
        beta2,
        eps: number(g, "eps")?,
        weight_decay: WeightDecay::new(number(g, "weight_decay")?, flag(g, "decoupled_weight_decay")?),
        amsgrad: flag(g, "amsgrad")?,
        maximize: flag(g, "maximize")?,
    })
}

fn rmsprop(g: &Bound<'_, PyDict>) -> PyResult<RmsProp> {
    Ok(RmsProp {
        lr: number(g, "lr")?,
        alpha: number(g, "alpha")?,
        eps: number(g, "eps")?,
        weight_decay: number(g, "weight_decay")?,
        momentum: number(g, "momentum")?,
        centered: flag(g, "centered")?,
        maximize: flag(g, "maximize")?,
    })
}

fn adagrad(g: &Bound<'_, PyDict>) -> PyResult<Adagrad> {
    Ok(Adagrad {
        lr: number(g, "lr")?,
        lr_decay: number(g, "lr_decay")?,
        weight_decay: number(g, "weight_decay")?,
        eps: number(g, "eps")?,
        maximize: flag(g, "maximize")?,
    })
}

fn adamax(g: &Bound<'_, PyDict>) -> PyResult<Adamax> {
    let (beta1, beta2) = betas(g)?;
    Ok(Adamax {
        lr: number(g, "lr")?,
        beta1,
        beta2,
        eps: number(g, "eps")?,
        weight_decay: number(g, "weight_decay")?,
        maximize: flag(g, "maximize")?,
    })
}

fn nadam(g: &Bound<'_, PyDict>) -> PyResult<NAdam> {
    let (beta1, beta2) = betas(g)?;
    Ok(NAdam {
        lr: number(g, "lr")?,
        beta1,
        beta2,
        eps: number(g, "eps")?,
        weight_decay: WeightDecay::new(number(g, "weight_decay")?, flag(g, "decoupled_weight_decay")?),
        momentum_decay: number(g, "momentum_decay")?,
        maximize: flag(g, "maximize")?,
    })
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
fn group<U: Update>(item: &Bound<'_, PyAny>, rule: fn(&Bound<'_, PyDict>) -> PyResult<U>) -> PyResult<Group<U>> {
    let (options, params, grads, buffers, counters, fresh): GroupRow<'_> = item.extract()?;
    let (params, grads) = (tensors(&params)?, tensors(&grads)?);
    let (n, rows) = (params.len(), [grads.len(), buffers.len(), counters.len(), fresh.len()]);
    if rows.iter().any(|&r| r != n) {
        return Err(PyValueError::new_err("_optimizer_step: every list of a group needs one entry per parameter"));
    }
    let mut slots = Vec::with_capacity(n);
    for (i, (param, grad)) in params.into_iter().zip(grads).enumerate() {
        let buffers = tensors(&buffers.get_item(i)?)?;
        let counters = tensors(&counters.get_item(i)?)?;
        slots.push(Slot { param, grad, buffers, counters, fresh: fresh[i] });
    }
    Ok(Group { rule: rule(&options)?, slots })
}

fn run<U: Update + Send>(
    py: Python<'_>,
    groups: &Bound<'_, PyList>,
    rule: fn(&Bound<'_, PyDict>) -> PyResult<U>,
) -> PyResult<()> {
    let groups: Vec<Group<U>> = groups.iter().map(|g| group(&g, rule)).collect::<PyResult<_>>()?;
    let size = groups.iter().flat_map(|g| &g.slots).map(|s| s.param.numel()).sum();
    call_heavy(py, size, || optim::step(&groups))
}

/// Updates every parameter of an optimizer's groups in place in one pass (`algorithm`: "sgd", "adam",
/// "rmsprop", "adagrad", "adamax", "nadam"; AdamW is "adam" with decoupled weight decay).
#[pyfunction]
pub fn _optimizer_step(py: Python<'_>, algorithm: &str, groups: &Bound<'_, PyList>) -> PyResult<()> {
    match algorithm {
        "sgd" => run(py, groups, sgd),
        "adam" => run(py, groups, adam),
        "rmsprop" => run(py, groups, rmsprop),
        "adagrad" => run(py, groups, adagrad),
        "adamax" => run(py, groups, adamax),
        "nadam" => run(py, groups, nadam),
        other => Err(PyValueError::new_err(format!("_optimizer_step: unknown algorithm '{other}'"))),
    }
}
