//! Our loader against broken drivers and layers: every case must end in the documented
//! `VkResult` (or zero physical devices), never in a crash, and leave no file descriptor (and,
//! where the fixture can count them, no driver object) behind.
//!
//! Each case runs in a child process with an isolated environment (an empty Android root, no
//! host ICD unless named), since the loader reads its configuration once per process.

mod common;

use ash::vk;
use common::*;
use vkgen_tests::env::{check_child, child_scenario, in_child, run_child, Env};

/// Zero physical devices and success: what "no usable driver" must look like.
fn expect_zero_devices() {
    with_loader_no_fd_leak(|entry| {
        let instance = try_instance(entry, &[]).expect("vkCreateInstance without a driver");
        assert!(device_names(&instance).is_empty());
        // SAFETY: the instance is live and has no children.
        unsafe { instance.destroy_instance(None) };
    });
}

/// `vkCreateInstance` fails with `expected`.
fn expect_instance_error(expected: vk::Result) {
    with_loader_no_fd_leak(|entry| match try_instance(entry, &[]) {
        Ok(instance) => {
            // SAFETY: the unexpected instance is live and has no children.
            unsafe { instance.destroy_instance(None) };
            panic!("vkCreateInstance succeeded, expected {expected:?}");
        }
        Err(e) => assert_eq!(e, expected),
    });
}

#[test]
fn no_driver_gives_zero_devices() {
    let root = tempfile::tempdir().unwrap();
    let env = isolated_env(&root, &[]);
    in_child("no_driver_gives_zero_devices", &env, expect_zero_devices);
}

#[test]
fn hal_without_hmi_is_skipped() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["NO_HMI"]), "");
    in_child("hal_without_hmi_is_skipped", &env, expect_zero_devices);
}

#[test]
fn hal_with_wrong_module_tag_is_skipped() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["MODULE_TAG=0x12345678"]), "");
    in_child(
        "hal_with_wrong_module_tag_is_skipped",
        &env,
        expect_zero_devices,
    );
}

#[test]
fn hal_with_wrong_module_id_is_skipped() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["MODULE_ID=\"camera\""]), "");
    in_child(
        "hal_with_wrong_module_id_is_skipped",
        &env,
        expect_zero_devices,
    );
}

#[test]
fn hal_whose_open_fails_fails_instance_creation() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["OPEN_RC=-19"]), "");
    in_child("hal_whose_open_fails_fails_instance_creation", &env, || {
        expect_instance_error(vk::Result::ERROR_INITIALIZATION_FAILED)
    });
}

/// The working HAL fixture is the only driver: one device, a device with a queue and command
/// buffers whose word 0 the loader stamped, and nothing alive afterwards.
#[test]
fn working_hal_driver_is_used() {
    let root = tempfile::tempdir().unwrap();
    let hal = fixture_hal(&[]);
    let env = hal_env(&root, &hal, "");
    in_child("working_hal_driver_is_used", &env, || {
        with_loader_no_fd_leak(|entry| {
            let instance = try_instance(entry, &[]).expect("vkCreateInstance on the HAL");
            assert_eq!(device_names(&instance), ["vkgen fixture GPU"]);
            exercise_fixture_device(&instance);
            // SAFETY: the instance's children are gone.
            unsafe { instance.destroy_instance(None) };
            assert_eq!(fixture_counter(&hal, c"fixture_live_instances"), 0);
        });
    });
}

/// Creates a device on the first physical device, gets its queue, allocates and frees command
/// buffers, checks word 0 of each against the device's, destroys the device.
fn exercise_fixture_device(instance: &ash::Instance) {
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: a valid create info for this physical device.
    let device = unsafe { instance.create_device(pd, &info, None) }.expect("vkCreateDevice");
    let word0 = |raw: u64| {
        // SAFETY: dispatchable handles point at objects whose first word is readable.
        unsafe { *(raw as usize as *const usize) }
    };
    let device_word = word0(vk::Handle::as_raw(device.handle()));
    assert_ne!(
        device_word, 0x01CD_C0DE,
        "the loader did not stamp the device"
    );
    // SAFETY: family 0 index 0 exists.
    let queue = unsafe { device.get_device_queue(0, 0) };
    assert_eq!(word0(vk::Handle::as_raw(queue)), device_word);
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(vk::CommandPool::null())
        .command_buffer_count(3);
    // SAFETY: the fixture accepts any pool.
    let buffers = unsafe { device.allocate_command_buffers(&alloc) }.expect("allocate");
    for cb in &buffers {
        assert_eq!(word0(vk::Handle::as_raw(*cb)), device_word);
    }
    // SAFETY: freeing what was allocated, then destroying the idle device.
    unsafe {
        device.free_command_buffers(vk::CommandPool::null(), &buffers);
        device.destroy_device(None);
    }
}

