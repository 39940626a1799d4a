//! Issue 22: `vkCreateDevice` asks the driver only for the commands the device can expose —
//! core up to its effective API version (the lower of the application's `apiVersion` and the
//! physical device's), the commands of the extensions enabled on it and of the extensions those
//! depend on — plus what the loader itself needs of the driver. The fixture HAL driver records
//! every name its `vkGetDeviceProcAddr` is asked for (`RECORD_GDPA`); the expected list is
//! derived here from the registry tables, independently of the loader's own code, for a 1.1,
//! 1.3 and 1.4 device, each with and without extensions.
//!
//! The fixture answers only the five device commands it implements, so every exposable name of
//! a command is asked (aliases included) and each exactly once. Afterwards `vkGetDeviceProcAddr`
//! answers those names without asking the driver again.

mod common;

use std::collections::BTreeSet;
use std::ffi::{c_char, CStr};
use std::path::Path;

use ash::vk;
use common::*;
use vkgen_generated::commands::{self, Level, Origin};
use vkgen_generated::extensions::{self as ext, ExtensionId};
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

/// What the terminator asks the driver for itself, for every device (`DeviceProcs`), and the
/// loader once per device without layers: `vkgenGetDeviceProcAddrs`, a vkgen driver's batch
/// lookup (this fixture, like every other driver, answers the unknown name NULL, so the table's
/// names are then asked one by one).
const LOADER_NEEDS: [&str; 6] = [
    "vkDestroyDevice",
    "vkGetDeviceQueue",
    "vkGetDeviceQueue2",
    "vkAllocateCommandBuffers",
    "vkFreeCommandBuffers",
    "vkgenGetDeviceProcAddrs",
];

/// The names the terminator answers without asking the driver: the loader's device hooks
/// (`vkGetDeviceQueue2` is the hook only where the driver has it, and the fixture has not),
/// `vkFreeCommandBuffers` (the driver's, from [`LOADER_NEEDS`]) and its swapchain's (`VK_KHR_device_group`, a dependency below, brings in
/// two of them).
const TERMINATOR_ANSWERS: [&str; 19] = [
    "vkGetDeviceProcAddr",
    "vkDestroyDevice",
    "vkGetDeviceQueue",
    "vkGetDeviceQueue2",
    "vkAllocateCommandBuffers",
    "vkFreeCommandBuffers",
    "vkCreateSwapchainKHR",
    "vkDestroySwapchainKHR",
    "vkGetSwapchainImagesKHR",
    "vkAcquireNextImageKHR",
    "vkAcquireNextImage2KHR",
    "vkQueuePresentKHR",
    "vkGetSwapchainStatusKHR",
    "vkReleaseSwapchainImagesEXT",
    "vkGetDeviceGroupPresentCapabilitiesKHR",
    "vkGetDeviceGroupSurfacePresentModesKHR",
    "vkGetRefreshCycleDurationGOOGLE",
    "vkGetPastPresentationTimingGOOGLE",
    "vkSetHdrMetadataEXT",
];

/// The extensions the "with extensions" devices enable (the fixture lists them): one promoted
/// to 1.3 (its alias is asked below 1.3, and beside the core name from 1.3 on), one that stays
/// an extension, and one whose dependencies bring in `VK_KHR_deferred_host_operations`.
const EXTENSIONS: [&CStr; 3] = [
    c"VK_KHR_dynamic_rendering",
    c"VK_EXT_multi_draw",
    c"VK_KHR_acceleration_structure",
];

/// `extensions` and every extension their `depends` expressions name, transitively.
fn with_dependencies(extensions: &[&CStr]) -> BTreeSet<ExtensionId> {
    let mut set: BTreeSet<ExtensionId> = extensions.iter().filter_map(|n| ext::lookup(n)).collect();
    let mut todo: Vec<ExtensionId> = set.iter().copied().collect();
    while let Some(id) = todo.pop() {
        for token in ext::info(id)
            .depends()
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        {
            let name = std::ffi::CString::new(token).unwrap();
            if let Some(dep) = ext::lookup(&name) {
                if set.insert(dep) {
                    todo.push(dep);
                }
            }
        }
    }
    set
}

