//! The vendored copy of the driver runtime a scaffolded driver builds on (`vendor/vkgen/` in
//! the driver's crate): what lets a vendor's repository build without a vkgen checkout, without
//! an absolute path and without a crates.io release — the way Android trees carry their Rust
//! dependencies.
//!
//! The copy holds the crates a driver links (`vkgen-abi`, `vkgen-platform`,
//! `vkgen-driver-macros`, `vkgen-driver`, `vkgen-generated`) in the checkout's layout, so their
//! relative path dependencies stay valid. The runtime crates are copied from the checkout with
//! their manifests made standalone: what they inherit from vkgen's workspace
//! (`version.workspace = true`, `ash.workspace = true`, the lints) is written out — the
//! workspace's own crates (`vkgen-abi.workspace = true`) with their paths made the member's.
//! `vkgen-generated` is not the checkout's `generated/` (vkgen's own registry): it is what
//! `vkgen generate` writes for the driver's registry (whole: the API version is the device's), so the crate's feature,
//! property, extension and command tables are its vk.xml's, and the kit compiles against them
//! (`runtime/driver/build.rs` reads the registry version the generated crate reports).
//! `VENDORED.txt` records the vkgen version and the copy's SHA-256. The copy is vkgen's:
//! `vkgen driver` rewrites it on every run and `--check` compares it, like `src/vkgen.rs`.
//!
//! Distribution (issue 33): the copy's crates are members of the vendor's workspace and
//! packages like any other (no `publish = false`; their path dependencies carry the exact
//! version), so `cargo package` in the vendor's crate packages it together with the runtime it
//! builds on, each package verified against the others. As members they would be tested,
//! formatted and linted with the vendor's crate: their unit tests are switched off (`[lib]
//! test = false`; the tests are vkgen's, and their dev-dependencies go), and a
//! `rustfmt.toml` keeps `cargo fmt` off the copy.

use std::path::Path;

use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Value};

use crate::error::{Error, Result};
use crate::OutputFile;

/// Where the copy goes, relative to the driver crate.
pub const DIR: &str = "vendor/vkgen";

/// The crates a driver links, as paths in the checkout (and in the copy).
pub const CRATES: &[&str] = &[
    "runtime/abi",
    "runtime/platform",
    "runtime/driver-macros",
    "runtime/driver",
    GENERATED,
];

/// The copy's crates as the vendor's workspace members (paths relative to the crate).
pub fn members() -> Vec<String> {
    CRATES.iter().map(|c| format!("{DIR}/{c}")).collect()
}

/// The generated crate's place in the copy: written from the driver's registry, not copied.
pub const GENERATED: &str = "generated";

/// The copy's `rustfmt.toml`: rustfmt takes the configuration nearest a file, so `cargo fmt`
/// in the vendor's workspace (of which the copy is a member) leaves vkgen's files as vkgen
/// wrote them — `--check` compares them byte for byte — whatever the vendor's own style.
const RUSTFMT_TOML: &str = "# Written by `vkgen driver`: the vendored runtime is vkgen's, \
compared byte for byte by\n# `vkgen driver --check`, so `cargo fmt` leaves it as it is.\n\
disable_all_formatting = true\n";

/// Directories of a crate that a dependent never builds.
const SKIPPED: &[&str] = &["target", "tests", "benches", "fuzz", "examples"];

/// The vendored copy of the runtime in checkout `root`, with `generated` (what
/// [`crate::generate`] wrote for the driver's registry) as its `vkgen-generated`, as files
/// relative to the driver crate.
pub fn files(root: &Path, generated: &[OutputFile]) -> Result<Vec<OutputFile>> {
    let workspace = read_manifest(&root.join("Cargo.toml"))?;
    let mut out = Vec::new();
    for krate in CRATES.iter().filter(|&&k| k != GENERATED) {
        let dir = root.join(krate);
        let mut found = Vec::new();
        collect(&dir, &dir, &mut found)?;
        found.sort();
        for rel in found {
            let path = dir.join(&rel);
            let text = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
            let contents = if rel == "Cargo.toml" {
                standalone_manifest(&text, &workspace, krate)
                    .map_err(|e| Error::Options(format!("{}: {e}", path.display())))?
            } else {
                text
            };
            out.push(OutputFile {
                path: format!("{DIR}/{krate}/{rel}"),
                contents,
            });
        }
    }
    out.extend(generated.iter().map(|f| OutputFile {
        path: format!("{DIR}/{GENERATED}/{}", f.path),
        contents: f.contents.clone(),
    }));
    out.push(OutputFile {
        path: format!("{DIR}/rustfmt.toml"),
        contents: RUSTFMT_TOML.to_owned(),
    });
    let digest = out.iter().fold(Sha256::new(), |h, f| {
        h.chain_update(f.path.as_bytes())
            .chain_update(f.contents.as_bytes())
    });
    out.push(OutputFile {
        path: format!("{DIR}/VENDORED.txt"),
        contents: provenance(&format!("{:x}", digest.finalize())),
    });
    Ok(out)
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::Options(format!("{}: {e}", path.display()))
}

