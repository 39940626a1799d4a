//! AOSP's `swapchain.cpp` ATRACE sections and swapchain statistics through the real
//! `libvulkan.so`: the null driver as the HAL, a `vkgen-window` surface, `VKGEN_TRACE_MARKER`
//! standing in for `trace_marker` while the graphics tag is on
//! (`debug.atrace.tags.enableflags=0x2`) and `VKGEN_GPU_STATS` for GraphicsEnv.

mod wsi_support;

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::trace::{names, nth, sections, Section};
use vkgen_tests::{paths, require};
use wsi_support::{hal_env, window, Wsi};

#[test]
fn wsi_entry_points_are_traced_and_swapchains_reported_as_aosp() {
    let loader = require(paths::loader_under_test());
    let (env, root) = hal_env("null", "debug.atrace.tags.enableflags=0x2\n");
    let env = env
        .set("VKGEN_TRACE_MARKER", root.path().join("trace_marker"))
        .set("VKGEN_GPU_STATS", root.path().join("gpu_stats"));
    let scenario = "wsi_entry_points_are_traced_and_swapchains_reported_as_aosp";
    in_child(scenario, &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(64, 64);
        let surface = wsi.create_surface(&win).unwrap();
        let info = wsi.swapchain_info(surface);
        let swapchain = wsi.create_swapchain(&info).unwrap();
        let fence = wsi.fence();
        let (index, _) = wsi.acquire(swapchain, fence, u64::MAX).unwrap();
        let presented = wsi.present(swapchain, index);
        assert!(
            presented == vk::Result::SUCCESS || presented == vk::Result::SUBOPTIMAL_KHR,
            "{presented:?}"
        );
        // SAFETY: the fence is idle (waited for and reset by `acquire`).
        unsafe { wsi.device.destroy_fence(fence, None) };
        wsi.destroy_swapchain(swapchain);
        // Not pre-rotated as the window's hint (identity) says: FALSE_PREROTATION.
        let rotated = wsi.create_swapchain(
            &wsi.swapchain_info(surface)
                .pre_transform(vk::SurfaceTransformFlagsKHR::ROTATE_90),
        );
        wsi.destroy_swapchain(rotated.unwrap());
        wsi.destroy_surface(surface);
        let path = std::env::var_os("VKGEN_TRACE_MARKER").unwrap();
        let top = sections(&std::fs::read_to_string(path).unwrap());
        let wsi_names: Vec<&str> = names(&top)
            .into_iter()
            .filter(|n| n.ends_with("KHR"))
            .collect();
        assert_eq!(
            wsi_names,
            [
                "CreateAndroidSurfaceKHR",
                "GetPhysicalDeviceSurfaceCapabilitiesKHR",
                "CreateSwapchainKHR",
                "AcquireNextImageKHR",
                "QueuePresentKHR",
                "DestroySwapchainKHR",
                "GetPhysicalDeviceSurfaceCapabilitiesKHR",
                "CreateSwapchainKHR",
                "DestroySwapchainKHR",
                "DestroySurfaceKHR",
            ]
        );
        inner_sections_are_aosps(&top);
        let stats_path = std::env::var_os("VKGEN_GPU_STATS").unwrap();
        let stats = std::fs::read_to_string(stats_path).unwrap();
        let swapchain_stats: Vec<&str> = stats
            .lines()
            .filter(|l| l.contains("SWAPCHAIN") || l.contains("PREROTATION"))
            .collect();
        assert_eq!(
            swapchain_stats,
            [
                "setTargetStats(CREATED_VULKAN_SWAPCHAIN, 0)",
                "setTargetStats(FALSE_PREROTATION, 0)",
                "setTargetStats(CREATED_VULKAN_SWAPCHAIN, 0)",
            ]
        );
    });
}

/// `swapchain.cpp`'s inner sections: each image's `CreateImage` inside `CreateSwapchainKHR`
/// (after the usage query), and inside `DestroySwapchainKHR` one `DestroySwapchainInternal`
/// releasing every image (`ReleaseSwapchainImage`), each destroying its `VkImage`
/// (`DestroyImage`).
fn inner_sections_are_aosps(top: &[Section]) {
    let create = nth(top, "CreateSwapchainKHR", 0);
    let images = create
        .inner
        .iter()
        .filter(|s| s.name == "CreateImage")
        .count();
    assert!(images >= 2, "{:?}", names(&create.inner));
    assert_eq!(names(&create.inner).last(), Some(&"CreateImage"));
    let destroy = nth(top, "DestroySwapchainKHR", 0);
    assert_eq!(names(&destroy.inner), ["DestroySwapchainInternal"]);
    let internal = &destroy.inner[0];
    assert_eq!(
        names(&internal.inner),
        vec!["ReleaseSwapchainImage"; images]
    );
    for release in &internal.inner {
        assert_eq!(names(&release.inner), ["DestroyImage"]);
    }
}