/// The names the driver must be asked for, sorted: the loader's needs plus every exposable
/// device-level name the terminator does not answer itself.
fn expected(version: u32, extensions: &[&CStr]) -> Vec<String> {
    let exposing = with_dependencies(extensions);
    let mut names: Vec<String> = commands::COMMANDS
        .iter()
        .filter(|c| c.level == Level::Device)
        .filter(|c| {
            matches!(c.origin, Origin::Core(v) if v <= version)
                || c.extensions().iter().any(|e| exposing.contains(e))
        })
        .map(|c| c.name().to_str().unwrap().to_owned())
        .filter(|n| !TERMINATOR_ANSWERS.contains(&n.as_str()))
        .chain(LOADER_NEEDS.iter().map(|n| n.to_string()))
        .collect();
    names.sort();
    names
}

/// The fixture's record of `vkGetDeviceProcAddr` questions since the last call, sorted, and
/// cleared.
fn take_asked(library: &Path) -> Vec<String> {
    let path = std::ffi::CString::new(library.to_str().unwrap()).unwrap();
    // SAFETY: the fixture is already loaded by the loader: RTLD_NOLOAD only takes a reference.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    assert!(!handle.is_null(), "{} is not loaded", library.display());
    // SAFETY: a live handle and C strings naming the fixture's exports.
    let (name_of, reset) = unsafe {
        (
            libc::dlsym(handle, c"fixture_gdpa_name".as_ptr()),
            libc::dlsym(handle, c"fixture_gdpa_reset".as_ptr()),
        )
    };
    assert!(!name_of.is_null() && !reset.is_null());
    type NameOf = extern "C" fn(i32) -> *const c_char;
    type Reset = extern "C" fn() -> i32;
    // SAFETY: the fixture defines these as `const char* (int)` and `int (void)`.
    let (name_of, reset) = unsafe {
        (
            std::mem::transmute::<*mut libc::c_void, NameOf>(name_of),
            std::mem::transmute::<*mut libc::c_void, Reset>(reset),
        )
    };
    let mut names = Vec::new();
    let mut i = 0;
    loop {
        let p = name_of(i);
        if p.is_null() {
            break;
        }
        // SAFETY: the fixture returns a NUL-terminated name it keeps until the reset below.
        names.push(unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned());
        i += 1;
    }
    assert_eq!(
        reset(),
        names.len() as i32,
        "more names than the fixture keeps"
    );
    // SAFETY: balances the dlopen above.
    unsafe { libc::dlclose(handle) };
    names.sort();
    names
}

