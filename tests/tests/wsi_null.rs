//! Acceptance 2: the loader's WSI on the null driver (installed as the HAL module) and a
//! `vkgen-window` `BufferQueue`: capabilities, formats, present modes and the other surface
//! queries from the window's state; error cases (NULL and stale handles, a second surface or
//! swapchain on one window, unknown colour spaces, exhausted images); `oldSwapchain`
//! recreation; shared presentable images (demand and continuous refresh); display timing;
//! pre-rotation (`VK_SUBOPTIMAL_KHR` only for a transform-hint mismatch, the buffer transform
//! the inverse of `preTransform`); incremental-present damage; allocation callbacks.

mod wsi_support;

use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use ash::vk;
use ash::vk::Handle as _;
use vkgen_abi_consts::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use vkgen_window::{BufferQueue, WindowConfig};
use wsi_support::{hal_env, window, Wsi, PRESENT_TIMESTAMP_PROPERTY};

/// The `system/window.h` values the tests compare with (the tests crate does not depend on the
/// ABI mirror).
mod vkgen_abi_consts {
    pub const NATIVE_WINDOW_TRANSFORM_FLIP_H: i32 = 0x01;
    pub const NATIVE_WINDOW_TRANSFORM_FLIP_V: i32 = 0x02;
    pub const NATIVE_WINDOW_TRANSFORM_ROT_90: i32 = 0x04;
    pub const NATIVE_WINDOW_TRANSFORM_ROT_180: i32 = 0x03;
    pub const NATIVE_WINDOW_TRANSFORM_ROT_270: i32 = 0x07;
    pub const HAL_DATASPACE_V0_SRGB: i32 = 0x0881_0000;
    pub const HAL_PIXEL_FORMAT_RGBA_8888: i32 = 1;
}

fn null_env() -> (vkgen_tests::env::Env, tempfile::TempDir) {
    hal_env("null", PRESENT_TIMESTAMP_PROPERTY)
}

fn loader() -> std::path::PathBuf {
    require(paths::loader_under_test())
}

/// A window with explicit buffer-count parameters.
fn window_with(
    width: u32,
    height: u32,
    min_undequeued: u32,
    max_buffers: u32,
) -> std::sync::Arc<BufferQueue> {
    BufferQueue::new(WindowConfig {
        min_undequeued,
        max_buffer_count: max_buffers,
        ..WindowConfig::with_size(width, height)
    })
}

const ALL_TRANSFORMS: vk::SurfaceTransformFlagsKHR = vk::SurfaceTransformFlagsKHR::from_raw(0x1ff);

#[test]
fn null_capabilities_formats_and_present_modes() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_capabilities_formats_and_present_modes", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window_with(200, 100, 2, 6);
        let surface = wsi.create_surface(&win).unwrap();
        let caps = wsi.caps(surface);
        assert_eq!(
            caps.min_image_count, 4,
            "min(max_buffers, min_undequeued + 2)"
        );
        assert_eq!(caps.max_image_count, 6);
        assert_eq!(
            (caps.current_extent.width, caps.current_extent.height),
            (200, 100)
        );
        assert_eq!(
            (caps.min_image_extent.width, caps.min_image_extent.height),
            (1, 1)
        );
        assert_eq!(
            (caps.max_image_extent.width, caps.max_image_extent.height),
            (4096, 4096)
        );
        assert_eq!(caps.max_image_array_layers, 1);
        assert_eq!(caps.supported_transforms, ALL_TRANSFORMS);
        assert_eq!(
            caps.current_transform,
            vk::SurfaceTransformFlagsKHR::IDENTITY
        );
        assert_eq!(
            caps.supported_composite_alpha,
            vk::CompositeAlphaFlagsKHR::INHERIT
        );
        assert_eq!(
            caps.supported_usage_flags,
            vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::INPUT_ATTACHMENT
        );
        // The window's state is read on every query.
        win.resize(5000, 300).unwrap();
        win.set_transform_hint(NATIVE_WINDOW_TRANSFORM_ROT_90);
        let caps = wsi.caps(surface);
        assert_eq!(
            (caps.current_extent.width, caps.current_extent.height),
            (5000, 300)
        );
        assert_eq!(
            (caps.max_image_extent.width, caps.max_image_extent.height),
            (5000, 4096)
        );
        assert_eq!(
            caps.current_transform,
            vk::SurfaceTransformFlagsKHR::ROTATE_90
        );
        win.set_transform_hint(NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90);
        assert_eq!(
            wsi.caps(surface).current_transform,
            vk::SurfaceTransformFlagsKHR::HORIZONTAL_MIRROR_ROTATE_90
        );

        // SAFETY: live objects of this instance.
        unsafe {
            assert!(wsi
                .surface_fns
                .get_physical_device_surface_support(wsi.pd, wsi.family, surface)
                .unwrap());
            let formats = wsi
                .surface_fns
                .get_physical_device_surface_formats(wsi.pd, surface)
                .unwrap();
            assert!(formats.len() >= 2, "{formats:?}");
            assert_eq!(formats[0].format, vk::Format::R8G8B8A8_UNORM);
            assert_eq!(formats[1].format, vk::Format::R8G8B8A8_SRGB);
            assert!(
                formats
                    .iter()
                    .all(|f| f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR),
                "no other colour space without VK_EXT_swapchain_colorspace: {formats:?}"
            );
            let modes = wsi
                .surface_fns
                .get_physical_device_surface_present_modes(wsi.pd, surface)
                .unwrap();
            assert_eq!(
                modes,
                [
                    vk::PresentModeKHR::MAILBOX,
                    vk::PresentModeKHR::FIFO,
                    vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
                    vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
                ]
            );
            // VK_INCOMPLETE with a short array.
            let mut n = 1u32;
            let mut one = [vk::PresentModeKHR::FIFO_RELAXED];
            let r = (wsi
                .surface_fns
                .fp()
                .get_physical_device_surface_present_modes_khr)(
                wsi.pd,
                surface,
                &mut n,
                one.as_mut_ptr(),
            );
            assert_eq!(
                (r, n, one[0]),
                (vk::Result::INCOMPLETE, 1, vk::PresentModeKHR::MAILBOX)
            );
            let rects = ash::khr::swapchain::Instance::new(&wsi.entry, &wsi.instance)
                .get_physical_device_present_rectangles(wsi.pd, surface)
                .unwrap();
            assert_eq!(rects.len(), 1);
            assert_eq!((rects[0].extent.width, rects[0].extent.height), (5000, 300));
        }
        // No MAILBOX when the window cannot hold one more buffer than it keeps undequeued + 1.
        win.set_max_buffer_count(3).unwrap();
        let caps = wsi.caps(surface);
        assert_eq!((caps.min_image_count, caps.max_image_count), (3, 3));
        // SAFETY: the live physical device and surface of this rig.
        let modes = unsafe {
            wsi.surface_fns
                .get_physical_device_surface_present_modes(wsi.pd, surface)
        }
        .unwrap();
        assert_eq!(modes[0], vk::PresentModeKHR::FIFO, "{modes:?}");
        wsi.destroy_surface(surface);
        println!("capabilities, formats, present modes and rectangles follow the window");
    });
}

