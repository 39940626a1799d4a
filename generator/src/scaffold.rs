//! `vkgen driver`: scaffolds a driver crate on vkgen's driver kit (`runtime/driver`).
//!
//! Ownership decides what a re-run may touch. `Cargo.toml` and `src/lib.rs` are the vendor's:
//! written when absent, never rewritten. `src/vkgen.rs` (the driver's API version and
//! registry), `<name>_icd.json` (the Khronos ICD manifest at that version) and `vkgen.toml`
//! (the run's inputs, [`crate::record`]) are vkgen's, rewritten on every run and compared by
//! `--check`. So a spec bump is a re-run, and a vendor's edits survive it.
//!
//! The crate's tables are its registry's. Outside the checkout the vendored `vkgen-generated`
//! is generated from the `--registry` (and `--api-version`) of the run; inside it, the crate
//! builds on the checkout's `generated/`, so a registry other than the one `generated/`
//! records is refused (scaffold outside the checkout, or regenerate `generated/`). Registries
//! older than [`OLDEST_REGISTRY`] are refused: the kit's sync core and `…2` routes need
//! Vulkan 1.3's commands (`runtime/driver/build.rs` says the same at build time).
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
//! Since `Cargo.toml` is the vendor's, a re-run with another `--runtime` cannot change what it
//! builds on: [`crate::runtime_check`] compares the two, a re-run warns and `--check` fails on a
//! mismatch, and a copy the manifest still builds on stays vkgen's (refreshed and compared).
//!
//! `tests/vkgen_requirements.rs`, the requirements report, is the vendor's too (written with a
//! new crate's `src/lib.rs`, whose driver type it names); [`crate::driver_report`] runs it for
//! `--check --report`.

use std::path::{Path, PathBuf};

use askama::Template;
use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::error::{Error, Result};
use crate::paths::{is_inside, relative_path};
use crate::record::{DriverRun, Record};
use crate::{emit, load, select, OutputFile};

/// The oldest core version whose registry the driver kit compiles against, and the oldest
/// registry of vkgen's matrix that defines it.
pub const OLDEST_REGISTRY: ((u32, u32), &str) = ((1, 3), "vk-1.3.239.xml");

/// What a `vkgen driver` run produced.
#[derive(Debug)]
pub struct DriverScaffold {
    pub files: Vec<OutputFile>,
    /// One line naming the registry read: file, version, SHA-256 and path.
    pub registry: String,
    /// Whether the crate's `Cargo.toml` builds on the runtime the run chose
    /// ([`crate::runtime_check`]).
    pub runtime: crate::runtime_check::Finding,
}

#[derive(Template)]
#[template(path = "driver/Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    name: &'a str,
    crate_name: &'a str,
    /// The `vkgen-driver` dependency, as TOML (`{ path = "…" }`, `"=0.1.0"`, `{ git = … }`).
    dependency: &'a str,
    standalone: bool,
    /// The vendored crates, as workspace members (empty unless the runtime is vendored).
    members: Vec<String>,
}

pub use crate::runtime_form::Runtime;

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

/// Where `run`'s vkgen checkout is (absolute), whether it is one (it has the runtime's
/// sources), and whether the crate stands alone (outside it, or no checkout to join); a
/// combination that cannot build is an error.
fn locate_runtime(run: &DriverRun) -> Result<(PathBuf, bool, bool)> {
    let (out, runtime) = (run.out.as_path(), &run.runtime);
    let resolved = checkout_root(run);
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
    Ok((resolved, checkout, standalone))
}

