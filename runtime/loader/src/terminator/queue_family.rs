//! Queue-family queries at the bottom of the chain (issue 25): a driver's count is bounded
//! before the application sees it. Without an array, a count above [`MAX_QUEUE_FAMILIES`] is
//! capped; with one, the count never exceeds the array's capacity (a driver that claims more
//! wrote at most that many entries).

use std::ffi::CStr;

use crate::driver_handles::resolve;
use crate::ffi::guard;
use vkgen_generated::vk;

/// The most queue families one driver's count query may report to the application.
const MAX_QUEUE_FAMILIES: u32 = 1024;

/// Whether [`wrap`] replaces a driver's function for `name`.
pub(super) fn wraps(name: &CStr) -> bool {
    vkgen_generated::loader_hooks!(queue_family, name).is_some()
}

/// Our command for `name` when it is a queue-family query the driver answers (`driver` is the
/// driver's own function, which the hook calls through the driver's table); `driver` otherwise.
pub(super) fn wrap(name: &CStr, driver: vk::PFN_vkVoidFunction) -> vk::PFN_vkVoidFunction {
    driver?;
    vkgen_generated::loader_hooks!(queue_family, name).unwrap_or(driver)
}

/// Bounds the count the driver `driver` wrote: at most `capacity` where the application passed
/// an array, at most [`MAX_QUEUE_FAMILIES`] where it asked for the count.
///
/// # Safety
/// `count` is the application's non-null, writable count pointer.
unsafe fn bound(count: *mut u32, capacity: Option<u32>, driver: &str) {
    // SAFETY: the caller's non-null count, which the driver just wrote.
    let claimed = unsafe { *count };
    let most = capacity.unwrap_or(MAX_QUEUE_FAMILIES);
    if claimed > most {
        log::warn!("driver {driver} claimed {claimed} queue families; clamped to {most}");
        // SAFETY: the same writable count pointer.
        unsafe { *count = most };
    }
}

/// `vkGetPhysicalDeviceQueueFamilyProperties` at the bottom of the chain.
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader.
unsafe extern "system" fn get_physical_device_queue_family_properties(
    pd: vk::PhysicalDevice,
    count: *mut u32,
    out: *mut vk::QueueFamilyProperties,
) {
    guard(
        "vkGetPhysicalDeviceQueueFamilyProperties (terminator)",
        (),
        || {
            // SAFETY: the application's physical device, live for the call.
            let Some(resolved) = (unsafe { resolve(pd) }) else {
                log::error!("vkGetPhysicalDeviceQueueFamilyProperties: {pd:?} is not ours");
                return;
            };
            if count.is_null() {
                return;
            }
            // SAFETY: non-null (checked above) and readable per Vulkan's contract.
            let capacity = (!out.is_null()).then(|| unsafe { *count });
            let f = resolved
                .driver
                .table
                .get_physical_device_queue_family_properties;
            // SAFETY: the driver's function with its own handle and the caller's valid pointers;
            // then the count pointer, non-null.
            unsafe {
                f(resolved.handle, count, out);
                bound(count, capacity, resolved.driver.name());
            }
        },
    );
}

/// `vkGetPhysicalDeviceQueueFamilyProperties2` (and its KHR alias) at the bottom of the chain.
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader.
unsafe extern "system" fn get_physical_device_queue_family_properties2(
    pd: vk::PhysicalDevice,
    count: *mut u32,
    out: *mut vk::QueueFamilyProperties2<'_>,
) {
    guard(
        "vkGetPhysicalDeviceQueueFamilyProperties2 (terminator)",
        (),
        || {
            // SAFETY: the application's physical device, live for the call.
            let Some(resolved) = (unsafe { resolve(pd) }) else {
                log::error!("vkGetPhysicalDeviceQueueFamilyProperties2: {pd:?} is not ours");
                return;
            };
            if count.is_null() {
                return;
            }
            // SAFETY: non-null (checked above) and readable per Vulkan's contract.
            let capacity = (!out.is_null()).then(|| unsafe { *count });
            let f = resolved
                .driver
                .table
                .get_physical_device_queue_family_properties2;
            // SAFETY: the driver's function (handed out only where the driver has it) with its own
            // handle and the caller's valid pointers; then the count pointer, non-null.
            unsafe {
                f(resolved.handle, count, out);
                bound(count, capacity, resolved.driver.name());
            }
        },
    );
}
