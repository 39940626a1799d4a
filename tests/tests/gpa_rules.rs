//! The `vkGetInstanceProcAddr` / `vkGetDeviceProcAddr` rules of the spec and of Android's loader,
//! checked through our `libvulkan.so` on lavapipe, plus `VK_INCOMPLETE` in every enumeration
//! and the loader's instance version.
//!
//! A proc address is attributed to a library with `dladdr`: "ours" means the exported symbol
//! of that name in our loader, "the driver's" means code inside lavapipe.

mod common;

use std::ffi::{c_void, CStr, CString};
use std::path::Path;

use ash::vk;
use common::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

/// Our library, opened again (already loaded by the entry, so this is the same instance).
struct OurLibrary {
    handle: *mut c_void,
}

impl OurLibrary {
    fn open(path: &Path) -> Self {
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: our loader is already loaded; RTLD_NOLOAD runs no initialisers.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        assert!(!handle.is_null(), "our loader is not loaded");
        Self { handle }
    }

    /// The address of our exported `name`.
    fn symbol(&self, name: &CStr) -> usize {
        // SAFETY: a live handle and a C string.
        let p = unsafe { libc::dlsym(self.handle, name.as_ptr()) };
        assert!(!p.is_null(), "{name:?} is not exported");
        p as usize
    }
}

impl Drop for OurLibrary {
    fn drop(&mut self) {
        // SAFETY: balances the dlopen.
        unsafe { libc::dlclose(self.handle) };
    }
}

fn addr(f: vk::PFN_vkVoidFunction) -> Option<usize> {
    f.map(|f| f as usize)
}

