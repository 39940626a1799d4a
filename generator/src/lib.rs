//! vkgen: vk.xml (plus our Android native-buffer description in `registry/`) → the Rust half of an
//! Android-style Vulkan loader and driver: trampolines, dispatch tables, name lookup, extension
//! tables, a driver skeleton and the loader's version script.
//!
//! Pipeline: `registry::load` parses once into `model::Registry`; `select::select` picks a version
//! and extension set; each `emit::*` module writes one file from the selection. [`generate`] is the
//! library entry point (for build scripts); the `vkgen` binary wraps it.

pub mod ash_layouts;
pub mod ash_types;
pub mod build;
pub mod device;
pub mod diff;
pub mod driver_report;
pub mod emit;
pub mod error;
pub mod in_place;
pub mod info;
pub mod input;
pub mod model;
pub mod names;
pub mod par;
pub mod paths;
pub mod policy;
pub mod record;
pub mod registry;
pub mod runtime_check;
pub mod runtime_form;
pub mod scaffold;
pub mod select;
mod timings;
pub mod vendor;

use std::path::{Path, PathBuf};

use timings::stage;
pub use timings::Timings;

use askama::Template;
use quote::quote;

pub use error::{Error, Result};

/// What to generate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// vk.xml; `None` = `$VKGEN_REGISTRY`, else Debian's `/usr/share/vulkan/registry/vk.xml`.
    pub registry: Option<PathBuf>,
    /// The Android native-buffer description; `None` = the one built into vkgen.
    pub android_ext: Option<PathBuf>,
    /// `(major, minor)`; `None` = the registry's highest version.
    pub api_version: Option<(u32, u32)>,
    /// Cargo package name of the generated crate.
    pub package: Option<String>,
    /// The crate can also build itself from a registry at build time (its `regenerate`
    /// feature, see [`build`]); the value is the path from the crate to vkgen's `generator/`
    /// (its optional build-dependency). Set for the checked-in `generated/` crate.
    pub self_regenerating: Option<String>,
}

/// One generated file, path relative to the output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    pub contents: String,
}

/// Everything `generate` produced plus what the user should know about it.
#[derive(Debug)]
pub struct Generated {
    pub files: Vec<OutputFile>,
    pub registry: registry::Source,
    pub warnings: Vec<String>,
    pub summary: String,
    /// `(REGISTRY_VERSION, REGISTRY_SHA256)` the output records.
    pub provenance: (String, String),
    /// The API version the tables were generated for (`--api-version`, else the registry's
    /// newest).
    pub api_version: (u32, u32),
    /// Where the time went (`vkgen generate --timings`, the generator benchmark).
    pub timings: Timings,
}

/// `(REGISTRY_VERSION, REGISTRY_SHA256)` recorded by a generated crate in `dir`, if any: what
/// `--check` compares against before blaming individual files.
pub fn recorded_registry(dir: &Path) -> Option<(String, String)> {
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).ok()?;
    let get = |name: &str| {
        let decl = format!("pub const {name}: &str = \"");
        lib.lines()
            .find_map(|l| l.trim().strip_prefix(decl.as_str()))
            .and_then(|rest| rest.strip_suffix("\";"))
            .map(str::to_owned)
    };
    Some((get("REGISTRY_VERSION")?, get("REGISTRY_SHA256")?))
}

/// The Android native-buffer description shipped with vkgen (registry/android_native_buffer.xml).
pub const BUILTIN_ANDROID_EXT: &str = include_str!("../registry/android_native_buffer.xml");

/// Loads the registry named by `opts` with the Android overlay applied.
pub fn load(opts: &Options) -> Result<(registry::Loaded, registry::Source)> {
    let source = registry::locate(opts.registry.as_deref());
    let loaded = match &opts.android_ext {
        Some(p) => registry::load(&source.path, Some(p))?,
        None => {
            let start = std::time::Instant::now();
            let bytes = registry::read_registry(&source.path)?;
            stage("read", start);
            load_bytes(&bytes, &source.path, None)?
        }
    };
    Ok((loaded, source))
}