#[test]
fn null_capabilities2_colorspaces_and_surfaceless() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child(
        "null_capabilities2_colorspaces_and_surfaceless",
        &env,
        || {
            let wsi = Wsi::new(
                &loader,
                &[
                    ash::khr::get_surface_capabilities2::NAME,
                    c"VK_KHR_surface_protected_capabilities",
                    ash::ext::swapchain_colorspace::NAME,
                    c"VK_GOOGLE_surfaceless_query",
                    c"VK_EXT_surface_maintenance1",
                ],
                &[],
                &[],
            )
            .unwrap();
            let caps2_fns =
                ash::khr::get_surface_capabilities2::Instance::new(&wsi.entry, &wsi.instance);
            let win = window_with(64, 32, 1, 5);
            let surface = wsi.create_surface(&win).unwrap();
            let mut shared = vk::SharedPresentSurfaceCapabilitiesKHR::default();
            let mut protected = vk::SurfaceProtectedCapabilitiesKHR::default();
            let mut scaling = vk::SurfacePresentScalingCapabilitiesEXT::default();
            let mut modes = [vk::PresentModeKHR::FIFO_RELAXED; 4];
            let mut compat =
                vk::SurfacePresentModeCompatibilityEXT::default().present_modes(&mut modes);
            let mut caps = vk::SurfaceCapabilities2KHR::default()
                .push_next(&mut shared)
                .push_next(&mut protected)
                .push_next(&mut scaling)
                .push_next(&mut compat);
            let mut mode = vk::SurfacePresentModeEXT::default()
                .present_mode(vk::PresentModeKHR::SHARED_DEMAND_REFRESH);
            let info = vk::PhysicalDeviceSurfaceInfo2KHR::default()
                .surface(surface)
                .push_next(&mut mode);
            // SAFETY: valid structures.
            unsafe {
                caps2_fns
                    .get_physical_device_surface_capabilities2(wsi.pd, &info, &mut caps)
                    .unwrap()
            };
            let c = caps.surface_capabilities;
            assert_eq!(
                (c.min_image_count, c.max_image_count),
                (1, 1),
                "shared mode: one image"
            );
            assert_eq!(
                shared.shared_present_supported_usage_flags,
                c.supported_usage_flags
            );
            assert_eq!(protected.supports_protected, vk::TRUE);
            assert_eq!(
                scaling.supported_present_scaling,
                vk::PresentScalingFlagsEXT::STRETCH
            );
            assert_eq!(compat.present_mode_count, 2);
            assert_eq!(
                &modes[..2],
                [
                    vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
                    vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
                ]
            );
            // Colour spaces: every format in several, all creatable.
            // SAFETY: valid objects.
            let formats = unsafe {
                wsi.surface_fns
                    .get_physical_device_surface_formats(wsi.pd, surface)
            }
            .unwrap();
            assert!(formats
                .iter()
                .any(|f| f.color_space == vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT));
            assert!(formats
                .iter()
                .any(|f| f.color_space == vk::ColorSpaceKHR::PASS_THROUGH_EXT));
            // Formats2 gives the same list.
            // SAFETY: valid objects.
            unsafe {
                let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(surface);
                let n = caps2_fns
                    .get_physical_device_surface_formats2_len(wsi.pd, &info)
                    .unwrap();
                let mut out = vec![vk::SurfaceFormat2KHR::default(); n];
                caps2_fns
                    .get_physical_device_surface_formats2(wsi.pd, &info, &mut out)
                    .unwrap();
                let same: Vec<_> = out.iter().map(|f| f.surface_format).collect();
                assert_eq!(same, formats);
            }
            // Surfaceless queries (VK_GOOGLE_surfaceless_query enabled).
            let mut caps = vk::SurfaceCapabilities2KHR::default();
            let mut protected = vk::SurfaceProtectedCapabilitiesKHR::default();
            caps = caps.push_next(&mut protected);
            let info = vk::PhysicalDeviceSurfaceInfo2KHR::default();
            // SAFETY: valid structures; a NULL surface is allowed with the extension.
            unsafe {
                caps2_fns
                    .get_physical_device_surface_capabilities2(wsi.pd, &info, &mut caps)
                    .unwrap();
                assert_eq!(caps.surface_capabilities.min_image_count, u32::MAX);
                assert_eq!(protected.supports_protected, vk::TRUE);
                let modes = wsi
                    .surface_fns
                    .get_physical_device_surface_present_modes(wsi.pd, vk::SurfaceKHR::null())
                    .unwrap();
                // AOSP android16: surfaceless present modes are FIFO and the shared ones only.
                assert_eq!(
                    modes,
                    [
                        vk::PresentModeKHR::FIFO,
                        vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
                        vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
                    ]
                );
                assert!(!wsi
                    .surface_fns
                    .get_physical_device_surface_formats(wsi.pd, vk::SurfaceKHR::null())
                    .unwrap()
                    .is_empty());
            }
            // A swapchain in a wide colour space reaches the window with its dataspace.
            let info = wsi
                .swapchain_info(surface)
                .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR);
            let sc = wsi.create_swapchain(&info).unwrap();
            assert_eq!(win.producer_state().dataspace, HAL_DATASPACE_V0_SRGB);
            wsi.destroy_swapchain(sc);
            wsi.destroy_surface(surface);
            println!("capabilities2 chain, colour spaces, formats2 and surfaceless queries ok");
        },
    );
}

