//! Errors the generator reports to its users. Every variant names the file and, where it has one,
//! the position, because the people reading them are fixing a registry or a command line.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not well-formed XML: `FILE:LINE:COL: message`.
    #[error("{path}:{line}:{col}: {message}")]
    Xml {
        path: PathBuf,
        line: u32,
        col: u32,
        message: String,
    },
    /// Well-formed XML that is not a registry we understand (bad literal, name, cycle, range).
    #[error("{path}:{line}:{col}: {message}")]
    Schema {
        path: PathBuf,
        line: u32,
        col: u32,
        message: String,
    },
    /// A registry that loads but that the fixed runtime code cannot be generated against: a
    /// structure the runtime uses in ash's form defined differently, or no `vkGet*ProcAddr`
    /// (`emit::prerequisites`; issue 36 item 9). Input, located; not a generator bug.
    #[error("{path}:{line}:{col}: {message}")]
    Unsupported {
        path: PathBuf,
        line: u32,
        col: u32,
        message: String,
    },
    /// A reference to a type or command that nothing defines.
    #[error("{path}:{line}:{col}: {element} refers to undefined {what} `{name}`")]
    Dangling {
        path: PathBuf,
        line: u32,
        col: u32,
        element: String,
        what: &'static str,
        name: String,
    },
    /// Input the generator cannot represent (a lookup table over its limit).
    #[error("input exceeds a generator limit: {0}")]
    Limit(String),
    #[error("invalid option: {0}")]
    Options(String),
    /// The loader policy (`policy.rs`) does not fit the registry: a hook names a command it
    /// does not define.
    #[error("loader policy: {0}")]
    Policy(String),
    #[error("formatting generated {file}: {message}")]
    Format { file: String, message: String },
    #[error("template {0}: {1}")]
    Template(String, String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit code the CLI uses for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Xml { .. }
            | Error::Schema { .. }
            | Error::Unsupported { .. }
            | Error::Dangling { .. }
            | Error::Limit(_)
            | Error::Options(_)
            | Error::Policy(_) => 2,
            Error::Io { .. } => 2,
            Error::Format { .. } | Error::Template(..) => 1,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
