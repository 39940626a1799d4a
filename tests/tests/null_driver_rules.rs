//! The loader's behaviour on vkgen's own null driver (`vulkan.null.so` installed as the Android HAL
//! module): proc-address rules, attribution of returned functions, version and extension gating,
//! `VK_INCOMPLETE`, dispatchable-object bookkeeping for queues and command buffers, and fd hygiene
//! over repeated instance/device lifetimes.

mod common;

use ash::vk;
use ash::vk::Handle as _;
use common::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

#[test]
fn loader_rules_on_the_null_hal_driver() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &paths::reference_driver("null"), "");
    in_child("loader_rules_on_the_null_hal_driver", &env, || {
        let loader = require(paths::loader_under_test());
        let entry = require(vkgen_tests::compute::load_entry(&loader));
        let gipa = entry.static_fn().get_instance_proc_addr;
        // SAFETY: GIPA with a null instance and C strings.
        unsafe {
            assert!(gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()).is_some());
            assert!(
                gipa(vk::Instance::null(), c"vkCreateDevice".as_ptr()).is_none(),
                "GIPA(NULL, non-global)"
            );
            assert!(gipa(vk::Instance::null(), c"vkCmdDraw".as_ptr()).is_none());
        }
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let instance =
            // SAFETY: valid create info.
            unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None) }
                .expect("vkCreateInstance on the null HAL driver");
        // VK_INCOMPLETE with a short array.
        let enumerate = instance.fp_v1_0().enumerate_physical_devices;
        let mut count = 0u32;
        assert_eq!(
            // SAFETY: count query.
            unsafe { enumerate(instance.handle(), &mut count, std::ptr::null_mut()) },
            vk::Result::SUCCESS
        );
        assert_eq!(count, 1, "the null driver has one physical device");
        let mut zero = 0u32;
        let mut none = [vk::PhysicalDevice::null(); 1];
        assert_eq!(
            // SAFETY: a zero-capacity array.
            unsafe { enumerate(instance.handle(), &mut zero, none.as_mut_ptr()) },
            vk::Result::INCOMPLETE
        );
        // SAFETY: valid instance.
        let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        // The loader's WSI is built on the driver's VK_ANDROID_native_buffer, which stays hidden.
        // SAFETY: valid physical device.
        let dev_exts = unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap();
        let names: Vec<String> = dev_exts
            .iter()
            .map(|e| {
                e.extension_name_as_c_str()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert!(names.iter().any(|n| n == "VK_KHR_swapchain"), "{names:?}");
        assert!(
            !names.iter().any(|n| n == "VK_ANDROID_native_buffer"),
            "{names:?}"
        );

        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        // SAFETY: valid physical device and create info.
        let device = unsafe {
            instance.create_device(
                pd,
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )
        }
        .expect("vkCreateDevice");
        let gdpa = instance.fp_v1_0().get_device_proc_addr;
        let null_lib = paths::reference_driver("null").canonicalize().unwrap();
        // SAFETY: GDPA with a live device and C strings.
        unsafe {
            let fence_fn =
                gdpa(device.handle(), c"vkCreateFence".as_ptr()).expect("core 1.0 command");
            assert_eq!(
                library_of(fence_fn as usize).canonicalize().unwrap(),
                null_lib,
                "GDPA returns the driver's own function when nothing intercepts it"
            );
            assert!(
                gdpa(device.handle(), c"vkEnumeratePhysicalDevices".as_ptr()).is_none(),
                "instance-level"
            );
            // AOSP: the loader filters only its hooks; a core 1.3 command above the app's 1.1 is
            // what the 1.3 driver answers: its own function.
            let begin = gdpa(device.handle(), c"vkCmdBeginRendering".as_ptr())
                .expect("the driver's answer for core 1.3");
            assert_eq!(
                library_of(begin as usize).canonicalize().unwrap(),
                null_lib,
                "core 1.3 above the app's 1.1: the driver's function"
            );
            assert!(
                gdpa(device.handle(), c"vkCmdBeginRenderingKHR".as_ptr()).is_none(),
                "extension not enabled"
            );
            assert!(
                gdpa(device.handle(), c"vkAcquireImageANDROID".as_ptr()).is_none(),
                "driver-private"
            );
            assert!(gdpa(device.handle(), c"vkNotACommand".as_ptr()).is_none());
            assert!(gdpa(device.handle(), c"vkGetDeviceProcAddr".as_ptr()).is_some());
        }
        // Queues and command buffers dispatch through the loader: trampolines work on them.
        // SAFETY: valid device; objects destroyed before it.
        unsafe {
            let queue = device.get_device_queue(0, 0);
            device
                .queue_wait_idle(queue)
                .expect("vkQueueWaitIdle through the trampoline");
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                    None,
                )
                .unwrap();
            let cbs = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(2),
                )
                .unwrap();
            for &cb in &cbs {
                device
                    .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                    .unwrap();
                device.cmd_set_line_width(cb, 1.0);
                device.end_command_buffer(cb).unwrap();
            }
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            device
                .queue_submit(
                    queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .unwrap();
            device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            device.destroy_fence(fence, None);
            device.free_command_buffers(pool, &cbs);
            device.destroy_command_pool(pool, None);
            device.destroy_device(None);
            instance.destroy_instance(None);
        }
        println!(
            "null HAL driver: proc-address rules, INCOMPLETE, queue and command-buffer dispatch ok"
        );
    });
}