#[test]
fn null_error_cases_never_crash() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_error_cases_never_crash", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(32, 32);
        let bogus_surface = vk::SurfaceKHR::from_raw(0xdead_beef);
        let bogus_swapchain = vk::SwapchainKHR::from_raw(0xbad_c0de);
        // SAFETY: deliberately bad handles and NULLs: the loader must answer, not crash.
        unsafe {
            let f = wsi.surface_fns.fp();
            let mut caps = vk::SurfaceCapabilitiesKHR::default();
            for s in [vk::SurfaceKHR::null(), bogus_surface] {
                assert_eq!(
                    (f.get_physical_device_surface_capabilities_khr)(wsi.pd, s, &mut caps),
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "{s:?} without VK_GOOGLE_surfaceless_query"
                );
                let mut n = 0;
                assert_eq!(
                    (f.get_physical_device_surface_formats_khr)(
                        wsi.pd,
                        s,
                        &mut n,
                        std::ptr::null_mut()
                    ),
                    vk::Result::ERROR_SURFACE_LOST_KHR
                );
                assert_eq!(
                    (f.get_physical_device_surface_present_modes_khr)(
                        wsi.pd,
                        s,
                        &mut n,
                        std::ptr::null_mut()
                    ),
                    vk::Result::ERROR_SURFACE_LOST_KHR
                );
            }
            // Destroying NULL or unknown handles is a no-op.
            wsi.destroy_surface(vk::SurfaceKHR::null());
            wsi.destroy_surface(bogus_surface);
            wsi.destroy_swapchain(vk::SwapchainKHR::null());
            wsi.destroy_swapchain(bogus_swapchain);
            // A NULL window.
            let info = vk::AndroidSurfaceCreateInfoKHR::default();
            assert_eq!(
                wsi.android.create_android_surface(&info, None).err(),
                Some(vk::Result::ERROR_SURFACE_LOST_KHR)
            );
            // Unknown swapchains.
            let r = wsi.swapchain_fns.acquire_next_image(
                bogus_swapchain,
                0,
                vk::Semaphore::null(),
                vk::Fence::null(),
            );
            assert_eq!(r.err(), Some(vk::Result::ERROR_SURFACE_LOST_KHR));
            assert_eq!(
                wsi.swapchain_fns
                    .get_swapchain_images(bogus_swapchain)
                    .err(),
                Some(vk::Result::ERROR_SURFACE_LOST_KHR)
            );
            assert_eq!(
                wsi.present(bogus_swapchain, 0),
                vk::Result::ERROR_SURFACE_LOST_KHR
            );
            let info = vk::SwapchainCreateInfoKHR::default()
                .surface(bogus_surface)
                .min_image_count(2)
                .image_format(vk::Format::R8G8B8A8_UNORM)
                .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
                .image_extent(vk::Extent2D {
                    width: 32,
                    height: 32,
                })
                .image_array_layers(1)
                .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
                .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
                .composite_alpha(vk::CompositeAlphaFlagsKHR::INHERIT)
                .present_mode(vk::PresentModeKHR::FIFO);
            assert_eq!(
                wsi.create_swapchain(&info).err(),
                Some(vk::Result::ERROR_SURFACE_LOST_KHR)
            );
        }
        // One surface per window: the second connect fails.
        let surface = wsi.create_surface(&win).unwrap();
        assert_eq!(
            wsi.create_surface(&win).err(),
            Some(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR)
        );
        // An unknown colour space (DOLBYVISION is known: AOSP maps it to BT2020_PQ).
        let info = wsi
            .swapchain_info(surface)
            .image_color_space(vk::ColorSpaceKHR::DISPLAY_NATIVE_AMD);
        assert_eq!(
            wsi.create_swapchain(&info).err(),
            Some(vk::Result::ERROR_INITIALIZATION_FAILED)
        );
        // Exhausting the images: timeout 0 → NOT_READY, a short timeout → TIMEOUT.
        let info = wsi.swapchain_info(surface);
        let sc = wsi.create_swapchain(&info).unwrap();
        // SAFETY: a live swapchain.
        let images = unsafe { wsi.swapchain_fns.get_swapchain_images(sc) }.unwrap();
        assert_eq!(images.len() as u32, info.min_image_count);
        let fence = wsi.fence();
        let mut held = Vec::new();
        loop {
            match wsi.acquire(sc, fence, 0) {
                Ok((i, false)) => held.push(i),
                Ok((_, true)) => panic!("suboptimal acquire"),
                Err(vk::Result::NOT_READY) => break,
                Err(e) => panic!("acquire: {e:?}"),
            }
            assert!(
                held.len() <= images.len(),
                "acquired more images than exist"
            );
        }
        assert!(!held.is_empty());
        assert_eq!(
            wsi.acquire(sc, fence, 1_000_000).err(),
            Some(vk::Result::TIMEOUT)
        );
        // An out-of-range index presents nothing.
        assert_ne!(wsi.present(sc, 99), vk::Result::SUCCESS);
        for &i in &held {
            assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
        }
        // SAFETY: the fence is unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_swapchain(sc);
        wsi.destroy_surface(surface);
        // The window is free again.
        let again = wsi.create_surface(&win).unwrap();
        wsi.destroy_surface(again);
        println!("bad handles, NULLs, second connects, unknown colour spaces and timeouts ok");
    });
}