#[test]
fn driver_create_instance_error_propagates() {
    let root = tempfile::tempdir().unwrap();
    let manifest = icd_manifest(root.path(), "icd.json", &fixture_icd(&["CREATE_FAILS"]));
    let env = isolated_env(&root, &[manifest]);
    in_child("driver_create_instance_error_propagates", &env, || {
        expect_instance_error(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    });
}

#[test]
fn driver_missing_enumerate_physical_devices_is_incompatible() {
    let root = tempfile::tempdir().unwrap();
    let icd = fixture_icd(&["NO_ENUMERATE"]);
    let manifest = icd_manifest(root.path(), "icd.json", &icd);
    let env = isolated_env(&root, &[manifest]);
    in_child(
        "driver_missing_enumerate_physical_devices_is_incompatible",
        &env,
        || {
            expect_instance_error(vk::Result::ERROR_INCOMPATIBLE_DRIVER);
            // The instance the driver created was destroyed again.
            assert_eq!(fixture_counter(&icd, c"fixture_live_instances"), 0);
        },
    );
}

#[test]
fn driver_missing_create_instance_is_incompatible() {
    let root = tempfile::tempdir().unwrap();
    let manifest = icd_manifest(
        root.path(),
        "icd.json",
        &fixture_icd(&["NO_CREATE_INSTANCE"]),
    );
    let env = isolated_env(&root, &[manifest]);
    in_child(
        "driver_missing_create_instance_is_incompatible",
        &env,
        || expect_instance_error(vk::Result::ERROR_INCOMPATIBLE_DRIVER),
    );
}

#[test]
fn hal_with_null_create_instance_fails_initialization() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["NO_CREATE_INSTANCE"]), "");
    in_child(
        "hal_with_null_create_instance_fails_initialization",
        &env,
        || expect_instance_error(vk::Result::ERROR_INITIALIZATION_FAILED),
    );
}

/// A driver whose dispatchable objects do not carry the magic: the loader refuses to overwrite
/// their first word and fails with `VK_ERROR_INITIALIZATION_FAILED`.
#[test]
fn driver_without_dispatch_magic_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let icd = fixture_icd(&["BAD_MAGIC"]);
    let manifest = icd_manifest(root.path(), "icd.json", &icd);
    let env = isolated_env(&root, &[manifest]);
    in_child("driver_without_dispatch_magic_is_refused", &env, || {
        expect_instance_error(vk::Result::ERROR_INITIALIZATION_FAILED);
        assert_eq!(fixture_counter(&icd, c"fixture_live_instances"), 0);
    });
}

#[test]
fn layer_without_required_exports_is_not_present() {
    let root = tempfile::tempdir().unwrap();
    let layers = tempfile::tempdir().unwrap();
    let lib = fixture_layer("VK_LAYER_VKGEN_incomplete", &["NO_EXTENSION_EXPORT"]);
    std::os::unix::fs::symlink(&lib, layers.path().join("libVkLayer_vkgen_incomplete.so")).unwrap();
    let manifest = icd_manifest(root.path(), "icd.json", &fixture_icd(&[]));
    let env = isolated_env(&root, &[manifest]).set("VKGEN_APP_LAYER_PATH", layers.path());
    in_child(
        "layer_without_required_exports_is_not_present",
        &env,
        || {
            with_loader_no_fd_leak(|entry| {
                // SAFETY: a global query.
                let offered = unsafe { entry.enumerate_instance_layer_properties() }.unwrap();
                assert!(offered.is_empty(), "the broken layer is offered");
                let r = try_instance(entry, &[c"VK_LAYER_VKGEN_incomplete"]).map(|i| {
                    // SAFETY: unexpected instance, destroyed at once.
                    unsafe { i.destroy_instance(None) }
                });
                assert_eq!(r.unwrap_err(), vk::Result::ERROR_LAYER_NOT_PRESENT);
            });
        },
    );
}

