//! `vkgen.toml`: what a scaffolded driver crate was generated from — the driver's name, its
//! `--api-version` (when one was given), `--vkgen-root` (when given), `--runtime` (when not
//! the vendored default) and the registry: file name, the path it was read from, its version
//! and SHA-256.
//!
//! Why a record: the crate's generated files (`src/vkgen.rs`, the ICD manifest and, outside
//! the checkout, the vendored `vkgen-generated` tables) are a function of these inputs, so
//! `vkgen driver --check` run in the crate needs no arguments: it reads them here, finds the
//! registry (the recorded path, else `$VKGEN_REGISTRY_DIR/<file name>`, so a crate moved to
//! another machine still finds vkgen's registry matrix), refuses one whose SHA-256 changed
//! (the record would no longer describe the crate), and compares every generated file. A
//! plain re-run takes the same defaults but no SHA check: re-running is how a changed vk.xml
//! is taken in. Explicit arguments always win and are recorded.
//!
//! The registry path is written relative to the crate when both lie under the same top-level
//! directory (a vendor's repository carrying its vk.xml, vkgen's `../shared/registry` beside
//! a checkout), else absolute; a run that reads the same file (same SHA-256) from elsewhere
//! keeps the recorded path, so the record does not go stale from machine to machine. The file
//! is vkgen's, rewritten on every run.

use std::path::{Path, PathBuf};

use toml_edit::{value, DocumentMut, Item, Table};

use crate::error::{Error, Result};
use crate::Options;

/// The record's file name in the crate.
pub const FILE: &str = "vkgen.toml";

/// The largest `vkgen.toml` read (vkgen writes a few hundred bytes).
pub const MAX_RECORD_BYTES: u64 = 1 << 20;

/// What `vkgen.toml` holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    /// `--api-version` when one was given (else the registry's newest, which follows the
    /// registry on a bump).
    pub api_version: Option<(u32, u32)>,
    /// `--vkgen-root` as given.
    pub vkgen_root: Option<String>,
    /// `--runtime` when not `vendored`.
    pub runtime: Option<String>,
    pub registry_file: String,
    /// Relative to the crate, or absolute (see the module notes).
    pub registry_path: String,
    /// `major.minor.header`.
    pub registry_version: String,
    pub registry_sha256: String,
}

/// A `vkgen driver` run with the record's defaults applied.
#[derive(Debug, Clone)]
pub struct DriverRun {
    pub opts: Options,
    pub name: String,
    pub out: PathBuf,
    pub vkgen_root: Option<PathBuf>,
    /// The SHA-256 the registry must have: set for `--check` on the recorded registry.
    pub expect_sha256: Option<String>,
    /// The registry is the record's (for the line naming where it came from).
    pub recorded_registry: bool,
    /// How a crate outside the checkout depends on the runtime.
    pub runtime: crate::runtime_form::Runtime,
}

fn bad(path: &Path, what: &str) -> Error {
    Error::Options(format!("{}: {what}", path.display()))
}