#[test]
fn null_hal_driver_lifetimes_leak_no_fds() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &paths::reference_driver("null"), "");
    in_child("null_hal_driver_lifetimes_leak_no_fds", &env, || {
        with_loader_no_fd_leak(|entry| {
            for _ in 0..200 {
                let instance = try_instance(entry, &[]).expect("vkCreateInstance");
                // SAFETY: valid instance, destroyed below.
                unsafe {
                    let pd = instance.enumerate_physical_devices().unwrap()[0];
                    let priorities = [1.0f32];
                    let queues = [vk::DeviceQueueCreateInfo::default()
                        .queue_family_index(0)
                        .queue_priorities(&priorities)];
                    let device = instance
                        .create_device(
                            pd,
                            &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                            None,
                        )
                        .unwrap();
                    device.destroy_device(None);
                    instance.destroy_instance(None);
                }
            }
        });
    });
}

/// AOSP `driver::GetInstanceProcAddr` and `api_gen.cpp`'s `disabled…` functions: a loader hook
/// of an instance extension the app did not enable is NULL from `vkGetInstanceProcAddr`, and the
/// exported commands of a disabled extension (`vkCreateAndroidSurfaceKHR` without
/// `VK_KHR_android_surface`, `vkCreateSwapchainKHR` without `VK_KHR_swapchain`) log and return
/// `VK_SUCCESS` without touching their outputs.
#[test]
fn disabled_extension_hooks_are_null_and_exported_stubs_do_nothing() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &paths::reference_driver("null"), "");
    in_child(
        "disabled_extension_hooks_are_null_and_exported_stubs_do_nothing",
        &env,
        || {
            let loader = require(paths::loader_under_test());
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            let gipa = entry.static_fn().get_instance_proc_addr;
            let plain = vkgen_tests::compute::create_instance(&entry, &[], &[]).unwrap();
            let with = vkgen_tests::compute::create_instance(
                &entry,
                &[],
                &[
                    ash::khr::surface::NAME,
                    ash::khr::get_surface_capabilities2::NAME,
                ],
            )
            .unwrap();
            let caps2 = c"vkGetPhysicalDeviceSurfaceCapabilities2KHR";
            // SAFETY: GIPA with live instances and a C string.
            unsafe {
                assert!(gipa(plain.handle(), caps2.as_ptr()).is_none());
                assert!(gipa(with.handle(), caps2.as_ptr()).is_some());
            }
            // The exported vkCreateAndroidSurfaceKHR, through the trampoline.
            // SAFETY: GIPA returns the exported symbol for an exported command.
            let create: vk::PFN_vkCreateAndroidSurfaceKHR = unsafe {
                std::mem::transmute(
                    gipa(plain.handle(), c"vkCreateAndroidSurfaceKHR".as_ptr()).unwrap(),
                )
            };
            let info = vk::AndroidSurfaceCreateInfoKHR::default();
            let mut surface = vk::SurfaceKHR::from_raw(0xdead);
            // SAFETY: a valid call shape; the disabled stub touches nothing.
            let r = unsafe { create(plain.handle(), &info, std::ptr::null(), &mut surface) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(
                surface.as_raw(),
                0xdead,
                "the disabled stub wrote an output"
            );

            // A device without VK_KHR_swapchain: the exported vkCreateSwapchainKHR does nothing.
            let (pd, family) = require(vkgen_tests::compute::pick_compute_device(&plain));
            let device = require(vkgen_tests::compute::create_device(&plain, pd, family));
            // SAFETY: GIPA returns the exported symbol for an exported command.
            let create_swapchain: vk::PFN_vkCreateSwapchainKHR = unsafe {
                std::mem::transmute(gipa(plain.handle(), c"vkCreateSwapchainKHR".as_ptr()).unwrap())
            };
            let sci = vk::SwapchainCreateInfoKHR::default();
            let mut swapchain = vk::SwapchainKHR::from_raw(0xbeef);
            // SAFETY: the driver's own entry point with a live device, a valid create info and an output handle.
            let r = unsafe {
                create_swapchain(device.handle(), &sci, std::ptr::null(), &mut swapchain)
            };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(swapchain.as_raw(), 0xbeef);
        },
    );
}
