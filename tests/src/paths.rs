//! Where things are: the workspace, the cargo target directory, the loaders under test,
//! lavapipe, the Khronos validation layer, vulkaninfo and the compiled shaders.
//!
//! Functions that look for something installed return `Err` with an install hint when it is
//! missing; tests turn that into a failure ([`crate::require`]), never a skip.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// Environment variable that points [`loader_under_test`] at another loader library instead
/// of ours (for instance Debian's `libvulkan.so.1`, to check the tests themselves). It lives in
/// [`crate::env`], which passes it on to children.
pub use crate::env::LOADER_OVERRIDE_VAR;

/// The workspace root (the directory holding the root `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .expect("tests/ crate lives directly inside the workspace root")
        .to_path_buf()
}

/// The cargo target directory: `$CARGO_TARGET_DIR` when set (relative values are taken
/// relative to the workspace root), else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        _ => workspace_root().join("target"),
    }
}

/// The profile output directory this test binary was built into (`target/<profile>`,
/// or `target/<triple>/<profile>` when cross-building).
///
/// Found from the running executable, which cargo places in `target/<profile>/deps/`; when
/// the executable is not in a `deps` directory, falls back to
/// `target_dir()/{debug,release}` by `debug_assertions`.
pub fn profile_dir() -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        let deps = exe.parent()?;
        if deps.file_name()? != "deps" {
            return None;
        }
        Some(deps.parent()?.to_path_buf())
    });
    from_exe.unwrap_or_else(|| {
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        target_dir().join(profile)
    })
}

/// Our loader: `<profile dir>/libvulkan.so`, the `cdylib` of `vkgen-loader` built with the
/// same profile as the running tests. Does not check that it exists; see
/// [`loader_under_test`].
pub fn our_loader() -> PathBuf {
    profile_dir().join("libvulkan.so")
}

/// One of vkgen's reference drivers (`null`, `host`): `<profile dir>/libvulkan_<name>.so`, built
/// by `cargo build --workspace` with the profile of the running tests. Panics with the build
/// command when it is missing.
pub fn reference_driver(name: &str) -> PathBuf {
    let lib = profile_dir().join(format!("libvulkan_{name}.so"));
    assert!(
        lib.is_file(),
        "{} not built: run `cargo build --release --workspace`",
        lib.display()
    );
    lib
}

/// The cargo command that builds [`our_loader`] for the profile of the running tests.
pub fn our_loader_build_command() -> String {
    let dir = profile_dir();
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "cargo build -p vkgen-loader".to_owned(),
        Some("release") => "cargo build --release -p vkgen-loader".to_owned(),
        Some(other) => format!("cargo build --profile {other} -p vkgen-loader"),
        None => "cargo build -p vkgen-loader".to_owned(),
    }
}

/// The loader library the `our_loader` tests run against: `$VKGEN_TEST_LOADER` when set
/// (loudly reported on stderr), else [`our_loader`]. Errors, with the build command, when
/// the library does not exist.
pub fn loader_under_test() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(LOADER_OVERRIDE_VAR).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        eprintln!(
            "NOTE: {LOADER_OVERRIDE_VAR} is set: testing {} instead of our loader {}",
            path.display(),
            our_loader().display()
        );
        if !path.is_file() {
            return Err(format!(
                "{LOADER_OVERRIDE_VAR}={} does not name a file",
                path.display()
            ));
        }
        return Ok(path);
    }
    let path = our_loader();
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "our loader not built: {} does not exist; run `{}` first",
            path.display(),
            our_loader_build_command()
        ))
    }
}

/// Debian's multiarch library directory for this architecture (`/usr/lib/x86_64-linux-gnu`).
pub fn system_lib_dir() -> PathBuf {
    PathBuf::from(format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH))
}

/// Debian's Vulkan loader, `libvulkan.so.1` (package `libvulkan1`).
pub fn system_loader() -> Result<PathBuf, String> {
    existing(
        system_lib_dir().join("libvulkan.so.1"),
        "Debian's Vulkan loader",
        "apt-get install libvulkan1",
    )
}

/// Lavapipe's ICD manifest (`/usr/share/vulkan/icd.d/lvp_icd.<arch>.json`), after checking
/// that the driver library it names exists too.
pub fn lavapipe_manifest() -> Result<PathBuf, String> {
    const HINT: &str = "apt-get install mesa-vulkan-drivers";
    let manifest = existing(
        PathBuf::from(format!(
            "/usr/share/vulkan/icd.d/lvp_icd.{}.json",
            std::env::consts::ARCH
        )),
        "the lavapipe ICD manifest",
        HINT,
    )?;
    existing(
        library_of_manifest(&manifest)?,
        "the lavapipe driver named by its manifest",
        HINT,
    )?;
    Ok(manifest)
}

