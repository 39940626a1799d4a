//! `vkgen driver --check`: does the crate's `Cargo.toml` build on the runtime its run chose
//! (issue 36 item 8)?
//!
//! `Cargo.toml` is the vendor's: written once, never rewritten. So a crate scaffolded with the
//! vendored runtime and re-run with `--runtime version` (or `git+URL#REV`) keeps building on
//! `vendor/vkgen/` — which vkgen then no longer refreshes nor compares — while `vkgen.toml`
//! records the new form; `--check` compared only vkgen's files and said "up to date" over a
//! modified copy. Here the manifest's `vkgen-driver` dependency (by key, or renamed with
//! `package = "vkgen-driver"`) is read and compared with the one the run's [`Runtime`] writes:
//! a path by where it leads (lexically, from the crate), a version by its requirement, git by
//! URL and revision. A mismatch is a located message saying what to change; and whatever the
//! run chose, a manifest that builds on the vendored copy gets the copy compared (so a copy
//! edited or left from an older vkgen is reported file by file).
//!
//! A dependency inherited from a workspace (`workspace = true`) is not judged: its source is
//! the workspace's manifest, not the crate's.

use std::path::{Component, Path, PathBuf};

use toml_edit::{DocumentMut, Item};

use crate::error::{Error, Result};
use crate::runtime_form::Runtime;

/// The largest `Cargo.toml` read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Where a `vkgen-driver` dependency comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A path, made absolute from the crate and normalised.
    Path(PathBuf),
    /// A registry version requirement.
    Version(String),
    /// A git repository, at a revision (or a branch or tag, or none).
    Git { url: String, rev: Option<String> },
    /// `workspace = true`: the workspace's.
    Workspace,
}

/// What `--check` found about the crate's runtime.
#[derive(Debug, Default)]
pub struct Finding {
    /// The manifest builds on something other than the run's runtime: what to change.
    pub mismatch: Option<String>,
    /// The manifest builds on the vendored copy (`vendor/vkgen`), whatever the run chose.
    pub builds_on_vendored: bool,
}

