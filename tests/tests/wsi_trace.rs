//! AOSP's `swapchain.cpp` ATRACE sections and swapchain statistics through the real
//! `libvulkan.so`: the null driver as the HAL, a `vkgen-window` surface, `VKGEN_TRACE_MARKER`
//! standing in for `trace_marker` while the graphics tag is on
//! (`debug.atrace.tags.enableflags=0x2`) and `VKGEN_GPU_STATS` for GraphicsEnv.

mod wsi_support;

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{hal_env, window, Wsi};

/// The names of the outermost sections, in order, checking every marker is libcutils' with this
/// process's id and every section ends.
fn outermost(markers: &str) -> Vec<String> {
    let pid = std::process::id();
    let mut depth = 0usize;
    let mut names = Vec::new();
    for line in markers.lines() {
        if let Some(name) = line.strip_prefix(&format!("B|{pid}|")) {
            if depth == 0 {
                names.push(name.to_owned());
            }
            depth += 1;
        } else {
            assert_eq!(line, format!("E|{pid}"), "not a libcutils marker");
            depth = depth.checked_sub(1).expect("an end without a begin");
        }
    }
    assert_eq!(depth, 0, "sections left open");
    names
}

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
        let names = outermost(&std::fs::read_to_string(path).unwrap());
        let wsi_names: Vec<&str> = names
            .iter()
            .map(String::as_str)
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
