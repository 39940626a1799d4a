//! Several Khronos ICDs at once through our loader: lavapipe and the fixture driver each get a
//! driver instance, their physical devices enumerate together (as loader wrappers), every
//! physical-device command reaches the right driver, and a device goes to its physical device's
//! driver. The compute round trip runs on lavapipe in this mode too.

mod common;

use ash::vk;
use common::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{compute, paths, require, scenarios};

#[test]
fn lavapipe_and_fixture_enumerate_together() {
    let root = tempfile::tempdir().unwrap();
    let icd = fixture_icd(&[]);
    let fixture = icd_manifest(root.path(), "fixture.json", &icd);
    let lavapipe = require(paths::lavapipe_manifest());
    let env = isolated_env(&root, &[lavapipe, fixture]);
    in_child("lavapipe_and_fixture_enumerate_together", &env, || {
        with_loader_no_fd_leak(|entry| {
            let instance = try_instance(entry, &[]).expect("vkCreateInstance on two drivers");
            let names = device_names(&instance);
            assert_eq!(names.len(), 2, "{names:?}");
            assert!(names[0].starts_with("llvmpipe"), "{names:?}");
            assert_eq!(names[1], "vkgen fixture GPU");

            // SAFETY: a live instance.
            let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
            // VK_INCOMPLETE with a short array.
            let mut one = [vk::PhysicalDevice::null()];
            let mut count = 1u32;
            // SAFETY: `one` holds `count` handles.
            let r = unsafe {
                (instance.fp_v1_0().enumerate_physical_devices)(
                    instance.handle(),
                    &mut count,
                    one.as_mut_ptr(),
                )
            };
            assert_eq!((r, count, one[0]), (vk::Result::INCOMPLETE, 1, devices[0]));

            // Groups: one per device, with the handles the application knows.
            // SAFETY: a live instance (core 1.1).
            let n = unsafe { instance.enumerate_physical_device_groups_len() }.unwrap();
            let mut groups = vec![vk::PhysicalDeviceGroupProperties::default(); n];
            // SAFETY: `groups` has the queried length.
            unsafe { instance.enumerate_physical_device_groups(&mut groups) }.unwrap();
            let members: Vec<vk::PhysicalDevice> = groups
                .iter()
                .flat_map(|g| g.physical_devices[..g.physical_device_count as usize].to_vec())
                .collect();
            assert_eq!(members, devices);

            // Physical-device queries through the stubs reach each device's own driver.
            // SAFETY: physical devices of this instance.
            let families =
                unsafe { instance.get_physical_device_queue_family_properties(devices[1]) };
            assert_eq!(families.len(), 1);
            assert_eq!(families[0].queue_count, 1);
            // SAFETY: a physical device the live instance just enumerated.
            let lvp_ext =
                unsafe { instance.enumerate_device_extension_properties(devices[0]) }.unwrap();
            assert!(lvp_ext.len() > 20);
            // SAFETY: a physical device the live instance just enumerated.
            let fixture_ext =
                unsafe { instance.enumerate_device_extension_properties(devices[1]) }.unwrap();
            assert!(fixture_ext.is_empty());

            // A device on the fixture goes to the fixture driver.
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&priorities)];
            let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
            // SAFETY: a valid create info for the fixture's physical device.
            let device = unsafe { instance.create_device(devices[1], &info, None) }.unwrap();
            assert_eq!(fixture_counter(&icd, c"fixture_live_devices"), 1);
            // SAFETY: family 0 exists; the device is idle.
            unsafe {
                let _queue = device.get_device_queue(0, 0);
                device.destroy_device(None);
            }
            assert_eq!(fixture_counter(&icd, c"fixture_live_devices"), 0);
            // SAFETY: its children are gone.
            unsafe { instance.destroy_instance(None) };
            assert_eq!(fixture_counter(&icd, c"fixture_live_instances"), 0);

            // VK_EXT_debug_utils comes from lavapipe only: the loader's messenger fans out to
            // the drivers that enabled it.
            let instance =
                vkgen_tests::compute::create_instance(entry, &[], &[ash::ext::debug_utils::NAME])
                    .expect("vkCreateInstance with VK_EXT_debug_utils on two drivers");
            let utils = ash::ext::debug_utils::Instance::new(entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
                .message_type(vk::DebugUtilsMessageTypeFlagsEXT::GENERAL)
                .pfn_user_callback(Some(ignore_message));
            // SAFETY: a valid create info; the callback touches nothing.
            let messenger = unsafe { utils.create_debug_utils_messenger(&info, None) }
                .expect("vkCreateDebugUtilsMessengerEXT");
            assert_ne!(messenger, vk::DebugUtilsMessengerEXT::null());
            // SAFETY: the messenger belongs to the live instance.
            unsafe { utils.destroy_debug_utils_messenger(messenger, None) };
            drop(instance);

            // The compute round trip on lavapipe (the first compute device) with two drivers.
            let got = require(compute::run_fill_compute(entry, scenarios::FILL_N, 7));
            require(compute::verify_fill(&got, scenarios::FILL_N, 7));
        });
    });
}

/// A debug-utils callback that ignores every message.
unsafe extern "system" fn ignore_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    _data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user_data: *mut std::ffi::c_void,
) -> vk::Bool32 {
    vk::FALSE
}
