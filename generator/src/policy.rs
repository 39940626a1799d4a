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

/// One row of a loader hook table: a Vulkan command, the loader's own function for it (a path
/// in the loader crate, from its root), and the `cfg` that function is compiled under, if any.
/// The generated `loader_hooks!` casts the function to the command's function-pointer type as
/// the registry defines it, so a signature that drifts from the registry does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    pub command: &'static str,
    pub function: &'static str,
    pub cfg: Option<&'static str>,
}

/// A name→function table the loader matches at one place (`loader_hooks!(<name>, name)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookTable {
    /// The table's name: the macro's first argument.
    pub name: &'static str,
    /// What the table answers and where the loader asks it.
    pub doc: &'static str,
    pub rows: &'static [Hook],
}

/// The cfg of the loader's desktop (X11, Wayland) surfaces.
const DESKTOP: &str = "all(feature = \"desktop\", not(target_os = \"android\"))";

const fn hook(command: &'static str, function: &'static str) -> Hook {
    Hook {
        command,
        function,
        cfg: None,
    }
}

const fn desktop(command: &'static str, function: &'static str) -> Hook {
    Hook {
        command,
        function,
        cfg: Some(DESKTOP),
    }
}

/// The vk.xml header these tables are written against (the checked-in `generated/`'s): on it and
/// newer registries every command must exist (a misspelt name is an error); an older registry
/// drops the rows of commands it does not define yet (`vkReleaseSwapchainImagesEXT` on 1.1.130).
pub const LOADER_HOOKS_HEADER: u32 = 359;