/// Where errors in the built-in overlay point: its path in the vkgen repository.
pub const BUILTIN_ANDROID_EXT_PATH: &str = "registry/android_native_buffer.xml";

/// Parses vk.xml text and lays an overlay over it (`None` = the built-in one), all in memory.
/// Errors name `path` (or the overlay's path for the overlay's elements) with line and column.
pub fn load_bytes(
    vk_xml: &[u8],
    path: &Path,
    overlay: Option<(&[u8], &Path)>,
) -> Result<registry::Loaded> {
    let mut warnings = Vec::new();
    let text = registry::decode(vk_xml, path)?;
    let (over_bytes, over_path) = overlay.unwrap_or((
        BUILTIN_ANDROID_EXT.as_bytes(),
        Path::new(BUILTIN_ANDROID_EXT_PATH),
    ));
    // The overlay is parsed on a thread of its own while vk.xml is; vk.xml's errors and
    // warnings still come first.
    let (reg, over) = std::thread::scope(|s| {
        let over = s.spawn(|| {
            let mut warnings = Vec::new();
            let over = registry::decode(over_bytes, over_path)
                .and_then(|text| registry::parse_str(text, over_path, &mut warnings));
            (over, warnings)
        });
        let reg = registry::parse_str(text, path, &mut warnings);
        let over = par::joined(over);
        (reg, over)
    });
    let mut reg = reg?;
    let start = std::time::Instant::now();
    let (over, over_warnings) = over;
    let over = over?;
    warnings.extend(over_warnings);
    registry::overlay_from(&mut reg, over, path, over_path, &mut warnings)?;
    stage("overlay, cross-checks", start);
    Ok(registry::Loaded {
        registry: reg,
        warnings,
    })
}

/// Generates the crate described in `docs/generated-api.md` in memory.
pub fn generate(opts: &Options) -> Result<Generated> {
    let start = std::time::Instant::now();
    timings::take_stages();
    let (loaded, source) = std::thread::scope(|s| {
        // ash's layout table is built in, not read from the registry: it is parsed on another
        // thread while vk.xml is, instead of after it in `select`.
        s.spawn(ash_layouts::Table::builtin);
        load(opts)
    })?;
    let parsed = start.elapsed();
    let mut g = generate_loaded(loaded, source, opts)?;
    let stages = timings::take_stages();
    let rows = std::iter::once(("read + parse (+ overlay)".to_owned(), parsed)).chain(
        stages
            .into_iter()
            .map(|(what, took)| (format!("  {what}"), took)),
    );
    g.timings.phases.splice(0..0, rows);
    Ok(g)
}

/// One generated file's emitter.
type Emitter = fn(&emit::Ctx) -> Result<String>;

/// Every file of `src/` but `lib.rs`, with its emitter (hand-written runtime files are copied).
const EMITTERS: [(&str, Emitter); 19] = [
    ("src/vk.rs", emit::types::emit),
    ("src/pfn.rs", emit::pfn::emit),
    ("src/phf.rs", |_| emit::phf::runtime_file()),
    ("src/dispatch_table.rs", |_| {
        Ok(emit::runtime_files::copy(
            emit::runtime_files::DISPATCH_TABLE,
        ))
    }),
    ("src/driver_resolve.rs", |_| {
        Ok(emit::runtime_files::copy(
            emit::runtime_files::DRIVER_RESOLVE,
        ))
    }),
    ("src/chain.rs", |_| {
        Ok(emit::runtime_files::copy(emit::runtime_files::CHAIN))
    }),
    ("src/two_call.rs", |_| {
        Ok(emit::runtime_files::copy(emit::runtime_files::TWO_CALL))
    }),
    ("src/commands.rs", emit::commands::emit),
    ("src/hooks.rs", emit::hooks::emit),
    ("src/extensions.rs", emit::extensions::emit),
    ("src/formats.rs", emit::formats::emit),
    ("src/dispatch.rs", emit::dispatch::emit),
    ("src/trampolines.rs", emit::trampolines::emit),
    ("src/driver.rs", emit::driver::emit),
    ("src/entries.rs", emit::entries::emit),
    ("src/features.rs", emit::requirements::emit),
    ("src/recorder.rs", emit::recorder::emit),
    ("src/dynamic_state.rs", emit::dynamic_state::emit),
    ("src/recorder_runtime.rs", |_| {
        Ok(emit::runtime_files::copy(
            emit::runtime_files::RECORDER_RUNTIME,
        ))
    }),
];

