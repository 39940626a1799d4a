//! `SYNC_FD` interop (`VK_KHR_external_fence_fd`, `VK_KHR_external_semaphore_fd`) and the
//! external fence and semaphore property queries.

// The `unsafe extern "system"` functions below are Vulkan commands: their safety contract is
// the command's valid usage.

use std::ffi::c_int;

use vkgen_generated::vk;

use super::object::{fence, semaphore, Semaphore};
use crate::sync_fd::{is_fence_fd, NativeFence};
use crate::util::{find_in_chain, guard, take_native_fence};

/// Takes a `SYNC_FD` payload being imported: `-1` (signalled) or a sync file or eventfd, and only
/// as a temporary import (the spec's valid usage for `SYNC_FD`, which has no permanent form).
/// Anything else is `VK_ERROR_INVALID_EXTERNAL_HANDLE` and the fd stays the application's.
///
/// # Safety
/// A non-negative `fd` that is open is the caller's to hand over (the import's contract).
unsafe fn take_sync_fd(fd: c_int, temporary: bool, op: &str) -> Result<NativeFence, vk::Result> {
    if !temporary {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "{op}: a SYNC_FD import must be TEMPORARY"
        ));
    }
    if fd >= 0 && !is_fence_fd(fd) {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "{op}: fd {fd} is neither a sync file nor an eventfd"
        ));
    }
    // SAFETY: the caller hands the fd over; a closed one is refused without being taken.
    unsafe { take_native_fence(fd) }
}

/// Writes an exported fence's fd (`-1` for a signalled one); the caller owns it.
///
/// # Safety
/// `p_fd` null or valid for a write.
unsafe fn hand_out(f: NativeFence, p_fd: *mut c_int) -> vk::Result {
    // SAFETY: the caller vouches that `p_fd` is null or writable; null is checked by `as_mut`.
    match unsafe { p_fd.as_mut() } {
        Some(out) => {
            *out = f.into_raw();
            vk::Result::SUCCESS
        }
        None => vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "no output pointer for the fd"
        ),
    }
}

pub(super) unsafe extern "system" fn get_fence_fd(
    _device: vk::Device,
    p_info: *const vk::FenceGetFdInfoKHR<'_>,
    p_fd: *mut c_int,
) -> vk::Result {
    guard(
        "vkGetFenceFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: null or the application's structure, which the command requires be valid.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "no VkFenceGetFdInfoKHR"
                );
            };
            if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "fence export as {:?}: only SYNC_FD",
                    info.handle_type
                );
            }
            // SAFETY: the info names a live fence of this device; the lookup checks the type.
            let Some(f) = (unsafe { fence(info.fence) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "not a fence of the sync component"
                );
            };
            match f.export() {
                // SAFETY: `pFd` is the application's writable output slot (the command requires it).
                Ok(fd) => unsafe { hand_out(fd, p_fd) },
                Err(e) => e,
            }
        },
    )
}

pub(super) unsafe extern "system" fn import_fence_fd(
    _device: vk::Device,
    p_info: *const vk::ImportFenceFdInfoKHR<'_>,
) -> vk::Result {
    guard(
        "vkImportFenceFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: null or the application's structure, which the command requires be valid.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "no VkImportFenceFdInfoKHR"
                );
            };
            // SAFETY: the info names a live fence of this device; the lookup checks the type.
            let target = unsafe { fence(info.fence) };
            let (Some(target), vk::ExternalFenceHandleTypeFlags::SYNC_FD) =
                (target, info.handle_type)
            else {
                // Not ours to take: the fd stays the application's.
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "fence import as {:?} (or not a fence): only SYNC_FD",
                    info.handle_type
                );
            };
            let temporary = info.flags.contains(vk::FenceImportFlags::TEMPORARY);
            // SAFETY: on success the fd is the driver's (the import transfers ownership); a
            // refused one is not taken.
            match unsafe { take_sync_fd(info.fd, temporary, "vkImportFenceFdKHR") } {
                Ok(f) => {
                    target.import(f);
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// The binary semaphore behind `h` if `handle_type` is `SYNC_FD`, the only handle type (and
/// the only semaphore type) the component exports and imports; else
/// `VK_ERROR_INVALID_EXTERNAL_HANDLE`, logged with `op`.
///
/// # Safety
/// `h` is null or a live semaphore of this device.
unsafe fn sync_fd_semaphore<'a>(
    h: vk::Semaphore,
    handle_type: vk::ExternalSemaphoreHandleTypeFlags,
    op: &str,
) -> Result<&'a Semaphore, vk::Result> {
    // SAFETY: the caller vouches for `h`; the lookup checks the type.
    let sem = unsafe { semaphore(h) };
    let (Some(sem), vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD) = (sem, handle_type) else {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "semaphore {op} as {handle_type:?} (or not a semaphore): only SYNC_FD"
        ));
    };
    if sem.timeline {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "SYNC_FD {op} with a timeline semaphore"
        ));
    }
    Ok(sem)
}

