//! Issue 25: a lying or broken Khronos ICD never kills an application. The fixture ICD of
//! `common` is built with one lie at a time (`LIE_*`, plus `ADAPTABLE` so that the
//! native-buffer adapter takes it) and used on the three paths an ICD is used on: plain
//! (`VKGEN_ICD_ADAPTER=0`), through the adapter (the default on hosts), and by `vulkan.host.so`
//! (`VKGEN_HOST_ICD`). Each run is a child process that creates an instance, enumerates and
//! queries every physical device, creates a device and gets its queue: every step may fail
//! with a `VkResult`, none may crash, hang or hand the application more entries than it
//! asked for. With lavapipe installed beside the liar, lavapipe's device still works.

mod common;
mod wsi_support;

use std::path::{Path, PathBuf};

use ash::vk;
use common::*;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::{compute, paths, require};

/// The lies, each a set of `-D` switches (with `ADAPTABLE` added).
const LIES: &[&[&str]] = &[
    &[],
    &["PD_COUNT_LIE=1000000"],
    &["LIE_PD_HUGE"],
    &["LIE_PD_INCOMPLETE"],
    &["LIE_EXT_COUNT=100000"],
    &["LIE_EXT_HUGE"],
    &["LIE_EXT_INCOMPLETE"],
    &["LIE_NULL_INSTANCE"],
    &["LIE_NULL_DEVICE"],
    &["LIE_NULL_PROPS"],
    &["LIE_NULL_DEVICE_CMDS"],
    &["CREATE_FAILS"],
    &["NO_ENUMERATE"],
];

/// The paths an ICD is used on.
#[derive(Clone, Copy, Debug)]
enum Path3 {
    Plain,
    Adapter,
    HostDriver,
}

/// The fixture ICD with `lie`, behind a manifest in `dir`.
fn liar(dir: &Path, lie: &[&str]) -> PathBuf {
    let mut defines = vec!["ADAPTABLE"];
    defines.extend_from_slice(lie);
    let library = fixture_icd(&defines);
    icd_manifest(dir, "liar.json", &library)
}

/// The environment of `path` with `manifests` installed (for the host driver: the first is its
/// ICD, and no loader ICD is installed).
fn env_for(
    path: Path3,
    root: &tempfile::TempDir,
    manifests: &[PathBuf],
) -> (Env, Option<tempfile::TempDir>) {
    match path {
        Path3::Plain => (
            isolated_env(root, manifests).set("VKGEN_ICD_ADAPTER", "0"),
            None,
        ),
        Path3::Adapter => (isolated_env(root, manifests), None),
        Path3::HostDriver => {
            let (env, hal) = wsi_support::hal_env("host", "");
            (env.set("VKGEN_HOST_ICD", &manifests[0]), Some(hal))
        }
    }
}

/// The most entries a sane enumeration of the fixture gives.
const SANE: usize = 64;

/// What each child does; answers the names of the devices it could create.
fn exercise(entry: &ash::Entry) -> Vec<String> {
    let mut working = Vec::new();
    let Ok(instance) = compute::create_instance(entry, &[], &[]) else {
        return working;
    };
    // SAFETY: plain Vulkan use of a live instance; every count is checked against what was
    // asked (ash's two-call helpers trust the count they are given).
    unsafe {
        let pds = instance.enumerate_physical_devices().unwrap_or_default();
        assert!(pds.len() <= SANE, "{} physical devices", pds.len());
        for pd in pds {
            let props = instance.get_physical_device_properties(pd);
            let families = instance.get_physical_device_queue_family_properties(pd);
            assert!(families.len() <= SANE, "{} queue families", families.len());
            let exts = instance
                .enumerate_device_extension_properties(pd)
                .unwrap_or_default();
            assert!(exts.len() <= 4096, "{} extensions", exts.len());
            let Some(family) = families.iter().position(|f| f.queue_count > 0) else {
                continue;
            };
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family as u32)
                .queue_priorities(&prio)];
            let ci = vk::DeviceCreateInfo::default().queue_create_infos(&qci);
            let Ok(device) = instance.create_device(pd, &ci, None) else {
                continue;
            };
            let _queue = device.get_device_queue(family as u32, 0);
            device.destroy_device(None);
            let name = props.device_name_as_c_str().unwrap_or_default();
            working.push(name.to_string_lossy().into_owned());
        }
        instance.destroy_instance(None);
    }
    working
}

/// Runs every lie on `path` in its own child; with `with_lavapipe`, lavapipe is installed too
/// and must keep working.
fn every_lie_on(path: Path3, with_lavapipe: bool, scenario: &str) {
    let lavapipe = with_lavapipe.then(|| require(paths::lavapipe_manifest()));
    for lie in LIES {
        // A child runs the one lie its parent gave it.
        if std::env::var("VKGEN_TEST_LIE").is_ok_and(|l| l != lie.join(" ")) {
            continue;
        }
        let root = tempfile::tempdir().unwrap();
        let mut manifests = vec![liar(root.path(), lie)];
        manifests.extend(lavapipe.clone());
        let (env, _hal) = env_for(path, &root, &manifests);
        let env = env.set("VKGEN_TEST_LIE", lie.join(" "));
        in_child(scenario, &env, || {
            let lie = std::env::var("VKGEN_TEST_LIE").unwrap_or_default();
            let entry = require(compute::load_entry(&paths::our_loader()));
            let working = exercise(&entry);
            eprintln!("{path:?} [{lie}]: devices that worked: {working:?}");
            if with_lavapipe {
                assert!(
                    working.iter().any(|n| n.contains("llvmpipe")),
                    "[{lie}] lavapipe's device stopped working: {working:?}"
                );
            }
        });
    }
}

#[test]
fn every_lie_plain() {
    every_lie_on(Path3::Plain, false, "every_lie_plain");
}

#[test]
fn every_lie_through_the_adapter() {
    every_lie_on(Path3::Adapter, false, "every_lie_through_the_adapter");
}

#[test]
fn every_lie_through_the_host_driver() {
    every_lie_on(
        Path3::HostDriver,
        false,
        "every_lie_through_the_host_driver",
    );
}

#[test]
fn every_lie_beside_lavapipe_plain() {
    every_lie_on(Path3::Plain, true, "every_lie_beside_lavapipe_plain");
}

#[test]
fn every_lie_beside_lavapipe_through_the_adapter() {
    every_lie_on(
        Path3::Adapter,
        true,
        "every_lie_beside_lavapipe_through_the_adapter",
    );
}

/// Issue 25: a queue-family count larger than the application's array (the fixture fills one
/// family and claims 100000) is clamped to the array, on all three paths: the loader bounds
/// what one driver answers, and the host driver what its ICD answers.
#[test]
fn queue_family_over_count_is_clamped() {
    for path in [Path3::Plain, Path3::Adapter, Path3::HostDriver] {
        if std::env::var("VKGEN_TEST_PATH").is_ok_and(|p| p != format!("{path:?}")) {
            continue;
        }
        let root = tempfile::tempdir().unwrap();
        let manifests = [liar(root.path(), &["LIE_QF_COUNT=100000"])];
        let (env, _hal) = env_for(path, &root, &manifests);
        let env = env.set("VKGEN_TEST_PATH", format!("{path:?}"));
        in_child("queue_family_over_count_is_clamped", &env, || {
            let entry = require(compute::load_entry(&paths::our_loader()));
            let working = exercise(&entry);
            assert!(!working.is_empty(), "the liar's device stopped working");
        });
    }
}
