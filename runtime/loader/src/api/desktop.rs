//! Desktop programs link these entry points directly (the Khronos loader exports them), so on
//! Linux hosts `libvulkan.so` exports them too, beyond Android's 251: each goes through the
//! instance's chain, as a trampoline would, by asking `vkGetInstanceProcAddr` for the head's
//! function.
//!
//! They are exported symbols, so they live with the loader's other entry points; the desktop
//! surfaces themselves are [`crate::wsi::desktop`]'s.

use std::ffi::CStr;

use super::proc_addr::vkGetInstanceProcAddr;
use crate::vk;
use crate::wsi::desktop::{
    wayland_presentation_support, xcb_presentation_support, xlib_presentation_support,
};

/// The head of `instance`'s chain for `name`, as `F`.
///
/// # Safety
/// `F` is the type of the command `name`; `instance` null or live.
unsafe fn head<F: Copy>(instance: vk::Instance, name: &CStr) -> Option<F> {
    // SAFETY: `instance` is null or live (the caller's guarantee) and `name` is a C string.
    let f = unsafe { vkGetInstanceProcAddr(instance, name.as_ptr()) }?;
    // SAFETY: the caller guarantees `F` is the function-pointer type of `name`, which is what
    // `vkGetInstanceProcAddr` returned, and all function pointers share one representation.
    Some(unsafe { std::mem::transmute_copy::<unsafe extern "system" fn(), F>(&f) })
}

/// # Safety
/// Vulkan's contract for `vkCreateXcbSurfaceKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkCreateXcbSurfaceKHR(
    instance: vk::Instance,
    info: *const vk::XcbSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    // SAFETY: the command's own type.
    match unsafe { head::<vk::PFN_vkCreateXcbSurfaceKHR>(instance, c"vkCreateXcbSurfaceKHR") } {
        // SAFETY: forwarded.
        Some(f) => unsafe { f(instance, info, allocator, out) },
        None => vk::Result::ERROR_EXTENSION_NOT_PRESENT,
    }
}

/// # Safety
/// Vulkan's contract for `vkCreateXlibSurfaceKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkCreateXlibSurfaceKHR(
    instance: vk::Instance,
    info: *const vk::XlibSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    // SAFETY: the command's own type.
    match unsafe { head::<vk::PFN_vkCreateXlibSurfaceKHR>(instance, c"vkCreateXlibSurfaceKHR") } {
        // SAFETY: forwarded.
        Some(f) => unsafe { f(instance, info, allocator, out) },
        None => vk::Result::ERROR_EXTENSION_NOT_PRESENT,
    }
}

/// # Safety
/// Vulkan's contract for `vkCreateWaylandSurfaceKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkCreateWaylandSurfaceKHR(
    instance: vk::Instance,
    info: *const vk::WaylandSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    // SAFETY: the command's own type.
    match unsafe {
        head::<vk::PFN_vkCreateWaylandSurfaceKHR>(instance, c"vkCreateWaylandSurfaceKHR")
    } {
        // SAFETY: forwarded.
        Some(f) => unsafe { f(instance, info, allocator, out) },
        None => vk::Result::ERROR_EXTENSION_NOT_PRESENT,
    }
}

/// # Safety
/// Vulkan's contract for `vkGetPhysicalDeviceXcbPresentationSupportKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkGetPhysicalDeviceXcbPresentationSupportKHR(
    pd: vk::PhysicalDevice,
    family: u32,
    connection: *mut vk::xcb_connection_t,
    visual: vk::xcb_visualid_t,
) -> vk::Bool32 {
    // SAFETY: forwarded; the answer does not depend on the device.
    unsafe { xcb_presentation_support(pd, family, connection, visual) }
}

/// # Safety
/// Vulkan's contract for `vkGetPhysicalDeviceXlibPresentationSupportKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkGetPhysicalDeviceXlibPresentationSupportKHR(
    pd: vk::PhysicalDevice,
    family: u32,
    dpy: *mut vk::Display,
    visual: vk::VisualID,
) -> vk::Bool32 {
    // SAFETY: forwarded; the answer does not depend on the device.
    unsafe { xlib_presentation_support(pd, family, dpy, visual) }
}

/// # Safety
/// Vulkan's contract for `vkGetPhysicalDeviceWaylandPresentationSupportKHR`.
#[no_mangle]
pub unsafe extern "system" fn vkGetPhysicalDeviceWaylandPresentationSupportKHR(
    pd: vk::PhysicalDevice,
    family: u32,
    display: *mut vk::wl_display,
) -> vk::Bool32 {
    // SAFETY: forwarded; the answer does not depend on the device.
    unsafe { wayland_presentation_support(pd, family, display) }
}
