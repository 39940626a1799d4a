//! vkgen from a build script: the generated modules written into `OUT_DIR` with one entry file
//! a crate `include!`s.
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     vkgen::build::main(&vkgen::Options::default());
//! }
//! // src/lib.rs (the crate root: the modules refer to each other as `crate::…`)
//! include!(concat!(env!("OUT_DIR"), "/vkgen.rs"));
//! ```
//!
//! Why an entry file: `include!` cannot take a `lib.rs` with inner attributes (`#![…]`, `//!`),
//! and `mod x;` inside an included file looks for `x.rs` beside the including source, not in
//! `OUT_DIR`. The entry file (`vkgen.rs`) therefore holds only outer items: each module with a
//! `#[path]` to its file in `OUT_DIR` (the files are exactly what `vkgen generate` writes to
//! `src/`, so the checked-in crate and a build-script build of the same registry and version
//! are the same code), and the crate's constants. `libvulkan.map` and `trampolines.rs` (the
//! loader's) are written beside them.
//!
//! Cargo is told to rerun the script when the registry, the overlay or `VKGEN_REGISTRY` /
//! `VKGEN_API_VERSION` change. Errors are build-script errors: [`main`] prints the located
//! message (`FILE:LINE:COL: …`) and exits 1, so cargo shows it under "failed to run custom
//! build command".

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::{emit, generate, Options};

/// The entry file's name in `OUT_DIR`.
pub const ENTRY: &str = "vkgen.rs";

/// What a build-script run wrote.
#[derive(Debug)]
pub struct BuildOutput {
    /// `OUT_DIR/vkgen.rs`.
    pub entry: PathBuf,
    /// The directory holding the module files, `libvulkan.map` and `trampolines.rs`.
    pub dir: PathBuf,
    /// The registry that was read.
    pub registry: PathBuf,
    /// Its version, `major.minor.header` (the generated `REGISTRY_VERSION`).
    pub registry_version: String,
    /// The API version the modules were generated for.
    pub api_version: (u32, u32),
}

/// `Some("../generator")` when `out` is the `generated/` crate of a vkgen checkout (its
/// sibling `generator/` is this package, `vkgen-generator`): that crate gets the `regenerate`
/// feature.
pub fn generator_beside(out: &Path) -> Option<String> {
    let manifest = out.join("../generator/Cargo.toml");
    let text = std::fs::read_to_string(manifest).ok()?;
    let package = concat!("name = \"", env!("CARGO_PKG_NAME"), "\"");
    text.lines()
        .any(|l| l.trim() == package)
        .then(|| "../generator".to_owned())
}

/// `opts` with `$VKGEN_API_VERSION` (`X.Y`) applied when `opts` leaves the version open.
pub fn options_from_env(opts: &Options) -> Result<Options> {
    let value = std::env::var("VKGEN_API_VERSION").ok();
    options_with_api_version(opts, value.as_deref())
}

/// `opts` with `value` (`$VKGEN_API_VERSION`'s, `X.Y`) applied when `opts` leaves the version
/// open; `None` leaves it open.
pub fn options_with_api_version(opts: &Options, value: Option<&str>) -> Result<Options> {
    let mut opts = opts.clone();
    if opts.api_version.is_none() {
        if let Some(v) = value {
            let parsed = v
                .split_once('.')
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
            opts.api_version = Some(parsed.ok_or_else(|| {
                Error::Options(format!(
                    "VKGEN_API_VERSION={v:?}: expected MAJOR.MINOR, e.g. 1.3"
                ))
            })?);
        }
    }
    Ok(opts)
}

