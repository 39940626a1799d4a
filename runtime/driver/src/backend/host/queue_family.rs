//! Queue-family queries (issue 25): the host ICD's count is bounded before the application
//! sees it. Without an array, a count above [`MAX_QUEUE_FAMILIES`] is capped; with one, the
//! count never exceeds the array's capacity (an ICD that claims more wrote at most that many).

use std::ffi::CStr;
use std::sync::OnceLock;

use vkgen_generated::vk;

use super::icd::*;
use super::registry::*;
use crate::util::guard;

/// The most queue families the host ICD's count query may report to the application.
const MAX_QUEUE_FAMILIES: u32 = 1024;

/// Our command for `name` when it is a queue-family query the host answers (`host` is what the
/// host's lookup gave); `host` otherwise.
pub(super) fn wrap(name: &CStr, host: vk::PFN_vkVoidFunction) -> vk::PFN_vkVoidFunction {
    let f: unsafe extern "system" fn() = match name.to_bytes() {
        b"vkGetPhysicalDeviceQueueFamilyProperties" if host.is_some() => {
            let f: vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties = family_properties;
            // SAFETY: a function pointer cast to the proc-address type; callers cast it back
            // to the command's type before calling it.
            unsafe {
                std::mem::transmute::<
                    vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties,
                    unsafe extern "system" fn(),
                >(f)
            }
        }
        b"vkGetPhysicalDeviceQueueFamilyProperties2"
        | b"vkGetPhysicalDeviceQueueFamilyProperties2KHR"
            if host.is_some() =>
        {
            let f: vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties2 = family_properties2;
            // SAFETY: a function pointer cast to the proc-address type; callers cast it back
            // to the command's type before calling it.
            unsafe {
                std::mem::transmute::<
                    vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties2,
                    unsafe extern "system" fn(),
                >(f)
            }
        }
        _ => return host,
    };
    Some(f)
}

/// The host ICD's function for the first of `names` it has, for its physical device `pd`.
fn host_fn(pd: vk::PhysicalDevice, names: &[&CStr]) -> Option<unsafe extern "system" fn()> {
    let inst = instance_of(pd)?;
    let icd = match inst.slot {
        0 => host_icd(),
        n => SLOTS
            .get(n)
            .and_then(OnceLock::get)
            .and_then(Option::as_ref),
    }?;
    let handle = inst.fns.handle();
    names.iter().find_map(|name| {
        // SAFETY: the ICD's lookups with its own live instance and a C string.
        unsafe {
            icd.gpdpa
                .and_then(|g| g(handle, name.as_ptr()))
                .or_else(|| (icd.gipa)(handle, name.as_ptr()))
        }
    })
}

/// Bounds the count the host wrote: at most `capacity` where the application passed an array,
/// at most [`MAX_QUEUE_FAMILIES`] where it asked for the count.
///
/// # Safety
/// `count` is the application's non-null, writable count pointer.
unsafe fn bound(count: *mut u32, capacity: Option<u32>) {
    // SAFETY: the caller's non-null count, which the host just wrote.
    let claimed = unsafe { *count };
    let most = capacity.unwrap_or(MAX_QUEUE_FAMILIES);
    if claimed > most {
        log::warn!("host ICD: {claimed} queue families claimed; clamped to {most}");
        // SAFETY: the same writable count pointer.
        unsafe { *count = most };
    }
}

/// `vkGetPhysicalDeviceQueueFamilyProperties`, bounded.
///
/// # Safety
/// Vulkan's contract for the command.
unsafe extern "system" fn family_properties(
    pd: vk::PhysicalDevice,
    count: *mut u32,
    out: *mut vk::QueueFamilyProperties,
) {
    guard(
        "vkGetPhysicalDeviceQueueFamilyProperties (host)",
        (),
        || {
            let names = [c"vkGetPhysicalDeviceQueueFamilyProperties"];
            let Some(f) = host_fn(pd, &names) else {
                return;
            };
            if count.is_null() {
                return;
            }
            // SAFETY: non-null (checked above) and readable per Vulkan's contract.
            let capacity = (!out.is_null()).then(|| unsafe { *count });
            // SAFETY: the host's function for this command, cast back to its type, called with the
            // caller's valid arguments; then the count pointer, non-null.
            unsafe {
                let f = std::mem::transmute::<
                    unsafe extern "system" fn(),
                    vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties,
                >(f);
                f(pd, count, out);
                bound(count, capacity);
            }
        },
    );
}

/// `vkGetPhysicalDeviceQueueFamilyProperties2` (and its KHR alias), bounded.
///
/// # Safety
/// Vulkan's contract for the command.
unsafe extern "system" fn family_properties2(
    pd: vk::PhysicalDevice,
    count: *mut u32,
    out: *mut vk::QueueFamilyProperties2<'_>,
) {
    guard(
        "vkGetPhysicalDeviceQueueFamilyProperties2 (host)",
        (),
        || {
            let names = [
                c"vkGetPhysicalDeviceQueueFamilyProperties2",
                c"vkGetPhysicalDeviceQueueFamilyProperties2KHR",
            ];
            let Some(f) = host_fn(pd, &names) else {
                return;
            };
            if count.is_null() {
                return;
            }
            // SAFETY: non-null (checked above) and readable per Vulkan's contract.
            let capacity = (!out.is_null()).then(|| unsafe { *count });
            // SAFETY: the host's function for this command, cast back to its type, called with the
            // caller's valid arguments; then the count pointer, non-null.
            unsafe {
                let f = std::mem::transmute::<
                    unsafe extern "system" fn(),
                    vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties2,
                >(f);
                f(pd, count, out);
                bound(count, capacity);
            }
        },
    );
}