#[test]
fn null_old_swapchain_recreation_and_window_in_use() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child(
        "null_old_swapchain_recreation_and_window_in_use",
        &env,
        || {
            let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
            let win = window(48, 48);
            let surface = wsi.create_surface(&win).unwrap();
            let info = wsi.swapchain_info(surface);
            let a = wsi.create_swapchain(&info).unwrap();
            let fence = wsi.fence();
            let (held, _) = wsi.acquire(a, fence, u64::MAX).unwrap();
            // A second live swapchain on the window without retiring the first.
            assert_eq!(
                wsi.create_swapchain(&info).err(),
                Some(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR)
            );
            // Recreation through oldSwapchain (say, after a resize).
            win.resize(64, 40).unwrap();
            let info_b = wsi.swapchain_info(surface).old_swapchain(a);
            assert_eq!(info_b.image_extent.width, 64);
            let b = wsi.create_swapchain(&info_b).unwrap();
            // The retired swapchain is out of date; its held image can still be presented.
            assert_eq!(
                wsi.acquire(a, fence, 0).err(),
                Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
            );
            assert_eq!(wsi.present(a, held), vk::Result::ERROR_OUT_OF_DATE_KHR);
            // oldSwapchain must name the current swapchain.
            assert_eq!(
                wsi.create_swapchain(&info_b).err(),
                Some(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR)
            );
            wsi.destroy_swapchain(a);
            let frames_before = win.frame_count();
            for _ in 0..5 {
                let (i, _) = wsi.acquire(b, fence, u64::MAX).unwrap();
                assert_eq!(wsi.present(b, i), vk::Result::SUCCESS);
                let frame = win
                    .acquire_latest()
                    .expect("a frame from the new swapchain");
                assert_eq!((frame.width, frame.height), (64, 40));
                assert_eq!(frame.format, HAL_PIXEL_FORMAT_RGBA_8888);
            }
            assert_eq!(win.frame_count(), frames_before + 5);
            // A new swapchain after the old one is gone (reconnects the window first).
            wsi.destroy_swapchain(b);
            let connects = win.counters().connects;
            let c = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
            assert_eq!(
                win.counters().connects,
                connects + 1,
                "the window was reconnected"
            );
            // More images than the window allows are clamped to the maximum.
            let mut big = wsi.swapchain_info(surface).old_swapchain(c);
            big.min_image_count = 100;
            let d = wsi.create_swapchain(&big).unwrap();
            // SAFETY: a live swapchain.
            let n = unsafe { wsi.swapchain_fns.get_swapchain_images(d) }
                .unwrap()
                .len();
            assert_eq!(n as u32, wsi.caps(surface).max_image_count);
            wsi.destroy_swapchain(c);
            wsi.destroy_swapchain(d);
            // SAFETY: unused.
            unsafe { wsi.device.destroy_fence(fence, None) };
            wsi.destroy_surface(surface);
            println!("oldSwapchain retirement, NATIVE_WINDOW_IN_USE and clamping ok");
        },
    );
}

#[test]
fn null_shared_presentable_image() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_shared_presentable_image", &env, || {
        let wsi = Wsi::new(
            &loader,
            &[
                ash::khr::get_surface_capabilities2::NAME,
                ash::khr::get_physical_device_properties2::NAME,
            ],
            &[ash::khr::shared_presentable_image::NAME],
            &[],
        )
        .unwrap();
        let status_fn = ash::khr::shared_presentable_image::Device::new(&wsi.instance, &wsi.device)
            .fp()
            .get_swapchain_status_khr;
        let win = window(40, 30);
        let surface = wsi.create_surface(&win).unwrap();
        let fence = wsi.fence();
        for (mode, continuous) in [
            (vk::PresentModeKHR::SHARED_DEMAND_REFRESH, false),
            (vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH, true),
        ] {
            let info = wsi
                .swapchain_info(surface)
                .min_image_count(1)
                .present_mode(mode);
            let sc = wsi.create_swapchain(&info).unwrap();
            // SAFETY: a live swapchain.
            let images = unsafe { wsi.swapchain_fns.get_swapchain_images(sc) }.unwrap();
            assert_eq!(images.len(), 1, "{mode:?}");
            let state = win.producer_state();
            assert!(state.shared_buffer_mode, "{mode:?}");
            assert_eq!(state.auto_refresh, continuous, "{mode:?}");
            for _ in 0..3 {
                let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
                assert_eq!(i, 0);
                assert_eq!(wsi.present(sc, 0), vk::Result::SUCCESS);
                assert_eq!(
                    // SAFETY: a live swapchain of this device.
                    unsafe { status_fn(wsi.device.handle(), sc) },
                    vk::Result::SUCCESS
                );
                let frame = win.acquire_latest().expect("a shared frame");
                assert!(frame.shared_buffer, "{mode:?}");
                assert_eq!(frame.auto_refresh, continuous, "{mode:?}");
            }
            // The same buffer every time.
            let ids: Vec<u64> = (0..2)
                .map(|_| {
                    let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
                    assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
                    win.acquire_latest().unwrap().buffer_id
                })
                .collect();
            assert_eq!(ids[0], ids[1]);
            wsi.destroy_swapchain(sc);
        }
        // SAFETY: unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_surface(surface);
        println!("shared presentable image: demand and continuous refresh ok");
    });
}

