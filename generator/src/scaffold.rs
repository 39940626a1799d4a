//! `vkgen driver`: scaffolds a driver crate on vkgen's driver kit (`runtime/driver`).
//!
//! Ownership decides what a re-run may touch. `Cargo.toml` and `src/lib.rs` are the vendor's:
//! written when absent, never rewritten. `src/vkgen.rs` (the driver's API version and
//! registry) and `<name>_icd.json` (the Khronos ICD manifest at that version) are vkgen's,
//! rewritten on every run and compared by `--check`. So a spec bump is a re-run, and a
//! vendor's edits survive it.
//!
//! Where the kit comes from depends on where the crate lives. A crate outside the vkgen
//! checkout (a vendor's repository) is its own workspace and builds on a vendored copy of the
//! runtime in `vendor/vkgen/` ([`crate::vendor`]), by a relative path — no absolute path, no
//! vkgen checkout and no network needed to build it; the copy is vkgen's, refreshed by every
//! run and compared by `--check`. A crate inside the checkout (vkgen's reference drivers) is a
//! member of vkgen's workspace and depends on the checkout's `runtime/driver` by a relative
//! path. `--vkgen-root` names the checkout (default: the one this `vkgen` was built from).
//! `--runtime version` or `--runtime git+URL#REV` makes an outside crate depend on the runtime
//! from a Cargo registry or a git commit instead ([`Runtime`]): no copy, and no checkout needed.
//!
//! `tests/vkgen_requirements.rs`, the requirements report, is the vendor's too (written with a
//! new crate's `src/lib.rs`, whose driver type it names); [`crate::driver_report`] runs it for
//! `--check --report`.

use std::path::{Path, PathBuf};

use askama::Template;
use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::error::{Error, Result};
use crate::{emit, load, select, write, Options, OutputFile};

#[derive(Template)]
#[template(path = "driver/Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    name: &'a str,
    crate_name: &'a str,
    /// The `vkgen-driver` dependency, as TOML (`{ path = "…" }`, `"=0.1.0"`, `{ git = … }`).
    dependency: &'a str,
    standalone: bool,
}

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

impl Runtime {
    /// The `vkgen-driver` dependency; `path` is the relative path of the runtime's root.
    fn dependency(&self, path: &str) -> String {
        let quoted = |s: &str| toml_edit::Value::from(s).to_string().trim().to_owned();
        match self {
            Self::Vendored => format!("{{ path = {} }}", quoted(&format!("{path}/runtime/driver"))),
            Self::Version => quoted(&format!("={}", env!("CARGO_PKG_VERSION"))),
            Self::Git { url, rev } => format!("{{ git = {}, rev = {} }}", quoted(url), quoted(rev)),
        }
    }
}

#[derive(Template)]
#[template(path = "driver/lib.rs.j2", escape = "none")]
struct LibRs<'a> {
    name: &'a str,
    crate_name: &'a str,
    type_name: &'a str,
}

#[derive(Template)]
#[template(path = "driver/vkgen.rs.j2", escape = "none")]
struct VkgenRs<'a> {
    preamble: &'a str,
    name: &'a str,
    regenerate_args: &'a str,
    major: u32,
    minor: u32,
    explicit: bool,
    registry: &'a str,
}

/// The vkgen checkout this binary was built from (holds `runtime/driver`).
pub fn default_vkgen_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Refuses names that make no valid crate, library or Rust type: the name becomes
/// `vulkan-NAME` (package), `vulkan_NAME` (library) and `NameDriver` (type), so it starts with
/// a letter, holds only letters, digits, `_` and `-`, does not end in a separator, and is no
/// Rust keyword or built-in crate name.
pub fn check_name(name: &str) -> Result<()> {
    let shape = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.ends_with(['-', '_']);
    let snake = name.to_snake_case();
    let reserved = ["test", "core", "std", "alloc", "proc_macro"].contains(&snake.as_str())
        || !crate::names::is_rust_identifier(&snake)
        || snake.is_empty();
    if shape && !reserved {
        Ok(())
    } else {
        Err(Error::Options(format!(
            "driver name `{name}`: start with a letter, then letters, digits, '_' or '-', and no \
             Rust keyword or built-in crate name (it becomes the library vulkan.{name}.so and \
             the crate vulkan-{name})"
        )))
    }
}

/// The files of driver `name` for `out` on a vendored runtime; the vendor's files only where
/// absent.
pub fn driver_files(
    opts: &Options,
    name: &str,
    out: &Path,
    vkgen_root: Option<&Path>,
) -> Result<Vec<OutputFile>> {
    driver_files_on(opts, name, out, vkgen_root, &Runtime::Vendored)
}

