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

/// The names a fixture counter pair (`fixture_<what>_count` / `fixture_<what>_name`) recorded,
/// then reset.
fn recorded_names(library: &Path, what: &str) -> Vec<String> {
    let c = std::ffi::CString::new(library.to_str().unwrap()).unwrap();
    // SAFETY: the fixture is already loaded by our loader (RTLD_NOLOAD runs no initialiser).
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    assert!(!handle.is_null(), "the fixture ICD is not loaded");
    let sym = |s: &str| {
        let s = std::ffi::CString::new(format!("fixture_{what}_{s}")).unwrap();
        // SAFETY: a live handle and a C string.
        let p = unsafe { libc::dlsym(handle, s.as_ptr()) };
        assert!(!p.is_null(), "{s:?} missing");
        p
    };
    // SAFETY: the fixture defines these as `int (void)`, `const char* (int)` and `int (void)`.
    let (count, name, reset) = unsafe {
        (
            std::mem::transmute::<*mut libc::c_void, extern "C" fn() -> i32>(sym("count")),
            std::mem::transmute::<*mut libc::c_void, extern "C" fn(i32) -> *const libc::c_char>(
                sym("name"),
            ),
            std::mem::transmute::<*mut libc::c_void, extern "C" fn() -> i32>(sym("reset")),
        )
    };
    let names = (0..count())
        .map(|i| {
            // SAFETY: the fixture returns its recorded, NUL-terminated name.
            unsafe { CStr::from_ptr(name(i)) }
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    reset();
    // SAFETY: balances the dlopen above.
    unsafe { libc::dlclose(handle) };
    names
}

/// The first name `names` holds twice.
fn repeated(names: &[String]) -> Option<&String> {
    let mut seen = std::collections::HashSet::new();
    names.iter().find(|n| !seen.insert(*n))
}

/// Issue 35: the host driver loads its tables for a new instance and device with the ICD's
/// lookups and answers the loader's lookups of the same names from what it recorded, so an
/// adapted ICD is asked each name at most once per instance and per device (it was asked the
/// instance's and the device's commands two and three times), and the answers still work.
#[test]
fn an_adapted_icd_is_asked_each_name_once_per_instance_and_device() {
    let root = tempfile::tempdir().unwrap();
    let icd = fixture_icd(&["ADAPTABLE", "RECORD_GIPA", "RECORD_GDPA"]);
    let manifest = icd_manifest(root.path(), "fixture.json", &icd);
    let env = isolated_env(&root, &[manifest]);
    in_child(
        "an_adapted_icd_is_asked_each_name_once_per_instance_and_device",
        &env,
        || {
            let entry = require(compute::load_entry(&paths::our_loader()));
            // The first instance also initialises the loader (its global queries).
            let first = compute::create_instance(&entry, &[], &[]).expect("vkCreateInstance");
            recorded_names(&icd, "gipa");
            let instance = compute::create_instance(&entry, &[], &[]).expect("vkCreateInstance");
            let gipa = recorded_names(&icd, "gipa");
            assert!(
                gipa.contains(&"vkEnumeratePhysicalDevices".to_owned()),
                "{gipa:?}"
            );
            assert_eq!(repeated(&gipa), None, "instance lookups: {gipa:?}");
            // SAFETY: a live instance.
            let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
            assert!(
                has_extension(&instance, pd, ash::khr::swapchain::NAME),
                "the adapter serves the fixture"
            );
            recorded_names(&icd, "gdpa");
            let device = require(compute::create_device(&instance, pd, 0));
            let gdpa = recorded_names(&icd, "gdpa");
            assert!(gdpa.contains(&"vkCreateFence".to_owned()), "{gdpa:?}");
            assert_eq!(repeated(&gdpa), None, "device lookups: {gdpa:?}");
            // SAFETY: a live device; the fence is destroyed before it.
            unsafe {
                let _queue = device.get_device_queue(0, 0);
                let fence = device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
                    .expect("vkCreateFence");
                device.destroy_fence(fence, None);
            }
            drop(device);
            drop(instance);
            drop(first);
        },
    );
}