/// The lavapipe driver library its manifest names.
pub fn lavapipe_library() -> Result<PathBuf, String> {
    library_of_manifest(&lavapipe_manifest()?)
}

/// The library an ICD manifest names (`ICD.library_path`, relative paths against the manifest's
/// directory).
fn library_of_manifest(manifest: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", manifest.display()))?;
    let library = json
        .pointer("/ICD/library_path")
        .and_then(|v| v.as_str())
        .ok_or_else(|| format!("{} has no ICD.library_path", manifest.display()))?;
    let library = Path::new(library);
    Ok(if library.is_absolute() {
        library.to_path_buf()
    } else {
        manifest
            .parent()
            .expect("manifest has a parent")
            .join(library)
    })
}

/// The environment that makes a Khronos loader (and, by the same variable, ours) see
/// lavapipe as its only driver: `VK_DRIVER_FILES=<lavapipe manifest>`.
pub fn lavapipe_env() -> Result<crate::env::Env, String> {
    Ok(crate::env::Env::new().set("VK_DRIVER_FILES", lavapipe_manifest()?))
}

/// The Khronos validation layer library, `libVkLayer_khronos_validation.so`.
pub fn validation_layer_lib() -> Result<PathBuf, String> {
    existing(
        system_lib_dir().join("libVkLayer_khronos_validation.so"),
        "the Khronos validation layer",
        "apt-get install vulkan-validationlayers",
    )
}

/// The Khronos validation layer's manifest, as installed for Khronos loaders.
pub fn validation_layer_manifest() -> Result<PathBuf, String> {
    existing(
        PathBuf::from("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"),
        "the Khronos validation layer manifest",
        "apt-get install vulkan-validationlayers",
    )
}

/// `vulkaninfo`, found on `PATH`.
pub fn vulkaninfo_bin() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("vulkaninfo"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| "vulkaninfo not found on PATH: apt-get install vulkan-tools".to_owned())
}

/// The names of all compiled shaders (`<stem>.<stage>`, e.g. `fill.comp`).
pub fn shader_names() -> Vec<&'static str> {
    SHADERS.iter().map(|(name, _)| *name).collect()
}

/// The SPIR-V words of a shader compiled by build.rs from `tests/shaders/<name>`, where
/// `name` is `<stem>.<stage>` (`"fill.comp"`, `"triangle.vert"`, `"triangle.frag"`).
///
/// # Panics
/// When no such shader was compiled (a typo in the test, not an environment problem).
pub fn shader(name: &str) -> Vec<u32> {
    let (_, bytes) = SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no shader {name:?}; compiled shaders: {:?}", shader_names()));
    assert!(
        bytes.chunks_exact(4).remainder().is_empty(),
        "{name}: SPIR-V size not a multiple of 4"
    );
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(
        words.first(),
        Some(&0x0723_0203),
        "{name}: bad SPIR-V magic"
    );
    words
}

fn existing(path: PathBuf, what: &str, hint: &str) -> Result<PathBuf, String> {
    if path.exists() {
        Ok(path)
    } else {
        Err(format!("{what} is missing ({}): {hint}", path.display()))
    }
}

/// Copies the files below `from` to `to`, creating directories (a crate moved outside the
/// checkout, as a vendor's repository holds it).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy's directory");
    for entry in std::fs::read_dir(from).expect("read the directory to copy") {
        let entry = entry.expect("a directory entry");
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy a file");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shaders_are_compiled() {
        let mut names = shader_names();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "fill.comp",
                "planes_to_rgba.comp",
                "triangle.frag",
                "triangle.vert",
                "ycbcr_sample.comp"
            ]
        );
        for name in names {
            let words = shader(name);
            assert!(words.len() > 5, "{name}: only {} words", words.len());
        }
    }

    #[test]
    fn profile_dir_is_parent_of_deps() {
        let exe = std::env::current_exe().expect("current_exe");
        assert_eq!(exe.parent().unwrap().file_name().unwrap(), "deps");
        assert_eq!(profile_dir(), exe.parent().unwrap().parent().unwrap());
        assert_eq!(our_loader(), profile_dir().join("libvulkan.so"));
    }

    #[test]
    fn workspace_root_has_workspace_manifest() {
        let text = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(text.contains("[workspace]"));
    }
}
