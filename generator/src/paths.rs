//! Path questions the driver scaffold asks about directories that may not exist yet: is the
//! crate inside the vkgen checkout, and how does it name the checkout or its registry
//! relatively. One resolution ([`resolved`]) answers all of them, so symlinks and `..` never
//! make two of them disagree.

use std::path::{Path, PathBuf};

/// `to` as a path relative to `from` (a directory that may not exist yet), `/`-separated; both
/// resolved as [`resolved`] does, so symlinks and `..` do not make a wrong path.
pub fn relative_path(from: &Path, to: &Path) -> String {
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
pub fn is_inside(dir: &Path, root: &Path) -> bool {
    resolved(dir).starts_with(resolved(root))
}

/// `p` made absolute with its longest existing ancestor canonicalized (`p` may not exist yet):
/// the one form both path questions above compare.
pub fn resolved(p: &Path) -> PathBuf {
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
