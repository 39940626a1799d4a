//! The baseline tests against our loader, `target/<profile>/libvulkan.so` (build it with
//! `cargo build -p vkgen-loader`, or `--release` for release-profile tests), plus the
//! Android-style app layer test.
//!
//! `VKGEN_TEST_LOADER=<path>` runs these tests against another loader library instead (for
//! example Debian's, to check the tests: everything but
//! `validation_layer_via_app_layer_path_our_loader` passes with it, since Debian's loader
//! has no `VKGEN_APP_LAYER_PATH`; `system_loader_baseline.rs` checks its `VK_LAYER_PATH`
//! equivalent).
//!
//! Our loader takes its drivers from `VK_DRIVER_FILES` (lavapipe's manifest), like the Khronos
//! loader, once no Android HAL module is found: every test points `VKGEN_HAL_ROOT` at an empty
//! directory so that nothing on the host (a `/vendor/lib64/hw`, a debug layer dir) can interfere.

use tempfile::TempDir;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::{paths, require, scenarios, validation};

/// Lavapipe as the only driver, and an empty Android root. Keep the directory alive until the
/// child has finished.
fn our_env() -> (Env, TempDir) {
    let hal_root = require(validation::empty_dir());
    let env = require(paths::lavapipe_env()).set("VKGEN_HAL_ROOT", hal_root.path());
    (env, hal_root)
}

#[test]
fn fill_compute_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _hal_root) = our_env();
    in_child("fill_compute_our_loader", &env, || {
        scenarios::fill_compute(&loader);
    });
}

#[test]
fn vulkaninfo_our_loader_matches_system_loader() {
    let ours = require(paths::loader_under_test());
    let system = require(paths::system_loader());
    let (env, _hal_root) = our_env();
    let diff = scenarios::vulkaninfo_diff(&system, &ours, &env);
    assert!(
        diff.is_empty(),
        "vulkaninfo --json differs between Debian's loader (a) and {} (b) outside the \
         loader-owned paths:\n{}",
        ours.display(),
        diff.join("\n")
    );
}

/// Debian's Khronos validation layer reached only through `VKGEN_APP_LAYER_PATH` (a directory
/// holding just the symlink `libVkLayer_khronos_validation.so`); `VK_LAYER_PATH` points at an
/// empty directory so that no Khronos-style search can find it.
#[test]
fn validation_layer_via_app_layer_path_our_loader() {
    let loader = require(paths::loader_under_test());
    let app_layers = require(validation::app_layer_dir());
    let empty = require(validation::empty_dir());
    let (env, _hal_root) = our_env();
    let env = env
        .set("VKGEN_APP_LAYER_PATH", app_layers.path())
        .set("VK_LAYER_PATH", empty.path());
    in_child(
        "validation_layer_via_app_layer_path_our_loader",
        &env,
        || {
            scenarios::validation_layer_reachable(&loader);
        },
    );
}

/// Negative control: without `VKGEN_APP_LAYER_PATH` the layer is not offered, and enabling it
/// fails with `VK_ERROR_LAYER_NOT_PRESENT`.
#[test]
fn validation_layer_absent_without_app_layer_path_our_loader() {
    let loader = require(paths::loader_under_test());
    let empty = require(validation::empty_dir());
    let (env, _hal_root) = our_env();
    let env = env.set("VK_LAYER_PATH", empty.path());
    in_child(
        "validation_layer_absent_without_app_layer_path_our_loader",
        &env,
        || scenarios::validation_layer_absent(&loader),
    );
}