/// The files of `run`'s driver; the vendor's files only where absent.
pub fn driver_files(run: &DriverRun) -> Result<DriverScaffold> {
    let (name, out, opts) = (run.name.as_str(), run.out.as_path(), &run.opts);
    let runtime = &run.runtime;
    check_name(name)?;
    let (resolved, checkout, standalone) = locate_runtime(run)?;
    let crate_name = name.to_snake_case();
    let type_name = format!("{}Driver", name.to_upper_camel_case());

    let (loaded, source) = load(opts)?;
    let reg = &loaded.registry;
    let highest = select::highest_version(reg);
    let file_name = run.registry_file.clone().unwrap_or_else(|| {
        source
            .path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
    });
    let version = format!("{}.{}.{}", highest.0, highest.1, reg.header_version);
    check_registry(run, &file_name, &version, reg, &resolved, standalone)?;
    let (major, minor) = device_version(opts, highest)?;
    if let Some(warning) = crate::driver_report::lowering_warning(out, name, (major, minor)) {
        eprintln!("{warning}");
    }
    let registry = format!(
        "{file_name} (Vulkan {}.{}, header {})",
        highest.0, highest.1, reg.header_version
    );
    let (record, line) = record_of(run, &source, &file_name, &version, &reg.source_sha256);

    // Relative from the crate: the vendored copy, or the checkout it lives in.
    let dependency_root = if standalone {
        crate::vendor::DIR.to_owned()
    } else {
        relative_path(out, &resolved)
    };
    let dependency = runtime.dependency(&dependency_root);
    let finding = crate::runtime_check::check(out, runtime, &dependency)?;
    let mut files = vec![
        OutputFile {
            path: "src/vkgen.rs".into(),
            contents: render(&VkgenRs {
                preamble: emit::PREAMBLE,
                name,
                major,
                minor,
                explicit: opts.api_version.is_some(),
                registry: &registry.replace('\\', "/").replace('"', "'"),
            })?,
        },
        OutputFile {
            path: crate::record::FILE.into(),
            contents: record.render(),
        },
    ];
    if !out.join("Cargo.toml").exists() {
        files.push(OutputFile {
            path: "Cargo.toml".into(),
            contents: render(&CargoToml {
                name,
                crate_name: &crate_name,
                dependency: &dependency,
                standalone,
                members: if standalone && *runtime == Runtime::Vendored {
                    crate::vendor::members()
                } else {
                    Vec::new()
                },
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
    // The copy a manifest builds on stays vkgen's (refreshed, and compared by `--check`) even
    // when the run chose another runtime: the manifest, not the record, decides what builds.
    let vendors = *runtime == Runtime::Vendored || finding.builds_on_vendored;
    if standalone && checkout && vendors {
        let generated = crate::generate_loaded(
            loaded,
            source,
            // The registry's whole tables, whatever `--api-version` says: the API version is
            // the device's (src/vkgen.rs), and the kit compiles against every structure of the
            // registry (a 1.1 device still has the kit's 1.2+ paths compiled in, unused).
            &crate::Options {
                self_regenerating: None,
                package: None,
                api_version: None,
                ..opts.clone()
            },
        )?;
        files.extend(crate::vendor::files(&resolved, &generated.files)?);
    }
    Ok(DriverScaffold {
        files,
        registry: line,
        runtime: finding,
    })
}

/// The vkgen checkout `run` builds on: `--vkgen-root` (relative to the crate, or absolute),
/// else the default; a recorded root that is no checkout here (the crate was copied to
/// another machine) gives way to the default, and the record keeps it.
fn checkout_root(run: &DriverRun) -> PathBuf {
    let Some(root) = run.vkgen_root.as_deref() else {
        return default_vkgen_root();
    };
    let resolved = run.out.join(root);
    let is_checkout = |p: &Path| p.join("runtime/driver/Cargo.toml").is_file();
    if run.vkgen_root_recorded && !is_checkout(&resolved) && is_checkout(&default_vkgen_root()) {
        return default_vkgen_root();
    }
    resolved
}

/// The device's API version: `--api-version`, else the registry's newest; one the registry does
/// not define is refused.
fn device_version(opts: &crate::Options, highest: (u32, u32)) -> Result<(u32, u32)> {
    let (major, minor) = opts.api_version.unwrap_or(highest);
    if (major, minor) > highest || (major, minor) < (1, 0) {
        return Err(Error::Options(format!(
            "--api-version {major}.{minor} is not in this registry (highest is {}.{})",
            highest.0, highest.1
        )));
    }
    Ok((major, minor))
}

/// `vkgen.toml` of `run`, and the line naming the registry it read.
fn record_of(
    run: &DriverRun,
    source: &crate::registry::Source,
    file_name: &str,
    version: &str,
    sha256: &str,
) -> (Record, String) {
    // The path is where this machine found the file; the SHA-256 is what the crate depends
    // on. The same file found elsewhere (another checkout, $VKGEN_REGISTRY_DIR) keeps the
    // recorded path, so a fresh crate stays fresh on every machine.
    let kept_path = Record::read(&run.out)
        .ok()
        .flatten()
        .filter(|r| r.registry_sha256 == sha256)
        .map(|r| r.registry_path)
        // An absolute path (what older records wrote) is machine-bound: made relative.
        .map(|p| {
            if Path::new(&p).is_absolute() {
                crate::record::registry_path(&run.out, Path::new(&p))
            } else {
                p
            }
        });
    let record = Record {
        name: run.name.clone(),
        api_version: run.opts.api_version,
        // Relative to the crate (as the record's reader takes it); a recorded one verbatim.
        vkgen_root: run.vkgen_root.as_ref().map(|r| {
            if run.vkgen_root_recorded && r.is_relative() {
                r.to_string_lossy().replace('\\', "/")
            } else {
                relative_path(&run.out, &run.out.join(r))
            }
        }),
        runtime: (run.runtime != Runtime::Vendored).then(|| run.runtime.to_string()),
        registry_file: file_name.to_owned(),
        registry_path: kept_path
            .unwrap_or_else(|| crate::record::registry_path(&run.out, &source.path)),
        registry_version: version.to_owned(),
        registry_sha256: sha256.to_owned(),
    };
    let how = if run.recorded_registry {
        "recorded in vkgen.toml"
    } else {
        source.how
    };
    let line = format!(
        "registry {file_name} (vk.xml {version}, SHA-256 {sha256}) from {} ({how})",
        source.path.display()
    );
    (record, line)
}

/// Refuses a registry the crate cannot build on: one whose SHA-256 is not the one `--check`
/// expects (the record's), one older than [`OLDEST_REGISTRY`], and, inside the checkout, one
/// other than the checkout's `generated/` was generated from.
fn check_registry(
    run: &DriverRun,
    file_name: &str,
    version: &str,
    reg: &crate::model::Registry,
    root: &Path,
    standalone: bool,
) -> Result<()> {
    if let Some(expected) = &run.expect_sha256 {
        if *expected != reg.source_sha256 {
            return Err(Error::Options(format!(
                "registry changed: {file_name} (SHA-256 {}) is not the vk.xml {} was generated \
                 from (SHA-256 {expected}): re-run vkgen driver to regenerate from it",
                reg.source_sha256,
                run.out.display()
            )));
        }
    }
    let highest = select::highest_version(reg);
    let ((a, b), oldest) = OLDEST_REGISTRY;
    if highest < (a, b) {
        return Err(Error::Options(format!(
            "{file_name} is vk.xml {version} (Vulkan {}.{}): the driver kit needs a Vulkan {a}.{b} \
             registry or newer (the oldest supported is {oldest}); its sync core and `…2` routes \
             are Vulkan {a}.{b}'s",
            highest.0, highest.1
        )));
    }
    // Only a vendored copy is generated from the crate's registry: inside the checkout, or on a
    // published or git runtime, the tables are that runtime's `vkgen-generated`.
    if !standalone || run.runtime != Runtime::Vendored {
        if let Some((own, sha)) = crate::recorded_registry(&root.join("generated")) {
            if sha != reg.source_sha256 {
                return Err(Error::Options(format!(
                    "{file_name} is vk.xml {version}, but a driver inside the vkgen checkout or on \
                     a published or git runtime builds on that runtime's generated/ (vk.xml {own}, \
                     SHA-256 {sha}): scaffold the crate outside the checkout with the vendored \
                     runtime (it then vendors tables generated from {file_name}), or pass the \
                     registry generated/ was generated from"
                )));
            }
        }
    }
    Ok(())
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

fn render(t: &impl Template) -> Result<String> {
    let mut text = t
        .render()
        .map_err(|e| Error::Template("driver".to_owned(), e.to_string()))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Scaffolds `run`'s driver; returns what was written.
pub fn driver(run: &DriverRun) -> Result<DriverScaffold> {
    let scaffold = driver_files(run)?;
    crate::in_place::write(&scaffold.files, &run.out)?;
    Ok(scaffold)
}
