//! The native-buffer adapter through the C ABI: our loader links no driver code; it hands each
//! Khronos ICD it scanned to the host driver installed beside it (`libvulkan_host.so`, entry
//! point `vkgen_host_adapt_icd`), which serves every such ICD with entry points of its own.
//! Two ICDs at once are both served: each device gets `VK_KHR_swapchain` (which our loader
//! offers only on `VK_ANDROID_native_buffer`) and runs the compute round trip on its own ICD.

mod common;

use std::ffi::CStr;
use std::path::{Path, PathBuf};

use ash::vk;
use common::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{compute, paths, require, scenarios};

/// Libraries mapped into this process whose path ends with `suffix`.
fn mapped(suffix: &str) -> Vec<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    let mut out: Vec<PathBuf> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| p.ends_with(suffix))
        .map(PathBuf::from)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Two copies of lavapipe, each behind a manifest of its own: two ICDs to the loader (and to
/// the dynamic linker, which maps each file separately).
fn two_lavapipes(root: &Path) -> Vec<PathBuf> {
    let lavapipe = require(paths::lavapipe_library());
    ["a", "b"]
        .iter()
        .map(|name| {
            let dir = root.join(name);
            std::fs::create_dir_all(&dir).expect("create an ICD dir");
            let copy = dir.join("libvulkan_lvp.so");
            std::fs::copy(&lavapipe, &copy).expect("copy lavapipe");
            icd_manifest(&dir, "lvp.json", &copy)
        })
        .collect()
}

fn has_extension(instance: &ash::Instance, pd: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: a physical device of the live instance.
    unsafe { instance.enumerate_device_extension_properties(pd) }
        .expect("vkEnumerateDeviceExtensionProperties")
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

#[test]
fn two_icds_at_once_are_both_served_through_the_host_driver() {
    let root = tempfile::tempdir().unwrap();
    let manifests = two_lavapipes(root.path());
    let env = isolated_env(&root, &manifests);
    in_child(
        "two_icds_at_once_are_both_served_through_the_host_driver",
        &env,
        || {
            let entry = require(compute::load_entry(&paths::our_loader()));
            let instance = compute::create_instance(&entry, &[], &[]).expect("vkCreateInstance");
            // SAFETY: a live instance.
            let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
            assert_eq!(devices.len(), 2, "one device per lavapipe copy");
            for &pd in &devices {
                assert!(
                    has_extension(&instance, pd, ash::khr::swapchain::NAME),
                    "a device without VK_KHR_swapchain: its ICD was not served by the adapter"
                );
                let got = require(compute::run_fill_compute_on(
                    &instance,
                    pd,
                    scenarios::FILL_N,
                    5,
                ));
                require(compute::verify_fill(&got, scenarios::FILL_N, 5));
            }
            // SAFETY: every child object is gone.
            unsafe { instance.destroy_instance(None) };
            let host = mapped("/libvulkan_host.so");
            let expected = paths::our_loader()
                .with_file_name("libvulkan_host.so")
                .canonicalize()
                .unwrap();
            assert_eq!(
                host,
                vec![expected],
                "the host driver beside our loader serves them"
            );
            assert_eq!(mapped("/libvulkan_lvp.so").len(), 2, "both ICDs are loaded");
        },
    );
}

#[test]
fn without_the_host_driver_icds_are_used_as_they_are() {
    let root = tempfile::tempdir().unwrap();
    let manifests = two_lavapipes(root.path());
    // A host-driver path that does not exist: the loader goes on with the ICDs as they are.
    let env = isolated_env(&root, &manifests).set("VKGEN_HOST_DRIVER", root.path().join("none.so"));
    in_child(
        "without_the_host_driver_icds_are_used_as_they_are",
        &env,
        || {
            let entry = require(compute::load_entry(&paths::our_loader()));
            let instance = compute::create_instance(&entry, &[], &[]).expect("vkCreateInstance");
            // SAFETY: a live instance.
            let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
            assert_eq!(devices.len(), 2);
            for &pd in &devices {
                assert!(!has_extension(&instance, pd, ash::khr::swapchain::NAME));
                let got = require(compute::run_fill_compute_on(
                    &instance,
                    pd,
                    scenarios::FILL_N,
                    3,
                ));
                require(compute::verify_fill(&got, scenarios::FILL_N, 3));
            }
            // SAFETY: every child object is gone.
            unsafe { instance.destroy_instance(None) };
            assert!(mapped("/libvulkan_host.so").is_empty());
        },
    );
}

/// `libvulkan.so` copied alone (as a user, or a distribution packaging "the loader", would):
/// Khronos ICDs lose `VK_KHR_swapchain`, and the loader says why once per process at `warn`,
/// naming the paths it searched beside itself, however many devices are asked.
#[test]
fn a_loader_copied_without_its_host_driver_warns_once_naming_the_paths_searched() {
    const SCENARIO: &str =
        "a_loader_copied_without_its_host_driver_warns_once_naming_the_paths_searched";
    const COPY_VAR: &str = "VKGEN_TEST_LOADER_COPY";
    if vkgen_tests::env::child_scenario().as_deref() == Some(SCENARIO) {
        let copy = PathBuf::from(std::env::var_os(COPY_VAR).expect("the copy's path"));
        let entry = require(compute::load_entry(&copy));
        let instance = compute::create_instance(&entry, &[], &[]).expect("vkCreateInstance");
        // SAFETY: a live instance.
        let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
        assert_eq!(devices.len(), 2);
        for _ in 0..2 {
            for &pd in &devices {
                assert!(!has_extension(&instance, pd, ash::khr::swapchain::NAME));
            }
        }
        // SAFETY: every child object is gone.
        unsafe { instance.destroy_instance(None) };
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let manifests = two_lavapipes(root.path());
    let alone = root.path().join("alone");
    std::fs::create_dir(&alone).unwrap();
    let copy = alone.join("libvulkan.so.1");
    std::fs::copy(paths::our_loader(), &copy).expect("copy our loader");
    let env = isolated_env(&root, &manifests)
        .set("VKGEN_LOG", "warn")
        .set(COPY_VAR, &copy);
    let out = vkgen_tests::env::run_child(SCENARIO, &env);
    require(vkgen_tests::env::check_child(SCENARIO, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("has no VK_ANDROID_native_buffer and no"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning per process:\n{stderr}");
    assert!(warnings[0].contains("WARN"), "{}", warnings[0]);
    for name in ["libvulkan_host.so", "vulkan.host.so"] {
        let searched = alone.join(name);
        assert!(
            warnings[0].contains(&searched.display().to_string()),
            "the warning does not name {}: {}",
            searched.display(),
            warnings[0]
        );
    }
}
