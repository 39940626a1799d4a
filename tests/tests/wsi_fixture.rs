//! The loader's WSI against a small C HAL driver whose `VK_ANDROID_native_buffer` side is
//! configurable and observable, for what vkgen's own drivers cannot show:
//! * the gralloc-usage order: `vkGetPhysicalDeviceImageFormatProperties2` with an AHB external
//!   format, then the first of `vkGetSwapchainGrallocUsage4/3/2/ANDROID` the driver has; a
//!   driver error → `VK_ERROR_SURFACE_LOST_KHR`; no usage query at all →
//!   `VK_ERROR_INCOMPATIBLE_DRIVER` at `vkCreateDevice`;
//! * `VK_EXT_swapchain_maintenance1` on a driver that imports `SYNC_FD` fences: advertised, its
//!   feature reported, mapped to `VK_KHR_external_fence_fd` at device creation, present fences
//!   imported (`TEMPORARY`, `SYNC_FD`, a real fd), `vkReleaseSwapchainImagesEXT`, deferred
//!   memory allocation (unbound images bound at first acquire with `VkNativeBufferANDROID` →
//!   `VkBindImageMemorySwapchainInfoKHR`), present-mode switches between the shared modes;
//! * an application image bound to a swapchain image with `VkBindImageMemorySwapchainInfoKHR`
//!   (the loader prepends the buffer's `VkNativeBufferANDROID`);
//! * real release-fence fds (eventfds) flowing driver → window → next acquire without leaks.

mod common;
#[path = "wsi_support/fixture_driver.rs"]
mod fixture_driver;
mod wsi_support;

use std::path::{Path, PathBuf};

use ash::vk;
use common::hal_env;
use fixture_driver::{counter, wsi_driver};
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{window, Wsi};

/// Creates a swapchain on the fixture and returns the usage the window was given, or the error.
fn swapchain_usage(loader: &Path) -> Result<u64, vk::Result> {
    let wsi = Wsi::new(loader, &[], &[], &[]).map_err(|e| {
        if e.contains("ERROR_INCOMPATIBLE_DRIVER") {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER
        } else {
            panic!("{e}")
        }
    })?;
    let win = window(16, 16);
    win.set_consumer_usage(0);
    let surface = wsi.create_surface(&win).unwrap();
    let r = wsi.create_swapchain(&wsi.swapchain_info(surface));
    let usage = win.producer_state().usage;
    if let Ok(sc) = r {
        wsi.destroy_swapchain(sc);
    }
    wsi.destroy_surface(surface);
    r.map(|_| usage)
}

macro_rules! gralloc_case {
    ($name:ident, [$($define:literal),*], $check:expr) => {
        #[test]
        fn $name() {
            let loader = require(paths::loader_under_test());
            let lib = wsi_driver(&[$($define),*]);
            let root = tempfile::tempdir().unwrap();
            let env = hal_env(&root, &lib, "");
            in_child(stringify!($name), &env, || {
                let result = swapchain_usage(&loader);
                let check: &dyn Fn(Result<u64, vk::Result>, i32, i32) = &$check;
                check(result, counter(&lib, "gralloc_version"), counter(&lib, "gpdifp2_calls"));
            });
        }
    };
}

const GPU_BITS: u64 = 0x300;

gralloc_case!(
    gralloc_image_format_properties_first,
    ["GPDIFP2_OK", "GRALLOC4", "GRALLOC1"],
    |r, v, q| {
        assert_eq!(r, Ok(0x1000_0000 | GPU_BITS), "the AHB usage from GPDIFP2");
        assert_eq!((v, q), (0, 1), "no GrallocUsage call");
    }
);
gralloc_case!(
    gralloc_falls_back_to_4,
    ["GRALLOC4", "GRALLOC3", "GRALLOC2", "GRALLOC1"],
    |r, v, q| {
        assert_eq!(r, Ok(0x0400_0000 | GPU_BITS));
        assert_eq!((v, q), (4, 1));
    }
);
gralloc_case!(
    gralloc_falls_back_to_3,
    ["GRALLOC3", "GRALLOC2", "GRALLOC1"],
    |r, v, _| {
        assert_eq!(r, Ok(0x0300_0000 | GPU_BITS));
        assert_eq!(v, 3);
    }
);
gralloc_case!(
    gralloc_falls_back_to_2,
    ["GRALLOC2", "GRALLOC1"],
    |r, v, _| {
        // consumer GPU_TEXTURE | producer RENDER_TARGET merged into one BufferUsage.
        assert_eq!(r, Ok(0x0200_0000 | GPU_BITS));
        assert_eq!(v, 2);
    }
);
gralloc_case!(gralloc_falls_back_to_1, ["GRALLOC1"], |r, v, _| {
    assert_eq!(r, Ok(0x0100_0000 | GPU_BITS));
    assert_eq!(v, 1);
});
gralloc_case!(
    gralloc_failure_is_surface_lost,
    ["GRALLOC4", "GRALLOC_FAILS"],
    |r, v, _| {
        assert_eq!(r, Err(vk::Result::ERROR_SURFACE_LOST_KHR));
        assert_eq!(v, 4);
    }
);
gralloc_case!(gralloc_missing_is_an_incompatible_driver, [], |r, _, _| {
    assert_eq!(r, Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER));
});

