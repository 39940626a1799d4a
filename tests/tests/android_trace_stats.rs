//! AOSP's ATRACE sections and GraphicsEnv statistics through the real `libvulkan.so`, with the
//! host doubles: `VKGEN_TRACE_MARKER` stands in for `trace_marker` (the graphics tag read from
//! `debug.atrace.tags.enableflags` in the `VKGEN_PROPERTIES` file) and `VKGEN_GPU_STATS` for
//! GraphicsEnv (one call a line). The fixture HAL is the driver; each case runs in a child.

mod common;

use std::path::Path;

use ash::vk;
use common::*;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::trace::{names, nth, sections, Section};

/// Files the doubles write, under the test's root.
const MARKER: &str = "trace_marker";
const STATS: &str = "gpu_stats";

fn env(root: &tempfile::TempDir, tags: &str) -> Env {
    let hal = fixture_hal(&[]);
    hal_env(
        root,
        &hal,
        &format!("debug.atrace.tags.enableflags={tags}\n"),
    )
    .set("VKGEN_TRACE_MARKER", root.path().join(MARKER))
    .set("VKGEN_GPU_STATS", root.path().join(STATS))
}

/// What an application does first: the version, an instance (engine name, apiVersion 1.1,
/// VK_EXT_debug_report), its physical devices, a device with one feature, a queue; then both
/// destroyed.
fn application(entry: &ash::Entry) {
    // SAFETY: a global command.
    let version = unsafe { entry.try_enumerate_instance_version() }.unwrap();
    assert!(version.is_some());
    let app = vk::ApplicationInfo::default()
        .api_version(vk::API_VERSION_1_1)
        .engine_name(c"vkgen-test-engine");
    let extensions = [c"VK_EXT_debug_report".as_ptr()];
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&extensions);
    // SAFETY: a valid create info.
    let instance = unsafe { entry.create_instance(&info, None) }.expect("vkCreateInstance");
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let features = vk::PhysicalDeviceFeatures {
        robust_buffer_access: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: a valid create info for this physical device.
    let device = unsafe { instance.create_device(pd, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0 index 0 exists; then the idle device and the childless instance.
    unsafe {
        device.get_device_queue(0, 0);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

/// `inner`'s names appear in `section`, in this order.
fn contains_in_order(section: &Section, inner: &[&str]) {
    let found = names(&section.inner);
    let mut at = 0;
    for name in inner {
        let Some(i) = found[at..].iter().position(|n| n == name) else {
            panic!(
                "{} lacks {name} (in order {inner:?}): {found:?}",
                section.name
            );
        };
        at += i + 1;
    }
}

#[test]
fn entry_points_are_traced_and_statistics_reported_as_aosp() {
    let root = tempfile::tempdir().unwrap();
    let env = env(&root, "0x2");
    in_child(
        "entry_points_are_traced_and_statistics_reported_as_aosp",
        &env,
        || {
            with_loader_no_fd_leak(application);
            let markers = std::fs::read_to_string(root_of_child().join(MARKER)).unwrap();
            let top = sections(&markers);
            assert_eq!(
                names(&top),
                [
                    "EnumerateInstanceVersion",
                    "CreateInstance",
                    "EnumeratePhysicalDevices",
                    "EnumeratePhysicalDevices",
                    "CreateDevice",
                    "GetDeviceQueue",
                    "DestroyDevice",
                    "DestroyInstance",
                ]
            );
            // The first call opens the HAL, as AOSP's EnsureInitialized does, then asks the
            // HAL for its version and its instance extensions (count, then list) under AOSP's
            // section names: once, where AOSP asks at each vkCreateInstance and each
            // vkEnumerateInstanceExtensionProperties.
            let first = nth(&top, "EnumerateInstanceVersion", 0);
            assert_eq!(
                names(&first.inner),
                [
                    "Open",
                    "pfn_enumerate_instance_version",
                    "driver.EnumerateInstanceExtensionProperties",
                    "driver.EnumerateInstanceExtensionProperties",
                ]
            );
            let open = nth(&first.inner, "Open", 0);
            assert_eq!(
                names(&open.inner),
                [
                    "LoadUpdatedDriver",
                    "LoadDriverFromApex",
                    "LoadBuiltinDriver",
                    "hwvulkan module open"
                ]
            );
            assert_eq!(
                names(&nth(&open.inner, "LoadBuiltinDriver", 0).inner),
                ["LoadDriver"]
            );
            contains_in_order(nth(&top, "CreateInstance", 0), &["driver.CreateInstance"]);
            contains_in_order(
                nth(&top, "CreateDevice", 0),
                &[
                    "driver.EnumerateDeviceExtensionProperties",
                    "driver.GetPhysicalDeviceProperties",
                    "AllocateDeviceData",
                    "driver.CreateDevice",
                ],
            );

            let stats = std::fs::read_to_string(root_of_child().join(STATS)).unwrap();
            let lines: Vec<&str> = stats.lines().collect();
            let (loaded, rest) = lines.split_at(2);
            assert_eq!(loaded[0], "setDriverToLoad(VULKAN)");
            let time = loaded[1]
                .strip_prefix("setDriverLoaded(API_VK, true, ")
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{}", loaded[1]));
            assert!(time.parse::<i64>().unwrap() > 0);
            assert_eq!(
                rest,
                [
                    format!(
                        "setTargetStats(CREATED_VULKAN_API_VERSION, {})",
                        vk::API_VERSION_1_1
                    )
                    .as_str(),
                    "addVulkanEngineName(vkgen-test-engine)",
                    "setVulkanInstanceExtensions(1, [VK_EXT_debug_report])",
                    // The fixture's physical device is VK_PHYSICAL_DEVICE_TYPE_CPU.
                    "setTargetStats(CPU_VULKAN_IN_USE, 0)",
                    "setTargetStats(CREATED_VULKAN_DEVICE, 0)",
                    // robustBufferAccess, VkPhysicalDeviceFeatures' member 0.
                    "setTargetStats(VULKAN_DEVICE_FEATURES_ENABLED, 1)",
                    "setVulkanDeviceExtensions(0, [])",
                ]
            );
        },
    );
}

/// Without the graphics tag (bit 1) libcutils writes nothing; GraphicsEnv's statistics do not
/// depend on it.
#[test]
fn nothing_is_traced_without_the_graphics_tag() {
    let root = tempfile::tempdir().unwrap();
    let env = env(&root, "0x4");
    in_child("nothing_is_traced_without_the_graphics_tag", &env, || {
        with_loader_no_fd_leak(application);
        let markers = std::fs::read_to_string(root_of_child().join(MARKER)).unwrap_or_default();
        assert_eq!(markers, "");
        let stats = std::fs::read_to_string(root_of_child().join(STATS)).unwrap();
        assert!(stats.contains("setTargetStats(CREATED_VULKAN_DEVICE, 0)"));
    });
}

/// The test's root, as the child sees it: the directory holding the trace double.
fn root_of_child() -> &'static Path {
    let marker = std::env::var_os("VKGEN_TRACE_MARKER").expect("VKGEN_TRACE_MARKER in the child");
    Box::leak(
        Path::new(&marker)
            .parent()
            .unwrap()
            .to_path_buf()
            .into_boxed_path(),
    )
}
