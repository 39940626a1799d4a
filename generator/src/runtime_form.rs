//! `vkgen driver --runtime`: how a scaffolded crate outside the vkgen checkout depends on the
//! driver runtime — the vendored copy ([`crate::vendor`], the default), a crate version from a
//! Cargo registry, or a git revision. Its own module because both the scaffold (which writes the
//! dependency) and the crate's record (`vkgen.toml`, which keeps the form) name it.

use crate::error::{Error, Result};

/// How a crate outside the vkgen checkout depends on the runtime (`vkgen driver --runtime`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Runtime {
    /// `vendored`: a copy in `vendor/vkgen/` ([`crate::vendor`]), by a relative path; builds
    /// with no checkout, no network and no registry.
    #[default]
    Vendored,
    /// `version`: `vkgen-driver = "=<this vkgen's version>"` from a Cargo registry that holds
    /// the runtime crates (`cargo package` makes them).
    Version,
    /// `git+URL#REV`: `vkgen-driver = { git = URL, rev = REV }`, the runtime at one commit of a
    /// vkgen repository (Cargo's source-id spelling).
    Git { url: String, rev: String },
}

impl std::str::FromStr for Runtime {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let git = s
            .strip_prefix("git+")
            .and_then(|rest| rest.rsplit_once('#'))
            .filter(|(url, rev)| !url.is_empty() && !rev.is_empty());
        match (s, git) {
            ("vendored", _) => Ok(Self::Vendored),
            ("version", _) => Ok(Self::Version),
            (_, Some((url, rev))) => Ok(Self::Git {
                url: url.to_owned(),
                rev: rev.to_owned(),
            }),
            _ => Err(Error::Options(format!(
                "--runtime {s}: expected `vendored`, `version` or `git+URL#REV`"
            ))),
        }
    }
}

impl std::fmt::Display for Runtime {
    /// The `--runtime` argument that gives this form (what `vkgen.toml` records).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Vendored => f.write_str("vendored"),
            Self::Version => f.write_str("version"),
            Self::Git { url, rev } => write!(f, "git+{url}#{rev}"),
        }
    }
}

impl Runtime {
    /// The `vkgen-driver` dependency; `path` is the relative path of the runtime's root.
    pub(crate) fn dependency(&self, path: &str) -> String {
        let quoted = |s: &str| toml_edit::Value::from(s).to_string().trim().to_owned();
        match self {
            // The version too: `cargo package` needs one on every dependency.
            Self::Vendored => format!(
                "{{ path = {}, version = {} }}",
                quoted(&format!("{path}/runtime/driver")),
                quoted(&format!("={}", env!("CARGO_PKG_VERSION")))
            ),
            Self::Version => quoted(&format!("={}", env!("CARGO_PKG_VERSION"))),
            Self::Git { url, rev } => format!("{{ git = {}, rev = {} }}", quoted(url), quoted(rev)),
        }
    }
}