/// [`generate`] for a registry already loaded (the fuzz target and tests use this).
pub fn generate_loaded(
    loaded: registry::Loaded,
    source: registry::Source,
    opts: &Options,
) -> Result<Generated> {
    let mut timings = Timings::default();
    let reg = &loaded.registry;
    let highest = select::highest_version(reg);
    let version = opts.api_version.unwrap_or(highest);
    check_api_version(version, highest)?;
    let (ash, sel) = timings.record("select", || select_with_ash(reg, version));
    let cx = emit::Ctx::new(&sel, &ash);
    let package = opts
        .package
        .clone()
        .unwrap_or_else(|| "vkgen-generated".to_owned());
    let registry_name = format!("vk.xml {}.{}.{}", highest.0, highest.1, reg.header_version);
    let regenerate = regenerate_command(highest, version, reg.header_version);

    timings.record("prerequisites", || {
        emit::prerequisites::check(&cx, &source.path)
    })?;
    let symbols = emit::trampolines::exported_symbols(&cx);
    let meta = CrateMeta {
        package: &package,
        registry_name: &registry_name,
        regenerate: &regenerate,
        version,
        symbols: &symbols,
    };
    // Every Rust file says how it is regenerated, under the preamble: written on the thread
    // that made the file.
    let preamble_line = format!("// {}\n", emit::PREAMBLE);
    let regenerate_line = format!("// Regenerate with: {regenerate}\n");
    let stamp = |mut f: OutputFile| {
        if f.path.ends_with(".rs") && f.contents.starts_with(&preamble_line) {
            f.contents.insert_str(preamble_line.len(), &regenerate_line);
        }
        f
    };
    // The emitters are independent; formatting dominates, so they run on all cores, and the
    // crate's own files (lib.rs, build.rs, Cargo.toml, the version script) beside them.
    let start = std::time::Instant::now();
    let (emitted, crate_files) = std::thread::scope(|s| {
        let crate_files = s.spawn(|| {
            let start = std::time::Instant::now();
            let files = own_files(&sel, &meta, opts)?;
            let files: Vec<OutputFile> = files.into_iter().map(stamp).collect();
            Ok::<_, Error>((files, start.elapsed()))
        });
        let emitted = run_emitters(&EMITTERS, &cx, &stamp);
        let crate_files = crate_files.join().unwrap_or_else(|_| {
            Err(Error::Format {
                file: "crate files".into(),
                message: "panicked".into(),
            })
        });
        (emitted, crate_files)
    });
    let (emitted, (crate_files, crate_took)) = (emitted?, crate_files?);
    timings
        .phases
        .push(("emitters (in parallel)".to_owned(), start.elapsed()));
    let mut files = Vec::with_capacity(emitted.len() + crate_files.len() + 1);
    for (file, took) in emitted {
        timings.phases.push((format!("  {}", file.path), took));
        files.push(file);
    }
    timings
        .phases
        .push(("  crate files (beside them)".to_owned(), crate_took));
    files.extend(crate_files);
    let start = std::time::Instant::now();
    files.push(stamp(readme(&files, &sel, &meta)?));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    timings
        .phases
        .push(("README, order".to_owned(), start.elapsed()));
    let summary = emit::selection_summary(&sel);
    let provenance = (
        format!("{}.{}.{}", highest.0, highest.1, reg.header_version),
        reg.source_sha256.clone(),
    );
    drop(cx);
    drop(sel);
    // The model is a few hundred thousand allocations, and freeing them took as long as an
    // emitter: that happens on a thread of its own (which a process may outlive unjoined) while
    // the caller writes the files. Without a thread, it happens here.
    let registry::Loaded { registry, warnings } = loaded;
    let _ = std::thread::Builder::new().spawn(move || drop(registry));
    Ok(Generated {
        files,
        registry: source,
        warnings,
        summary,
        provenance,
        api_version: version,
        timings,
    })
}

