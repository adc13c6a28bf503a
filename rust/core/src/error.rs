//! Errors carry the Python exception kind they map to, so the bindings never guess.
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// PyTorch raises RuntimeError for almost everything (shapes, dtypes, autograd misuse).
    Runtime(String),
    Index(String),
    Type(String),
    Value(String),
    /// An op that has no kernel for a dtype (PyTorch: NotImplementedError).
    NotImplemented(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Runtime(m) | Error::Index(m) | Error::Type(m) | Error::Value(m) | Error::NotImplemented(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => { return Err($crate::Error::$kind(format!($($arg)*))) };
}