/// The loader's own functions by command name, one table per place the loader asks (AOSP's
/// `driver.cpp` `ProcHook` table, split by where vkgen's loader routes the name).
pub const LOADER_HOOKS: &[HookTable] = &[
    HookTable {
        name: "terminator_instance",
        doc: "Global, instance and physical-device commands the terminator implements itself \
              (runtime/loader/src/terminator/mod.rs `hook`).",
        rows: &[
            hook(
                "vkGetInstanceProcAddr",
                "crate::terminator::get_instance_proc_addr",
            ),
            hook(
                "vkCreateInstance",
                "crate::terminator::instance::create_instance",
            ),
            hook(
                "vkEnumerateInstanceExtensionProperties",
                "crate::terminator::instance::enumerate_instance_extension_properties",
            ),
            hook(
                "vkEnumerateInstanceLayerProperties",
                "crate::terminator::instance::enumerate_instance_layer_properties",
            ),
            hook(
                "vkEnumerateInstanceVersion",
                "crate::terminator::instance::enumerate_instance_version",
            ),
            hook(
                "vkDestroyInstance",
                "crate::terminator::instance::destroy_instance",
            ),
            hook(
                "vkEnumeratePhysicalDevices",
                "crate::terminator::instance::enumerate_physical_devices",
            ),
            hook(
                "vkEnumeratePhysicalDeviceGroups",
                "crate::terminator::instance::enumerate_physical_device_groups",
            ),
            hook(
                "vkEnumeratePhysicalDeviceGroupsKHR",
                "crate::terminator::instance::enumerate_physical_device_groups",
            ),
            hook("vkCreateDevice", "crate::terminator::device::create_device"),
            hook(
                "vkEnumerateDeviceExtensionProperties",
                "crate::terminator::physical_device::enumerate_device_extension_properties",
            ),
            hook(
                "vkEnumerateDeviceLayerProperties",
                "crate::terminator::physical_device::enumerate_device_layer_properties",
            ),
        ],
    },
    HookTable {
        name: "terminator_device",
        doc: "Device commands the terminator implements itself (runtime/loader/src/terminator/\
              mod.rs `device_hook`; `vkGetDeviceQueue2` is returned only where the driver has it).",
        rows: &[
            hook(
                "vkGetDeviceProcAddr",
                "crate::terminator::get_device_proc_addr",
            ),
            hook(
                "vkDestroyDevice",
                "crate::terminator::device::destroy_device",
            ),
            hook(
                "vkGetDeviceQueue",
                "crate::terminator::device::get_device_queue",
            ),
            hook(
                "vkGetDeviceQueue2",
                "crate::terminator::device::get_device_queue2",
            ),
            hook(
                "vkAllocateCommandBuffers",
                "crate::terminator::device::allocate_command_buffers",
            ),
        ],
    },
    HookTable {
        name: "debug_report",
        doc:
            "`VK_EXT_debug_report`, which the loader provides itself \
              (runtime/loader/src/terminator/debug_report.rs `hook`, when the instance enabled it).",
        rows: &[
            hook(
                "vkCreateDebugReportCallbackEXT",
                "crate::terminator::debug_report::create",
            ),
            hook(
                "vkDestroyDebugReportCallbackEXT",
                "crate::terminator::debug_report::destroy",
            ),
            hook(
                "vkDebugReportMessageEXT",
                "crate::terminator::debug_report::message",
            ),
        ],
    },
    HookTable {
        name: "fan_out",
        doc: "`VK_EXT_debug_utils` on a loader-owned instance (several or no drivers): each call \
              goes to every driver instance that enabled it \
              (runtime/loader/src/terminator/instance.rs `fan_out_hook`).",
        rows: &[
            hook(
                "vkCreateDebugUtilsMessengerEXT",
                "crate::terminator::fan_out::create_debug_utils_messenger",
            ),
            hook(
                "vkDestroyDebugUtilsMessengerEXT",
                "crate::terminator::fan_out::destroy_debug_utils_messenger",
            ),
            hook(
                "vkSubmitDebugUtilsMessageEXT",
                "crate::terminator::fan_out::submit_debug_utils_message",
            ),
        ],
    },
    HookTable {
        name: "queue_family",
        doc:
            "Queue-family queries whose driver counts the loader bounds \
              (runtime/loader/src/terminator/queue_family.rs `wrap`, when the driver answers them).",
        rows: &[
            hook(
                "vkGetPhysicalDeviceQueueFamilyProperties",
                "crate::terminator::queue_family::get_physical_device_queue_family_properties",
            ),
            hook(
                "vkGetPhysicalDeviceQueueFamilyProperties2",
                "crate::terminator::queue_family::get_physical_device_queue_family_properties2",
            ),
            hook(
                "vkGetPhysicalDeviceQueueFamilyProperties2KHR",
                "crate::terminator::queue_family::get_physical_device_queue_family_properties2",
            ),
        ],
    },
    HookTable {
        name: "wsi_instance",
        doc: "The loader's WSI functions for instance and physical-device commands \
              (runtime/loader/src/wsi/mod.rs `instance_hook`). Only the core \
              `vkGetPhysicalDeviceFeatures2`, as AOSP: the KHR alias is the driver's.",
        rows: &[
            hook(
                "vkCreateAndroidSurfaceKHR",
                "crate::wsi::surface::create_android_surface",
            ),
            desktop(
                "vkCreateXcbSurfaceKHR",
                "crate::wsi::desktop::create_xcb_surface",
            ),
            desktop(
                "vkCreateXlibSurfaceKHR",
                "crate::wsi::desktop::create_xlib_surface",
            ),
            desktop(
                "vkCreateWaylandSurfaceKHR",
                "crate::wsi::desktop::create_wayland_surface",
            ),
            desktop(
                "vkGetPhysicalDeviceWaylandPresentationSupportKHR",
                "crate::wsi::desktop::wayland_presentation_support",
            ),
            desktop(
                "vkGetPhysicalDeviceXcbPresentationSupportKHR",
                "crate::wsi::desktop::xcb_presentation_support",
            ),
            desktop(
                "vkGetPhysicalDeviceXlibPresentationSupportKHR",
                "crate::wsi::desktop::xlib_presentation_support",
            ),
            hook(
                "vkDestroySurfaceKHR",
                "crate::wsi::surface::destroy_surface",
            ),
            hook(
                "vkGetPhysicalDeviceSurfaceSupportKHR",
                "crate::wsi::surface::surface_support",
            ),
            hook(
                "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
                "crate::wsi::surface::surface_capabilities",
            ),
            hook(
                "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
                "crate::wsi::surface::surface_capabilities2",
            ),
            hook(
                "vkGetPhysicalDeviceSurfaceFormatsKHR",
                "crate::wsi::surface::surface_formats",
            ),
            hook(
                "vkGetPhysicalDeviceSurfaceFormats2KHR",
                "crate::wsi::surface::surface_formats2",
            ),
            hook(
                "vkGetPhysicalDeviceSurfacePresentModesKHR",
                "crate::wsi::surface::surface_present_modes",
            ),
            hook(
                "vkGetPhysicalDevicePresentRectanglesKHR",
                "crate::wsi::surface::present_rectangles",
            ),
            hook(
                "vkCreateHeadlessSurfaceEXT",
                "crate::wsi::layer_compat::create_headless_surface",
            ),
            hook(
                "vkGetPhysicalDeviceFeatures2",
                "crate::wsi::physical_device_features2",
            ),
        ],
    },
    HookTable {
        name: "wsi_device",
        doc: "The loader's WSI functions for device commands (runtime/loader/src/wsi/mod.rs \
              `device_hook`; `vkBindImageMemory2` is routed by the terminator, which knows \
              whether the device has WSI).",
        rows: &[
            hook(
                "vkCreateSwapchainKHR",
                "crate::wsi::swapchain_create::create_swapchain",
            ),
            hook(
                "vkDestroySwapchainKHR",
                "crate::wsi::swapchain::destroy_swapchain",
            ),
            hook(
                "vkGetSwapchainImagesKHR",
                "crate::wsi::swapchain::get_swapchain_images",
            ),
            hook(
                "vkAcquireNextImageKHR",
                "crate::wsi::swapchain::acquire_next_image",
            ),
            hook(
                "vkAcquireNextImage2KHR",
                "crate::wsi::swapchain::acquire_next_image2",
            ),
            hook("vkQueuePresentKHR", "crate::wsi::present::queue_present"),
            hook(
                "vkGetSwapchainStatusKHR",
                "crate::wsi::swapchain::get_swapchain_status",
            ),
            hook(
                "vkReleaseSwapchainImagesEXT",
                "crate::wsi::swapchain::RELEASE_SWAPCHAIN_IMAGES",
            ),
            hook(
                "vkGetDeviceGroupPresentCapabilitiesKHR",
                "crate::wsi::surface::device_group_present_capabilities",
            ),
            hook(
                "vkGetDeviceGroupSurfacePresentModesKHR",
                "crate::wsi::surface::device_group_surface_present_modes",
            ),
            hook(
                "vkGetRefreshCycleDurationGOOGLE",
                "crate::wsi::timing::refresh_cycle_duration",
            ),
            hook(
                "vkGetPastPresentationTimingGOOGLE",
                "crate::wsi::timing::past_presentation_timing",
            ),
            hook(
                "vkSetHdrMetadataEXT",
                "crate::wsi::present::set_hdr_metadata",
            ),
        ],
    },
];
