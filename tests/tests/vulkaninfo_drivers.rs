//! `vulkaninfo` (Debian's 1.3.239) through our loader on every driver vkgen ships and on
//! lavapipe as a Khronos ICD, in all three modes (issue 10's acceptance): exit 0, and the
//! dynamic linker's log shows our `libvulkan.so` and the expected driver were the ones loaded
//! (vulkaninfo opens `libvulkan.so` before `libvulkan.so.1`; both names point at ours). Over the
//! host driver, the device report equals Debian's loader on lavapipe apart from what the loader
//! itself adds (WSI over the native buffer, `VK_EXT_debug_report`) and what the host driver is
//! (a 1.4 loader and a passthrough driver).

mod wsi_support;

use std::path::Path;

use vkgen_tests::env::{controlled_command, output_with_timeout, Env};
use vkgen_tests::{paths, require, vulkaninfo};

const MODES: [&[&str]; 3] = [&[], &["--summary"], &["--json"]];

/// Runs vulkaninfo in `mode` on `loader` (both of its names) with `env`; asserts exit 0 and
/// that our loader and `driver` were the ones initialised.
fn vulkaninfo_ok(loader: &Path, env: &Env, mode: &[&str], driver: &str) {
    let bin = require(paths::vulkaninfo_bin());
    let work = tempfile::tempdir().unwrap();
    let shim = work.path().join("lib");
    std::fs::create_dir(&shim).unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(loader, shim.join(name)).unwrap();
    }
    let mut cmd = controlled_command(&bin, env);
    cmd.current_dir(work.path())
        .args(mode)
        .env("LD_LIBRARY_PATH", &shim)
        .env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", work.path().join("ld"));
    let out = output_with_timeout(&mut cmd, std::time::Duration::from_secs(60)).unwrap();
    assert!(
        out.status.success(),
        "vulkaninfo {mode:?} on {driver}: {}\n{}",
        vkgen_tests::env::describe_status(out.status),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ld = String::new();
    for e in std::fs::read_dir(work.path()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("ld.") {
            ld.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    let ours = format!("calling init: {}", shim.join("libvulkan.so").display());
    assert!(
        ld.contains(&ours),
        "vulkaninfo {mode:?} did not run our loader"
    );
    assert!(
        ld.contains(driver),
        "vulkaninfo {mode:?} did not load {driver}"
    );
}

#[test]
fn vulkaninfo_runs_on_the_null_hal_driver_in_every_mode() {
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let (env, _root) = wsi_support::hal_env("null", "");
    for mode in MODES {
        vulkaninfo_ok(&loader, &env, mode, "vulkan.null.so");
    }
}

#[test]
fn vulkaninfo_runs_on_the_host_hal_driver_in_every_mode() {
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let (env, _root) = wsi_support::hal_env("host", "");
    for mode in MODES {
        vulkaninfo_ok(&loader, &env, mode, "vulkan.host.so");
    }
}

#[test]
fn vulkaninfo_runs_on_lavapipe_as_an_icd_in_every_mode() {
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let env = require(paths::lavapipe_env());
    for mode in MODES {
        vulkaninfo_ok(&loader, &env, mode, "libvulkan_lvp.so");
    }
}

#[test]
fn host_driver_report_equals_lavapipe_on_debians_loader() {
    let ours = require(paths::loader_under_test());
    let system = require(paths::system_loader());
    let (host_env, _root) = wsi_support::hal_env("host", "");
    let a = require(vulkaninfo::run_vulkaninfo(
        &system,
        &require(paths::lavapipe_env()),
    ));
    let b = require(vulkaninfo::run_vulkaninfo(&ours, &host_env));
    // What vulkan.host.so adds to lavapipe for Android interop: AHardwareBuffer memory (with
    // its queue_family_foreign dependency) and the SYNC_FD extensions it emulates.
    let mut ignores = vulkaninfo::default_ignores();
    ignores.extend([
        "capabilities/device/extensions/VK_ANDROID_external_memory_android_hardware_buffer",
        "capabilities/device/extensions/VK_EXT_queue_family_foreign",
        "capabilities/device/extensions/VK_KHR_external_fence_fd",
        "capabilities/device/extensions/VK_KHR_external_semaphore_fd",
    ]);
    let diff = vulkaninfo::diff_reports(&a, &b, &ignores);
    assert!(
        diff.is_empty(),
        "vulkaninfo --json: Debian's loader on lavapipe (a) vs ours on vulkan.host.so (b):\n{}",
        diff.join("\n")
    );
}