#[test]
fn null_display_timing() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_display_timing", &env, || {
        let wsi = Wsi::new(&loader, &[], &[ash::google::display_timing::NAME], &[]).unwrap();
        let timing = ash::google::display_timing::Device::new(&wsi.instance, &wsi.device);
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        // SAFETY: a live swapchain.
        let refresh = unsafe { timing.get_refresh_cycle_duration(sc) }.unwrap();
        assert_eq!(
            refresh.refresh_duration, 16_666_667,
            "the window's refresh period"
        );
        let fence = wsi.fence();
        let start = std::time::Instant::now();
        let frames = 12u32;
        for id in 1..=frames {
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
            let times = [vk::PresentTimeGOOGLE {
                present_id: id,
                desired_present_time: 0,
            }];
            let mut times_info = vk::PresentTimesInfoGOOGLE::default().times(&times);
            let swapchains = [sc];
            let indices = [i];
            let info = vk::PresentInfoKHR::default()
                .swapchains(&swapchains)
                .image_indices(&indices)
                .push_next(&mut times_info);
            // SAFETY: a valid present.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            drop(win.acquire_latest().expect("the frame"));
            std::thread::sleep(std::time::Duration::from_millis(17));
        }
        // Let the fake display present the last frames.
        std::thread::sleep(std::time::Duration::from_millis(60));
        // SAFETY: a live swapchain.
        let past = unsafe { timing.get_past_presentation_timing(sc) }.unwrap();
        assert!(!past.is_empty(), "no past timings after {frames} frames");
        assert!(
            past.len() <= (frames as usize) - 4,
            "only frames ≥ 5 frames old: {}",
            past.len()
        );
        let mut last_id = 0;
        let mut last_actual = 0;
        let elapsed = start.elapsed().as_nanos() as u64;
        for p in &past {
            assert!(p.present_id > last_id, "ids increase: {past:?}");
            assert!(
                p.actual_present_time > last_actual,
                "times increase: {past:?}"
            );
            assert!(p.earliest_present_time <= p.actual_present_time, "{p:?}");
            assert!(p.actual_present_time > 0);
            last_id = p.present_id;
            last_actual = p.actual_present_time;
        }
        let span = past.last().unwrap().actual_present_time - past[0].actual_present_time;
        assert!(
            span < elapsed,
            "present times span {span} ns within {elapsed} ns"
        );
        // Reported timings are consumed.
        // SAFETY: a live swapchain of the rig's device, which enabled VK_GOOGLE_display_timing.
        let again = unsafe { timing.get_past_presentation_timing(sc) }.unwrap();
        assert!(again.iter().all(|p| p.present_id > last_id), "{again:?}");
        // Retired swapchains are out of date.
        let b = wsi
            .create_swapchain(&wsi.swapchain_info(surface).old_swapchain(sc))
            .unwrap();
        assert_eq!(
            // SAFETY: a live swapchain.
            unsafe { timing.get_past_presentation_timing(sc) }.err(),
            Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
        );
        wsi.destroy_swapchain(sc);
        wsi.destroy_swapchain(b);
        // SAFETY: unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_surface(surface);
        println!(
            "display timing: refresh {} ns, {} past timings, first {:?}",
            refresh.refresh_duration,
            past.len(),
            past[0]
        );
    });
}

#[test]
fn null_pre_rotation() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_pre_rotation", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(80, 40);
        win.set_transform_hint(NATIVE_WINDOW_TRANSFORM_ROT_90);
        let surface = wsi.create_surface(&win).unwrap();
        let caps = wsi.caps(surface);
        assert_eq!(
            caps.current_transform,
            vk::SurfaceTransformFlagsKHR::ROTATE_90
        );
        assert_eq!(caps.current_extent.width, 80, "the extent is never swapped");
        let fence = wsi.fence();
        let present_once = |sc| {
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
            let r = wsi.present(sc, i);
            (r, win.acquire_latest().expect("a frame").transform)
        };
        // Not pre-rotated: SUBOPTIMAL, and the compositor is asked for no transform.
        let info = wsi
            .swapchain_info(surface)
            .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY);
        let a = wsi.create_swapchain(&info).unwrap();
        assert_eq!(present_once(a), (vk::Result::SUBOPTIMAL_KHR, 0));
        // Pre-rotated as the hint says: SUCCESS, and the buffer carries the inverse rotation.
        let info = wsi
            .swapchain_info(surface)
            .pre_transform(vk::SurfaceTransformFlagsKHR::ROTATE_90)
            .image_extent(vk::Extent2D {
                width: 40,
                height: 80,
            })
            .old_swapchain(a);
        let b = wsi.create_swapchain(&info).unwrap();
        wsi.destroy_swapchain(a);
        assert_eq!(
            present_once(b),
            (vk::Result::SUCCESS, NATIVE_WINDOW_TRANSFORM_ROT_270)
        );
        // A resize alone is not suboptimal.
        win.resize(100, 100).unwrap();
        assert_eq!(present_once(b).0, vk::Result::SUCCESS);
        // The display rotates further: suboptimal again.
        win.set_transform_hint(NATIVE_WINDOW_TRANSFORM_ROT_180);
        assert_eq!(present_once(b).0, vk::Result::SUBOPTIMAL_KHR);
        // Every transform: buffer transform = inverse(preTransform); SUCCESS iff hint matches.
        use vk::SurfaceTransformFlagsKHR as X;
        let cases = [
            (X::IDENTITY, 0, 0),
            (
                X::ROTATE_90,
                NATIVE_WINDOW_TRANSFORM_ROT_90,
                NATIVE_WINDOW_TRANSFORM_ROT_270,
            ),
            (
                X::ROTATE_180,
                NATIVE_WINDOW_TRANSFORM_ROT_180,
                NATIVE_WINDOW_TRANSFORM_ROT_180,
            ),
            (
                X::ROTATE_270,
                NATIVE_WINDOW_TRANSFORM_ROT_270,
                NATIVE_WINDOW_TRANSFORM_ROT_90,
            ),
            (
                X::HORIZONTAL_MIRROR,
                NATIVE_WINDOW_TRANSFORM_FLIP_H,
                NATIVE_WINDOW_TRANSFORM_FLIP_H,
            ),
            (
                X::HORIZONTAL_MIRROR_ROTATE_90,
                NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90,
                NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90,
            ),
            (
                X::HORIZONTAL_MIRROR_ROTATE_180,
                NATIVE_WINDOW_TRANSFORM_FLIP_V,
                NATIVE_WINDOW_TRANSFORM_FLIP_V,
            ),
            (
                X::HORIZONTAL_MIRROR_ROTATE_270,
                NATIVE_WINDOW_TRANSFORM_FLIP_V | NATIVE_WINDOW_TRANSFORM_ROT_90,
                NATIVE_WINDOW_TRANSFORM_FLIP_V | NATIVE_WINDOW_TRANSFORM_ROT_90,
            ),
        ];
        let mut old = b;
        for (pre, hint, buffer_transform) in cases {
            win.set_transform_hint(hint);
            assert_eq!(wsi.caps(surface).current_transform, pre);
            let info = wsi
                .swapchain_info(surface)
                .pre_transform(pre)
                .old_swapchain(old);
            let sc = wsi.create_swapchain(&info).unwrap();
            wsi.destroy_swapchain(old);
            assert_eq!(
                present_once(sc),
                (vk::Result::SUCCESS, buffer_transform),
                "{pre:?}"
            );
            win.set_transform_hint(if hint == 0 {
                NATIVE_WINDOW_TRANSFORM_ROT_90
            } else {
                0
            });
            assert_eq!(present_once(sc).0, vk::Result::SUBOPTIMAL_KHR, "{pre:?}");
            old = sc;
        }
        wsi.destroy_swapchain(old);
        // SAFETY: unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_surface(surface);
        println!("pre-rotation: SUBOPTIMAL only on hint mismatch, buffer transform = inverse");
    });
}

