//! Android's loader policy, in one visible place. These lists are facts about AOSP's
//! `frameworks/native/vulkan` (shared/reference/android-vulkan-loader.md §1–§2), not derived from
//! vk.xml; every emitter and the runtime read them from here (the runtime through the generated
//! `extensions::Policy` and `commands::LOADER_INTERCEPTED`).

/// Extensions the Android loader never exposes (`_BLOCKED_EXTENSIONS`, 32 entries).
pub const BLOCKED_EXTENSIONS: &[&str] = &[
    "VK_EXT_acquire_xlib_display",
    "VK_EXT_direct_mode_display",
    "VK_EXT_directfb_surface",
    "VK_EXT_display_control",
    "VK_EXT_display_surface_counter",
    "VK_EXT_full_screen_exclusive",
    "VK_EXT_headless_surface",
    "VK_EXT_metal_surface",
    "VK_FUCHSIA_imagepipe_surface",
    "VK_GGP_stream_descriptor_surface",
    "VK_HUAWEI_subpass_shading",
    "VK_KHR_display",
    "VK_KHR_display_swapchain",
    "VK_KHR_external_fence_win32",
    "VK_KHR_external_memory_win32",
    "VK_KHR_external_semaphore_win32",
    "VK_KHR_mir_surface",
    "VK_KHR_wayland_surface",
    "VK_KHR_win32_keyed_mutex",
    "VK_KHR_win32_surface",
    "VK_KHR_xcb_surface",
    "VK_KHR_xlib_surface",
    "VK_MVK_ios_surface",
    "VK_MVK_macos_surface",
    "VK_NN_vi_surface",
    "VK_NV_acquire_winrt_display",
    "VK_NV_cooperative_matrix",
    "VK_NV_coverage_reduction_mode",
    "VK_NV_external_memory_win32",
    "VK_NV_win32_keyed_mutex",
    "VK_NVX_image_view_handle",
    "VK_QNX_screen_surface",
];

/// Extensions whose commands `libvulkan.so` exports besides core (`_EXPORTED_EXTENSIONS`).
pub const EXPORTED_EXTENSIONS: &[&str] = &[
    "VK_ANDROID_external_memory_android_hardware_buffer",
    "VK_KHR_android_surface",
    "VK_KHR_surface",
    "VK_KHR_swapchain",
];

/// The driver-private extension the loader builds WSI on; never shown to applications.
pub const INTERNAL_EXTENSIONS: &[&str] = &["VK_ANDROID_native_buffer"];

/// Extensions the loader's driver level intercepts (`_INTERCEPTED_EXTENSIONS`): WSI and debug report.
pub const INTERCEPTED_EXTENSIONS: &[&str] = &[
    "VK_ANDROID_native_buffer",
    "VK_EXT_debug_report",
    "VK_EXT_hdr_metadata",
    "VK_EXT_swapchain_colorspace",
    "VK_GOOGLE_display_timing",
    "VK_GOOGLE_surfaceless_query",
    "VK_KHR_android_surface",
    "VK_KHR_get_surface_capabilities2",
    "VK_KHR_incremental_present",
    "VK_KHR_shared_presentable_image",
    "VK_KHR_surface",
    "VK_KHR_surface_protected_capabilities",
    "VK_KHR_swapchain",
    "VK_EXT_swapchain_maintenance1",
    "VK_EXT_surface_maintenance1",
];

/// Instance extensions the loader implements itself and never passes to the driver.
pub const LOADER_IMPLEMENTED_EXTENSIONS: &[&str] = &[
    "VK_KHR_surface",
    "VK_KHR_android_surface",
    "VK_KHR_surface_protected_capabilities",
    "VK_EXT_swapchain_colorspace",
    "VK_KHR_get_surface_capabilities2",
    "VK_GOOGLE_surfaceless_query",
    "VK_EXT_surface_maintenance1",
    "VK_KHR_incremental_present",
    "VK_KHR_shared_presentable_image",
    "VK_GOOGLE_display_timing",
];

/// Commands the loader's API level implements itself (no generated trampoline): the global
/// commands plus instance/device lifetime and enumeration.
pub const LOADER_INTERCEPTED_COMMANDS: &[&str] = &[
    "vkCreateInstance",
    "vkDestroyInstance",
    "vkEnumerateInstanceVersion",
    "vkEnumerateInstanceExtensionProperties",
    "vkEnumerateInstanceLayerProperties",
    "vkGetInstanceProcAddr",
    "vkGetDeviceProcAddr",
    "vkCreateDevice",
    "vkDestroyDevice",
    "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateDeviceLayerProperties",
];

/// Driver commands a driver may leave out (`_OPTIONAL_COMMANDS`): at least one is needed.
pub const OPTIONAL_COMMANDS: &[&str] = &[
    "vkGetSwapchainGrallocUsageANDROID",
    "vkGetSwapchainGrallocUsage2ANDROID",
    "vkGetSwapchainGrallocUsage3ANDROID",
    "vkGetSwapchainGrallocUsage4ANDROID",
];

/// Platforms whose extensions are compiled in: Android's own (the loader never builds others).
pub const PLATFORMS: &[&str] = &["android"];

pub fn is_blocked(ext: &str) -> bool {
    BLOCKED_EXTENSIONS.contains(&ext)
}
pub fn is_exported_extension(ext: &str) -> bool {
    EXPORTED_EXTENSIONS.contains(&ext)
}
pub fn is_internal(ext: &str) -> bool {
    INTERNAL_EXTENSIONS.contains(&ext)
}
pub fn is_intercepted_extension(ext: &str) -> bool {
    INTERCEPTED_EXTENSIONS.contains(&ext)
}
pub fn is_loader_implemented(ext: &str) -> bool {
    LOADER_IMPLEMENTED_EXTENSIONS.contains(&ext)
}
pub fn is_loader_intercepted_command(cmd: &str) -> bool {
    LOADER_INTERCEPTED_COMMANDS.contains(&cmd)
}