#[test]
fn unknown_layer_and_extension_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let manifest = icd_manifest(root.path(), "icd.json", &fixture_icd(&[]));
    let env = isolated_env(&root, &[manifest]);
    in_child("unknown_layer_and_extension_are_refused", &env, || {
        with_loader_no_fd_leak(|entry| {
            let r = try_instance(entry, &[c"VK_LAYER_nobody"]);
            assert_eq!(r.err(), Some(vk::Result::ERROR_LAYER_NOT_PRESENT));
            let names = [c"VK_EXT_not_a_real_extension".as_ptr()];
            let info = vk::InstanceCreateInfo::default().enabled_extension_names(&names);
            // SAFETY: a valid create info.
            let r = unsafe { entry.create_instance(&info, None) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
            // A driver-only window system is blocked (X11 and Wayland are the loader's on Linux
            // hosts)...
            let names = [c"VK_KHR_display".as_ptr()];
            let info = vk::InstanceCreateInfo::default().enabled_extension_names(&names);
            // SAFETY: a valid create info whose name array outlives the call.
            let r = unsafe { entry.create_instance(&info, None) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
            // ...while the loader's own WSI is always there, whatever the driver.
            let names = [
                c"VK_KHR_surface".as_ptr(),
                c"VK_KHR_android_surface".as_ptr(),
            ];
            let info = vk::InstanceCreateInfo::default().enabled_extension_names(&names);
            // SAFETY: a valid create info whose name array outlives the call; the instance is destroyed at once.
            unsafe {
                let instance = entry
                    .create_instance(&info, None)
                    .expect("the loader's WSI extensions");
                instance.destroy_instance(None);
            }
        });
    });
}

/// A layer whose `vkCreateInstance` creates the instance below, destroys it and fails: its
/// error reaches the application and the driver has nothing alive.
#[test]
fn layer_create_instance_error_propagates_without_leaks() {
    let root = tempfile::tempdir().unwrap();
    let layers = tempfile::tempdir().unwrap();
    let lib = fixture_layer("VK_LAYER_VKGEN_failing", &[]);
    std::os::unix::fs::symlink(&lib, layers.path().join("libVkLayer_vkgen_failing.so")).unwrap();
    let icd = fixture_icd(&[]);
    let manifest = icd_manifest(root.path(), "icd.json", &icd);
    let env = isolated_env(&root, &[manifest]).set("VKGEN_APP_LAYER_PATH", layers.path());
    in_child(
        "layer_create_instance_error_propagates_without_leaks",
        &env,
        || {
            with_loader_no_fd_leak(|entry| {
                for _ in 0..3 {
                    let r = try_instance(entry, &[c"VK_LAYER_VKGEN_failing"]);
                    assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
                    assert_eq!(fixture_counter(&icd, c"fixture_live_instances"), 0);
                }
                // Without the layer the same driver works.
                let instance = try_instance(entry, &[]).expect("instance without the layer");
                assert_eq!(device_names(&instance), ["vkgen fixture GPU"]);
                // SAFETY: no children.
                unsafe { instance.destroy_instance(None) };
                assert_eq!(fixture_counter(&icd, c"fixture_live_instances"), 0);
            });
        },
    );
}

/// Garbage manifests are skipped with a log line naming them; alone they leave zero devices,
/// next to a good ICD that ICD still works.
#[test]
fn garbage_manifest_is_skipped_with_a_log_line() {
    const NAME: &str = "garbage_manifest_is_skipped_with_a_log_line";
    let root = tempfile::tempdir().unwrap();
    let garbage = root.path().join("garbage.json");
    std::fs::write(&garbage, b"{ this is not json \x00\xff").unwrap();
    let empty = root.path().join("empty.json");
    std::fs::write(&empty, b"").unwrap();
    let good = icd_manifest(root.path(), "good.json", &fixture_icd(&[]));
    if child_scenario().is_some() {
        let expected: usize = std::env::var("EXPECTED_DEVICES").unwrap().parse().unwrap();
        in_child(NAME, &Env::new(), || {
            with_loader_no_fd_leak(|entry| {
                let instance = try_instance(entry, &[]).expect("vkCreateInstance");
                assert_eq!(device_names(&instance).len(), expected);
                // SAFETY: no children.
                unsafe { instance.destroy_instance(None) };
            });
        });
        return;
    }
    for (files, expected) in [
        (vec![garbage.clone(), empty.clone()], 0),
        (vec![garbage.clone(), good.clone()], 1),
    ] {
        let env = isolated_env(&root, &files)
            .set("VKGEN_LOG", "warn")
            .set("EXPECTED_DEVICES", expected.to_string());
        let output = run_child(NAME, &env);
        if let Err(message) = check_child(NAME, &output) {
            panic!("{message}");
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("garbage.json"),
            "no log line names the garbage manifest:\n{stderr}"
        );
    }
}

/// AOSP `CreateInstance`: the HAL driver's `vkEnumerateInstanceVersion` failing fails
/// `vkCreateInstance` with that very result (no 1.0 fallback).
#[test]
fn failing_driver_instance_version_fails_create_instance_with_its_result() {
    let root = tempfile::tempdir().unwrap();
    let hal = fixture_hal(&["VERSION_FAILS"]);
    let env = hal_env(&root, &hal, "");
    in_child(
        "failing_driver_instance_version_fails_create_instance_with_its_result",
        &env,
        || {
            with_loader_no_fd_leak(|entry| {
                assert_eq!(
                    try_instance(entry, &[]).err(),
                    Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
                );
            });
        },
    );
}

/// AOSP `api::EnumerateInstanceExtensionProperties` / `CreateInstance`: the HAL device's failing
/// `vkEnumerateInstanceExtensionProperties` is swallowed by the api level (`VK_SUCCESS`, and no
/// driver or loader extensions, since AOSP adds its own in the driver call that failed);
/// `vkCreateInstance` fails with `VK_ERROR_EXTENSION_NOT_PRESENT` for any extension no layer
/// provides, and otherwise with the HAL's result (its `InitExtensionFilter` asks again).
#[test]
fn hal_extension_enumeration_failure_lists_nothing_and_create_returns_it() {
    let root = tempfile::tempdir().unwrap();
    let hal = fixture_hal(&["EXT_ENUM_FAILS"]);
    let env = hal_env(&root, &hal, "");
    in_child(
        "hal_extension_enumeration_failure_lists_nothing_and_create_returns_it",
        &env,
        || {
            with_loader_no_fd_leak(|entry| {
                // SAFETY: a global count-then-fill query.
                let r = unsafe { entry.enumerate_instance_extension_properties(None) };
                assert_eq!(r.map(|l| l.len()), Ok(0));
                let surface = [c"VK_KHR_surface".as_ptr()];
                let info = vk::InstanceCreateInfo::default().enabled_extension_names(&surface);
                // SAFETY: a valid create info whose array outlives the call.
                let r = unsafe { entry.create_instance(&info, None) };
                assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
                assert_eq!(
                    try_instance(entry, &[]).err(),
                    Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
                );
            });
        },
    );
}

/// AOSP `EnsureInitialized`: once the HAL's `open` failed, `vkEnumerateInstanceVersion`,
/// `vkEnumerateInstanceLayerProperties` and `vkEnumerateInstanceExtensionProperties` return
/// `VK_ERROR_OUT_OF_HOST_MEMORY` and `vkCreateInstance` `VK_ERROR_INITIALIZATION_FAILED`.
#[test]
fn hal_whose_open_fails_fails_the_global_enumerations_with_out_of_host_memory() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &fixture_hal(&["OPEN_RC=-19"]), "");
    in_child(
        "hal_whose_open_fails_fails_the_global_enumerations_with_out_of_host_memory",
        &env,
        || {
            with_loader_no_fd_leak(|entry| {
                let oom = Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
                // SAFETY: global queries with valid outputs.
                unsafe {
                    assert_eq!(entry.try_enumerate_instance_version().map(|_| ()), oom);
                    assert_eq!(entry.enumerate_instance_layer_properties().map(|_| ()), oom);
                    assert_eq!(
                        entry
                            .enumerate_instance_extension_properties(None)
                            .map(|_| ()),
                        oom
                    );
                }
                assert_eq!(
                    try_instance(entry, &[]).err(),
                    Some(vk::Result::ERROR_INITIALIZATION_FAILED)
                );
            });
        },
    );
}

