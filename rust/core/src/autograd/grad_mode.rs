//! Whether ops record history; per thread, as in PyTorch.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
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
    ENABLED.with(|e| e.get())
}

/// Sets grad mode and returns the previous one.
pub fn set_enabled(enabled: bool) -> bool {
    ENABLED.with(|e| e.replace(enabled))
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
