//! Driver kit II acceptance (issue 20): the example vendor driver in `docs/examples/copy-engine`
//! — a CPU copy-and-fill engine with a graphics+compute and a transfer-only queue family, host
//! memory and a worker thread per queue, written on the kit's queue core, resource objects and
//! generated recorder — is copied outside the checkout, given its vendored runtime by
//! `vkgen driver`, built there, and passes `client/copy_client.c` (every byte, timeline
//! wait-before-signal across queues, a binary semaphore across queues, a host signal, pool
//! reset and re-record) through Debian's loader (ICD manifest) and through ours (HAL root),
//! with `VK_LAYER_KHRONOS_validation` on and reporting nothing. The dynamic linker's log proves
//! which loader ran.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout, Env};
use vkgen_tests::{paths, require};

mod wsi_support;

const VALIDATION: &str = "VK_LAYER_KHRONOS_validation";

/// Builds the example outside the checkout; returns (the crate's temp dir, the driver library,
/// the client binary).
fn build() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("vkgen-copy-engine-")
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let crate_dir = dir.path().join("copy-engine");
    assert!(!crate_dir.starts_with(paths::workspace_root()));
    paths::copy_tree(
        &paths::workspace_root().join("docs/examples/copy-engine"),
        &crate_dir,
    );
    let vkgen = paths::profile_dir().join("vkgen");
    assert!(vkgen.is_file(), "{} not built", vkgen.display());
    let out = Command::new(&vkgen)
        .args([
            "driver",
            "--name",
            "copy-engine",
            "--api-version",
            "1.3",
            "--out",
        ])
        .arg(&crate_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vkgen driver: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let target = paths::target_dir().join("copy-engine");
    let build = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "the copy engine does not build outside the checkout:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let lib = target.join("debug/libvulkan_copy_engine.so");
    let client = dir.path().join("copy_client");
    let cc = Command::new("gcc")
        .args(["-Wall", "-Wextra", "-Werror", "-O2", "-o"])
        .arg(&client)
        .arg(crate_dir.join("client/copy_client.c"))
        .arg("-lvulkan")
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "gcc copy_client.c:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    (dir, lib, client)
}

/// Runs the client with `env` and `LD_LIBRARY_PATH=lib_dir`; asserts it checked every byte
/// with no validation message and that `loader` is the `libvulkan` the dynamic linker
/// initialised.
fn run_client(client: &Path, env: &Env, lib_dir: &Path, loader: &Path) {
    let work = tempfile::tempdir().unwrap();
    let mut cmd = controlled_command(client, env);
    cmd.env("LD_LIBRARY_PATH", lib_dir)
        .env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", work.path().join("ld"));
    let out = output_with_timeout(&mut cmd, Duration::from_secs(120)).unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "copy_client failed ({}):\n{stdout}\n{stderr}",
        describe_status(out.status)
    );
    assert!(
        stdout.contains("every byte checked") && stdout.contains("; 0 validation messages"),
        "{stdout}\n{stderr}"
    );
    let mut ld = String::new();
    for e in std::fs::read_dir(work.path()).unwrap().flatten() {
        ld.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    let initialised: Vec<PathBuf> = ld
        .lines()
        .filter_map(|l| l.split("calling init: ").nth(1))
        .filter_map(|p| Path::new(p.trim()).canonicalize().ok())
        .collect();
    let expected = loader.canonicalize().unwrap();
    assert!(
        initialised.contains(&expected),
        "{} was not the loader (initialised: {initialised:?})",
        expected.display()
    );
    assert!(
        initialised
            .iter()
            .any(|p| p.to_string_lossy().contains("VkLayer_khronos_validation")),
        "the validation layer was not loaded: {initialised:?}"
    );
}

#[test]
fn the_copy_engine_passes_its_client_through_both_loaders_with_validation() {
    let validation = require(paths::validation_layer_manifest());
    let (dir, lib, client) = build();
    let layers = Env::new()
        .set("VK_LAYER_PATH", validation.parent().unwrap())
        .set("VK_INSTANCE_LAYERS", VALIDATION);

    // Debian's loader, the driver through the ICD manifest `vkgen driver` wrote, installed
    // beside the library as the guide says.
    let system = require(paths::system_loader());
    let install = tempfile::tempdir().unwrap();
    let manifest = install.path().join("copy-engine_icd.json");
    std::fs::copy(
        dir.path().join("copy-engine/copy-engine_icd.json"),
        &manifest,
    )
    .unwrap();
    std::fs::copy(&lib, install.path().join("libvulkan_copy_engine.so")).unwrap();
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(r#""api_version": "1.3.0""#), "{text}");
    let icd = layers.clone().set("VK_DRIVER_FILES", &manifest);
    run_client(&client, &icd, &paths::system_lib_dir(), &system);

    // Our loader, the driver as the HAL module `vulkan.copy-engine.so`.
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let shim = tempfile::tempdir().unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&loader, shim.path().join(name)).unwrap();
    }
    let (hal, _root) = wsi_support::hal_env_for(&lib, "copy-engine", "");
    run_client(&client, &hal.with(&layers), shim.path(), &loader);
}