#[test]
fn null_incremental_present_damage() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_incremental_present_damage", &env, || {
        let wsi = Wsi::new(&loader, &[], &[c"VK_KHR_incremental_present"], &[]).unwrap();
        let win = window(64, 64);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let fence = wsi.fence();
        let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        let rects = [vk::RectLayerKHR {
            offset: vk::Offset2D { x: 4, y: 8 },
            extent: vk::Extent2D {
                width: 10,
                height: 20,
            },
            layer: 0,
        }];
        let regions = [vk::PresentRegionKHR::default().rectangles(&rects)];
        let mut regions_info = vk::PresentRegionsKHR::default().regions(&regions);
        let swapchains = [sc];
        let indices = [i];
        let mut results = [vk::Result::ERROR_UNKNOWN];
        let info = vk::PresentInfoKHR::default()
            .swapchains(&swapchains)
            .image_indices(&indices)
            .results(&mut results)
            .push_next(&mut regions_info);
        // SAFETY: a valid present.
        let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
        assert_eq!((r, results[0]), (vk::Result::SUCCESS, vk::Result::SUCCESS));
        let frame = win.acquire_latest().unwrap();
        assert_eq!(frame.damage.len(), 1);
        let d = frame.damage[0];
        assert_eq!(
            (d.left, d.bottom, d.right, d.top),
            (4, 8, 14, 28),
            "y-flipped rect"
        );
        wsi.destroy_swapchain(sc);
        // SAFETY: unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_surface(surface);
        println!("incremental present: damage rectangles reach the window");
    });
}

/// Allocation callbacks that count live allocations and can be told to fail.
struct Counting {
    live: AtomicUsize,
    fail_after: AtomicI64,
    /// Allocations made with scope OBJECT.
    objects: AtomicUsize,
}

unsafe extern "system" fn count_alloc(
    user: *mut c_void,
    size: usize,
    align: usize,
    scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: `user` is the test's live `Counting`.
    let c = unsafe { &*(user as *const Counting) };
    if scope == vk::SystemAllocationScope::OBJECT {
        c.objects.fetch_add(1, Ordering::SeqCst);
    }
    if c.fail_after.fetch_sub(1, Ordering::SeqCst) <= 0 {
        return std::ptr::null_mut();
    }
    c.live.fetch_add(1, Ordering::SeqCst);
    // SAFETY: posix_memalign with a power-of-two alignment of at least a pointer.
    unsafe {
        let mut p = std::ptr::null_mut();
        if libc::posix_memalign(&mut p, align.max(8), size.max(1)) != 0 {
            return std::ptr::null_mut();
        }
        p
    }
}

unsafe extern "system" fn count_realloc(
    _user: *mut c_void,
    _orig: *mut c_void,
    _size: usize,
    _align: usize,
    _scope: vk::SystemAllocationScope,
) -> *mut c_void {
    std::ptr::null_mut()
}

unsafe extern "system" fn count_free(user: *mut c_void, p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: `user` is the test's live `Counting`; `p` came from `count_alloc`.
    unsafe {
        (*(user as *const Counting))
            .live
            .fetch_sub(1, Ordering::SeqCst);
        libc::free(p);
    }
}

#[test]
fn null_allocation_callbacks_are_honoured() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_allocation_callbacks_are_honoured", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(16, 16);
        let counting = Box::new(Counting {
            live: AtomicUsize::new(0),
            fail_after: AtomicI64::new(i64::MAX),
            objects: AtomicUsize::new(0),
        });
        let callbacks = vk::AllocationCallbacks {
            p_user_data: std::ptr::from_ref(&*counting).cast_mut().cast(),
            pfn_allocation: Some(count_alloc),
            pfn_reallocation: Some(count_realloc),
            pfn_free: Some(count_free),
            ..Default::default()
        };
        let info = vk::AndroidSurfaceCreateInfoKHR::default().window(win.window().cast());
        // SAFETY: valid create infos and callbacks that outlive the objects.
        unsafe {
            let surface = wsi
                .android
                .create_android_surface(&info, Some(&callbacks))
                .unwrap();
            assert!(counting.live.load(Ordering::SeqCst) >= 1);
            let sc = wsi
                .swapchain_fns
                .create_swapchain(&wsi.swapchain_info(surface), Some(&callbacks))
                .unwrap();
            wsi.swapchain_fns.destroy_swapchain(sc, Some(&callbacks));
            wsi.surface_fns.destroy_surface(surface, Some(&callbacks));
            assert_eq!(
                counting.live.load(Ordering::SeqCst),
                0,
                "every allocation freed"
            );
            // An allocator that fails: OUT_OF_HOST_MEMORY, nothing leaked, window untouched.
            counting.fail_after.store(0, Ordering::SeqCst);
            assert_eq!(
                wsi.android
                    .create_android_surface(&info, Some(&callbacks))
                    .err(),
                Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
            );
            counting.fail_after.store(i64::MAX, Ordering::SeqCst);
            let surface = wsi
                .android
                .create_android_surface(&info, Some(&callbacks))
                .unwrap();
            counting.fail_after.store(0, Ordering::SeqCst);
            assert_eq!(
                wsi.swapchain_fns
                    .create_swapchain(&wsi.swapchain_info(surface), Some(&callbacks))
                    .err(),
                Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
            );
            counting.fail_after.store(i64::MAX, Ordering::SeqCst);
            // The failed creation left the window usable.
            let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
            wsi.destroy_swapchain(sc);
            wsi.surface_fns.destroy_surface(surface, Some(&callbacks));
        }
        assert_eq!(counting.live.load(Ordering::SeqCst), 0);
        println!("allocation callbacks: balanced, and OOM gives VK_ERROR_OUT_OF_HOST_MEMORY");
    });
}