/// A shared-demand-refresh swapchain on the fixture: the usage its window was given and the
/// gralloc query the driver answered (0: none); checks it is created in shared-buffer mode, its
/// one image, and `vkGetSwapchainStatusKHR`.
fn shared_swapchain(loader: &Path, lib: &Path) -> (u64, i32) {
    let wsi = Wsi::new(
        loader,
        &[],
        &[ash::khr::shared_presentable_image::NAME],
        &[],
    )
    .unwrap();
    let win = window(16, 16);
    win.set_consumer_usage(0);
    let surface = wsi.create_surface(&win).unwrap();
    // SAFETY: a live surface of this instance.
    let modes = unsafe {
        wsi.surface_fns
            .get_physical_device_surface_present_modes(wsi.pd, surface)
    }
    .unwrap();
    assert!(
        modes.contains(&vk::PresentModeKHR::SHARED_DEMAND_REFRESH),
        "sharedImage offers the shared modes: {modes:?}"
    );
    let plain = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
    assert_eq!(
        counter(lib, "gralloc_version"),
        0,
        "a FIFO swapchain: GPDIFP2's usage"
    );
    assert_eq!(win.producer_state().usage & FRONT_BUFFER, 0);
    let info = vk::SwapchainCreateInfoKHR {
        present_mode: vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
        min_image_count: 1,
        old_swapchain: plain,
        ..wsi.swapchain_info(surface)
    };
    let sc = wsi.create_swapchain(&info).unwrap();
    wsi.destroy_swapchain(plain);
    let state = win.producer_state();
    assert!(state.shared_buffer_mode);
    // SAFETY: a live swapchain.
    let images = unsafe { wsi.swapchain_fns.get_swapchain_images(sc) }.unwrap();
    assert_eq!(images.len(), 1);
    let status = ash::khr::shared_presentable_image::Device::new(&wsi.instance, &wsi.device)
        .fp()
        .get_swapchain_status_khr;
    // SAFETY: the device's command with its live swapchain.
    let r = unsafe { status(wsi.device.handle(), sc) };
    assert_eq!(
        r,
        vk::Result::SUCCESS,
        "vkGetSwapchainStatusKHR of a current swapchain"
    );
    wsi.destroy_swapchain(sc);
    wsi.destroy_surface(surface);
    (state.usage, counter(lib, "gralloc_version"))
}

const FRONT_BUFFER: u64 = 1 << 32;

/// AOSP `getProducerUsageGPDIFP2`: a shared swapchain's buffers get the driver's AHardwareBuffer
/// usage plus `FRONT_BUFFER` when `AHardwareBuffer_isSupported` says the allocator has it.
#[test]
fn shared_swapchain_front_buffer_from_the_allocator() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GPDIFP2_OK", "GRALLOC3", "SHARED_IMAGE"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "");
    in_child(
        "shared_swapchain_front_buffer_from_the_allocator",
        &env,
        || {
            let (usage, gralloc) = shared_swapchain(&loader, &lib);
            assert_eq!(usage, 0x1000_0000 | GPU_BITS | FRONT_BUFFER);
            assert_eq!(gralloc, 0, "no GrallocUsage call");
        },
    );
}

