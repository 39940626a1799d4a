//! The loader's window-system integration: surfaces and swapchains on `ANativeWindow`, built on
//! the driver's `VK_ANDROID_native_buffer` (AOSP `libvulkan/swapchain.cpp`).
//!
//! On Android the loader, not the driver, implements presentation. Applications see
//! `VK_KHR_surface`, `VK_KHR_android_surface`, `VK_KHR_swapchain` (the driver's
//! `VK_ANDROID_native_buffer`, renamed), `VK_KHR_get_surface_capabilities2`,
//! `VK_KHR_shared_presentable_image`, `VK_GOOGLE_display_timing`, `VK_KHR_incremental_present`,
//! `VK_EXT_swapchain_colorspace`, `VK_KHR_surface_protected_capabilities`,
//! `VK_EXT_surface_maintenance1`, `VK_EXT_swapchain_maintenance1` and
//! `VK_GOOGLE_surfaceless_query`; drivers never see any of them (see [`crate::extensions`] for
//! which are advertised when). The driver only ever sees images created or bound with a
//! `VkNativeBufferANDROID`, `vkAcquireImageANDROID` and `vkQueueSignalReleaseImageANDROID`.
//!
//! This file only declares the modules, re-exports and routes command names to them
//! ([`instance_hook`], [`device_hook`]); no module imports it back. Modules:
//! * [`window`] — the `ANativeWindow` / `ANativeWindowBuffer` ABI and native fence fds — the only
//!   way the loader touches a window;
//! * [`surface`] — `VkSurfaceKHR` (connects the window as EGL-API producer), capabilities,
//!   formats, present modes, presentation support, device-group and present-rectangle queries;
//! * [`swapchain`] — `VkSwapchainKHR` creation in AOSP's order (reset and configure the window,
//!   gralloc usage, dequeue every buffer and create its `VkImage` with `VkNativeBufferANDROID`,
//!   cancel them all), images, acquire, retirement through `oldSwapchain`, destruction,
//!   `vkBindImageMemory2` with `VkBindImageMemorySwapchainInfoKHR`;
//! * [`present`] — `vkQueuePresentKHR` and its fence flow, incremental present, present fences and
//!   modes, `VK_SUBOPTIMAL_KHR` only for a transform-hint mismatch, worst-first result combination;
//! * [`timing`] — `VK_GOOGLE_display_timing` (its per-present records: `timing_record`);
//! * [`registry`] — the handle registries and the application-allocator allocation of each object;
//! * `device_support` — the driver functions the WSI calls ([`DeviceWsi::load`]) and what a
//!   driver's physical device supports (the WSI extensions the loader offers);
//! * `features` — `vkGetPhysicalDeviceFeatures2` for the structures the loader implements;
//! * `gralloc_usage` — the swapchain buffers' gralloc usage (`FRONT_BUFFER` for shared
//!   swapchains as the allocator allows) and `AHardwareBuffer_isSupported`;
//! * `mutable_format` — `VK_KHR_swapchain_mutable_format`'s view-format list;
//! * [`hdr_display`] — `has_HDR_display`, which gates `VK_EXT_hdr_metadata`;
//! * [`formats`] — the pure tables (formats, colour spaces, transforms, present modes, results);
//! * [`layer_compat`] — Android surfaces for layers built without
//!   `VK_KHR_android_surface` (desktop validation layers);
//! * `desktop` (Linux hosts only) — X11 and Wayland surfaces as Android surfaces on an
//!   in-process BufferQueue, each shown by a presenter thread.
//!
//! **Handles.** `VkSurfaceKHR` and `VkSwapchainKHR` are counters (never reused), looked up in
//! process-wide registries ([`Registry`]) that hold `Arc`s: a stale, foreign or NULL handle is
//! found missing and answered with an error code (or ignored by a destroy), never followed.
//! Objects live on the Rust heap; when the application passes `VkAllocationCallbacks`, one
//! allocation of the object's size is also made through them (scope `OBJECT`) and freed with
//! the object, so an allocator that fails gives `VK_ERROR_OUT_OF_HOST_MEMORY` as in AOSP and
//! allocation-tracking allocators see a balanced pair.
//!
//! **Call routing.** The terminator's `vkGet{Instance,Device}ProcAddr` return these functions
//! ([`instance_hook`], [`device_hook`]) for the WSI command names, so they sit at the bottom of
//! every chain like the driver's own functions do and layers see them as the "driver".
//! Per device, [`DeviceWsi`] holds the driver functions the WSI calls (created by the
//! terminator's `vkCreateDevice` when the driver device got `VK_ANDROID_native_buffer`).