fn read_manifest(path: &Path) -> Result<DocumentMut> {
    let text = std::fs::read_to_string(path).map_err(|e| io_err(path, e))?;
    text.parse::<DocumentMut>()
        .map_err(|e| Error::Options(format!("{}: {e}", path.display())))
}

/// Every text file under `dir` but build outputs and test-only directories, relative to `base`
/// with `/` separators.
fn collect(base: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if dir == base && SKIPPED.contains(&name.as_str()) || name.starts_with('.') {
                continue;
            }
            collect(base, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(base) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

/// `text` (a member's manifest) with everything it inherits from `workspace` written out.
fn standalone_manifest(
    text: &str,
    workspace: &DocumentMut,
    krate: &str,
) -> std::result::Result<String, String> {
    let mut doc = text.parse::<DocumentMut>().map_err(|e| e.to_string())?;
    let ws = workspace
        .get("workspace")
        .and_then(Item::as_table)
        .ok_or("no [workspace]")?;
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_mut) {
        let ws_package = ws.get("package").and_then(Item::as_table);
        for (key, item) in package.iter_mut() {
            if inherits(item) {
                let value = ws_package
                    .and_then(|p| p.get(key.get()))
                    .cloned()
                    .ok_or_else(|| format!("workspace.package.{} missing", key.get()))?;
                *item = value;
            }
        }
    }
    let ws_deps = ws.get("dependencies").and_then(Item::as_table);
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(deps) = doc.get_mut(section).and_then(Item::as_table_like_mut) {
            for (name, item) in deps.iter_mut() {
                if inherits(item) {
                    let base = ws_deps
                        .and_then(|d| d.get(name.get()))
                        .ok_or_else(|| format!("workspace.dependencies.{} missing", name.get()))?;
                    *item = merged(base, item);
                    rebase_path(item, krate);
                }
            }
        }
    }
    // The workspace's lints are vkgen's conventions, not the vendor's build's.
    doc.remove("lints");
    // The copy is a member of the vendor's workspace (so that `cargo package` packages it with
    // the crate), so their `cargo test` would run it: its unit tests are vkgen's, run by
    // vkgen's CI, and their dev-dependencies are not the vendor's to build.
    doc.remove("dev-dependencies");
    let lib = doc
        .entry("lib")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or("[lib] is not a table")?;
    lib.insert("test", toml_edit::value(false));
    lib.insert("doctest", toml_edit::value(false));
    // The copy carries a package's sources, not its benches (as the published package): a
    // declared bench target would name a file that is not there.
    doc.remove("bench");
    Ok(format!(
        "# Vendored by `vkgen driver` from vkgen's {krate}: rewritten on every run, do not edit.\n{doc}"
    ))
}

/// A workspace dependency's `path` (the workspace root's: `runtime/abi`) as member `krate`'s
/// (`../../runtime/abi`): the copy keeps the checkout's layout, so it stays valid there.
fn rebase_path(item: &mut Item, krate: &str) {
    let Some(path) = item.get_mut("path") else {
        return;
    };
    if let Some(p) = path.as_str() {
        let up = "../".repeat(krate.split('/').count());
        *path = toml_edit::value(format!("{up}{p}"));
    }
}

/// Whether a manifest entry is `x.workspace = true` / `x = { workspace = true, … }`.
fn inherits(item: &Item) -> bool {
    item.as_table_like()
        .and_then(|t| t.get("workspace"))
        .and_then(Item::as_bool)
        .unwrap_or(false)
}

/// The workspace's declaration of a dependency, with the member's own keys on top (features
/// add to the workspace's, as Cargo merges them).
fn merged(base: &Item, member: &Item) -> Item {
    let mut table = toml_edit::InlineTable::new();
    match base {
        Item::Value(Value::String(v)) => {
            table.insert("version", Value::from(v.value().as_str()));
        }
        Item::Value(Value::InlineTable(t)) => {
            for (k, v) in t.iter() {
                table.insert(k, v.clone());
            }
        }
        Item::Table(t) => {
            for (k, v) in t.iter() {
                if let Some(v) = v.as_value() {
                    table.insert(k, v.clone());
                }
            }
        }
        _ => {}
    }
    if let Some(own) = member.as_table_like() {
        for (k, v) in own.iter() {
            let Some(v) = v.as_value() else { continue };
            match k {
                "workspace" => {}
                "features" => {
                    let mut all = table
                        .get("features")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    if let Some(extra) = v.as_array() {
                        for f in extra.iter() {
                            all.push(f.clone());
                        }
                    }
                    table.insert("features", Value::Array(all));
                }
                _ => {
                    table.insert(k, v.clone());
                }
            }
        }
    }
    Item::Value(Value::InlineTable(table))
}

/// `VENDORED.txt`: what the copy is (its files' SHA-256, so an unchanged runtime stays fresh
/// across vkgen commits) and how to refresh it.
fn provenance(sha256: &str) -> String {
    let mut text = format!(
        "vkgen driver runtime, vendored by `vkgen driver` (vkgen {})\nsha256 {sha256}\ncrates:\n",
        env!("CARGO_PKG_VERSION")
    );
    for c in CRATES {
        text.push_str(&format!("  {c}\n"));
    }
    text.push_str(
        "Refresh with `vkgen driver --name <name> --out <this crate>`; edit nothing here.\n",
    );
    text
}