impl Record {
    /// The record in `crate_dir`, `None` when there is none.
    pub fn read(crate_dir: &Path) -> Result<Option<Record>> {
        let path = crate_dir.join(FILE);
        let text = match crate::input::read_regular_text(&path, MAX_RECORD_BYTES) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(bad(&path, &e.to_string())),
        };
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|e| bad(&path, &e.to_string()))?;
        let get = |table: &str, key: &str| {
            doc.get(table)
                .and_then(|t| t.get(key))
                .and_then(Item::as_str)
                .map(str::to_owned)
        };
        let need = |table: &str, key: &str| {
            get(table, key).ok_or_else(|| bad(&path, &format!("no {table}.{key}")))
        };
        let api_version = match get("driver", "api_version") {
            Some(v) => Some(
                crate::model::parse_version(&v)
                    .ok_or_else(|| bad(&path, &format!("driver.api_version {v:?}")))?,
            ),
            None => None,
        };
        Ok(Some(Record {
            name: need("driver", "name")?,
            api_version,
            vkgen_root: get("driver", "vkgen_root"),
            runtime: get("driver", "runtime"),
            registry_file: need("registry", "file")?,
            registry_path: need("registry", "path")?,
            registry_version: need("registry", "version")?,
            registry_sha256: need("registry", "sha256")?,
        }))
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let mut doc = DocumentMut::new();
        let mut driver = Table::new();
        driver.insert("name", value(&self.name));
        if let Some((a, b)) = self.api_version {
            driver.insert("api_version", value(format!("{a}.{b}")));
        }
        if let Some(r) = &self.vkgen_root {
            driver.insert("vkgen_root", value(r));
        }
        if let Some(r) = &self.runtime {
            driver.insert("runtime", value(r));
        }
        let mut registry = Table::new();
        registry.insert("file", value(&self.registry_file));
        registry.insert("path", value(&self.registry_path));
        registry.insert("version", value(&self.registry_version));
        registry.insert("sha256", value(&self.registry_sha256));
        doc.insert("driver", Item::Table(driver));
        doc.insert("registry", Item::Table(registry));
        format!(
            "# Written by `vkgen driver`: the inputs of this crate's generated files. \
             `vkgen driver --check`\n# in this directory reads it; re-run `vkgen driver` \
             (with --registry for a new vk.xml) to change it.\n{doc}"
        )
    }

    /// The recorded registry: its recorded path (relative to `crate_dir`), else
    /// `$VKGEN_REGISTRY_DIR/<file name>`.
    pub fn locate_registry(&self, crate_dir: &Path) -> Result<PathBuf> {
        let recorded = crate_dir.join(&self.registry_path);
        if recorded.is_file() {
            return Ok(recorded);
        }
        let from_dir = std::env::var_os("VKGEN_REGISTRY_DIR")
            .map(|d| PathBuf::from(d).join(&self.registry_file));
        match from_dir {
            Some(p) if p.is_file() => Ok(p),
            _ => Err(Error::Options(format!(
                "the crate's registry {} is neither at {} nor in $VKGEN_REGISTRY_DIR: pass --registry",
                self.registry_file,
                recorded.display()
            ))),
        }
    }
}

/// The run `vkgen driver` makes in `out`: explicit arguments, else the record's values.
/// `--name` is needed only where there is no record.
pub fn resolve(
    mut opts: Options,
    name: Option<String>,
    out: &Path,
    vkgen_root: Option<PathBuf>,
    runtime: Option<crate::runtime_form::Runtime>,
    check: bool,
) -> Result<DriverRun> {
    let record = Record::read(out)?;
    let name = match (name, &record) {
        (Some(n), _) => n,
        (None, Some(r)) => r.name.clone(),
        (None, None) => {
            return Err(Error::Options(format!(
                "{} has no {FILE}: pass --name (and --registry) to scaffold a driver there",
                out.display()
            )))
        }
    };
    let mut expect_sha256 = None;
    let recorded_registry = opts.registry.is_none() && record.is_some();
    if let Some(r) = &record {
        if opts.api_version.is_none() {
            opts.api_version = r.api_version;
        }
        if opts.registry.is_none() {
            opts.registry = Some(r.locate_registry(out)?);
            if check {
                expect_sha256 = Some(r.registry_sha256.clone());
            }
        }
    }
    let vkgen_root = vkgen_root.or_else(|| {
        record
            .as_ref()
            .and_then(|r| r.vkgen_root.as_ref().map(PathBuf::from))
    });
    let runtime = match (runtime, record.as_ref().and_then(|r| r.runtime.as_deref())) {
        (Some(r), _) => r,
        (None, Some(recorded)) => recorded.parse()?,
        (None, None) => crate::runtime_form::Runtime::Vendored,
    };
    Ok(DriverRun {
        opts,
        name,
        out: out.to_owned(),
        vkgen_root,
        expect_sha256,
        recorded_registry,
        runtime,
    })
}

/// `registry` as the record writes it: relative to `crate_dir` when both lie under the same
/// top-level directory, else absolute.
pub fn registry_path(crate_dir: &Path, registry: &Path) -> String {
    let (from, to) = (
        crate::paths::resolved(crate_dir),
        crate::paths::resolved(registry),
    );
    let top = |p: &Path| p.components().take(2).collect::<PathBuf>();
    if top(&from) == top(&to) && from.components().count() > 1 {
        crate::paths::relative_path(&from, &to)
    } else {
        to.to_string_lossy().replace('\\', "/")
    }
}