/// What drivers receive: no loader chain structs in `pNext`, no layers, and for a Vulkan 1.0
/// driver `apiVersion` 1.0 (the app asked 1.1) plus the promoted
/// `VK_KHR_get_physical_device_properties2`, through which the loader's core 1.1 entry point
/// `vkGetPhysicalDeviceProperties2` then works.
#[test]
fn old_driver_gets_a_sanitised_create_info() {
    let root = tempfile::tempdir().unwrap();
    let icd = fixture_icd(&["DRIVER_1_0"]);
    let manifest = icd_manifest(root.path(), "icd.json", &icd);
    let env = isolated_env(&root, &[manifest]);
    in_child("old_driver_gets_a_sanitised_create_info", &env, || {
        with_loader_no_fd_leak(|entry| {
            let instance = try_instance(entry, &[]).expect("vkCreateInstance");
            let counter = |name: &std::ffi::CStr| fixture_counter(&icd, name);
            assert_eq!(
                counter(c"fixture_last_api_version") as u32,
                vk::API_VERSION_1_0,
                "a 1.0 driver must get apiVersion 1.0"
            );
            assert_eq!(
                counter(c"fixture_last_gpdp2"),
                1,
                "promoted extension not enabled"
            );
            assert_eq!(counter(c"fixture_last_layer_count"), 0);
            assert_eq!(
                counter(c"fixture_saw_loader_struct"),
                0,
                "loader struct reached the driver"
            );
            // SAFETY: a live instance.
            let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
            let mut props = vk::PhysicalDeviceProperties2::default();
            // SAFETY: the core 1.1 entry point of a 1.1 instance, served by the KHR command.
            unsafe { instance.get_physical_device_properties2(pd, &mut props) };
            assert_eq!(
                props.properties.device_name_as_c_str().unwrap(),
                c"vkgen fixture GPU"
            );
            exercise_fixture_device(&instance);
            assert_eq!(counter(c"fixture_last_device_layer_count"), 0);
            assert_eq!(
                counter(c"fixture_saw_loader_struct"),
                0,
                "loader struct reached the driver"
            );
            // SAFETY: no children left.
            unsafe { instance.destroy_instance(None) };
        });
    });
}

