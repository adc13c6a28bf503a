//! Whether ops record history; per thread, as in PyTorch.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Bits of a thread's recording state, read together by `autograd::record`: whether ops record history, and
/// whether a profiled op wants its inputs' shapes (so the profiler's capture costs no load of its own).
const GRAD: u8 = 1;
const CAPTURE_SHAPES: u8 = 2;

thread_local! {
    static STATE: Cell<u8> = const { Cell::new(GRAD) };
    static INFERENCE: Cell<bool> = const { Cell::new(false) };
}

/// Anomaly detection is global, as in PyTorch.
static ANOMALY: AtomicBool = AtomicBool::new(false);
static ANOMALY_CHECK_NAN: AtomicBool = AtomicBool::new(true);

/// Inference mode: no recording, and the tensors made meanwhile are marked as inference tensors.
pub fn is_inference() -> bool {
    INFERENCE.with(|e| e.get())
}

/// Sets inference mode and returns the previous one.
pub fn set_inference(enabled: bool) -> bool {
    INFERENCE.with(|e| e.replace(enabled))
}

pub fn is_anomaly_enabled() -> bool {
    ANOMALY.load(Ordering::Relaxed)
}

pub fn is_anomaly_check_nan_enabled() -> bool {
    ANOMALY_CHECK_NAN.load(Ordering::Relaxed)
}

pub fn set_anomaly_enabled(enabled: bool, check_nan: bool) {
    ANOMALY.store(enabled, Ordering::Relaxed);
    ANOMALY_CHECK_NAN.store(check_nan, Ordering::Relaxed);
}

/// Where anomaly mode gets the creation traceback of a node (the bindings install Python's).
static TRACE_PROVIDER: OnceLock<fn() -> Option<String>> = OnceLock::new();

pub fn set_trace_provider(provider: fn() -> Option<String>) {
    let _ = TRACE_PROVIDER.set(provider);
}

pub(crate) fn creation_trace() -> Option<String> {
    TRACE_PROVIDER.get().and_then(|f| f())
}

pub fn is_enabled() -> bool {
    STATE.with(|s| s.get() & GRAD != 0)
}

/// Sets grad mode and returns the previous one.
pub fn set_enabled(enabled: bool) -> bool {
    set_bit(GRAD, enabled)
}

fn set_bit(bit: u8, on: bool) -> bool {
    STATE.with(|s| {
        let old = s.get();
        s.set(if on { old | bit } else { old & !bit });
        old & bit != 0
    })
}

/// The recording state in one read: (grad mode, whether the profiler captures input shapes).
pub(crate) fn recording_state() -> (bool, bool) {
    let s = STATE.with(|s| s.get());
    (s & GRAD != 0, s & CAPTURE_SHAPES != 0)
}

/// Turns the profiler's capture of input shapes on or off for this thread; returns the previous setting.
pub(crate) fn set_capture_shapes(on: bool) -> bool {
    set_bit(CAPTURE_SHAPES, on)
}

/// Restores the previous grad mode when dropped.
pub struct GradModeGuard(bool);

impl GradModeGuard {
    pub fn new(enabled: bool) -> Self {
        GradModeGuard(set_enabled(enabled))
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_enabled(self.0);
    }
}