/// Creates a device with `extensions` on the fixture of version `version` (application
/// `apiVersion` 1.4, so the physical device's version is the device's), checks the names the
/// driver was asked for, and that `vkGetDeviceProcAddr` answers asked names without asking it.
fn check_device(library: &Path, version: u32, extensions: &[&CStr]) {
    let loader = require(paths::loader_under_test());
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let app = vk::ApplicationInfo::default().api_version(vk::make_api_version(0, 1, 4, 0));
    // SAFETY: a valid create info.
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )
    }
    .expect("vkCreateInstance on the fixture");
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    // SAFETY: a physical device of this instance.
    let reported = unsafe { instance.get_physical_device_properties(pd) }.api_version;
    assert_eq!(reported, version, "the fixture's physical device version");
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let names: Vec<*const c_char> = extensions.iter().map(|e| e.as_ptr()).collect();
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names);
    take_asked(library);
    // The raw command: ash's `create_device` would look every core command up afterwards.
    let mut d = vk::Device::null();
    // SAFETY: a valid create info whose arrays outlive the call, and an out-pointer.
    let r = unsafe { (instance.fp_v1_0().create_device)(pd, &info, std::ptr::null(), &mut d) };
    assert_eq!(r, vk::Result::SUCCESS, "vkCreateDevice");
    let asked = take_asked(library);
    let want = expected(version, extensions);
    let duplicates = asked.len() - asked.iter().collect::<BTreeSet<_>>().len();
    assert_eq!(duplicates, 0, "names asked twice: {asked:?}");
    assert_eq!(
        asked,
        want,
        "asked but not exposable: {:?}; exposable but not asked: {:?}",
        asked
            .iter()
            .filter(|n| !want.contains(n))
            .collect::<Vec<_>>(),
        want.iter()
            .filter(|n| !asked.contains(n))
            .collect::<Vec<_>>()
    );
    println!(
        "device {}.{} with {} extension(s): {} driver lookups",
        vk::api_version_major(version),
        vk::api_version_minor(version),
        extensions.len(),
        asked.len()
    );
    // Names the table asked for are answered from it; the driver hears nothing more.
    let gdpa = instance.fp_v1_0().get_device_proc_addr;
    // SAFETY: our GDPA with a live device and C strings.
    unsafe {
        assert!(
            gdpa(d, c"vkCreateFence".as_ptr()).is_none(),
            "the fixture has none"
        );
        assert!(gdpa(d, c"vkFreeCommandBuffers".as_ptr()).is_some());
        assert!(gdpa(d, c"vkCmdDraw".as_ptr()).is_none());
    }
    assert_eq!(take_asked(library), Vec::<String>::new());
    // A name the table never asked for goes down to the driver, as AOSP sends it.
    // SAFETY: our GDPA with the live device `d` and C string literals.
    unsafe {
        assert!(gdpa(d, c"vkNotACommand".as_ptr()).is_none());
        assert!(gdpa(d, c"vkCmdSetCullModeEXT".as_ptr()).is_none());
    }
    assert_eq!(
        take_asked(library),
        ["vkCmdSetCullModeEXT", "vkNotACommand"]
    );
    // SAFETY: our GDPA with a live device; the name fixes the type.
    let destroy = unsafe {
        std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkDestroyDevice>(
            gdpa(d, c"vkDestroyDevice".as_ptr()).expect("vkDestroyDevice"),
        )
    };
    // SAFETY: children before parents.
    unsafe {
        destroy(d, std::ptr::null());
        instance.destroy_instance(None);
    }
}

fn run(scenario: &str, version: u32) {
    let root = tempfile::tempdir().unwrap();
    let api = format!(
        "DRIVER_API=VK_MAKE_API_VERSION(0,{},{},0)",
        vk::api_version_major(version),
        vk::api_version_minor(version)
    );
    let list: Vec<String> = EXTENSIONS
        .iter()
        .map(|e| format!("\"{}\"", e.to_str().unwrap()))
        .collect();
    let exts = format!("DEVICE_EXTENSIONS={}", list.join(","));
    let library = fixture_hal(&["RECORD_GDPA", &api, &exts]);
    let env = hal_env(&root, &library, "");
    in_child(scenario, &env, || {
        let library = library.canonicalize().unwrap();
        check_device(&library, version, &[]);
        check_device(&library, version, &EXTENSIONS);
    });
}

#[test]
fn a_1_1_device_asks_the_driver_for_what_it_exposes() {
    run(
        "a_1_1_device_asks_the_driver_for_what_it_exposes",
        vk::API_VERSION_1_1,
    );
}

#[test]
fn a_1_3_device_asks_the_driver_for_what_it_exposes() {
    run(
        "a_1_3_device_asks_the_driver_for_what_it_exposes",
        vk::API_VERSION_1_3,
    );
}

#[test]
fn a_1_4_device_asks_the_driver_for_what_it_exposes() {
    run(
        "a_1_4_device_asks_the_driver_for_what_it_exposes",
        vk::make_api_version(0, 1, 4, 0),
    );
}
