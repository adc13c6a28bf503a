//! Errors carry the Python exception kind they map to, so the bindings never guess.
use std::fmt;

#[derive(Debug, Clone)]
pub enum Error {
    /// PyTorch raises RuntimeError for almost everything (shapes, dtypes, autograd misuse).
    Runtime(String),
    Index(String),
    Type(String),
    Value(String),
    /// An error raised by user code the core called back into (a Python hook), passed through untouched.
    External(External),
    /// An op that has no kernel for a dtype (PyTorch: NotImplementedError).
    NotImplemented(String),
    /// A failed file operation (Python: the OSError subclass its errno selects).
    Io(IoError),
    /// A matrix a linear-algebra routine cannot factor (singular, not positive-definite): PyTorch's
    /// `torch.linalg.LinAlgError`, a RuntimeError subclass.
    LinAlg(String),
}

/// What the bindings need to raise the right OSError: the OS error number, its text, the file.
#[derive(Debug, Clone)]
pub struct IoError {
    pub errno: Option<i32>,
    pub message: String,
    pub path: Option<std::path::PathBuf>,
}

impl Error {
    /// A file operation on `path` that failed with `err`.
    pub fn io(err: &std::io::Error, path: &std::path::Path) -> Error {
        let mut message = err.to_string();
        if let Some(code) = err.raw_os_error() {
            // Python's OSError adds the number itself: keep the OS's text only
            let suffix = format!(" (os error {code})");
            if let Some(text) = message.strip_suffix(&suffix) {
                message = text.to_string();
            }
        }
        Error::Io(IoError { errno: err.raw_os_error(), message, path: Some(path.to_path_buf()) })
    }
}

/// An opaque error payload owned by the caller's side (the bindings keep the Python exception here).
#[derive(Clone)]
pub struct External(pub std::sync::Arc<dyn std::any::Any + Send + Sync>);

impl fmt::Debug for External {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("External(..)")
    }
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Runtime(m)
            | Error::Index(m)
            | Error::Type(m)
            | Error::Value(m)
            | Error::NotImplemented(m)
            | Error::LinAlg(m) => f.write_str(m),
            Error::External(_) => f.write_str("error raised in a callback"),
            Error::Io(e) => match &e.path {
                Some(p) => write!(f, "{}: '{}'", e.message, p.display()),
                None => f.write_str(&e.message),
            },
        }
    }
}

impl std::error::Error for Error {}

#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => { return Err($crate::Error::$kind(format!($($arg)*))) };
}