/// ash's list checked against `reg` and the selection of `version`, made at the same time: ash's
/// reuse check (its ~1,000 layout comparisons) runs beside the selection, which asks ash only
/// about external types; the check cannot take one out unless `took_out_an_external` says so,
/// and then the selection is made again with the checked list.
fn select_with_ash(
    reg: &model::Registry,
    version: (u32, u32),
) -> (ash_types::AshTypes, select::Selection<'_>) {
    let loaded = ash_types::AshTypes::load();
    std::thread::scope(|s| {
        let checked = s.spawn(|| ash_types::AshTypes::checked_for(&loaded, reg));
        let sel = select::select(reg, version, &loaded);
        let ash = par::joined(checked);
        let sel = if ash.took_out_an_external(reg) {
            select::select(reg, version, &ash)
        } else {
            sel
        };
        (ash, sel)
    })
}

/// The crate's own files: `src/lib.rs`, `build.rs`, `Cargo.toml` and the version script
/// (README.md counts `vk.rs`'s types, so it comes after the emitters).
fn own_files(sel: &select::Selection, meta: &CrateMeta, opts: &Options) -> Result<Vec<OutputFile>> {
    let reg = sel.reg;
    let highest = select::highest_version(reg);
    let mut files = vec![
        OutputFile {
            path: "src/lib.rs".into(),
            contents: lib_rs(sel, opts.self_regenerating.is_some())?,
        },
        OutputFile {
            path: "build.rs".into(),
            contents: emit::build_script::crate_build_rs(
                opts.self_regenerating.is_some(),
                &format!("{}.{}.{}", highest.0, highest.1, reg.header_version),
                meta.version,
            ),
        },
    ];
    push_crate_files(&mut files, sel, meta, opts)?;
    Ok(files)
}

/// What the crate's metadata files (Cargo.toml, the version script, README.md) say about it.
struct CrateMeta<'a> {
    package: &'a str,
    registry_name: &'a str,
    regenerate: &'a str,
    version: (u32, u32),
    symbols: &'a [String],
}

/// An `--api-version` above what the registry defines (or below 1.0) has nothing to generate.
fn check_api_version(version: (u32, u32), highest: (u32, u32)) -> Result<()> {
    if version > highest || version < (1, 0) {
        return Err(Error::Options(format!(
            "--api-version {}.{} is not in this registry (highest is {}.{})",
            version.0, version.1, highest.0, highest.1
        )));
    }
    Ok(())
}

/// The command the generated files name for regenerating them.
fn regenerate_command(highest: (u32, u32), version: (u32, u32), header_version: u32) -> String {
    format!(
        "cargo run -p vkgen-generator -- generate --registry <vk.xml {}.{}.{}>{} --out <dir>",
        highest.0,
        highest.1,
        header_version,
        if version != highest {
            format!(" --api-version {}.{}", version.0, version.1)
        } else {
            String::new()
        }
    )
}