/// AOSP's `CreateAndroidSurfaceKHR` / `CreateSwapchainKHR`: without a pAllocator the surface
/// takes its instance's allocator and the swapchain its device's, scope OBJECT; destroyed
/// without one, they free through it.
#[test]
fn wsi_objects_without_an_allocator_use_the_instances_and_devices() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child(
        "wsi_objects_without_an_allocator_use_the_instances_and_devices",
        &env,
        || {
            let counting = Box::new(Counting {
                live: AtomicUsize::new(0),
                fail_after: AtomicI64::new(i64::MAX),
                objects: AtomicUsize::new(0),
            });
            let callbacks = vk::AllocationCallbacks {
                p_user_data: std::ptr::from_ref(&*counting).cast_mut().cast(),
                pfn_allocation: Some(count_alloc),
                pfn_reallocation: Some(count_realloc),
                pfn_free: Some(count_free),
                ..Default::default()
            };
            let wsi = Wsi::new_in(&loader, &[], &[], &[], Some(&callbacks)).unwrap();
            let win = window(16, 16);
            let info = vk::AndroidSurfaceCreateInfoKHR::default().window(win.window().cast());
            let (live, objects) = (
                counting.live.load(Ordering::SeqCst),
                counting.objects.load(Ordering::SeqCst),
            );
            // SAFETY: valid create infos; the instance's callbacks outlive the objects.
            unsafe {
                let surface = wsi.android.create_android_surface(&info, None).unwrap();
                assert_eq!(counting.live.load(Ordering::SeqCst), live + 1);
                assert_eq!(counting.objects.load(Ordering::SeqCst), objects + 1);
                let sc = wsi
                    .swapchain_fns
                    .create_swapchain(&wsi.swapchain_info(surface), None)
                    .unwrap();
                assert_eq!(counting.live.load(Ordering::SeqCst), live + 2);
                assert_eq!(counting.objects.load(Ordering::SeqCst), objects + 2);
                wsi.swapchain_fns.destroy_swapchain(sc, None);
                wsi.surface_fns.destroy_surface(surface, None);
            }
            assert_eq!(
                counting.live.load(Ordering::SeqCst),
                live,
                "freed through them"
            );
            drop(wsi);
            assert_eq!(counting.live.load(Ordering::SeqCst), 0);
        },
    );
}

#[test]
fn null_extension_lists() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_extension_lists", &env, || {
        let entry = require(vkgen_tests::compute::load_entry(&loader));
        // SAFETY: global query.
        let instance_exts: Vec<String> =
            unsafe { entry.enumerate_instance_extension_properties(None) }
                .unwrap()
                .iter()
                .map(|e| {
                    e.extension_name_as_c_str()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
        for e in [
            "VK_KHR_surface",
            "VK_KHR_android_surface",
            "VK_KHR_get_surface_capabilities2",
            "VK_EXT_swapchain_colorspace",
            "VK_KHR_surface_protected_capabilities",
            "VK_GOOGLE_surfaceless_query",
        ] {
            assert!(
                instance_exts.iter().any(|n| n == e),
                "{e} missing: {instance_exts:?}"
            );
        }
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        // SAFETY: a live physical device.
        let device_exts: Vec<(String, u32)> =
            unsafe { wsi.instance.enumerate_device_extension_properties(wsi.pd) }
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e.extension_name_as_c_str()
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                        e.spec_version,
                    )
                })
                .collect();
        let has = |n: &str| device_exts.iter().any(|(e, _)| e == n);
        assert!(
            device_exts.contains(&("VK_KHR_swapchain".to_owned(), 70)),
            "{device_exts:?}"
        );
        assert!(
            !has("VK_ANDROID_native_buffer"),
            "ANB is never visible: {device_exts:?}"
        );
        assert!(has("VK_KHR_incremental_present"));
        assert!(
            has("VK_KHR_shared_presentable_image"),
            "null reports sharedImage"
        );
        assert!(
            has("VK_GOOGLE_display_timing"),
            "service.sf.present_timestamp=1"
        );
        assert!(
            has("VK_EXT_swapchain_maintenance1"),
            "the null driver imports SYNC_FD fences (the kit's sync component)"
        );
        // The loader's extensions first, in AOSP's order; image compression control because
        // the null driver has native buffer spec 11 and the feature (its own copies of the two
        // extensions are not listed again).
        let names: Vec<&str> = device_exts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names[..7],
            [
                "VK_KHR_incremental_present",
                "VK_KHR_shared_presentable_image",
                "VK_GOOGLE_display_timing",
                "VK_EXT_image_compression_control",
                "VK_EXT_image_compression_control_swapchain",
                "VK_EXT_swapchain_maintenance1",
                "VK_KHR_swapchain_mutable_format",
            ]
        );
        assert_eq!(
            names
                .iter()
                .filter(|n| n.starts_with("VK_EXT_image_compression_control"))
                .count(),
            2
        );
        println!("instance {instance_exts:?}\ndevice {device_exts:?}");
    });
}

#[test]
fn null_forgotten_swapchains_and_surfaces_are_cleaned_up() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child(
        "null_forgotten_swapchains_and_surfaces_are_cleaned_up",
        &env,
        || {
            let win = window(24, 24);
            {
                let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
                let surface = wsi.create_surface(&win).unwrap();
                let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
                let fence = wsi.fence();
                let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
                assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
                // SAFETY: unused.
                unsafe { wsi.device.destroy_fence(fence, None) };
                // Neither the swapchain nor the surface is destroyed: dropping `wsi` destroys the
                // device, then the instance.
            }
            assert_eq!(
                win.counters().disconnects,
                win.counters().connects,
                "the window was disconnected: {:?}",
                win.counters()
            );
            // The window can be used again by a new instance.
            let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
            let surface = wsi.create_surface(&win).unwrap();
            let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
            wsi.destroy_swapchain(sc);
            wsi.destroy_surface(surface);
            println!(
                "forgotten swapchains and surfaces are destroyed with their device / instance"
            );
        },
    );
}