/// AOSP `getProducerUsage`: where the allocator has no `FRONT_BUFFER` buffer for a shared
/// swapchain, the driver's `vkGetSwapchainGrallocUsage*ANDROID` decides its usage instead.
#[test]
fn shared_swapchain_without_allocator_front_buffer_asks_gralloc_usage() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GPDIFP2_OK", "GRALLOC3", "SHARED_IMAGE"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "").set("VKGEN_GRALLOC_FRONT_BUFFER", "0");
    in_child(
        "shared_swapchain_without_allocator_front_buffer_asks_gralloc_usage",
        &env,
        || {
            let (usage, gralloc) = shared_swapchain(&loader, &lib);
            assert_eq!(usage, 0x0300_0000 | GPU_BITS, "GrallocUsage3's usage");
            assert_eq!(gralloc, 3);
        },
    );
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// AOSP `VK_KHR_swapchain_mutable_format`: offered on a 1.2 device (not on a 1.1 one); a
/// mutable-format swapchain's images are created `MUTABLE_FORMAT | EXTENDED_USAGE` with the
/// application's `VkImageFormatListCreateInfo` in their chain.
#[test]
fn swapchain_mutable_format_passes_the_format_list_to_the_driver() {
    const SCENARIO: &str = "swapchain_mutable_format_passes_the_format_list_to_the_driver";
    if vkgen_tests::env::child_scenario().is_some() {
        let api_1_2 = std::env::var("VKGEN_TEST_API_1_2").as_deref() == Ok("1");
        let lib = PathBuf::from(std::env::var_os("VKGEN_TEST_FIXTURE").unwrap());
        mutable_format_child(&lib, api_1_2);
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    for api_1_2 in [false, true] {
        let defines: &[&str] = if api_1_2 {
            &["GRALLOC4", "API_1_2"]
        } else {
            &["GRALLOC4"]
        };
        let lib = wsi_driver(defines);
        let root = tempfile::tempdir().unwrap();
        let env = hal_env(&root, &lib, "")
            .set("VKGEN_TEST_API_1_2", if api_1_2 { "1" } else { "0" })
            .set("VKGEN_TEST_FIXTURE", &lib);
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

fn mutable_format_child(lib: &Path, api_1_2: bool) {
    let loader = require(paths::loader_under_test());
    let mutable = ash::khr::swapchain_mutable_format::NAME;
    let probe = Wsi::new(&loader, &[], &[], &[]).unwrap();
    // SAFETY: a live physical device.
    let exts = unsafe {
        probe
            .instance
            .enumerate_device_extension_properties(probe.pd)
    }
    .unwrap();
    let offered = exts
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(mutable));
    assert_eq!(offered, api_1_2);
    drop(probe);
    if !api_1_2 {
        return;
    }
    let wsi = Wsi::new(&loader, &[], &[mutable], &[]).unwrap();
    let win = window(32, 32);
    let surface = wsi.create_surface(&win).unwrap();
    let formats = [vk::Format::R8G8B8A8_UNORM, vk::Format::R8G8B8A8_SRGB];
    let mut list = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
    let info = wsi
        .swapchain_info(surface)
        .flags(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
        .push_next(&mut list);
    let (before_mutable, before_formats) = (
        counter(lib, "mutable_images"),
        counter(lib, "format_list_formats"),
    );
    let sc = wsi.create_swapchain(&info).unwrap();
    let images = counter(lib, "mutable_images") - before_mutable;
    assert!(images > 0, "no image was created mutable");
    assert_eq!(
        counter(lib, "format_list_formats") - before_formats,
        2 * images,
        "every image carries the two view formats"
    );
    wsi.destroy_swapchain(sc);
    mutable_format_edge_cases(lib, &wsi, surface, &formats);
}

/// AOSP `CreateSwapchainKHR`: `MUTABLE_FORMAT` with an empty (or, in vkgen, absent) format list
/// is `VK_ERROR_INITIALIZATION_FAILED` before any image is made; a deferred-allocation
/// swapchain's unbound images carry the list too (after `VkImageSwapchainCreateInfoKHR`), and
/// the deferred flag is honoured without `VK_EXT_swapchain_maintenance1` enabled, as in AOSP.
fn mutable_format_edge_cases(
    lib: &Path,
    wsi: &Wsi,
    surface: vk::SurfaceKHR,
    formats: &[vk::Format],
) {
    let mutable = wsi
        .swapchain_info(surface)
        .flags(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT);
    let mut empty = vk::ImageFormatListCreateInfo::default();
    let images_before = counter(lib, "images_created");
    for info in [mutable, mutable.push_next(&mut empty)] {
        assert_eq!(
            wsi.create_swapchain(&info),
            Err(vk::Result::ERROR_INITIALIZATION_FAILED)
        );
    }
    assert_eq!(
        counter(lib, "images_created"),
        images_before,
        "no image made"
    );

    let mut list = vk::ImageFormatListCreateInfo::default().view_formats(formats);
    let deferred = mutable
        .flags(
            vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT
                | vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT,
        )
        .push_next(&mut list);
    let (anb_before, swapchain_before, formats_before) = (
        counter(lib, "anb_images"),
        counter(lib, "swapchain_images"),
        counter(lib, "format_list_formats"),
    );
    let sc = wsi.create_swapchain(&deferred).unwrap();
    let made = counter(lib, "swapchain_images") - swapchain_before;
    assert!(made > 0, "the images are created unbound");
    assert_eq!(
        counter(lib, "anb_images"),
        anb_before,
        "no buffer at creation"
    );
    assert_eq!(
        counter(lib, "format_list_formats") - formats_before,
        made * formats.len() as i32,
        "every deferred image carries the view formats"
    );
    let fence = wsi.fence();
    let binds = counter(lib, "anb_binds");
    wsi.acquire(sc, fence, u64::MAX).unwrap();
    assert_eq!(
        counter(lib, "anb_binds"),
        binds + 1,
        "bound at first acquire"
    );
    wsi.destroy_swapchain(sc);
    // SAFETY: the fence is unused now.
    unsafe { wsi.device.destroy_fence(fence, None) };
}

/// AOSP android16 `QueuePresentKHR`: the present's wait semaphores are passed to the release of
/// every swapchain it presents, not only the first.
#[test]
fn wait_semaphores_reach_every_swapchain_of_a_present() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GRALLOC4"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "");
    in_child(
        "wait_semaphores_reach_every_swapchain_of_a_present",
        &env,
        || {
            let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
            let (win_a, win_b) = (window(32, 32), window(32, 32));
            let sa = wsi
                .create_swapchain(&wsi.swapchain_info(wsi.create_surface(&win_a).unwrap()))
                .unwrap();
            let sb = wsi
                .create_swapchain(&wsi.swapchain_info(wsi.create_surface(&win_b).unwrap()))
                .unwrap();
            let fence = wsi.fence();
            let (ia, _) = wsi.acquire(sa, fence, u64::MAX).unwrap();
            let (ib, _) = wsi.acquire(sb, fence, u64::MAX).unwrap();
            // SAFETY: a live device.
            let sems = unsafe {
                [
                    wsi.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .unwrap(),
                    wsi.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .unwrap(),
                ]
            };
            let before = counter(&lib, "release_waits");
            let swapchains = [sa, sb];
            let indices = [ia, ib];
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(&sems)
                .swapchains(&swapchains)
                .image_indices(&indices);
            // SAFETY: a valid present of two acquired images.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(
                counter(&lib, "release_waits") - before,
                4,
                "both semaphores to both swapchains"
            );
        },
    );
}

#[test]
fn swapchain_maintenance1_on_a_sync_fd_driver() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GRALLOC4", "FENCE_FD", "RELEASE_FD", "SHARED_IMAGE"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "");
    in_child("swapchain_maintenance1_on_a_sync_fd_driver", &env, || {
        let c = |n: &str| counter(&lib, n);
        let wsi = Wsi::new(
            &loader,
            &[
                ash::khr::get_surface_capabilities2::NAME,
                c"VK_EXT_surface_maintenance1",
            ],
            &[
                ash::ext::swapchain_maintenance1::NAME,
                ash::khr::shared_presentable_image::NAME,
            ],
            &[],
        )
        .unwrap();
        assert_eq!(
            (c("saw_anb"), c("saw_fence_fd"), c("saw_maintenance1")),
            (1, 1, 0),
            "maintenance1 reaches the driver as VK_KHR_external_fence_fd"
        );
        let mut m1 = vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut m1);
        // SAFETY: valid structures.
        unsafe { wsi.instance.get_physical_device_features2(wsi.pd, &mut f2) };
        assert_eq!(m1.swapchain_maintenance1, vk::TRUE);
        let m1_fns = ash::ext::swapchain_maintenance1::Device::new(&wsi.instance, &wsi.device);
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let fence = wsi.fence();
        let present_fence = wsi.fence();

        // Present fences: the release fd imported, temporarily, as SYNC_FD.
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
        assert_eq!(
            (
                c("imports"),
                c("import_temporary"),
                c("import_sync_fd"),
                c("import_fd_valid")
            ),
            (1, 1, 1, 1)
        );

        // Release an acquired image without presenting it.
        let cancels = win.counters().cancels;
        let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        let release = vk::ReleaseSwapchainImagesInfoEXT::default()
            .swapchain(sc)
            .image_indices(std::slice::from_ref(&i));
        // SAFETY: a held image of a live swapchain.
        unsafe { m1_fns.release_swapchain_images(&release) }.unwrap();
        assert_eq!(win.counters().cancels, cancels + 1);
        let (j, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        assert_eq!(wsi.present(sc, j), vk::Result::SUCCESS);

        // Release fences are real fds: they travel through the window and back without leaks
        // (compared in the same steady state: each image keeps its last release fence).
        let cycle = || {
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
            assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
            drop(win.acquire_latest());
        };
        for _ in 0..20 {
            cycle();
        }
        let before = open_fds();
        for _ in 0..600 {
            cycle();
        }
        assert_eq!(open_fds(), before, "fence fds leaked");
        assert!(c("fds_closed") > 0, "the driver got real acquire fences");

        // Deferred allocation: unbound images, bound at first acquire.
        let images_before = c("images_created");
        let anb_before = c("anb_images");
        let deferred = wsi
            .swapchain_info(surface)
            .flags(vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT)
            .old_swapchain(sc);
        let d = wsi.create_swapchain(&deferred).unwrap();
        wsi.destroy_swapchain(sc);
        // SAFETY: a live swapchain.
        let n = unsafe { wsi.swapchain_fns.get_swapchain_images(d) }
            .unwrap()
            .len() as i32;
        assert_eq!(c("images_created") - images_before, n);
        assert_eq!(c("anb_images"), anb_before, "no buffer at creation");
        assert_eq!(c("swapchain_images"), n);
        let (i, _) = wsi.acquire(d, fence, u64::MAX).unwrap();
        assert_eq!((c("anb_binds"), c("anb_bimsi_binds")), (1, 1));
        assert_eq!(wsi.present(d, i), vk::Result::SUCCESS);

        // An application image bound to swapchain image `i` through the swapchain.
        let image_swapchain = vk::ImageSwapchainCreateInfoKHR::default().swapchain(d);
        let mut image_swapchain = image_swapchain;
        let image_info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D {
                width: 32,
                height: 32,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .push_next(&mut image_swapchain);
        // SAFETY: valid create info and bind info for this device.
        unsafe {
            let image = wsi.device.create_image(&image_info, None).unwrap();
            let mut bimsi = vk::BindImageMemorySwapchainInfoKHR::default()
                .swapchain(d)
                .image_index(i);
            let bind = vk::BindImageMemoryInfo::default()
                .image(image)
                .push_next(&mut bimsi);
            wsi.device.bind_image_memory2(&[bind]).unwrap();
            wsi.device.destroy_image(image, None);
        }
        assert_eq!(
            c("anb_binds"),
            2,
            "the loader prepended VkNativeBufferANDROID"
        );
        assert_eq!(c("anb_null_handles"), 0, "with the buffer's handle");

        // Present-mode switches between the shared modes toggle auto-refresh.
        let shared_info = vk::SwapchainCreateInfoKHR {
            present_mode: vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
            min_image_count: 1,
            old_swapchain: d,
            ..wsi.swapchain_info(surface)
        };
        let modes = [
            vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
            vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH,
        ];
        let mut modes_info =
            vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&modes);
        let shared_info = shared_info.push_next(&mut modes_info);
        let s = wsi.create_swapchain(&shared_info).unwrap();
        wsi.destroy_swapchain(d);
        assert!(!win.producer_state().auto_refresh);
        for (mode, auto_refresh) in [
            (vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH, true),
            (vk::PresentModeKHR::SHARED_DEMAND_REFRESH, false),
        ] {
            let (i, _) = wsi.acquire(s, fence, u64::MAX).unwrap();
            let mode = [mode];
            let mut mode_info = vk::SwapchainPresentModeInfoEXT::default().present_modes(&mode);
            let swapchains = [s];
            let indices = [i];
            let info = vk::PresentInfoKHR::default()
                .swapchains(&swapchains)
                .image_indices(&indices)
                .push_next(&mut mode_info);
            // SAFETY: a valid present.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(win.producer_state().auto_refresh, auto_refresh, "{mode:?}");
        }
        wsi.destroy_swapchain(s);
        // SAFETY: unused.
        unsafe {
            wsi.device.destroy_fence(fence, None);
            wsi.device.destroy_fence(present_fence, None);
        }
        wsi.destroy_surface(surface);
        assert_eq!(
            c("images_created"),
            c("images_destroyed"),
            "every swapchain image destroyed"
        );
        println!(
            "maintenance1: features, fence-fd mapping, present fences, image release, deferred \
             allocation, swapchain binds, shared present-mode switches; {} acquires, {} \
             releases, {} fds closed by the driver",
            c("acquires"),
            c("releases"),
            c("fds_closed")
        );
    });
}