#[cfg(all(feature = "desktop", not(target_os = "android")))]
pub mod desktop;
mod device_support;
mod features;
pub mod formats;
mod gralloc_usage;
pub mod hdr_display;
pub mod layer_compat;
mod mutable_format;
pub mod present;
pub mod registry;
pub mod surface;
pub mod swapchain;
mod swapchain_create;
pub mod timing;
mod timing_record;
pub mod window;
pub mod window_err;

pub use crate::dispatch_data::term::{DeviceFns, DeviceWsi};
pub use device_support::{
    device_api_version, device_support, driver_image_compression_control, shared_image_supported,
    sync_fd_fence_import, PRESENT_TIMESTAMP_PROPERTY,
};
pub use features::physical_device_features2;
pub use hdr_display::HDR_DISPLAY_PROPERTY;
pub use registry::{AppAllocation, Registry};

use std::ffi::CStr;

use crate::ffi::to_void;
use vkgen_generated::vk;

/// The loader's WSI functions for instance and physical-device commands, by name.
pub fn instance_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    use surface as s;
    let f = match name.to_bytes() {
        b"vkCreateAndroidSurfaceKHR" => {
            to_void(s::create_android_surface as vk::PFN_vkCreateAndroidSurfaceKHR)
        }
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkCreateXcbSurfaceKHR" => {
            to_void(desktop::create_xcb_surface as vk::PFN_vkCreateXcbSurfaceKHR)
        }
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkCreateXlibSurfaceKHR" => {
            to_void(desktop::create_xlib_surface as vk::PFN_vkCreateXlibSurfaceKHR)
        }
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkCreateWaylandSurfaceKHR" => {
            to_void(desktop::create_wayland_surface as vk::PFN_vkCreateWaylandSurfaceKHR)
        }
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkGetPhysicalDeviceWaylandPresentationSupportKHR" => to_void(
            desktop::wayland_presentation_support
                as vk::PFN_vkGetPhysicalDeviceWaylandPresentationSupportKHR,
        ),
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkGetPhysicalDeviceXcbPresentationSupportKHR" => to_void(
            desktop::xcb_presentation_support
                as vk::PFN_vkGetPhysicalDeviceXcbPresentationSupportKHR,
        ),
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        b"vkGetPhysicalDeviceXlibPresentationSupportKHR" => to_void(
            desktop::xlib_presentation_support
                as vk::PFN_vkGetPhysicalDeviceXlibPresentationSupportKHR,
        ),
        b"vkDestroySurfaceKHR" => to_void(s::destroy_surface as vk::PFN_vkDestroySurfaceKHR),
        b"vkGetPhysicalDeviceSurfaceSupportKHR" => {
            to_void(s::surface_support as vk::PFN_vkGetPhysicalDeviceSurfaceSupportKHR)
        }
        b"vkGetPhysicalDeviceSurfaceCapabilitiesKHR" => {
            to_void(s::surface_capabilities as vk::PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR)
        }
        b"vkGetPhysicalDeviceSurfaceCapabilities2KHR" => {
            to_void(s::surface_capabilities2 as vk::PFN_vkGetPhysicalDeviceSurfaceCapabilities2KHR)
        }
        b"vkGetPhysicalDeviceSurfaceFormatsKHR" => {
            to_void(s::surface_formats as vk::PFN_vkGetPhysicalDeviceSurfaceFormatsKHR)
        }
        b"vkGetPhysicalDeviceSurfaceFormats2KHR" => {
            to_void(s::surface_formats2 as vk::PFN_vkGetPhysicalDeviceSurfaceFormats2KHR)
        }
        b"vkGetPhysicalDeviceSurfacePresentModesKHR" => {
            to_void(s::surface_present_modes as vk::PFN_vkGetPhysicalDeviceSurfacePresentModesKHR)
        }
        b"vkGetPhysicalDevicePresentRectanglesKHR" => {
            to_void(s::present_rectangles as vk::PFN_vkGetPhysicalDevicePresentRectanglesKHR)
        }
        b"vkCreateHeadlessSurfaceEXT" => {
            to_void(layer_compat::create_headless_surface as vk::PFN_vkCreateHeadlessSurfaceEXT)
        }
        // Only the core name, as AOSP intercepts it: `vkGetPhysicalDeviceFeatures2KHR` is the
        // driver's own.
        b"vkGetPhysicalDeviceFeatures2" => {
            to_void(physical_device_features2 as vk::PFN_vkGetPhysicalDeviceFeatures2)
        }
        _ => return None,
    };
    Some(f)
}

