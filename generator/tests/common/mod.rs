//! Shared test helpers: where the registry matrix and the workspace are.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("generator/ has a parent")
        .to_owned()
}

/// `$VKGEN_REGISTRY_DIR`, else `../shared/registry` beside the checkout. Fails loudly when absent:
/// a matrix that silently tests nothing is worse than a red build.
pub fn registry_dir() -> PathBuf {
    let dir = std::env::var_os("VKGEN_REGISTRY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/registry"));
    assert!(
        dir.is_dir(),
        "REGISTRY MATRIX MISSING: {} does not exist; set VKGEN_REGISTRY_DIR to the directory holding vk-<version>.xml",
        dir.display()
    );
    dir
}

pub fn registry(version: &str) -> PathBuf {
    let p = registry_dir().join(format!("vk-{version}.xml"));
    assert!(
        p.is_file(),
        "registry {} missing from the matrix",
        p.display()
    );
    p
}

pub fn options(version: &str) -> vkgen::Options {
    vkgen::Options {
        registry: Some(registry(version)),
        ..Default::default()
    }
}

/// The vk.xml the checked-in `generated/` was generated from: `vk-<REGISTRY_VERSION>.xml` in the
/// matrix (or Debian's vk.xml) whose SHA-256 is the one the crate records. Another file with
/// the same version is not good enough: freshness must be judged against the exact input.
pub fn checked_in_registry() -> PathBuf {
    let (version, sha256) = (
        vkgen_generated::REGISTRY_VERSION,
        vkgen_generated::REGISTRY_SHA256,
    );
    let candidates = [
        registry_dir().join(format!("vk-{version}.xml")),
        PathBuf::from(vkgen::registry::DEBIAN_REGISTRY),
    ];
    for path in &candidates {
        if let Ok(bytes) = std::fs::read(path) {
            if vkgen::registry::sha256_hex(&bytes) == sha256 {
                return path.clone();
            }
        }
    }
    panic!(
        "generated/ records vk.xml {version} with SHA-256 {sha256}; none of {candidates:?} is that file"
    );
}
