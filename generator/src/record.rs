//! `vkgen.toml`: what a scaffolded driver crate was generated from — the driver's name, its
//! `--api-version` (when one was given), `--vkgen-root` (when given), `--runtime` (when not
//! the vendored default) and the registry: file name, the path it was read from, its version
//! and SHA-256.
//!
//! Why a record: the crate's generated files (`src/vkgen.rs`, the ICD manifest and, outside
//! the checkout, the vendored `vkgen-generated` tables) are a function of these inputs, so
//! `vkgen driver --check` run in the crate needs no arguments: it reads them here, finds the
//! registry (by its SHA-256, below: a crate moved to another machine still finds it there),
//! refuses one whose SHA-256 changed
//! (the record would no longer describe the crate), and compares every generated file. A
//! plain re-run takes the same defaults but no SHA check: re-running is how a changed vk.xml
//! is taken in. Explicit arguments always win and are recorded.
//!
//! Paths are written relative to the crate — the registry's and `--vkgen-root`'s — so the
//! record reads the same on every machine, and on a machine where they do not lead anywhere
//! the inputs are found by what they are: the registry by its SHA-256
//! ([`Record::locate_registry`]: the same file under another path or name is accepted), the
//! checkout by falling back to the one this `vkgen` was built from. A run that reads the same
//! registry (same SHA-256) from elsewhere keeps the recorded path, so the record does not go
//! stale from machine to machine. The file is vkgen's, rewritten on every run.

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
    /// `--vkgen-root`, relative to the crate.
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
    /// `vkgen_root` is the record's, not an argument: where it is no vkgen checkout (the
    /// crate moved to another machine), the default checkout is used and the record kept.
    pub vkgen_root_recorded: bool,
    /// The SHA-256 the registry must have: set for `--check` on the recorded registry.
    pub expect_sha256: Option<String>,
    /// The registry is the record's (for the line naming where it came from).
    pub recorded_registry: bool,
    /// The recorded registry's file name: the record keeps it when the file is found by its
    /// content under another name.
    pub registry_file: Option<String>,
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

    /// The recorded registry, found by its content: the first of its recorded path (relative
    /// to `crate_dir`), `$VKGEN_REGISTRY_DIR/<file name>`, `$VKGEN_REGISTRY`, the other
    /// `*.xml` files of `$VKGEN_REGISTRY_DIR` and Debian's vk.xml whose SHA-256 is the recorded
    /// one — so a copy of the same file anywhere a machine keeps its registries is accepted,
    /// whatever its name. When none is, the first that exists of the recorded path and
    /// `$VKGEN_REGISTRY_DIR/<file name>`: the registry changed (`--check` refuses it by its
    /// SHA-256; a re-run takes it in).
    pub fn locate_registry(&self, crate_dir: &Path) -> Result<PathBuf> {
        let dir = std::env::var_os("VKGEN_REGISTRY_DIR").map(PathBuf::from);
        let mut named = vec![crate_dir.join(&self.registry_path)];
        named.extend(dir.as_ref().map(|d| d.join(&self.registry_file)));
        let mut others: Vec<PathBuf> = std::env::var_os("VKGEN_REGISTRY")
            .map(PathBuf::from)
            .into_iter()
            .collect();
        if let Some(entries) = dir.as_ref().and_then(|d| std::fs::read_dir(d).ok()) {
            let mut xml: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
                .collect();
            xml.sort();
            xml.truncate(MAX_REGISTRY_CANDIDATES);
            others.extend(xml);
        }
        others.push(PathBuf::from(crate::registry::DEBIAN_REGISTRY));
        let matches = |p: &PathBuf| {
            crate::input::read_regular(p, crate::registry::MAX_REGISTRY_BYTES as u64)
                .is_ok_and(|bytes| crate::registry::sha256_hex(&bytes) == self.registry_sha256)
        };
        if let Some(found) = named.iter().chain(&others).find(|p| matches(p)) {
            return Ok(found.clone());
        }
        named.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
            Error::Options(format!(
                "the crate's registry {} (SHA-256 {}) is neither at {} nor, by name or \
                 content, in $VKGEN_REGISTRY_DIR: pass --registry",
                self.registry_file,
                self.registry_sha256,
                named[0].display()
            ))
        })
    }
}

/// The most `*.xml` files of `$VKGEN_REGISTRY_DIR` hashed in search of the recorded registry.
const MAX_REGISTRY_CANDIDATES: usize = 64;

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
    let vkgen_root_recorded = vkgen_root.is_none();
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
        vkgen_root_recorded: vkgen_root_recorded && vkgen_root.is_some(),
        vkgen_root,
        expect_sha256,
        registry_file: record
            .as_ref()
            .filter(|_| recorded_registry)
            .map(|r| r.registry_file.clone()),
        recorded_registry,
        runtime,
    })
}

/// `registry` as the record writes it: relative to `crate_dir`, so the record is the same on
/// every machine that keeps the crate and its registry side by side (and where they are not,
/// [`Record::locate_registry`] finds the file by its SHA-256).
pub fn registry_path(crate_dir: &Path, registry: &Path) -> String {
    crate::paths::relative_path(crate_dir, registry)
}
