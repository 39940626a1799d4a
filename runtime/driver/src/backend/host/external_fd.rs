//! `VK_KHR_external_{semaphore,fence}_fd` on the host: `SYNC_FD` exports, imports and
//! capability queries go to the emulation ([`sync_fd`]) where the device has it, everything
//! else to the host, its results kept to what the spec allows ([`spec_result`]).

use vkgen_generated::vk;

use crate::util::find_in_chain;

use super::device::*;
use super::registry::*;
use super::sync_fd;

/// What `vkGet{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const EXPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_TOO_MANY_OBJECTS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
];
/// What `vkImport{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const IMPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
];

/// The host's device-level command `$name` as its `vk::$pfn`; when the host has none, the
/// calling hook returns `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
macro_rules! host_device_fn {
    ($dev:expr, $name:literal, $pfn:ident) => {{
        let cname = concat!($name, "\0");
        // SAFETY: the host's vkGetDeviceProcAddr with its own live device.
        let f = unsafe { ($dev.gdpa)($dev.handle, cname.as_ptr().cast()) };
        match f {
            // SAFETY: the host returns the command of that name, of type `$pfn`.
            Some(f) => unsafe { std::mem::transmute::<unsafe extern "system" fn(), vk::$pfn>(f) },
            None => {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "the host device has no {}",
                    $name
                );
            }
        }
    }};
}

/// `vkGetSemaphoreFdKHR`: `SYNC_FD` from the emulation where the device has it; any other handle type, or a device without the emulation, is the host's (its result kept to what the spec allows).
///
/// # Safety
/// The application's valid arguments of `vkGetSemaphoreFdKHR`.
pub(super) unsafe fn get_semaphore_fd_khr(
    device: vk::Device,
    p_get_fd_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
    p_fd: *mut std::ffi::c_int,
) -> vk::Result {
    let dev = device_or!(device, vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    // SAFETY: `pGetFdInfo` is null or the application's structure, valid for this call; only
    // its handle type is read.
    let sync_fd = unsafe { p_get_fd_info.as_ref() }
        .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
    // Other handle types are the host's even where SYNC_FD is emulated.
    if dev.sync.is_none() || !sync_fd {
        let f = host_device_fn!(dev, "vkGetSemaphoreFdKHR", PFN_vkGetSemaphoreFdKHR);
        // SAFETY: the host's own command with the application's arguments.
        return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
    }
    // SAFETY: `pGetFdInfo` is null or the application's structure, valid for this call;
    // `as_ref` and the null check on `pFd` turn either missing pointer into the refusal below.
    let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "a SYNC_FD export without its info or output pointer"
        );
    };
    match sync_fd::get_semaphore_fd(&dev, info) {
        Ok(fence) => {
            // SAFETY: non-null output pointer; the application owns the fd.
            unsafe { *p_fd = fence.into_raw() };
            vk::Result::SUCCESS
        }
        Err(e) => e,
    }
}

/// `vkGetFenceFdKHR`: `SYNC_FD` from the emulation where the device has it; anything else is the host's (its result kept to what the spec allows).
///
/// # Safety
/// The application's valid arguments of `vkGetFenceFdKHR`.
pub(super) unsafe fn get_fence_fd_khr(
    device: vk::Device,
    p_get_fd_info: *const vk::FenceGetFdInfoKHR<'_>,
    p_fd: *mut std::ffi::c_int,
) -> vk::Result {
    let dev = device_or!(device, vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    // SAFETY: `pGetFdInfo` is null or the application's structure, valid for this call; only
    // its handle type is read.
    let sync_fd = unsafe { p_get_fd_info.as_ref() }
        .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
    // Other handle types are the host's even where SYNC_FD is emulated.
    if dev.sync.is_none() || !sync_fd {
        let f = host_device_fn!(dev, "vkGetFenceFdKHR", PFN_vkGetFenceFdKHR);
        // SAFETY: the host's own command with the application's arguments.
        return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
    }
    // SAFETY: `pGetFdInfo` is null or the application's structure, valid for this call;
    // `as_ref` and the null check on `pFd` turn either missing pointer into the refusal below.
    let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "a SYNC_FD export without its info or output pointer"
        );
    };
    match sync_fd::get_fence_fd(&dev, info) {
        Ok(fence) => {
            // SAFETY: non-null output pointer; the application owns the fd.
            unsafe { *p_fd = fence.into_raw() };
            vk::Result::SUCCESS
        }
        Err(e) => e,
    }
}

/// `vkImportSemaphoreFdKHR`: a `SYNC_FD` import (temporary only) into the emulation where the device has it; anything else is the host's.
///
/// # Safety
/// The application's valid arguments of `vkImportSemaphoreFdKHR`.
pub(super) unsafe fn import_semaphore_fd_khr(
    device: vk::Device,
    p_import_semaphore_fd_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
) -> vk::Result {
    let dev = device_or!(device, vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    // SAFETY: `pImportSemaphoreFdInfo` is null or the application's structure, valid for this
    // call; only its handle type is read.
    let sync_fd = unsafe { p_import_semaphore_fd_info.as_ref() }
        .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
    // Other handle types are the host's even where SYNC_FD is emulated.
    if dev.sync.is_none() || !sync_fd {
        let f = host_device_fn!(dev, "vkImportSemaphoreFdKHR", PFN_vkImportSemaphoreFdKHR);
        // SAFETY: the host's own command with the application's arguments.
        return spec_result(
            unsafe { f(device, p_import_semaphore_fd_info) },
            IMPORT_RESULTS,
        );
    }
    // SAFETY: `pImportSemaphoreFdInfo` is null or the application's structure, valid for this
    // call; null is refused below.
    let Some(info) = (unsafe { p_import_semaphore_fd_info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkImportSemaphoreFdKHR without an import info"
        );
    };
    if info.handle_type != vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD
        || !info.flags.contains(vk::SemaphoreImportFlags::TEMPORARY)
    {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkImportSemaphoreFdKHR: a SYNC_FD import must be TEMPORARY"
        );
    }
    sync_fd::import(&dev, sync_fd::Target::Semaphore(info.semaphore), info.fd)
}

