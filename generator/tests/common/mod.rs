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