#[test]
fn proc_address_rules_on_lavapipe() {
    let root = tempfile::tempdir().unwrap();
    // lavapipe's own functions, not the native-buffer adapter's (which is a driver on top).
    let env =
        isolated_env(&root, &[require(paths::lavapipe_manifest())]).set("VKGEN_ICD_ADAPTER", "0");
    in_child("proc_address_rules_on_lavapipe", &env, || {
        let loader = require(paths::loader_under_test());
        let entry = require(vkgen_tests::compute::load_entry(&loader));
        let ours = OurLibrary::open(&loader);
        let gipa = entry.static_fn().get_instance_proc_addr;
        let gipa_addr = |i: vk::Instance, n: &CStr| {
            // SAFETY: our loader's GIPA with a null or live instance and a C string.
            addr(unsafe { gipa(i, n.as_ptr()) })
        };

        // Instance version: the loader's, from the generated registry (1.4, as AOSP android16
        // with `vulkan_1_4_instance_api`).
        // SAFETY: a global query.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .unwrap()
            .unwrap();
        assert_eq!(version, vk::make_api_version(0, 1, 4, 0));

        // GIPA(NULL, ...): globals and GIPA itself are ours; nothing else.
        let null = vk::Instance::null();
        for name in [
            c"vkCreateInstance",
            c"vkEnumerateInstanceVersion",
            c"vkEnumerateInstanceExtensionProperties",
            c"vkEnumerateInstanceLayerProperties",
            c"vkGetInstanceProcAddr",
        ] {
            assert_eq!(
                gipa_addr(null, name),
                Some(ours.symbol(name)),
                "GIPA(NULL, {name:?})"
            );
        }
        for name in [
            c"vkCreateDevice",
            c"vkEnumeratePhysicalDevices",
            c"vkDestroyInstance",
            c"vkGetDeviceProcAddr",
            c"vkCreateFence",
            c"vkNotACommand",
        ] {
            assert_eq!(gipa_addr(null, name), None, "GIPA(NULL, {name:?})");
        }

        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let ext = [c"VK_KHR_get_physical_device_properties2".as_ptr()];
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ext);
        // SAFETY: a valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }.unwrap();
        let i = instance.handle();

        // GIPA(instance, exported) = our trampoline or our own implementation.
        for name in [
            c"vkGetInstanceProcAddr",
            c"vkGetDeviceProcAddr",
            c"vkCreateDevice",
            c"vkDestroyInstance",
            c"vkEnumeratePhysicalDevices",
            c"vkGetPhysicalDeviceProperties",
            c"vkGetPhysicalDeviceProperties2",
            c"vkEnumerateDeviceExtensionProperties",
            c"vkCreateFence",
            c"vkCmdDispatch",
            c"vkQueueSubmit",
        ] {
            assert_eq!(
                gipa_addr(i, name),
                Some(ours.symbol(name)),
                "GIPA(instance, {name:?})"
            );
        }
        // Global commands with an instance: NULL.
        for name in [
            c"vkCreateInstance",
            c"vkEnumerateInstanceExtensionProperties",
        ] {
            assert_eq!(gipa_addr(i, name), None, "GIPA(instance, {name:?})");
        }
        // Not exported: the head of the chain, i.e. the driver's own function.
        let lvp = gipa_addr(i, c"vkGetPhysicalDeviceProperties2KHR").expect("KHR alias");
        let lvp_lib = library_of(lvp);
        assert!(
            lvp_lib.to_string_lossy().contains("lvp"),
            "vkGetPhysicalDeviceProperties2KHR comes from {}",
            lvp_lib.display()
        );

        // Devices.
        // SAFETY: a live instance.
        let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let dev_ext = [c"VK_KHR_dynamic_rendering".as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&dev_ext);
        // SAFETY: a valid create info for this physical device.
        let device = unsafe { instance.create_device(pd, &info, None) }.unwrap();
        let d = device.handle();
        let gdpa = instance.fp_v1_0().get_device_proc_addr;
        assert_eq!(gdpa as usize, ours.symbol(c"vkGetDeviceProcAddr"));
        let gdpa_addr = |n: &CStr| {
            // SAFETY: our loader's GDPA with a live device and a C string.
            addr(unsafe { gdpa(d, n.as_ptr()) })
        };

        // Ours: GDPA and vkDestroyDevice.
        for name in [c"vkGetDeviceProcAddr", c"vkDestroyDevice"] {
            assert_eq!(gdpa_addr(name), Some(ours.symbol(name)), "GDPA({name:?})");
        }
        // Not intercepted: the driver's own function.
        for name in [
            c"vkCreateFence",
            c"vkCmdDispatch",
            c"vkQueueSubmit",
            c"vkCmdBeginRenderingKHR",
        ] {
            let f = gdpa_addr(name).unwrap_or_else(|| panic!("GDPA({name:?}) is NULL"));
            assert_eq!(library_of(f), lvp_lib, "GDPA({name:?})");
        }
        // Intercepted at the bottom of the chain (stamps word 0): the loader's hook, not the
        // exported trampoline.
        for name in [c"vkGetDeviceQueue", c"vkAllocateCommandBuffers"] {
            let f = gdpa_addr(name).unwrap();
            assert_eq!(
                library_of(f),
                library_of(ours.symbol(name)),
                "GDPA({name:?})"
            );
            assert_ne!(
                f,
                ours.symbol(name),
                "GDPA({name:?}) must not be the trampoline"
            );
        }
        // Instance-level and global names: NULL.
        for name in [
            c"vkCreateInstance",
            c"vkDestroyInstance",
            c"vkEnumeratePhysicalDevices",
            c"vkGetPhysicalDeviceProperties",
            c"vkGetInstanceProcAddr",
            c"vkCreateDevice",
            c"vkEnumerateDeviceExtensionProperties",
        ] {
            assert_eq!(gdpa_addr(name), None, "GDPA({name:?})");
        }
        // AOSP (`driver::GetDeviceProcAddr`): the loader filters only the commands it hooks. A
        // loader hook of an extension the device did not enable is NULL (no VK_KHR_swapchain
        // here); every other name is the driver's answer: lavapipe itself refuses the
        // not-enabled VK_EXT_multi_draw, and answers core commands above the application's
        // apiVersion 1.1 with its own functions.
        assert_eq!(gdpa_addr(c"vkCreateSwapchainKHR"), None);
        assert_eq!(gdpa_addr(c"vkQueuePresentKHR"), None);
        assert_eq!(gdpa_addr(c"vkCmdDrawMultiEXT"), None);
        for name in [c"vkCmdBeginRendering", c"vkResetQueryPool"] {
            if let Some(f) = gdpa_addr(name) {
                assert_ne!(
                    library_of(f),
                    library_of(ours.symbol(name)),
                    "GDPA({name:?}) is the driver's, not the loader's"
                );
            }
        }
        assert!(gdpa_addr(c"vkGetDeviceQueue2").is_some());
        assert!(gdpa_addr(c"vkTrimCommandPool").is_some());
        assert!(gdpa_addr(c"vkCmdBeginRenderingKHR").is_some());
        assert_eq!(gdpa_addr(c"vkNotACommand"), None);
        // Word 0 of queues and command buffers is the device's.
        let word0 = |raw: u64| {
            // SAFETY: dispatchable handles point at objects whose first word is readable.
            unsafe { *(raw as usize as *const usize) }
        };
        // SAFETY: queue family 0, index 0 was requested.
        let queue = unsafe { device.get_device_queue(0, 0) };
        assert_eq!(
            word0(vk::Handle::as_raw(queue)),
            word0(vk::Handle::as_raw(d))
        );
        // And the instance's physical devices share the instance's.
        assert_eq!(word0(vk::Handle::as_raw(pd)), word0(vk::Handle::as_raw(i)));

        check_incomplete(&entry, &instance, pd);

        // SAFETY: children before parents.
        unsafe {
            device.destroy_device(None);
            instance.destroy_instance(None);
        }
    });
}