/// [`driver_files`] with the runtime taken as `runtime` says (a crate outside the checkout).
pub fn driver_files_on(
    opts: &Options,
    name: &str,
    out: &Path,
    vkgen_root: Option<&Path>,
    runtime: &Runtime,
) -> Result<Vec<OutputFile>> {
    check_name(name)?;
    let root = vkgen_root.map_or_else(default_vkgen_root, Path::to_path_buf);
    let resolved = if root.is_absolute() {
        root.clone()
    } else {
        out.join(&root)
    };
    // A registry or git runtime needs no checkout (an installed vkgen scaffolds with it).
    let checkout = resolved.join("runtime/driver/Cargo.toml").is_file();
    if !checkout && *runtime == Runtime::Vendored {
        return Err(Error::Options(format!(
            "{} is no vkgen checkout (no runtime/driver/Cargo.toml): pass --vkgen-root",
            resolved.display()
        )));
    }
    let standalone = !checkout || !is_inside(out, &resolved);
    if !standalone && *runtime != Runtime::Vendored {
        // A member of vkgen's workspace would build a second copy of the runtime beside it.
        return Err(Error::Options(
            "--runtime: a crate inside the vkgen checkout builds on the checkout's runtime".into(),
        ));
    }
    let crate_name = name.to_snake_case();
    let type_name = format!("{}Driver", name.to_upper_camel_case());

    let (loaded, source) = load(opts)?;
    let highest = select::highest_version(&loaded.registry);
    let (major, minor) = opts.api_version.unwrap_or(highest);
    if (major, minor) > highest || (major, minor) < (1, 0) {
        return Err(Error::Options(format!(
            "--api-version {major}.{minor} is not in this registry (highest is {}.{})",
            highest.0, highest.1
        )));
    }
    if let Some(warning) = crate::driver_report::lowering_warning(out, name, (major, minor)) {
        eprintln!("{warning}");
    }
    let registry = format!(
        "{} (Vulkan {}.{}, header {})",
        source
            .path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
        highest.0,
        highest.1,
        loaded.registry.header_version
    );
    let mut regenerate_args = String::new();
    if let Some(r) = vkgen_root {
        regenerate_args.push_str(&format!(" --vkgen-root {}", r.display()));
    }
    if opts.api_version.is_some() {
        regenerate_args.push_str(&format!(" --api-version {major}.{minor}"));
    }

    // Relative from the crate: the vendored copy, or the checkout it lives in.
    let dependency_root = if standalone {
        crate::vendor::DIR.to_owned()
    } else {
        relative_path(out, &resolved)
    };
    let mut files = vec![OutputFile {
        path: "src/vkgen.rs".into(),
        contents: render(&VkgenRs {
            preamble: emit::PREAMBLE,
            name,
            regenerate_args: &regenerate_args,
            major,
            minor,
            explicit: opts.api_version.is_some(),
            registry: &registry.replace('\\', "/").replace('"', "'"),
        })?,
    }];
    if !out.join("Cargo.toml").exists() {
        files.push(OutputFile {
            path: "Cargo.toml".into(),
            contents: render(&CargoToml {
                name,
                crate_name: &crate_name,
                dependency: &runtime.dependency(&dependency_root),
                standalone,
            })?,
        });
    }
    if !out.join("src/lib.rs").exists() {
        files.push(OutputFile {
            path: "src/lib.rs".into(),
            contents: render(&LibRs {
                name,
                crate_name: &crate_name,
                type_name: &type_name,
            })?,
        });
    }
    // It names the type the scaffold's `src/lib.rs` defines, so it comes with a new crate only:
    // an existing crate's driver type may be another (vkgen's reference drivers pick a backend).
    if !out.join("src/lib.rs").exists() && !out.join(crate::driver_report::TEST).exists() {
        files.push(crate::driver_report::requirements_test(
            name,
            &crate_name,
            &type_name,
        )?);
    }
    files.push(OutputFile {
        path: format!("{name}_icd.json"),
        contents: icd_manifest(&crate_name, (major, minor)),
    });
    if standalone && *runtime == Runtime::Vendored {
        files.extend(crate::vendor::files(&resolved)?);
    }
    Ok(files)
}

/// The Khronos ICD manifest of the driver at its API version: installed next to the library
/// (`library_path` is relative to the manifest), it is what Khronos loaders need; rewritten
/// with the version on every run, so a bump never leaves a stale `api_version`.
fn icd_manifest(crate_name: &str, (major, minor): (u32, u32)) -> String {
    let manifest = serde_json::json!({
        "file_format_version": "1.0.0",
        "ICD": {
            "library_path": format!("./libvulkan_{crate_name}.so"),
            "api_version": format!("{major}.{minor}.0"),
        }
    });
    let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    text.push('\n');
    text
}

/// `to` as a path relative to `from` (a directory that may not exist yet), `/`-separated; both
/// resolved as [`resolved`] does, so symlinks and `..` do not make a wrong path.
fn relative_path(from: &Path, to: &Path) -> String {
    let (from, to) = (resolved(from), resolved(to));
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.components().count() - common;
    let mut parts: Vec<String> = vec!["..".to_owned(); ups];
    parts.extend(
        to.components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Whether `dir` (which may not exist yet) lies inside `root`.
fn is_inside(dir: &Path, root: &Path) -> bool {
    resolved(dir).starts_with(resolved(root))
}

/// `p` made absolute with its longest existing ancestor canonicalized (`p` may not exist yet):
/// the one form both path questions above compare.
fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        let Some(parent) = existing.parent() else {
            break;
        };
        rest.push(existing.file_name().map(PathBuf::from).unwrap_or_default());
        existing = parent;
    }
    let mut full = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    full.extend(rest.iter().rev());
    full
}

fn render(t: &impl Template) -> Result<String> {
    let mut text = t
        .render()
        .map_err(|e| Error::Template("driver".to_owned(), e.to_string()))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Scaffolds driver `name` in `out`; returns the number of files written or refreshed.
pub fn driver(opts: &Options, name: &str, out: &Path, vkgen_root: Option<&Path>) -> Result<usize> {
    driver_on(opts, name, out, vkgen_root, &Runtime::Vendored)
}

/// [`driver`] with the runtime taken as `runtime` says.
pub fn driver_on(
    opts: &Options,
    name: &str,
    out: &Path,
    vkgen_root: Option<&Path>,
    runtime: &Runtime,
) -> Result<usize> {
    let files = driver_files_on(opts, name, out, vkgen_root, runtime)?;
    write(&files, out)?;
    Ok(files.len())
}