/// `vkImportFenceFdKHR`: a `SYNC_FD` import (temporary only) into the emulation where the device has it; anything else is the host's.
///
/// # Safety
/// The application's valid arguments of `vkImportFenceFdKHR`.
pub(super) unsafe fn import_fence_fd_khr(
    device: vk::Device,
    p_import_fence_fd_info: *const vk::ImportFenceFdInfoKHR<'_>,
) -> vk::Result {
    let dev = device_or!(device, vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    // SAFETY: `pImportFenceFdInfo` is null or the application's structure, valid for this call;
    // only its handle type is read.
    let sync_fd = unsafe { p_import_fence_fd_info.as_ref() }
        .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
    // Other handle types are the host's even where SYNC_FD is emulated.
    if dev.sync.is_none() || !sync_fd {
        let f = host_device_fn!(dev, "vkImportFenceFdKHR", PFN_vkImportFenceFdKHR);
        // SAFETY: the host's own command with the application's arguments.
        return spec_result(unsafe { f(device, p_import_fence_fd_info) }, IMPORT_RESULTS);
    }
    // SAFETY: `pImportFenceFdInfo` is null or the application's structure, valid for this call;
    // null is refused below.
    let Some(info) = (unsafe { p_import_fence_fd_info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkImportFenceFdKHR without an import info"
        );
    };
    if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD
        || !info.flags.contains(vk::FenceImportFlags::TEMPORARY)
    {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkImportFenceFdKHR: a SYNC_FD import must be TEMPORARY"
        );
    }
    sync_fd::import(&dev, sync_fd::Target::Fence(info.fence), info.fd)
}

/// `vkGetPhysicalDeviceExternalSemaphoreProperties`: `SYNC_FD` always works (passed through or emulated), except for timeline semaphores; other handle types are the host's answer.
///
/// # Safety
/// The application's valid arguments of `vkGetPhysicalDeviceExternalSemaphoreProperties`.
pub(super) unsafe fn get_physical_device_external_semaphore_properties(
    physical_device: vk::PhysicalDevice,
    p_external_semaphore_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_external_semaphore_properties: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    let Some(inst) = instance_of(physical_device) else {
        return;
    };
    // SAFETY: the input and output structures are the application's, null or valid for this
    // call (null ones are passed to the host untouched), the input's chain included;
    // `physical_device` was found in `inst` just above, so the host's 1.1 query takes it.
    unsafe {
        if let (Some(info), Some(out)) = (
            p_external_semaphore_info.as_ref(),
            p_external_semaphore_properties.as_mut(),
        ) {
            let sync = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
            let timeline = find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                info.p_next,
                vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
            )
            .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
            // Passed through or emulated, SYNC_FD always works (a host that lists it but
            // fails its probe is emulated: `create_host_device`).
            if info.handle_type == sync {
                let (features, _) = sync_fd::sync_fd_features();
                out.external_semaphore_features = if timeline {
                    Default::default()
                } else {
                    features
                };
                out.export_from_imported_handle_types =
                    if timeline { Default::default() } else { sync };
                out.compatible_handle_types = if timeline { Default::default() } else { sync };
                return;
            }
        }
        (inst
            .fns
            .fp_v1_1()
            .get_physical_device_external_semaphore_properties)(
            physical_device,
            p_external_semaphore_info,
            p_external_semaphore_properties,
        )
    }
}

/// `vkGetPhysicalDeviceExternalFenceProperties`: `SYNC_FD` always works (passed through or emulated); other handle types are the host's answer.
///
/// # Safety
/// The application's valid arguments of `vkGetPhysicalDeviceExternalFenceProperties`.
pub(super) unsafe fn get_physical_device_external_fence_properties(
    physical_device: vk::PhysicalDevice,
    p_external_fence_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_external_fence_properties: *mut vk::ExternalFenceProperties<'_>,
) {
    let Some(inst) = instance_of(physical_device) else {
        return;
    };
    // SAFETY: the input and output structures are the application's, null or valid for this
    // call (null ones are passed to the host untouched); `physical_device` was found in `inst`
    // just above, so the host's 1.1 query takes it.
    unsafe {
        if let (Some(info), Some(out)) = (
            p_external_fence_info.as_ref(),
            p_external_fence_properties.as_mut(),
        ) {
            let sync = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
            if info.handle_type == sync {
                out.external_fence_features = sync_fd::sync_fd_features().1;
                out.export_from_imported_handle_types = sync;
                out.compatible_handle_types = sync;
                return;
            }
        }
        (inst
            .fns
            .fp_v1_1()
            .get_physical_device_external_fence_properties)(
            physical_device,
            p_external_fence_info,
            p_external_fence_properties,
        )
    }
}
