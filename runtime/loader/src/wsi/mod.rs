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
    vkgen_generated::loader_hooks!(wsi_instance, name)
}

/// The loader's WSI functions for device commands, by name (`vkBindImageMemory2` is routed by
/// the terminator, which knows whether the device has WSI).
pub fn device_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(wsi_device, name)
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