/// Runs the emitters, one thread each: they are independent and formatting dominates. A
/// panicking emitter is an error, not a crash of the whole run. Each file comes with its
/// emitter's wall time.
fn run_emitters(
    emitters: &[(&str, Emitter)],
    cx: &emit::Ctx,
    finish: &(dyn Fn(OutputFile) -> OutputFile + Sync),
) -> Result<Vec<(OutputFile, std::time::Duration)>> {
    let results: Vec<Result<(OutputFile, std::time::Duration)>> = std::thread::scope(|s| {
        let handles: Vec<_> = emitters
            .iter()
            .map(|(path, f)| {
                s.spawn(move || {
                    let start = std::time::Instant::now();
                    f(cx).map(|contents| {
                        let file = finish(OutputFile {
                            path: (*path).to_owned(),
                            contents,
                        });
                        (file, start.elapsed())
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Format {
                        file: "emitter".into(),
                        message: "panicked".into(),
                    })
                })
            })
            .collect()
    });
    results.into_iter().collect()
}

/// Cargo.toml, the version script `libvulkan.map` and README.md, rendered from their templates.
fn push_crate_files(
    files: &mut Vec<OutputFile>,
    sel: &select::Selection,
    meta: &CrateMeta,
    opts: &Options,
) -> Result<()> {
    let (major, minor) = meta.version;
    let reg = sel.reg;
    let preamble = emit::PREAMBLE;
    files.push(OutputFile {
        path: "Cargo.toml".into(),
        contents: render(
            "Cargo.toml",
            CargoToml {
                preamble,
                regenerate: meta.regenerate,
                self_regenerating: opts.self_regenerating.as_deref(),
                package: meta.package,
                major,
                minor,
                header_version: reg.header_version,
                version: env!("CARGO_PKG_VERSION"),
            },
        )?,
    });
    files.push(OutputFile {
        path: "libvulkan.map".into(),
        contents: render(
            "libvulkan.map",
            VersionScript {
                preamble,
                major,
                minor,
                symbols: meta.symbols,
            },
        )?,
    });
    Ok(())
}

/// README.md, which counts the types `vk.rs` defines, so it is made after the emitters.
fn readme(files: &[OutputFile], sel: &select::Selection, meta: &CrateMeta) -> Result<OutputFile> {
    let (major, minor) = meta.version;
    let reg = sel.reg;
    let preamble = emit::PREAMBLE;
    let instance_slots = sel
        .canonical_commands()
        .filter(|c| c.level.is_instance_table())
        .count();
    let vk_rs = &files
        .iter()
        .find(|f| f.path == "src/vk.rs")
        .expect("emitted")
        .contents;
    let count = |what: &str| memchr::memmem::find_iter(vk_rs.as_bytes(), what).count();
    let emitted_types = count("\npub struct ") + count("\npub union ");
    Ok(OutputFile {
        path: "README.md".into(),
        contents: render(
            "README.md",
            GeneratedReadme {
                preamble,
                package: meta.package,
                registry: meta.registry_name,
                sha256: &reg.source_sha256,
                major,
                minor,
                header_version: reg.header_version,
                summary: &emit::selection_summary(sel),
                regenerate: meta.regenerate,
                emitted_types,
                commands: sel.commands.len(),
                extensions: sel.extensions.len(),
                formats: reg.formats.len(),
                instance_slots,
                device_slots: sel
                    .canonical_commands()
                    .filter(|c| c.level == select::Level::Device)
                    .count(),
                trampolines: meta
                    .symbols
                    .iter()
                    .filter(|s| !policy::is_loader_intercepted_command(s))
                    .count(),
                exported: meta.symbols.len(),
            },
        )?,
    })
}

fn render(name: &str, t: impl Template) -> Result<String> {
    t.render()
        .map_err(|e| Error::Template(name.to_owned(), e.to_string()))
}

#[derive(Template)]
#[template(path = "generated/Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    preamble: &'a str,
    regenerate: &'a str,
    self_regenerating: Option<&'a str>,
    package: &'a str,
    major: u32,
    minor: u32,
    header_version: u32,
    /// vkgen's version: the tables are released with the generator that wrote them.
    version: &'a str,
}

#[derive(Template)]
#[template(path = "generated/libvulkan.map.j2", escape = "none")]
struct VersionScript<'a> {
    preamble: &'a str,
    major: u32,
    minor: u32,
    symbols: &'a [String],
}

#[derive(Template)]
#[template(path = "generated/README.md.j2", escape = "none")]
struct GeneratedReadme<'a> {
    preamble: &'a str,
    package: &'a str,
    registry: &'a str,
    sha256: &'a str,
    major: u32,
    minor: u32,
    header_version: u32,
    summary: &'a str,
    regenerate: &'a str,
    emitted_types: usize,
    commands: usize,
    extensions: usize,
    formats: usize,
    instance_slots: usize,
    device_slots: usize,
    trampolines: usize,
    exported: usize,
}