/// The loader's WSI functions for device commands, by name (`vkBindImageMemory2` is routed by
/// the terminator, which knows whether the device has WSI).
pub fn device_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    use swapchain as sc;
    let f = match name.to_bytes() {
        b"vkCreateSwapchainKHR" => {
            to_void(swapchain_create::create_swapchain as vk::PFN_vkCreateSwapchainKHR)
        }
        b"vkDestroySwapchainKHR" => to_void(sc::destroy_swapchain as vk::PFN_vkDestroySwapchainKHR),
        b"vkGetSwapchainImagesKHR" => {
            to_void(sc::get_swapchain_images as vk::PFN_vkGetSwapchainImagesKHR)
        }
        b"vkAcquireNextImageKHR" => {
            to_void(sc::acquire_next_image as vk::PFN_vkAcquireNextImageKHR)
        }
        b"vkAcquireNextImage2KHR" => {
            to_void(sc::acquire_next_image2 as vk::PFN_vkAcquireNextImage2KHR)
        }
        b"vkQueuePresentKHR" => to_void(present::queue_present as vk::PFN_vkQueuePresentKHR),
        b"vkGetSwapchainStatusKHR" => {
            to_void(sc::get_swapchain_status as vk::PFN_vkGetSwapchainStatusKHR)
        }
        b"vkReleaseSwapchainImagesEXT" => {
            to_void(sc::release_swapchain_images as vk::PFN_vkReleaseSwapchainImagesEXT)
        }
        b"vkGetDeviceGroupPresentCapabilitiesKHR" => to_void(
            surface::device_group_present_capabilities
                as vk::PFN_vkGetDeviceGroupPresentCapabilitiesKHR,
        ),
        b"vkGetDeviceGroupSurfacePresentModesKHR" => to_void(
            surface::device_group_surface_present_modes
                as vk::PFN_vkGetDeviceGroupSurfacePresentModesKHR,
        ),
        b"vkGetRefreshCycleDurationGOOGLE" => {
            to_void(timing::refresh_cycle_duration as vk::PFN_vkGetRefreshCycleDurationGOOGLE)
        }
        b"vkGetPastPresentationTimingGOOGLE" => {
            to_void(timing::past_presentation_timing as vk::PFN_vkGetPastPresentationTimingGOOGLE)
        }
        b"vkSetHdrMetadataEXT" => to_void(present::set_hdr_metadata as vk::PFN_vkSetHdrMetadataEXT),
        _ => return None,
    };
    Some(f)
}

/// The `vkBindImageMemory2` hook (see [`swapchain::bind_image_memory2`]).
pub fn bind_image_memory2_hook() -> vk::PFN_vkVoidFunction {
    to_void(swapchain::bind_image_memory2 as vk::PFN_vkBindImageMemory2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AOSP intercepts only the core `vkGetPhysicalDeviceFeatures2` (where it patches
    /// `swapchainMaintenance1`); the KHR alias is the driver's.
    #[test]
    fn features2_is_hooked_under_its_core_name_only() {
        assert!(instance_hook(c"vkGetPhysicalDeviceFeatures2").is_some());
        assert!(instance_hook(c"vkGetPhysicalDeviceFeatures2KHR").is_none());
    }

    #[test]
    fn every_wsi_command_has_a_hook() {
        for name in [
            c"vkCreateAndroidSurfaceKHR",
            c"vkDestroySurfaceKHR",
            c"vkGetPhysicalDeviceSurfaceSupportKHR",
            c"vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
            c"vkGetPhysicalDeviceSurfaceCapabilities2KHR",
            c"vkGetPhysicalDeviceSurfaceFormatsKHR",
            c"vkGetPhysicalDeviceSurfaceFormats2KHR",
            c"vkGetPhysicalDeviceSurfacePresentModesKHR",
            c"vkGetPhysicalDevicePresentRectanglesKHR",
        ] {
            assert!(instance_hook(name).is_some(), "{name:?}");
        }
        for name in [
            c"vkCreateSwapchainKHR",
            c"vkDestroySwapchainKHR",
            c"vkGetSwapchainImagesKHR",
            c"vkAcquireNextImageKHR",
            c"vkAcquireNextImage2KHR",
            c"vkQueuePresentKHR",
            c"vkGetSwapchainStatusKHR",
            c"vkReleaseSwapchainImagesEXT",
            c"vkGetDeviceGroupPresentCapabilitiesKHR",
            c"vkGetDeviceGroupSurfacePresentModesKHR",
            c"vkGetRefreshCycleDurationGOOGLE",
            c"vkGetPastPresentationTimingGOOGLE",
            c"vkSetHdrMetadataEXT",
        ] {
            assert!(device_hook(name).is_some(), "{name:?}");
        }
        assert!(device_hook(c"vkCreateImage").is_none());
    }
}
