//! The instance-level debug extensions on a loader-owned instance (several or no drivers):
//! every call goes to each driver instance that enabled the extension.
//!
//! A messenger or callback created here is a loader object (a boxed list of the drivers'
//! handles), destroyed with the drivers' handles. With a single driver none of this is used:
//! the driver's own functions are returned, with its own handles.

use vkgen_abi::vk_error;
use vkgen_generated::extensions::{self as ext, ExtensionId};

use crate::dispatch_data::instance_data;
use crate::dispatch_data::{DriverInstance, TermInstance};
use crate::ffi::guard;
use vkgen_generated::vk;

/// The drivers' handles behind one loader messenger or callback.
struct FannedOut {
    handles: Vec<(usize, u64)>,
}

/// The drivers of the instance `instance` that enabled `extension`.
///
/// # Safety
/// `instance` must be a live instance of this loader.
unsafe fn drivers_with<'a>(
    instance: vk::Instance,
    extension: Option<ExtensionId>,
) -> Option<(&'a TermInstance, Vec<(usize, &'a DriverInstance)>)> {
    // SAFETY: the caller guarantees `instance` is a live instance of this loader, so its word 0
    // holds its registered data.
    let data = unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }?;
    let extension = extension?;
    let drivers = data
        .term
        .drivers
        .iter()
        .enumerate()
        .filter(|(_, d)| d.enabled_extensions.contains(extension))
        .collect();
    Some((&data.term, drivers))
}

fn debug_utils() -> Option<ExtensionId> {
    ext::lookup(c"VK_EXT_debug_utils")
}

/// Creates one object per driver with `create`, destroying the ones made so far with `destroy`
/// if a driver fails; returns the loader handle.
fn create_all(
    drivers: &[(usize, &DriverInstance)],
    mut create: impl FnMut(&DriverInstance) -> Result<u64, vk::Result>,
    mut destroy: impl FnMut(&DriverInstance, u64),
) -> Result<u64, vk::Result> {
    let mut handles = Vec::with_capacity(drivers.len());
    for &(index, driver) in drivers {
        match create(driver) {
            Ok(h) => handles.push((index, h)),
            Err(e) => {
                for &(i, h) in &handles {
                    if let Some((_, d)) = drivers.iter().find(|(j, _)| *j == i) {
                        destroy(d, h);
                    }
                }
                return Err(e);
            }
        }
    }
    Ok(Box::into_raw(Box::new(FannedOut { handles })) as u64)
}

/// Takes back a loader handle from [`create_all`] and destroys the drivers' objects.
///
/// # Safety
/// `handle` must be 0 or a live handle from [`create_all`] of the same instance.
unsafe fn destroy_all(
    term: &TermInstance,
    handle: u64,
    mut destroy: impl FnMut(&DriverInstance, u64),
) {
    if handle == 0 {
        return;
    }
    // SAFETY: `handle` is non-zero (checked above) and, as the caller guarantees, a `FannedOut` box
    // `create_all` leaked for this object; the application destroys each object once
    // (VUID-vkDestroyDebugUtilsMessengerEXT-messenger-parameter).
    let fanned = unsafe { Box::from_raw(handle as usize as *mut FannedOut) };
    for (index, h) in fanned.handles {
        if let Some(driver) = term.drivers.get(index) {
            destroy(driver, h);
        }
    }
}

/// `vkCreateDebugUtilsMessengerEXT` on a loader-owned instance.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_debug_utils_messenger(
    instance: vk::Instance,
    info: *const vk::DebugUtilsMessengerCreateInfoEXT<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::DebugUtilsMessengerEXT,
) -> vk::Result {
    guard(
        "vkCreateDebugUtilsMessengerEXT (terminator)",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's `instance` is a live instance of this loader, reached
            // through its dispatch (VUID-vkCreateDebugUtilsMessengerEXT-instance-parameter).
            let Some((_, drivers)) = (unsafe { drivers_with(instance, debug_utils()) }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateDebugUtilsMessengerEXT: not an instance of this loader, or no driver enabled VK_EXT_debug_utils"
                );
            };
            let created = create_all(
                &drivers,
                |d| {
                    let mut h = vk::DebugUtilsMessengerEXT::null();
                    // SAFETY: the driver's live instance, the caller's valid create info.
                    match unsafe {
                        (d.table.create_debug_utils_messenger_ext)(
                            d.handle, info, allocator, &mut h,
                        )
                    } {
                        vk::Result::SUCCESS => Ok(vk::Handle::as_raw(h)),
                        e => Err(e),
                    }
                },
                // SAFETY: destroying what the same driver just created.
                |d, h| unsafe {
                    (d.table.destroy_debug_utils_messenger_ext)(
                        d.handle,
                        vk::Handle::from_raw(h),
                        allocator,
                    )
                },
            );
            match created {
                Ok(h) => {
                    // SAFETY: `out` is the application's pMessenger, writable for this call
                    // (VUID-vkCreateDebugUtilsMessengerEXT-pMessenger-parameter).
                    unsafe { *out = vk::Handle::from_raw(h) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// `vkDestroyDebugUtilsMessengerEXT` on a loader-owned instance.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn destroy_debug_utils_messenger(
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDebugUtilsMessengerEXT (terminator)", (), || {
        // SAFETY: the application's `instance` is a live instance of this loader, reached through
        // its dispatch (VUID-vkDestroyDebugUtilsMessengerEXT-instance-parameter).
        let Some((term, _)) = (unsafe { drivers_with(instance, debug_utils()) }) else {
            return;
        };
        // SAFETY: the handle came from `create_debug_utils_messenger` on this instance.
        unsafe {
            destroy_all(term, vk::Handle::as_raw(messenger), |d, h| {
                (d.table.destroy_debug_utils_messenger_ext)(
                    d.handle,
                    vk::Handle::from_raw(h),
                    allocator,
                )
            })
        };
    })
}

/// `vkSubmitDebugUtilsMessageEXT` on a loader-owned instance.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn submit_debug_utils_message(
    instance: vk::Instance,
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
) {
    guard("vkSubmitDebugUtilsMessageEXT (terminator)", (), || {
        // SAFETY: the application's `instance` is a live instance of this loader, reached through
        // its dispatch (VUID-vkSubmitDebugUtilsMessageEXT-instance-parameter).
        let Some((_, drivers)) = (unsafe { drivers_with(instance, debug_utils()) }) else {
            return;
        };
        for (_, d) in drivers {
            // SAFETY: the driver's live instance and the caller's valid data.
            unsafe { (d.table.submit_debug_utils_message_ext)(d.handle, severity, types, data) };
        }
    })
}