/// Issue 11: with one driver, the count the driver writes back is clamped to the application's
/// capacity, so nothing past the array is read or stamped. Issue 25: the call then says
/// `VK_SUCCESS`, as the count query (also clamped) announced exactly what the array holds; a
/// `VK_INCOMPLETE` there would send the usual re-query loop round forever.
fn clamp_case(test: &str, lie: &str) {
    let root = tempfile::tempdir().unwrap();
    let hal = fixture_hal(&[&format!("PD_COUNT_LIE={lie}")]);
    let env = hal_env(&root, &hal, "");
    in_child(test, &env, || {
        with_loader_no_fd_leak(|entry| {
            let instance = try_instance(entry, &[]).expect("vkCreateInstance");
            let f = instance.fp_v1_0().enumerate_physical_devices;
            let mut count = 0u32;
            // SAFETY: a live instance; a count query.
            let r = unsafe { f(instance.handle(), &mut count, std::ptr::null_mut()) };
            assert_eq!((r, count), (vk::Result::SUCCESS, 1));
            // A one-element array with a guard element after it.
            let mut out = [vk::PhysicalDevice::null(); 2];
            let mut count = 1u32;
            // SAFETY: `out` has room for `count` handles.
            let r = unsafe { f(instance.handle(), &mut count, out.as_mut_ptr()) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(count, 1);
            assert_ne!(out[0], vk::PhysicalDevice::null());
            assert_eq!(out[1], vk::PhysicalDevice::null());
            // SAFETY: the instance has no children.
            unsafe { instance.destroy_instance(None) };
        });
    });
}

#[test]
fn single_driver_physical_device_count_is_clamped_to_the_app_capacity() {
    clamp_case(
        "single_driver_physical_device_count_is_clamped_to_the_app_capacity",
        "100001",
    );
}

#[test]
fn single_driver_physical_device_count_0xffffffff_is_clamped() {
    clamp_case(
        "single_driver_physical_device_count_0xffffffff_is_clamped",
        "0xFFFFFFFFu",
    );
}
