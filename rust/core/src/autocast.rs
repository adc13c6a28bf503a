//! CPU autocast (`torch.autocast("cpu")`): a thread-local state read at the entry of the ops torch lists, which
//! cast their floating inputs before running (torch's `AutocastCPU` kernels in `aten/src/ATen/autocast_mode.cpp`).
//!
//! - `Policy::LowerPrecision` (mm, bmm, matmul, addmm, baddbmm, linear, convolution, attention): floating inputs
//!   other than float64 are cast to the region's dtype (bfloat16 unless float16 was asked for);
//! - `Policy::Fp32` (the losses): to float32;
//! - `Policy::Promote`: to the widest floating input dtype.
//!
//! The casts are ordinary differentiable `to_dtype` copies (`ToCopyBackward0`), so a float32 parameter gets a
//! float32 gradient. With the cache on, the lower-precision copy of a float32 leaf that requires grad (a weight)
//! is made once per region and reused until the outermost region exits (`clear_cache`), as torch does.
//! While a listed op runs on its cast inputs, autocast is off for the ops it calls (torch's
//! `ExcludeDispatchKeyGuard`), so their own entries do not cast again.
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// How a listed op's floating inputs are cast inside a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    LowerPrecision,
    Fp32,
    Promote,
}

struct State {
    enabled: bool,
    /// Set while a listed op runs on its cast inputs.
    excluded: bool,
    dtype: DType,
    cache_enabled: bool,
    nesting: i64,
    /// Lower-precision copies of leaves, by the source record's address; the source is kept alive with its copy
    /// so the address is not reused while the entry stands.
    cache: HashMap<usize, (Tensor, Tensor)>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State {
        enabled: false,
        excluded: false,
        dtype: DType::BF16,
        cache_enabled: true,
        nesting: 0,
        cache: HashMap::new(),
    });
}

/// `torch.is_autocast_enabled("cpu")`.
pub fn is_enabled() -> bool {
    STATE.with(|s| s.borrow().enabled)
}
/// `torch.set_autocast_enabled("cpu", on)`.
pub fn set_enabled(on: bool) {
    STATE.with(|s| s.borrow_mut().enabled = on);
}
/// `torch.get_autocast_dtype("cpu")`.
pub fn dtype() -> DType {
    STATE.with(|s| s.borrow().dtype)
}
/// `torch.set_autocast_dtype("cpu", dtype)`: bfloat16 or float16 (the caller checks, as torch's autocast does).
pub fn set_dtype(dtype: DType) {
    STATE.with(|s| s.borrow_mut().dtype = dtype);
}
/// `torch.is_autocast_cache_enabled()`.
pub fn is_cache_enabled() -> bool {
    STATE.with(|s| s.borrow().cache_enabled)
}
/// `torch.set_autocast_cache_enabled(on)`.
pub fn set_cache_enabled(on: bool) {
    STATE.with(|s| s.borrow_mut().cache_enabled = on);
}
/// Entering a region: the nesting depth after it.
pub fn increment_nesting() -> i64 {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nesting += 1;
        s.nesting
    })
}
/// Leaving a region: the nesting depth after it (the cache is cleared by the caller at 0, as torch's).
pub fn decrement_nesting() -> i64 {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nesting -= 1;
        s.nesting
    })
}
/// `torch.clear_autocast_cache()`.
pub fn clear_cache() {
    // taken out first: dropping the tensors must not run while the state is borrowed
    let old = STATE.with(|s| std::mem::take(&mut s.borrow_mut().cache));
    drop(old);
}
/// How many casts the cache holds (for tests).
pub fn cache_len() -> usize {
    STATE.with(|s| s.borrow().cache.len())
}

/// Resets `excluded` when the listed op returns (or unwinds).
struct Excluded;
impl Drop for Excluded {
    fn drop(&mut self) {
        STATE.with(|s| s.borrow_mut().excluded = false);
    }
}

/// The region's target dtype for `policy` over `inputs`, or None when autocast is off here.
fn target(policy: Policy, inputs: &[Option<&Tensor>]) -> Option<DType> {
    let (on, dtype) = STATE.with(|s| {
        let s = s.borrow();
        (s.enabled && !s.excluded, s.dtype)
    });
    if !on {
        return None;
    }
    match policy {
        Policy::LowerPrecision => Some(dtype),
        Policy::Fp32 => Some(DType::F32),
        Policy::Promote => inputs.iter().flatten().filter(|t| eligible(t)).map(|t| t.dtype()).max_by_key(|d| width(*d)),
    }
}

/// Floating and not float64, as torch's `is_eligible` (CPU tensors only here).
fn eligible(t: &Tensor) -> bool {
    t.dtype().is_float() && t.dtype() != DType::F64
}

fn width(d: DType) -> u8 {
    match d {
        DType::F16 | DType::BF16 => 1,
        _ => 2,
    }
}

fn cast(t: &Tensor, to: DType, lower: DType) -> Result<Tensor> {
    if !eligible(t) || t.dtype() == to {
        return Ok(t.clone());
    }
    let (cache_on, cacheable) = STATE.with(|s| {
        let s = s.borrow();
        let leaf_weight = t.dtype() == DType::F32 && t.requires_grad() && t.is_leaf() && !t.is_view();
        (s.cache_enabled, to == lower && leaf_weight)
    });
    if !(cache_on && cacheable) {
        return t.to_dtype(to);
    }
    let key = Arc::as_ptr(&t.0) as usize;
    if let Some(hit) = STATE.with(|s| s.borrow().cache.get(&key).map(|(_, c)| c.clone())) {
        return Ok(hit);
    }
    let copy = t.to_dtype(to)?;
    STATE.with(|s| s.borrow_mut().cache.insert(key, (t.clone(), copy.clone())));
    Ok(copy)
}

/// Runs a listed op: with autocast on, on its inputs cast by `policy` (optional inputs as `None`) and with
/// autocast off inside; otherwise on the inputs as given.
pub(crate) fn run<const N: usize, R>(
    policy: Policy,
    inputs: [Option<&Tensor>; N],
    op: impl FnOnce([Option<&Tensor>; N]) -> Result<R>,
) -> Result<R> {
    let Some(to) = target(policy, &inputs) else {
        return op(inputs);
    };
    let lower = dtype();
    let mut cast_inputs: [Option<Tensor>; N] = std::array::from_fn(|_| None);
    for (slot, t) in cast_inputs.iter_mut().zip(inputs) {
        if let Some(t) = t {
            *slot = Some(cast(t, to, lower)?);
        }
    }
    STATE.with(|s| s.borrow_mut().excluded = true);
    let _reset = Excluded;
    op(std::array::from_fn(|i| cast_inputs[i].as_ref()))
}

/// `run` for an op of two required inputs.
pub(crate) fn run2<R>(
    policy: Policy,
    a: &Tensor,
    b: &Tensor,
    op: impl FnOnce(&Tensor, &Tensor) -> Result<R>,
) -> Result<R> {
    run(policy, [Some(a), Some(b)], |[a, b]| op(a.expect("given"), b.expect("given")))
}