/// The generated modules: `(name, public)`, in `lib.rs` order (`trampolines` apart: only the
/// loader and the `exports` check compile it).
pub(crate) const MODULES: &[(&str, bool)] = &[
    ("chain", true),
    ("commands", true),
    ("dispatch", true),
    ("dispatch_table", false),
    ("dynamic_state", true),
    ("driver", true),
    ("entries", true),
    ("extensions", true),
    ("features", true),
    ("formats", true),
    ("hooks", true),
    ("pfn", true),
    ("phf", false),
    ("recorder", true),
    ("two_call", true),
    ("vk", true),
];

/// The crate's constants (`API_VERSION`, `HEADER_VERSION`), shared by `lib.rs` and the
/// build-script entry file.
pub(crate) fn constants(sel: &select::Selection) -> proc_macro2::TokenStream {
    let api = emit::version_literal(sel.version);
    let header = proc_macro2::Literal::u32_unsuffixed(sel.reg.header_version);
    let highest = select::highest_version(sel.reg);
    let registry = format!("{}.{}.{}", highest.0, highest.1, sel.reg.header_version);
    let sha256 = &sel.reg.source_sha256;
    quote! {
        /// `VK_MAKE_API_VERSION(0, major, minor, 0)` of the selection.
        pub const API_VERSION: u32 = #api;
        /// `VK_HEADER_VERSION` of the registry.
        pub const HEADER_VERSION: u32 = #header;
        /// The registry's version (`vk-<REGISTRY_VERSION>.xml` in vkgen's registry matrix).
        pub const REGISTRY_VERSION: &str = #registry;
        /// SHA-256 of the vk.xml these modules were generated from: regenerating from any
        /// other file is not this crate.
        pub const REGISTRY_SHA256: &str = #sha256;
    }
}