/// Every enumeration reports `VK_INCOMPLETE` with a short array and the short count.
fn check_incomplete(entry: &ash::Entry, instance: &ash::Instance, pd: vk::PhysicalDevice) {
    // Loaded by ash through our GIPA(NULL, ...).
    let enum_ext = entry.fp_v1_0().enumerate_instance_extension_properties;
    let enum_layers = entry.fp_v1_0().enumerate_instance_layer_properties;
    let mut count = 0u32;
    // SAFETY: count query.
    let r = unsafe { enum_ext(std::ptr::null(), &mut count, std::ptr::null_mut()) };
    assert_eq!(r, vk::Result::SUCCESS);
    assert!(count >= 2, "lavapipe has several instance extensions");
    let mut one = [vk::ExtensionProperties::default()];
    let mut short = 1u32;
    // SAFETY: `one` holds `short` entries.
    let r = unsafe { enum_ext(std::ptr::null(), &mut short, one.as_mut_ptr()) };
    assert_eq!((r, short), (vk::Result::INCOMPLETE, 1));
    let mut zero = 0u32;
    // SAFETY: a zero-sized array is never written.
    let r = unsafe { enum_ext(std::ptr::null(), &mut zero, one.as_mut_ptr()) };
    assert_eq!((r, zero), (vk::Result::INCOMPLETE, 0));
    // No layers: a zero count with an array is complete.
    let mut layers = [vk::LayerProperties::default()];
    let mut n = 1u32;
    // SAFETY: `layers` holds `n` entries.
    let r = unsafe { enum_layers(&mut n, layers.as_mut_ptr()) };
    assert_eq!((r, n), (vk::Result::SUCCESS, 0));
    // An unknown layer's extensions: LAYER_NOT_PRESENT.
    let mut n = 0u32;
    // SAFETY: count query with a layer name.
    let r = unsafe { enum_ext(c"VK_LAYER_nobody".as_ptr(), &mut n, std::ptr::null_mut()) };
    assert_eq!(r, vk::Result::ERROR_LAYER_NOT_PRESENT);

    let f = instance.fp_v1_0();
    let mut devices = [vk::PhysicalDevice::null()];
    let mut zero = 0u32;
    // SAFETY: a zero-sized array is never written.
    let r = unsafe {
        (f.enumerate_physical_devices)(instance.handle(), &mut zero, devices.as_mut_ptr())
    };
    assert_eq!((r, zero), (vk::Result::INCOMPLETE, 0));
    let mut short = 1u32;
    let mut exts = [vk::ExtensionProperties::default()];
    // SAFETY: `exts` holds `short` entries.
    let r = unsafe {
        (f.enumerate_device_extension_properties)(
            pd,
            std::ptr::null(),
            &mut short,
            exts.as_mut_ptr(),
        )
    };
    assert_eq!((r, short), (vk::Result::INCOMPLETE, 1));
    // The device extensions hide the driver's swapchain (the loader's WSI owns it, and offers
    // it only on top of VK_ANDROID_native_buffer, which a plain ICD like lavapipe lacks).
    // SAFETY: a physical device of this instance.
    let all = unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap();
    let names: Vec<&CStr> = all
        .iter()
        .map(|e| e.extension_name_as_c_str().unwrap())
        .collect();
    assert!(!names.contains(&c"VK_KHR_swapchain"), "{names:?}");
    assert!(!names.contains(&c"VK_ANDROID_native_buffer"), "{names:?}");
    assert!(!names.contains(&c"VK_KHR_incremental_present"), "{names:?}");
    assert!(names.contains(&c"VK_KHR_dynamic_rendering"), "{names:?}");
    let mut n = 1u32;
    let mut layers = [vk::LayerProperties::default()];
    // SAFETY: `layers` holds `n` entries.
    let r = unsafe { (f.enumerate_device_layer_properties)(pd, &mut n, layers.as_mut_ptr()) };
    assert_eq!((r, n), (vk::Result::SUCCESS, 0));
    // Groups (core 1.1).
    let groups_fn = instance.fp_v1_1().enumerate_physical_device_groups;
    let mut zero = 0u32;
    let mut group = [vk::PhysicalDeviceGroupProperties::default()];
    // SAFETY: a zero-sized array is never written.
    let r = unsafe { groups_fn(instance.handle(), &mut zero, group.as_mut_ptr()) };
    assert_eq!((r, zero), (vk::Result::INCOMPLETE, 0));
    let mut one = 1u32;
    // SAFETY: `group` holds `one` entry.
    let r = unsafe { groups_fn(instance.handle(), &mut one, group.as_mut_ptr()) };
    assert_eq!((r, one), (vk::Result::SUCCESS, 1));
    assert_eq!(group[0].physical_devices[0], pd);
}