pub(super) unsafe extern "system" fn get_semaphore_fd(
    _device: vk::Device,
    p_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
    p_fd: *mut c_int,
) -> vk::Result {
    guard(
        "vkGetSemaphoreFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: null or the application's structure, which the command requires be valid.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "no VkSemaphoreGetFdInfoKHR"
                );
            };
            // SAFETY: the info names a live semaphore of this device (the command's valid usage).
            let sem = match unsafe { sync_fd_semaphore(info.semaphore, info.handle_type, "export") }
            {
                Ok(s) => s,
                Err(e) => return e,
            };
            // Copy transference: the export is a wait, so the payload moves to the caller.
            let payload = match sem.export() {
                Ok(p) => p,
                Err(e) => return e,
            };
            // SAFETY: `pFd` is the application's writable output slot (the command requires it).
            unsafe { hand_out(payload, p_fd) }
        },
    )
}

pub(super) unsafe extern "system" fn import_semaphore_fd(
    _device: vk::Device,
    p_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
) -> vk::Result {
    guard(
        "vkImportSemaphoreFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: null or the application's structure, which the command requires be valid.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "no VkImportSemaphoreFdInfoKHR"
                );
            };
            // SAFETY: the info names a live semaphore of this device (the command's valid usage).
            let sem = match unsafe { sync_fd_semaphore(info.semaphore, info.handle_type, "import") }
            {
                Ok(s) => s,
                Err(e) => return e,
            };
            let temporary = info.flags.contains(vk::SemaphoreImportFlags::TEMPORARY);
            // SAFETY: on success the fd is the driver's (the import transfers ownership); a
            // refused one is not taken.
            match unsafe { take_sync_fd(info.fd, temporary, "vkImportSemaphoreFdKHR") } {
                Ok(f) => {
                    sem.set_temporary(f);
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

pub(super) unsafe extern "system" fn external_fence_properties(
    _pd: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_props: *mut vk::ExternalFenceProperties<'_>,
) {
    guard(
        concat!(module_path!(), "::external_fence_properties"),
        (),
        || {
            // SAFETY: null or the application's structures: its input and writable output.
            let (Some(info), Some(out)) = (unsafe { (p_info.as_ref(), p_props.as_mut()) }) else {
                return;
            };
            let sync_fd = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
            let ours = info.handle_type == sync_fd;
            out.export_from_imported_handle_types = if ours { sync_fd } else { Default::default() };
            out.compatible_handle_types = out.export_from_imported_handle_types;
            out.external_fence_features = if ours {
                vk::ExternalFenceFeatureFlags::EXPORTABLE
                    | vk::ExternalFenceFeatureFlags::IMPORTABLE
            } else {
                Default::default()
            };
        },
    )
}

pub(super) unsafe extern "system" fn external_semaphore_properties(
    _pd: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_props: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard(
        concat!(module_path!(), "::external_semaphore_properties"),
        (),
        || {
            // SAFETY: null or the application's structures: its input and writable output.
            let (Some(info), Some(out)) = (unsafe { (p_info.as_ref(), p_props.as_mut()) }) else {
                return;
            };
            // SAFETY: the input structure's chain is the application's valid chain.
            let timeline = unsafe {
                find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                )
            }
            .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
            let sync_fd = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
            let ours = info.handle_type == sync_fd && !timeline;
            out.export_from_imported_handle_types = if ours { sync_fd } else { Default::default() };
            out.compatible_handle_types = out.export_from_imported_handle_types;
            out.external_semaphore_features = if ours {
                vk::ExternalSemaphoreFeatureFlags::EXPORTABLE
                    | vk::ExternalSemaphoreFeatureFlags::IMPORTABLE
            } else {
                Default::default()
            };
        },
    )
}