fn lib_rs(sel: &select::Selection, self_regenerating: bool) -> Result<String> {
    let modules = MODULES.iter().map(|&(name, public)| {
        let ident = quote::format_ident!("{name}");
        let vis = if public { quote!(pub) } else { quote!() };
        let cfg = if self_regenerating {
            quote!(#[cfg(not(feature = "regenerate"))])
        } else {
            quote!()
        };
        quote! {
            #cfg
            #[rustfmt::skip]
            #vis mod #ident;
        }
    });
    let constants = constants(sel);
    let (constants, regen, trampolines_cfg) = if self_regenerating {
        (
            quote! {
                #[cfg(not(feature = "regenerate"))]
                #[rustfmt::skip]
                mod checked_in {
                    #constants
                }
                #[cfg(not(feature = "regenerate"))]
                pub use checked_in::*;
            },
            quote! {
                // With `regenerate`, the same modules generated at build time (build.rs).
                #[cfg(feature = "regenerate")]
                include!(concat!(env!("OUT_DIR"), "/vkgen.rs"));
            },
            quote!(#[cfg(all(feature = "exports", not(feature = "regenerate")))]),
        )
    } else {
        (constants, quote!(), quote!(#[cfg(feature = "exports")]))
    };
    let tokens = quote! {
        #![allow(clippy::all)]
        // Generated modules are formatted by vkgen (prettyplease), not rustfmt.
        #(#modules)*
        #trampolines_cfg
        #[rustfmt::skip]
        mod trampolines;

        #constants
        #regen
    };
    emit::format_file(
        "lib.rs",
        &format!(
            "Vulkan loader and driver tables generated from vk.xml. {}\nSee README.md for the file map.",
            emit::selection_summary(sel)
        ),
        tokens,
    )
}

/// Result of comparing generated files with a directory.
#[derive(Debug, Default)]
pub struct Staleness {
    pub stale: Vec<String>,
    pub missing: Vec<String>,
}

impl Staleness {
    pub fn is_fresh(&self) -> bool {
        self.stale.is_empty() && self.missing.is_empty()
    }
}

/// Compares `files` with what is in `dir`, writing nothing.
pub fn check(files: &[OutputFile], dir: &Path) -> Staleness {
    let mut s = Staleness::default();
    for f in files {
        match std::fs::read_to_string(dir.join(&f.path)) {
            Ok(existing) if existing.replace("\r\n", "\n") == f.contents => {}
            Ok(_) => s.stale.push(f.path.clone()),
            Err(_) => s.missing.push(f.path.clone()),
        }
    }
    s
}

/// Writes `files` under `dir` so that `dir` holds either the old tree or the new one, never a
/// mix: when anything changed, the new tree is built in a sibling staging directory (files not
/// generated, and generated files whose contents did not change, are hard-linked from the old
/// tree, so they keep their inode and mtime) and swapped in with one `renameat2(RENAME_EXCHANGE)`
/// (two renames where that is unsupported). Nothing is written when nothing changed.
pub fn write(files: &[OutputFile], dir: &Path) -> Result<()> {
    for f in files {
        let rel = Path::new(&f.path);
        if rel.is_absolute()
            || rel
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(Error::Options(format!(
                "refusing to write outside --out: {}",
                f.path
            )));
        }
    }
    // A symlinked --out is replaced where it points, not turned into a directory; `.` or `..`
    // (`vkgen driver` run inside its crate) is named by its real path, whose last component the
    // swap below needs.
    let user_dir = dir;
    let resolved;
    let dir = if dir.is_symlink() || dir.file_name().is_none() {
        resolved = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        resolved.as_path()
    } else {
        dir
    };
    let name = dir
        .file_name()
        .ok_or_else(|| Error::Options(format!("--out {} has no file name", user_dir.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    // A generated path through a symlink inside --out counts as changed: the symlink is replaced.
    // The files are read and compared on threads (5 MB: as long as a short emitter).
    let changed = |dir: &Path| {
        par::map_chunks(files, |part| {
            vec![part.iter().any(|f| {
                through_symlink(dir, Path::new(&f.path))
                    || std::fs::read(dir.join(&f.path)).ok().as_deref()
                        != Some(f.contents.as_bytes())
            })]
        })
        .into_iter()
        .any(|changed| changed)
    };
    if !changed(dir) {
        return Ok(());
    }
    std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    // Runs writing next to each other take turns: the parent directory itself is locked (no lock
    // file is left behind), and whoever comes second sees the first one's tree.
    let _lock = lock_dir(&parent)?;
    if !changed(dir) {
        return Ok(());
    }
    check_writable(user_dir, dir, &parent)?;
    static STAGING: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let staging = parent.join(format!(
        ".{name}.vkgen-{}-{}",
        std::process::id(),
        STAGING.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let result = stage_and_swap(files, dir, &staging);
    // Whatever happened, the staging directory (the new tree on failure, the old one after a
    // swap) goes; `dir` is complete either way.
    let cleanup = match std::fs::remove_dir_all(&staging) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&staging, e)),
        _ => Ok(()),
    };
    // Messages name the user's --out, not the staging directory the error happened in.
    result.map_err(|e| match e {
        Error::Io { path, source } => match path.strip_prefix(&staging) {
            Ok(rel) => Error::io(user_dir.join(rel), source),
            Err(_) if path == dir => Error::io(user_dir, source),
            Err(_) => Error::Io { path, source },
        },
        other => other,
    })?;
    cleanup
}

/// Whether `rel` under `root`, or a directory on the way to it, is a symlink.
fn through_symlink(root: &Path, rel: &Path) -> bool {
    let mut at = root.to_owned();
    rel.components().any(|c| {
        at.push(c);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// An exclusive `flock` on a directory, released when the returned handle drops.
fn lock_dir(dir: &Path) -> Result<std::fs::File> {
    let f = std::fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
    #[cfg(unix)]
    rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| Error::io(dir, e.into()))?;
    Ok(f)
}

/// Refuses, before anything is written, an `--out` (or a directory in it, or its parent) that is
/// read-only: its mode has no write bit (even for root, who could write it anyway), or this
/// process may not write it (a read-only file system too). Replacing such a tree would leave the
/// old one behind, undeletable, next to it.
fn check_writable(user_dir: &Path, dir: &Path, parent: &Path) -> Result<()> {
    let refuse = |what: String| {
        Err(Error::Options(format!(
            "--out {}: {what} is read-only; refusing to replace it",
            user_dir.display()
        )))
    };
    let writable = |p: &Path| -> bool {
        let mode_ok = std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly());
        #[cfg(unix)]
        let access_ok = rustix::fs::access(p, rustix::fs::Access::WRITE_OK).is_ok();
        #[cfg(not(unix))]
        let access_ok = true;
        mode_ok && access_ok
    };
    if !writable(parent) {
        return refuse(format!("its parent directory {}", parent.display()));
    }
    if !dir.is_dir() {
        return Ok(());
    }
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        if !writable(&d) {
            return refuse(if d == dir {
                "it".to_owned()
            } else {
                format!("{}", d.display())
            });
        }
        for entry in std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))? {
            let entry = entry.map_err(|e| Error::io(&d, e))?;
            // Only real directories: symlinks in the tree are replaced, never followed.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(entry.path());
            }
        }
    }
    Ok(())
}

fn stage_and_swap(files: &[OutputFile], dir: &Path, staging: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(staging);
    let exists = dir.is_dir();
    if exists {
        link_tree(dir, staging)?;
    } else {
        std::fs::create_dir(staging).map_err(|e| Error::io(staging, e))?;
    }
    for f in files {
        let path = staging.join(&f.path);
        if let Some(rel_parent) = Path::new(&f.path).parent() {
            real_dirs(staging, rel_parent)?;
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && std::fs::read_to_string(&path).ok().as_deref() == Some(f.contents.as_str())
        {
            continue;
        }
        // Never write through a hard link into the old tree, nor through a symlink.
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
        use std::io::Write;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut w| w.write_all(f.contents.as_bytes()))
            .map_err(|e| Error::io(&path, e))?;
    }
    if !exists {
        return std::fs::rename(staging, dir).map_err(|e| Error::io(dir, e));
    }
    swap(staging, dir)
}

/// Makes every directory of `rel` under `root` a real directory: a symlink where a directory
/// belongs is replaced by an empty directory, so that nothing is written through it to somewhere
/// outside `--out`.
fn real_dirs(root: &Path, rel: &Path) -> Result<()> {
    let mut at = root.to_owned();
    for c in rel.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => continue,
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::remove_file(&at).map_err(|e| Error::io(&at, e))?
            }
            // A file where a directory belongs is the user's: an error, not something to delete.
            Ok(_) => {
                return Err(Error::io(
                    &at,
                    std::io::Error::new(std::io::ErrorKind::AlreadyExists, "not a directory"),
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&at, e)),
        }
        std::fs::create_dir(&at).map_err(|e| Error::io(&at, e))?;
    }
    Ok(())
}

