//! Whether ops record history; per thread, as in PyTorch.
use std::cell::Cell;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
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