/// Instance extensions as AOSP lists them: the loader's own WSI extensions first, in AOSP's
/// order (on Linux hosts its X11 and Wayland surfaces too), then the driver's list passed
/// through, blocked extensions included; of an ICD only its own WSI copies are left out
/// (the loader's replace them) and `VK_EXT_headless_surface` (whose command the loader
/// intercepts).
#[test]
fn instance_extensions_list_the_loaders_wsi_then_the_drivers() {
    let root = tempfile::tempdir().unwrap();
    let env = isolated_env(&root, &[require(paths::lavapipe_manifest())]);
    in_child(
        "instance_extensions_list_the_loaders_wsi_then_the_drivers",
        &env,
        || {
            let loader = require(paths::loader_under_test());
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            let names_of = |exts: Vec<vk::ExtensionProperties>| -> Vec<String> {
                exts.iter()
                    .map(|e| {
                        e.extension_name_as_c_str()
                            .unwrap()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .collect()
            };
            // SAFETY: a global query.
            let names =
                names_of(unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap());
            assert_eq!(
                names[..7],
                [
                    "VK_KHR_surface",
                    "VK_KHR_surface_protected_capabilities",
                    "VK_KHR_android_surface",
                    "VK_EXT_swapchain_colorspace",
                    "VK_KHR_get_surface_capabilities2",
                    "VK_GOOGLE_surfaceless_query",
                    "VK_EXT_surface_maintenance1",
                ]
            );
            // The loader's X11 and Wayland surfaces on Linux hosts.
            for shown in [
                "VK_KHR_xcb_surface",
                "VK_KHR_xlib_surface",
                "VK_KHR_wayland_surface",
            ] {
                assert!(
                    names.iter().any(|n| n == shown),
                    "{shown} missing: {names:?}"
                );
            }
            // Lavapipe's own list, straight from the ICD: all of it passes through.
            let lib = require(paths::lavapipe_library());
            // SAFETY: lavapipe's ICD library; its only constructor work is Mesa's own.
            let icd = unsafe { libloading::Library::new(&lib) }.unwrap();
            // SAFETY: the ICD entry point's documented type.
            let gipa: libloading::Symbol<vk::PFN_vkGetInstanceProcAddr> =
                unsafe { icd.get(b"vk_icdGetInstanceProcAddr\0") }.unwrap();
            // SAFETY: the ICD's global command table through its own GIPA.
            let direct = unsafe {
                ash::Entry::from_static_fn(ash::StaticFn {
                    get_instance_proc_addr: *gipa,
                })
            };
            // SAFETY: a global query.
            let lavapipe =
                names_of(unsafe { direct.enumerate_instance_extension_properties(None) }.unwrap());
            for e in lavapipe.iter().filter(|e| *e != "VK_EXT_headless_surface") {
                assert!(names.contains(e), "lavapipe's {e} missing: {names:?}");
            }
            assert!(!names.iter().any(|n| n == "VK_EXT_headless_surface"));
            assert!(!names.iter().any(|n| n == "VK_KHR_win32_surface"));
        },
    );
}

/// Every name of the generated hook tables (`vkgen_generated::hooks`, from the generator's
/// `policy::LOADER_HOOKS`) answers a function of our library through `vkGetInstanceProcAddr`
/// (global commands with a null instance, instance and physical-device commands with the
/// instance) or `vkGetDeviceProcAddr` (device commands) once it is core at the application's
/// version or one of its extensions is enabled: here every extension a hooked command needs
/// that the loader offers on lavapipe (with the native-buffer adapter, so WSI is on). Names the
/// selection leaves out (the desktop surfaces) are always answered.
#[test]
fn every_hooked_name_answers_when_its_extension_is_enabled() {
    use std::collections::BTreeSet;
    use vkgen_generated::commands::{self, Level, Origin};
    use vkgen_generated::extensions::{self as ext, ExtensionKind};
    use vkgen_generated::hooks::{LOADER_HOOKS, LOADER_HOOK_NAMES};

    let root = tempfile::tempdir().unwrap();
    let env = isolated_env(&root, &[require(paths::lavapipe_manifest())]);
    in_child(
        "every_hooked_name_answers_when_its_extension_is_enabled",
        &env,
        || {
            let loader = require(paths::loader_under_test());
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            let ours = library_of(OurLibrary::open(&loader).symbol(c"vkGetInstanceProcAddr"));
            let info = |n: &CStr| commands::lookup(n).map(commands::info);
            let needed = |kind: ExtensionKind| -> BTreeSet<CString> {
                let exts = LOADER_HOOK_NAMES
                    .iter()
                    .filter_map(|n| info(n))
                    .flat_map(|i| i.extensions());
                exts.filter(|&&e| ext::info(e).kind == kind)
                    .map(|&e| ext::info(e).name().to_owned())
                    .collect()
            };
            let names_of = |exts: Vec<vk::ExtensionProperties>| -> BTreeSet<CString> {
                exts.iter()
                    .map(|e| e.extension_name_as_c_str().unwrap().to_owned())
                    .collect()
            };
            // SAFETY: a global query.
            let offered =
                names_of(unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap());
            let mut wanted = needed(ExtensionKind::Instance);
            // swapchain_maintenance1's dependency (it has no command of its own).
            wanted.insert(c"VK_EXT_surface_maintenance1".to_owned());
            let instance_exts: Vec<&CString> = offered.intersection(&wanted).collect();
            assert!(instance_exts.len() >= 4, "{instance_exts:?}");
            let ptrs: Vec<_> = instance_exts.iter().map(|e| e.as_ptr()).collect();
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let create = vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_extension_names(&ptrs);
            // SAFETY: a valid create info.
            let instance = unsafe { entry.create_instance(&create, None) }.unwrap();
            // SAFETY: a live instance.
            let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
            // SAFETY: a physical device of the instance.
            let offered =
                names_of(unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap());
            let wanted = needed(ExtensionKind::Device);
            let device_exts: Vec<&CString> = offered.intersection(&wanted).collect();
            assert!(
                device_exts
                    .iter()
                    .any(|e| e.as_c_str() == c"VK_KHR_swapchain"),
                "{device_exts:?}"
            );
            let ptrs: Vec<_> = device_exts.iter().map(|e| e.as_ptr()).collect();
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&priorities)];
            let create = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&ptrs);
            // SAFETY: a valid create info for this physical device.
            let device = unsafe { instance.create_device(pd, &create, None) }.unwrap();

            let gipa = entry.static_fn().get_instance_proc_addr;
            let gdpa = instance.fp_v1_0().get_device_proc_addr;
            let enabled: BTreeSet<&CStr> = instance_exts
                .iter()
                .chain(&device_exts)
                .map(|e| e.as_c_str())
                .collect();
            let (mut answered, mut skipped) = (0, Vec::new());
            for &name in LOADER_HOOK_NAMES {
                let on = info(name).is_none_or(|i| {
                    matches!(i.origin, Origin::Core(v) if v <= vk::API_VERSION_1_3)
                        || i.extensions()
                            .iter()
                            .any(|&e| enabled.contains(ext::info(e).name()))
                });
                if !on {
                    skipped.push(name);
                    continue;
                }
                let f = match info(name).map(|i| i.level) {
                    // SAFETY: our GIPA with a null instance and a C string.
                    Some(Level::Global) => unsafe { gipa(vk::Instance::null(), name.as_ptr()) },
                    // SAFETY: our GDPA with a live device and a C string.
                    Some(Level::Device) => unsafe { gdpa(device.handle(), name.as_ptr()) },
                    // SAFETY: our GIPA with a live instance and a C string.
                    _ => unsafe { gipa(instance.handle(), name.as_ptr()) },
                };
                let f = addr(f).unwrap_or_else(|| panic!("{name:?} is NULL with {enabled:?}"));
                // The fan-out table serves a loader-owned instance (several drivers); with one
                // driver the loader passes its own function through.
                let fan_out = LOADER_HOOKS
                    .iter()
                    .any(|h| h.command == name && h.table == "fan_out");
                if !fan_out {
                    assert_eq!(library_of(f), ours, "{name:?} is not the loader's");
                }
                answered += 1;
            }
            // Not offered here: `VK_EXT_headless_surface` (hidden) and the HDR-display-only
            // `VK_EXT_hdr_metadata`, at most a handful.
            assert!(
                answered >= 45 && skipped.len() <= 3,
                "answered {answered}, skipped {skipped:?}"
            );
            // SAFETY: children before parents.
            unsafe {
                device.destroy_device(None);
                instance.destroy_instance(None);
            }
        },
    );
}