/// Exchanges two directories atomically where the OS can.
fn swap(a: &Path, b: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(e) => return Err(Error::io(b, e.into())),
        }
    }
    // Fallback: the old tree moves aside, then the new one takes its place.
    let aside = PathBuf::from(format!("{}.old", a.display()));
    std::fs::rename(b, &aside).map_err(|e| Error::io(b, e))?;
    if let Err(e) = std::fs::rename(a, b) {
        let _ = std::fs::rename(&aside, b);
        return Err(Error::io(b, e));
    }
    std::fs::rename(&aside, a).map_err(|e| Error::io(a, e))
}

/// Recreates `from`'s directories under `to`, hard-linking its files and copying its symlinks.
fn link_tree(from: &Path, to: &Path) -> Result<()> {
    let mut todo = vec![(from.to_owned(), to.to_owned())];
    while let Some((src, dst)) = todo.pop() {
        std::fs::create_dir(&dst).map_err(|e| Error::io(&dst, e))?;
        for entry in std::fs::read_dir(&src).map_err(|e| Error::io(&src, e))? {
            let entry = entry.map_err(|e| Error::io(&src, e))?;
            let (s, d) = (entry.path(), dst.join(entry.file_name()));
            let ty = entry.file_type().map_err(|e| Error::io(&s, e))?;
            if ty.is_dir() {
                todo.push((s, d));
            } else if ty.is_symlink() {
                let target = std::fs::read_link(&s).map_err(|e| Error::io(&s, e))?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(&target, &d).map_err(|e| Error::io(&d, e))?;
                #[cfg(not(unix))]
                let _ = target;
            } else {
                std::fs::hard_link(&s, &d).map_err(|e| Error::io(&d, e))?;
            }
        }
    }
    Ok(())
}
