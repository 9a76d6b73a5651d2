//! Error values. Every user-facing error names where it came from (file, line, field) and what
//! was expected; the CLI maps [`Error::Input`] to exit code 2 and [`Error::Run`] to exit code 1.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in an input a problem was found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Location {
    /// The file, when the input came from one.
    pub file: Option<PathBuf>,
    /// 1-based line number, when known.
    pub line: Option<usize>,
    /// The field, key or column name, when known.
    pub field: Option<String>,
}

impl Location {
    /// A location in `file`.
    pub fn file(path: &Path) -> Self {
        Location {
            file: Some(path.to_path_buf()),
            ..Default::default()
        }
    }
    /// The same location at 1-based `line`.
    pub fn line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
    /// The same location at `field`.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(p) = &self.file {
            parts.push(p.display().to_string());
        }
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(fd) = &self.field {
            parts.push(format!("field `{fd}`"));
        }
        write!(f, "{}", parts.join(", "))
    }
}

/// All errors Orrery reports.
#[derive(Debug)]
pub enum Error {
    /// Bad input or configuration (exit code 2): where, and what was expected.
    Input { at: Location, message: String },
    /// A failure during the run (exit code 1).
    Run(String),
    /// An I/O failure on a named path.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    /// A bad-input error at `at`.
    pub fn input(at: Location, message: impl Into<String>) -> Self {
        Error::Input {
            at,
            message: message.into(),
        }
    }
    /// A run-time failure.
    pub fn run(message: impl Into<String>) -> Self {
        Error::Run(message.into())
    }
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    /// The process exit code for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input { .. } => 2,
            Error::Io { .. } | Error::Run(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input { at, message } => {
                let at = at.to_string();
                if at.is_empty() {
                    write!(f, "{message}")
                } else {
                    write!(f, "{at}: {message}")
                }
            }
            Error::Run(m) => write!(f, "{m}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