/// Issue 11: the answers after the consumer abandons the window are AOSP's (android16
/// `swapchain.cpp`): a failed present orphans the swapchain (`OrphanSwapchain` clears the
/// surface's current swapchain), so a later `vkCreateSwapchainKHR` naming it as `oldSwapchain`
/// is `VK_ERROR_NATIVE_WINDOW_IN_USE_KHR` (`surface.swapchain_handle != oldSwapchain`), one with
/// a NULL `oldSwapchain` reaches the window and is `VK_ERROR_SURFACE_LOST_KHR`, and the
/// capabilities query (a window query) is `VK_ERROR_SURFACE_LOST_KHR`.
#[test]
fn wsi_abandoned_window_answers_match_aosp() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("wsi_abandoned_window_answers_match_aosp", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let fence = wsi.fence();
        let caps_result = |surface| {
            let mut caps = vk::SurfaceCapabilitiesKHR::default();
            // SAFETY: a live surface and a valid output.
            unsafe {
                (wsi.surface_fns
                    .fp()
                    .get_physical_device_surface_capabilities_khr)(
                    wsi.pd, surface, &mut caps
                )
            }
        };

        // 1. Abandoned, then a present fails: the swapchain is orphaned.
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let info = wsi.swapchain_info(surface);
        let a = wsi.create_swapchain(&info).unwrap();
        let (held, _) = wsi.acquire(a, fence, u64::MAX).unwrap();
        win.abandon();
        assert_eq!(wsi.present(a, held), vk::Result::ERROR_SURFACE_LOST_KHR);
        assert_eq!(caps_result(surface), vk::Result::ERROR_SURFACE_LOST_KHR);
        assert_eq!(
            wsi.create_swapchain(&info.old_swapchain(a)).err(),
            Some(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR)
        );
        assert_eq!(
            wsi.create_swapchain(&info.old_swapchain(vk::SwapchainKHR::null()))
                .err(),
            Some(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        wsi.destroy_swapchain(a);
        wsi.destroy_surface(surface);

        // 2. Abandoned with no present in between: recreation through the current swapchain
        // retires it and then fails on the window; a retry names a retired swapchain.
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let info = wsi.swapchain_info(surface);
        let b = wsi.create_swapchain(&info).unwrap();
        win.abandon();
        assert_eq!(caps_result(surface), vk::Result::ERROR_SURFACE_LOST_KHR);
        assert_eq!(
            wsi.create_swapchain(&info.old_swapchain(b)).err(),
            Some(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        assert_eq!(
            wsi.create_swapchain(&info.old_swapchain(b)).err(),
            Some(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR)
        );
        wsi.destroy_swapchain(b);
        wsi.destroy_surface(surface);
        // SAFETY: unused.
        unsafe { wsi.device.destroy_fence(fence, None) };
        println!("abandoned-window answers match AOSP");
    });
}

/// With the kit's sync component the null driver imports `SYNC_FD` fences, so the loader offers
/// `VK_EXT_swapchain_maintenance1` on it: a present fence signals once the release fence the
/// driver returned fires, and the fds travel without leaking.
#[test]
fn null_swapchain_maintenance1_present_fences() {
    let loader = loader();
    let (env, _root) = null_env();
    in_child("null_swapchain_maintenance1_present_fences", &env, || {
        let wsi = Wsi::new(
            &loader,
            &[
                ash::khr::get_surface_capabilities2::NAME,
                c"VK_EXT_surface_maintenance1",
            ],
            &[ash::ext::swapchain_maintenance1::NAME],
            &[],
        )
        .unwrap();
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let fence = wsi.fence();
        let present_fence = wsi.fence();
        let fds = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let mut before = 0;
        for round in 0..220 {
            if round == 20 {
                before = fds();
            }
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
            let fences = [present_fence];
            let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
            let swapchains = [sc];
            let indices = [i];
            let info = vk::PresentInfoKHR::default()
                .swapchains(&swapchains)
                .image_indices(&indices)
                .push_next(&mut fence_info);
            // SAFETY: a valid present.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            // SAFETY: a live fence, waited with a 5 s bound.
            unsafe {
                wsi.device
                    .wait_for_fences(&[present_fence], true, 5_000_000_000)
                    .unwrap();
                wsi.device.reset_fences(&[present_fence]).unwrap();
            }
            drop(win.acquire_latest());
        }
        assert_eq!(fds(), before, "present-fence fds leaked");
    });
}

/// AOSP `EnumerateDeviceExtensionProperties`: `VK_EXT_hdr_metadata` is the loader's, offered
/// only when `ro.surface_flinger.has_HDR_display` is set; with it enabled, `vkSetHdrMetadataEXT`
/// resolves and runs on a swapchain.
#[test]
fn null_hdr_metadata_only_on_hdr_displays() {
    const SCENARIO: &str = "null_hdr_metadata_only_on_hdr_displays";
    if vkgen_tests::env::child_scenario().is_some() {
        hdr_child(std::env::var("VKGEN_TEST_HDR").as_deref() == Ok("1"));
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    // The property is parsed as AOSP's sysprop accessor does: `1`/`true`/`0`/`false` in any
    // case; anything else (`yes`, which GetBoolProperty would take) falls to ConfigStore, which
    // vkgen does not ask: the default, false.
    for (value, hdr) in [("0", false), ("1", true), ("TRUE", true), ("yes", false)] {
        let props = format!("ro.surface_flinger.has_HDR_display={value}\n");
        let (env, _root) = hal_env("null", &props);
        let env = env.set("VKGEN_TEST_HDR", if hdr { "1" } else { "0" });
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

fn hdr_child(hdr: bool) {
    let loader = loader();
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let instance = vkgen_tests::compute::create_instance(&entry, &[], &[]).unwrap();
    // SAFETY: plain Vulkan use of a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    // SAFETY: a physical device the live instance just enumerated.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap();
    let has = exts
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::hdr_metadata::NAME));
    assert_eq!(has, hdr);
    drop(instance);
    if hdr {
        let wsi = Wsi::new(&loader, &[], &[ash::ext::hdr_metadata::NAME], &[]).unwrap();
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let hdr_fns = ash::ext::hdr_metadata::Device::new(&wsi.instance, &wsi.device);
        let md = vk::HdrMetadataEXT::default().max_luminance(1000.0);
        // SAFETY: a live swapchain and valid metadata.
        unsafe { hdr_fns.set_hdr_metadata(&[sc], &[md]) };
    }
}