/// Compares `crate_dir`'s `Cargo.toml` with `runtime`'s dependency, `expected` (the TOML the
/// scaffold writes: `Runtime::dependency`). No manifest yet: nothing to compare.
pub fn check(crate_dir: &Path, runtime: &Runtime, expected: &str) -> Result<Finding> {
    let path = crate_dir.join("Cargo.toml");
    let text = match crate::input::read_regular_text(&path, MAX_MANIFEST_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Finding::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |what: String| Error::Options(format!("{}: {what}", path.display()));
    let doc: DocumentMut = text.parse().map_err(|e| bad(format!("not TOML: {e}")))?;
    let Some(found) = dependency(&doc).and_then(|d| source(d, crate_dir)) else {
        return Ok(Finding {
            mismatch: Some(format!(
                "{} has no vkgen-driver dependency vkgen can read; the scaffold's is \
                 `vkgen-driver = {expected}` (--runtime {runtime})",
                path.display()
            )),
            builds_on_vendored: false,
        });
    };
    let want_doc: DocumentMut = format!("d = {expected}")
        .parse()
        .map_err(|e| Error::Options(format!("the scaffold's dependency {expected}: {e}")))?;
    let want = source(&want_doc["d"], crate_dir);
    let vendored = normalise(&crate_dir.join(crate::vendor::DIR).join("runtime/driver"));
    let builds_on_vendored = found == Source::Path(vendored);
    let mismatch = (found != Source::Workspace && Some(&found) != want.as_ref()).then(|| {
        let mut m = format!(
            "{} builds on vkgen-driver {}, but this run's --runtime {runtime} (recorded in \
             vkgen.toml) is `vkgen-driver = {expected}`: Cargo.toml is yours and vkgen never \
             rewrites it, so change its dependency to that (or re-run vkgen driver with the \
             --runtime the manifest uses)",
            path.display(),
            describe(&found, crate_dir),
        );
        if builds_on_vendored && *runtime != Runtime::Vendored {
            m.push_str(&format!(
                "; {} is not refreshed by --runtime {runtime}: delete it once Cargo.toml no \
                 longer names it",
                crate::vendor::DIR
            ));
        }
        m
    });
    Ok(Finding {
        mismatch,
        builds_on_vendored,
    })
}

/// The `vkgen-driver` entry of `[dependencies]`, by key or by `package`.
fn dependency(doc: &DocumentMut) -> Option<&Item> {
    let deps = doc.get("dependencies")?.as_table_like()?;
    if let Some(d) = deps.get("vkgen-driver") {
        return Some(d);
    }
    deps.iter().map(|(_, d)| d).find(|d| {
        d.as_table_like()
            .and_then(|t| t.get("package"))
            .and_then(Item::as_str)
            == Some("vkgen-driver")
    })
}

/// Where dependency `item` comes from, paths resolved from `crate_dir`.
fn source(item: &Item, crate_dir: &Path) -> Option<Source> {
    if let Some(v) = item.as_str() {
        return Some(Source::Version(v.trim().to_owned()));
    }
    let t = item.as_table_like()?;
    let get = |k: &str| t.get(k).and_then(Item::as_str).map(str::to_owned);
    if t.get("workspace").and_then(Item::as_bool) == Some(true) {
        return Some(Source::Workspace);
    }
    if let Some(p) = get("path") {
        return Some(Source::Path(normalise(&crate_dir.join(p))));
    }
    if let Some(url) = get("git") {
        let rev = get("rev").or_else(|| get("tag")).or_else(|| get("branch"));
        return Some(Source::Git { url, rev });
    }
    get("version").map(|v| Source::Version(v.trim().to_owned()))
}

fn describe(s: &Source, crate_dir: &Path) -> String {
    match s {
        Source::Path(p) => {
            let shown = p.strip_prefix(normalise(crate_dir)).unwrap_or(p);
            format!("from the path {}", shown.display())
        }
        Source::Version(v) => format!("version \"{v}\" from a registry"),
        Source::Git { url, rev } => {
            format!("from git {url} at {}", rev.as_deref().unwrap_or("HEAD"))
        }
        Source::Workspace => "from its workspace".to_owned(),
    }
}

/// `p` with `.` and `..` resolved lexically (the crate may not be built yet, so nothing is
/// canonicalised), made absolute from the current directory when relative.
fn normalise(p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(dep: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("[package]\nname = \"x\"\n\n[dependencies]\n{dep}\n");
        std::fs::write(dir.path().join("Cargo.toml"), text).unwrap();
        dir
    }

    #[test]
    fn sources_compare_by_where_they_lead() {
        let vendored = Runtime::Vendored.dependency(crate::vendor::DIR);
        let d = manifest(
            r#"vkgen-driver = { path = "./vendor/vkgen/../vkgen/runtime/driver", features = ["x"] }"#,
        );
        let f = check(d.path(), &Runtime::Vendored, &vendored).unwrap();
        assert!(f.mismatch.is_none() && f.builds_on_vendored, "{f:?}");
        let version = Runtime::Version.dependency("");
        let f = check(d.path(), &Runtime::Version, &version).unwrap();
        let m = f.mismatch.unwrap();
        assert!(
            m.contains("from the path vendor/vkgen/runtime/driver"),
            "{m}"
        );
        assert!(
            m.contains("--runtime version") && m.contains("delete it"),
            "{m}"
        );
        let d = manifest(&format!(
            "kit = {{ package = \"vkgen-driver\", version = {version} }}"
        ));
        assert!(check(d.path(), &Runtime::Version, &version)
            .unwrap()
            .mismatch
            .is_none());
        let git: Runtime = "git+https://e.org/v.git#abc".parse().unwrap();
        let d = manifest(r#"vkgen-driver = { git = "https://e.org/v.git", rev = "abd" }"#);
        let m = check(d.path(), &git, &git.dependency(""))
            .unwrap()
            .mismatch
            .unwrap();
        assert!(m.contains("at abd"), "{m}");
        let d = manifest("vkgen-driver.workspace = true");
        assert!(check(d.path(), &git, &git.dependency(""))
            .unwrap()
            .mismatch
            .is_none());
        let d = manifest("other = \"1\"");
        assert!(check(d.path(), &git, &git.dependency(""))
            .unwrap()
            .mismatch
            .is_some());
        let none = tempfile::tempdir().unwrap();
        assert!(check(none.path(), &git, &git.dependency(""))
            .unwrap()
            .mismatch
            .is_none());
    }
}