/// Generates into `dir` (normally `$OUT_DIR`) and writes the entry file. Prints nothing.
pub fn generate_into(opts: &Options, dir: &Path) -> Result<BuildOutput> {
    let opts = options_from_env(opts)?;
    let g = generate(&Options {
        self_regenerating: None,
        ..opts.clone()
    })?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut entry = format!(
        "// {}\n// The build-script entry file of vkgen's generated modules: include! it at the crate root.\n",
        emit::PREAMBLE
    );
    for f in &g.files {
        let Some(name) = f.path.strip_prefix("src/") else {
            if f.path == "libvulkan.map" {
                write_if_changed(&dir.join(&f.path), &f.contents)?;
            }
            continue;
        };
        write_if_changed(&dir.join(name), &f.contents)?;
        let module = name.trim_end_matches(".rs");
        let Some(&(_, public)) = crate::MODULES.iter().find(|(m, _)| *m == module) else {
            continue; // lib.rs (replaced by this file) and trampolines.rs (the loader's)
        };
        let path = dir.join(name);
        let path = path
            .to_str()
            .ok_or_else(|| Error::Options(format!("OUT_DIR {} is not UTF-8", dir.display())))?;
        entry.push_str(&format!(
            "#[allow(clippy::all, dead_code, unused_imports, unused_unsafe)]\n#[rustfmt::skip]\n#[path = {path:?}]\n{}mod {module};\n",
            if public { "pub " } else { "" }
        ));
    }
    let sel_constants = constants_of(&g)?;
    entry.push_str(&sel_constants);
    let entry_path = dir.join(ENTRY);
    write_if_changed(&entry_path, &entry)?;
    Ok(BuildOutput {
        entry: entry_path,
        dir: dir.to_owned(),
        registry: g.registry.path,
        registry_version: g.provenance.0,
        api_version: g.api_version,
    })
}

/// The constants of the generated `lib.rs` (outer items already), copied into the entry file.
fn constants_of(g: &crate::Generated) -> Result<String> {
    let lib = g
        .files
        .iter()
        .find(|f| f.path == "src/lib.rs")
        .ok_or_else(|| Error::Options("generate wrote no lib.rs".into()))?;
    let start = lib
        .contents
        .find("/// `VK_MAKE_API_VERSION")
        .ok_or_else(|| Error::Options("generated lib.rs has no API_VERSION constant".into()))?;
    Ok(lib.contents[start..].to_owned())
}

/// Writes `contents` unless the file already holds it (keeps mtimes, so cargo does not
/// rebuild what did not change).
fn write_if_changed(path: &Path, contents: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(());
    }
    std::fs::write(path, contents).map_err(|e| Error::io(path, e))
}

/// The environment variables the build mode reads (each gets `cargo:rerun-if-env-changed`).
pub const ENV_VARS: [&str; 2] = ["VKGEN_REGISTRY", "VKGEN_API_VERSION"];

/// `opts` with the registry made explicit and absolute: `--registry`/`opts.registry`, else
/// `$VKGEN_REGISTRY`, else Debian's vk.xml. A relative path is taken relative to the current
/// directory, which in a build script is the package's directory (not where cargo was run), so
/// messages and `rerun-if-changed` name the file that was actually read.
pub fn resolve_registry(opts: &Options) -> Result<Options> {
    let mut path = crate::registry::locate(opts.registry.as_deref()).path;
    if path.is_relative() {
        let cwd = std::env::current_dir().map_err(|e| Error::io(Path::new("."), e))?;
        path = cwd.join(path);
    }
    Ok(Options {
        registry: Some(path),
        ..opts.clone()
    })
}

/// The `cargo:` lines a build script owes cargo for `opts` (after [`resolve_registry`]): rerun
/// when the registry or the overlay file changes, or when an [`ENV_VARS`] variable does.
pub fn rerun_directives(opts: &Options) -> Vec<String> {
    let mut out: Vec<String> = ENV_VARS
        .iter()
        .map(|var| format!("cargo:rerun-if-env-changed={var}"))
        .collect();
    // Without a file the overlay is vkgen's built-in copy: a vkgen change rebuilds the script.
    for file in opts.registry.iter().chain(&opts.android_ext) {
        out.push(format!("cargo:rerun-if-changed={}", file.display()));
    }
    out
}

/// [`generate_into`] `$OUT_DIR`, with the `cargo:` lines a build script owes cargo.
pub fn run(opts: &Options) -> Result<BuildOutput> {
    let opts = resolve_registry(opts)?;
    for line in rerun_directives(&opts) {
        println!("{line}");
    }
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            Error::Options("OUT_DIR is not set: call vkgen::build from build.rs".into())
        })?;
    generate_into(&opts, &out_dir)
}

/// [`run`] for `build.rs`: on error prints the located message and exits 1.
pub fn main(opts: &Options) -> BuildOutput {
    match run(opts) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("error: vkgen: {e}");
            std::process::exit(1);
        }
    }
}
