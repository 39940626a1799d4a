//! Device-level terminators: device creation on the physical device's driver, and the hooks
//! that stamp the loader's data into the dispatchable objects a device creates.
//!
//! `vkCreateDevice` here passes the driver only the extensions it reports, no layers and no
//! loader chain nodes, checks that the new device carries the driver magic and the procs the
//! hooks need, and allocates the [`DeviceData`] that word 0 of the device, its queues and its
//! command buffers point at. `vkGetDeviceQueue{,2}` and `vkAllocateCommandBuffers` call the
//! driver, then stamp each new object; a driver object without the magic is never overwritten
//! (queues come back as `VK_NULL_HANDLE`; command buffers are freed and the call fails with
//! `VK_ERROR_INITIALIZATION_FAILED`).

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

use vkgen_abi::layer::LOADER_DEVICE_CREATE_INFO;
use vkgen_abi::vk_error;

pub use crate::dispatch_data::TermDevice;
use crate::dispatch_data::{
    checked_device_data, device_data, install, register_device, unregister_device, DeviceData,
    DriverInstance, InstanceData,
};
use crate::driver_handles::{driver_device_extensions, resolve, Resolved};
use crate::ffi::{guard, guard_result, name_list};
use crate::host_alloc::{try_collect, HostAllocator, HostBox};
use crate::{chain, driver, extensions};
use vkgen_generated::dispatch::DeviceDispatchTable;
use vkgen_generated::vk;

const DEVICE: vk::SystemAllocationScope = vk::SystemAllocationScope::DEVICE;

/// `vkCreateDevice` at the bottom of the chain.
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader and a create info
/// whose `pNext` starts with the loader's chain nodes.
pub unsafe extern "system" fn create_device(
    pd: vk::PhysicalDevice,
    info: *const vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    guard_result(
        "vkCreateDevice (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        // SAFETY: `pd`, `info`, `allocator` and `out` come unchanged from the chain's
        // vkCreateDevice call, whose VUIDs give `create_device_impl` what it needs (null pointers
        // are checked there).
        || unsafe { create_device_impl(pd, info, allocator, out) },
    )
}

/// # Safety
/// As [`create_device`].
unsafe fn create_device_impl(
    pd: vk::PhysicalDevice,
    info: *const vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> Result<(), vk::Result> {
    // SAFETY: `info` is the pointer passed down to vkCreateDevice: null (checked here) or a valid
    // create info for this call, VUID-vkCreateDevice-pCreateInfo-parameter.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: null create info"
        ));
    };
    if out.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: null pDevice"
        ));
    }
    // SAFETY: `pd` is the application's physical device, one this loader's instance handed out
    // (VUID-vkCreateDevice-physicalDevice-parameter); its instance outlives the device created
    // here.
    let Some(Resolved {
        data,
        driver,
        handle: driver_pd,
    }) = (unsafe { resolve(pd) })
    else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: {pd:?} is not a physical device of this loader"
        ));
    };
    let name = driver.name();
    // SAFETY: `driver_pd` is the driver's own live physical device `resolve` found.
    let available = unsafe { driver_device_extensions(driver, driver_pd) }?;
    // SAFETY: `pp_enabled_extension_names` holds `enabled_extension_count` NUL-terminated strings
    // (VUID-VkDeviceCreateInfo-ppEnabledExtensionNames-parameter) that live for this call.
    let requested = unsafe {
        name_list(
            info.enabled_extension_count,
            info.pp_enabled_extension_names,
        )
    };
    let names = extensions::device_extensions_for_driver(&requested, &available, name);
    let mut properties = vk::PhysicalDeviceProperties::default();
    let traced = crate::trace::section("driver.GetPhysicalDeviceProperties");
    // SAFETY: `driver_pd` is the driver's live physical device `resolve` found; `properties` is
    // a local out-struct.
    unsafe { (driver.table.get_physical_device_properties)(driver_pd, &mut properties) };
    drop(traced);
    // AOSP's `AllocateDeviceData`, before the driver is called: the application's allocator,
    // else the instance's, with scope DEVICE.
    // SAFETY: `allocator` is null or the application's valid callbacks (VUID-vkCreateDevice-
    // pAllocator-parameter).
    let data_alloc = unsafe { HostAllocator::app_or(allocator, data.allocator, DEVICE) };
    let data_mem = {
        let _trace = crate::trace::section("AllocateDeviceData");
        HostBox::<DeviceData, _>::try_new_uninit_in(data_alloc)
    }
    .map_err(|_| crate::host_alloc::oom("vkCreateDevice", "the device data"))?;
    // SAFETY: `driver_pd` is the driver's live physical device of `data`; `info` is valid for
    // this call and `allocator` null or the application's valid callbacks.
    let device = unsafe {
        create_driver_device(
            data,
            driver,
            driver_pd,
            info,
            &names,
            (allocator, data_alloc),
        )
    }?;
    // SAFETY: `device` is the driver's new device, created with `allocator`.
    let procs = unsafe { DeviceProcs::load(driver, device, allocator) }?;
    let destroy = procs.destroy;
    // SAFETY: `device` is the driver's new device of `driver_pd`.
    let wsi = unsafe { load_wsi(driver, (driver_pd, device), (&names, &requested)) }.inspect_err(
        |_| {
            // SAFETY: the device was created above with `allocator` and is not published.
            unsafe { destroy(device, allocator) }
        },
    )?;
    let term = TermDevice {
        wsi,
        ..term_device(data, driver, (driver_pd, &properties), &procs, &requested)
    };
    let device_data = HostBox::write(
        data_mem,
        DeviceData {
            dispatch: std::cell::UnsafeCell::new(DeviceDispatchTable::empty()),
            api: OnceLock::new(),
            term,
            later: Default::default(),
            instance: std::ptr::from_ref(data),
            allocator: data_alloc,
        },
    );
    // SAFETY: `device` is the driver's new, live device, created with `allocator`, and
    // `destroy` its vkDestroyDevice.
    unsafe { publish(device, device_data, destroy, allocator) }?;
    log::debug!(
        "driver {name}: device {device:?} created with {} extension(s)",
        names.len()
    );
    // SAFETY: `info` is the valid create info this call got.
    unsafe {
        crate::gpu_stats::report_device(
            &*crate::init::loader().stats,
            info,
            &requested,
            properties.device_type,
        )
    };
    // SAFETY: `out` was checked non-null at the top and is the application's pDevice, writable for
    // this call (VUID-vkCreateDevice-pDevice-parameter).
    unsafe { *out = device };
    Ok(())
}

/// The device's WSI when the driver device was created with `VK_ANDROID_native_buffer` (among
/// `names`; `requested` is what the application asked for), else `None`.
///
/// # Safety
/// `device` must be the driver's new, live device of `driver_pd`.
unsafe fn load_wsi(
    driver: &DriverInstance,
    (driver_pd, device): (vk::PhysicalDevice, vk::Device),
    (names, requested): (&[&CStr], &[&CStr]),
) -> Result<Option<crate::wsi::DeviceWsi>, vk::Result> {
    let anb = vkgen_generated::extensions::info(
        vkgen_generated::extensions::ExtensionId::ANDROID_NATIVE_BUFFER,
    )
    .name();
    if !names.contains(&anb) {
        return Ok(None);
    }
    // SAFETY: the caller guarantees `device` is the driver's new device of `driver_pd`.
    unsafe { crate::wsi::DeviceWsi::load(driver, driver_pd, device, requested) }.map(Some)
}

/// The terminator's data of a new device of `driver_pd` (its WSI still `None`).
fn term_device(
    data: &InstanceData,
    driver: &DriverInstance,
    (driver_pd, properties): (vk::PhysicalDevice, &vk::PhysicalDeviceProperties),
    procs: &DeviceProcs,
    requested: &[&CStr],
) -> TermDevice {
    TermDevice {
        driver_index: data
            .term
            .drivers
            .iter()
            .position(|d| std::ptr::eq(d, driver))
            .unwrap_or(0),
        physical_device: driver_pd,
        physical_device_api_version: properties.api_version,
        gdpa: driver.gdpa,
        destroy_device: procs.destroy,
        get_device_queue: procs.get_device_queue,
        get_device_queue2: procs.get_device_queue2,
        allocate_command_buffers: procs.allocate_command_buffers,
        free_command_buffers: procs.free_command_buffers,
        wsi: None,
        enabled_extensions: crate::extensions::ExtensionSet::from_names(requested.iter().copied()),
    }
}

/// Stamps `device_data` into word 0 of the driver's new `device` and registers it; a device
/// that cannot carry it is destroyed.
///
/// # Safety
/// `device` must be a live device, created with `allocator` and not yet handed to anyone;
/// `destroy` its driver's vkDestroyDevice.
unsafe fn publish(
    device: vk::Device,
    device_data: HostBox<DeviceData, HostAllocator>,
    destroy: vk::PFN_vkDestroyDevice,
    allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(), vk::Result> {
    let (device_data, data_alloc) = HostBox::into_raw_with_allocator(device_data);
    // SAFETY: the caller guarantees `device` is a live dispatchable device.
    if let Err(e) = unsafe {
        install(
            vk::Handle::as_raw(device) as usize,
            device_data as usize,
            "VkDevice",
        )
    } {
        // SAFETY: `device_data` was leaked above from a box of `data_alloc` and is not
        // registered; the caller guarantees the device was created with `allocator` and is not
        // yet handed to anyone.
        unsafe {
            drop(HostBox::from_raw_in(device_data, data_alloc));
            destroy(device, allocator);
        }
        return Err(e);
    }
    register_device(device_data);
    Ok(())
}

/// The driver's `vkCreateDevice` with what the driver should see of the create info: its own
/// extensions `names`, no layers, no loader chain nodes, unwrapped physical devices.
///
/// # Safety
/// `driver_pd` must be a live physical device of `driver`, an instance of `data`; `info` a valid
/// create info whose chain outlives the call; `allocator` null or valid callbacks, `data_alloc`
/// the loader's allocator for this device ([`crate::host_alloc`]).
unsafe fn create_driver_device(
    data: &InstanceData,
    driver: &DriverInstance,
    driver_pd: vk::PhysicalDevice,
    info: &vk::DeviceCreateInfo<'_>,
    names: &[&CStr],
    (allocator, data_alloc): (*const vk::AllocationCallbacks<'_>, HostAllocator),
) -> Result<vk::Device, vk::Result> {
    // AOSP's `CreateInfoWrapper` builds this array with the allocator, scope COMMAND.
    let name_ptrs: crate::host_alloc::HostVec<*const c_char, _> = try_collect(
        names.iter().map(|n| n.as_ptr()),
        data_alloc.with_scope(vk::SystemAllocationScope::COMMAND),
        "vkCreateDevice",
        "the driver's extension names",
    )?;
    // SAFETY: the caller guarantees `info.p_next` is a valid chain.
    let p_next = unsafe { chain::skip_loader_structs(info.p_next, LOADER_DEVICE_CREATE_INFO) };
    // SAFETY: `p_next` is a suffix of the create info's valid pNext chain, which
    // `skip_loader_structs` returned above.
    if unsafe { chain::has_loader_struct(p_next, LOADER_DEVICE_CREATE_INFO) } {
        log::warn!(
            "vkCreateDevice: a loader chain struct after the leading ones reaches the driver"
        );
    }
    let mut driver_info = *info;
    driver_info.p_next = p_next;
    #[allow(deprecated)] // drivers get no (deprecated) device layers
    {
        driver_info.enabled_layer_count = 0;
        driver_info.pp_enabled_layer_names = std::ptr::null();
    }
    driver_info.enabled_extension_count = name_ptrs.len() as u32;
    driver_info.pp_enabled_extension_names = if name_ptrs.is_empty() {
        std::ptr::null()
    } else {
        name_ptrs.as_ptr()
    };
    // Wrapped physical devices inside a device-group struct must reach the driver unwrapped.
    // SAFETY: the caller guarantees the chain's structs outlive the call; the patch is dropped
    // (restoring the application's pointer) before this function returns.
    let patch = unsafe { DeviceGroupPatch::apply(data, p_next) }?;
    let mut device = vk::Device::null();
    let result = {
        let _trace = crate::trace::section("driver.CreateDevice");
        // SAFETY: `driver_pd` is the driver's live physical device, `driver_info` a valid create
        // info whose arrays (`name_ptrs`, the chain) outlive the call, `allocator` the caller's.
        unsafe { (driver.table.create_device)(driver_pd, &driver_info, allocator, &mut device) }
    };
    drop(patch);
    if result != vk::Result::SUCCESS {
        return Err(result);
    }
    Ok(device)
}

/// The driver device functions the terminator's hooks call.
struct DeviceProcs {
    destroy: vk::PFN_vkDestroyDevice,
    get_device_queue: vk::PFN_vkGetDeviceQueue,
    get_device_queue2: Option<vk::PFN_vkGetDeviceQueue2>,
    allocate_command_buffers: vk::PFN_vkAllocateCommandBuffers,
    free_command_buffers: vk::PFN_vkFreeCommandBuffers,
}

impl DeviceProcs {
    /// Looks the functions up on the driver's new `device`; a driver without them is
    /// incompatible (the device is destroyed, or leaks without `vkDestroyDevice`).
    ///
    /// # Safety
    /// `device` must be a live device of `driver`, created with `allocator` and not yet handed
    /// to anyone.
    unsafe fn load(
        driver: &DriverInstance,
        device: vk::Device,
        allocator: *const vk::AllocationCallbacks<'_>,
    ) -> Result<Self, vk::Result> {
        let name = driver.name();
        let gdpa = driver.gdpa;
        // SAFETY: `device` is the driver's live device (the caller's guarantee) and each name a
        // NUL-terminated literal.
        let lookup = |n: &CStr| unsafe { gdpa(device, n.as_ptr()) };
        // SAFETY: the driver's GetDeviceProcAddr returns vkDestroyDevice's type for that name.
        let destroy: Option<vk::PFN_vkDestroyDevice> =
            unsafe { driver::void_fn_as(lookup(c"vkDestroyDevice")) };
        let Some(destroy) = destroy else {
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {name}: no vkDestroyDevice (its device leaks)"
            ));
        };
        // SAFETY: the driver's GetDeviceProcAddr returns each named command's own type
        // (vkGetDeviceQueue, vkGetDeviceQueue2, ...) for that name.
        let procs = unsafe {
            (
                driver::void_fn_as::<vk::PFN_vkGetDeviceQueue>(lookup(c"vkGetDeviceQueue")),
                driver::void_fn_as::<vk::PFN_vkGetDeviceQueue2>(lookup(c"vkGetDeviceQueue2")),
                driver::void_fn_as::<vk::PFN_vkAllocateCommandBuffers>(lookup(
                    c"vkAllocateCommandBuffers",
                )),
                driver::void_fn_as::<vk::PFN_vkFreeCommandBuffers>(lookup(c"vkFreeCommandBuffers")),
            )
        };
        let (
            Some(get_device_queue),
            get_device_queue2,
            Some(allocate_command_buffers),
            Some(free_command_buffers),
        ) = procs
        else {
            // SAFETY: the caller guarantees the device was created with `allocator` and is not
            // yet handed to anyone.
            unsafe { destroy(device, allocator) };
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {name}: device lacks vkGetDeviceQueue / vkAllocateCommandBuffers / \
                 vkFreeCommandBuffers"
            ));
        };
        Ok(Self {
            destroy,
            get_device_queue,
            get_device_queue2,
            allocate_command_buffers,
            free_command_buffers,
        })
    }
}

/// Temporarily replaces wrapped physical devices in a `VkDeviceGroupDeviceCreateInfo` of the
/// application's chain with the driver's handles (several drivers only), and restores the
/// application's pointer when dropped, like the Khronos loader. The application's struct is
/// borrowed for the duration of `vkCreateDevice` only.
struct DeviceGroupPatch {
    target: *mut vk::DeviceGroupDeviceCreateInfo<'static>,
    original: *const vk::PhysicalDevice,
    _unwrapped: Vec<vk::PhysicalDevice>,
}

impl DeviceGroupPatch {
    /// # Safety
    /// `p_next` must be a valid chain whose structs stay alive while the patch lives.
    unsafe fn apply(
        data: &InstanceData,
        p_next: *const std::ffi::c_void,
    ) -> Result<Option<Self>, vk::Result> {
        if data.term.passthrough {
            return Ok(None);
        }
        // SAFETY: `p_next` is a valid chain (this function's contract).
        let found = unsafe { vkgen_generated::chain::chain(p_next) }
            .find(|s| s.s_type == vk::StructureType::DEVICE_GROUP_DEVICE_CREATE_INFO);
        let Some(header) = found else {
            return Ok(None);
        };
        let target = std::ptr::from_ref(header)
            .cast::<vk::DeviceGroupDeviceCreateInfo<'static>>()
            .cast_mut();
        // SAFETY: the sType identifies the struct.
        let group = unsafe { &*target };
        let members = if group.p_physical_devices.is_null() {
            &[][..]
        } else {
            // SAFETY: the application's array of `physical_device_count` handles.
            unsafe {
                std::slice::from_raw_parts(
                    group.p_physical_devices,
                    group.physical_device_count as usize,
                )
            }
        };
        let unwrapped = members
            .iter()
            .map(|&m| {
                data.term
                    .wrapped_physical_devices(data)?
                    .iter()
                    .find(|w| w.handle() == m)
                    .map(|w| w.driver_handle())
                    .ok_or_else(|| {
                        vk_error!(
                            vk::Result::ERROR_INITIALIZATION_FAILED,
                            "vkCreateDevice: device group member {m:?} is not a physical device of this instance"
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let original = group.p_physical_devices;
        // SAFETY: the application's struct is alive for the call; the pointer is
        // restored in `drop` before `vkCreateDevice` returns.
        unsafe { (*target).p_physical_devices = unwrapped.as_ptr() };
        Ok(Some(Self {
            target,
            original,
            _unwrapped: unwrapped,
        }))
    }
}

impl Drop for DeviceGroupPatch {
    fn drop(&mut self) {
        // SAFETY: restores the pointer `apply` replaced, in the struct that is still alive.
        unsafe { (*self.target).p_physical_devices = self.original };
    }
}

/// `vkDestroyDevice` at the bottom of the chain: destroys the driver device and frees its
/// loader data.
///
/// # Safety
/// `device` must be null or a device of this loader, not used afterwards.
pub unsafe extern "system" fn destroy_device(
    device: vk::Device,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDevice (terminator)", (), || {
        let raw = vk::Handle::as_raw(device) as usize;
        if raw == 0 {
            return;
        }
        // SAFETY: `raw` is non-null (checked above) and the application's live device
        // (VUID-vkDestroyDevice-device-parameter); `checked_device_data` verifies word 0 against
        // the registry before use.
        let Some(data) = (unsafe { checked_device_data(raw, "vkDestroyDevice") }) else {
            return;
        };
        let ptr = std::ptr::from_ref(data).cast_mut();
        if !unregister_device(ptr) {
            return;
        }
        // AOSP's `FreeDeviceData` with the `pAllocator` given here, else the data's own.
        // SAFETY: `allocator` is null or the application's valid callbacks
        // (VUID-vkDestroyDevice-pAllocator-parameter), compatible with the creating ones.
        let free_with = unsafe { HostAllocator::app_or(allocator, data.allocator, DEVICE) };
        // SAFETY: registered data came from `HostBox::into_raw` in `publish` and was just
        // unregistered, so it is freed once, by its allocator or one compatible with it.
        let data = unsafe { HostBox::from_raw_in(ptr, free_with) };
        if data.term.wsi.is_some() {
            // Swapchains the application forgot would otherwise keep their window connected
            // and later free images of a dead device.
            crate::wsi::swapchain::destroy_all_of_device(device);
        }
        // SAFETY: the driver's live device, created with the app's allocator.
        unsafe { (data.term.destroy_device)(device, allocator) };
    });
}

/// Stamps the device's data into a queue the driver returned; a queue without the magic
/// comes back as `VK_NULL_HANDLE`.
///
/// # Safety
/// `queue` must be null or valid for reads and writes.
unsafe fn stamp_queue(data: &DeviceData, queue: *mut vk::Queue, command: &str) {
    if queue.is_null() {
        return;
    }
    // SAFETY: `queue` is non-null (checked above) and the caller guarantees it is readable and
    // writable.
    let handle = unsafe { *queue };
    if handle == vk::Queue::null() {
        return;
    }
    // SAFETY: the driver's live queue.
    if unsafe {
        install(
            vk::Handle::as_raw(handle) as usize,
            std::ptr::from_ref(data) as usize,
            "VkQueue",
        )
    }
    .is_err()
    {
        log::error!("{command}: the driver's queue cannot carry the loader's data; returning VK_NULL_HANDLE");
        // SAFETY: `queue` is non-null (checked at the top) and the caller guarantees it is
        // writable.
        unsafe { *queue = vk::Queue::null() };
    }
}

/// `vkGetDeviceQueue` hook: the driver's queue with word 0 set to the device's data.
///
/// # Safety
/// Vulkan's contract for the command, with a device of this loader.
pub unsafe extern "system" fn get_device_queue(
    device: vk::Device,
    family: u32,
    index: u32,
    queue: *mut vk::Queue,
) {
    guard("vkGetDeviceQueue", (), || {
        let _trace = crate::trace::section("GetDeviceQueue");
        // SAFETY: the application's `device` is a live device of this loader, reached through its
        // dispatch (VUID-vkGetDeviceQueue-device-parameter).
        let Some(data) = (unsafe { device_data(vk::Handle::as_raw(device) as usize) }) else {
            return;
        };
        // SAFETY: the driver's device and the caller's out-pointer.
        unsafe { (data.term.get_device_queue)(device, family, index, queue) };
        // SAFETY: `queue` is the application's pQueue, null or writable for this call
        // (VUID-vkGetDeviceQueue-pQueue-parameter), which is what `stamp_queue` needs.
        unsafe { stamp_queue(data, queue, "vkGetDeviceQueue") };
    });
}

/// `vkGetDeviceQueue2` hook.
///
/// # Safety
/// As [`get_device_queue`].
pub unsafe extern "system" fn get_device_queue2(
    device: vk::Device,
    info: *const vk::DeviceQueueInfo2<'_>,
    queue: *mut vk::Queue,
) {
    guard("vkGetDeviceQueue2", (), || {
        let _trace = crate::trace::section("GetDeviceQueue2");
        // SAFETY: the application's `device` is a live device of this loader, reached through its
        // dispatch (VUID-vkGetDeviceQueue2-device-parameter).
        let Some(data) = (unsafe { device_data(vk::Handle::as_raw(device) as usize) }) else {
            return;
        };
        let Some(get) = data.term.get_device_queue2 else {
            log::error!("vkGetDeviceQueue2: the driver has no vkGetDeviceQueue2 for this device");
            if !queue.is_null() {
                // SAFETY: `queue` is non-null (checked just above) and the application's pQueue,
                // writable for this call.
                unsafe { *queue = vk::Queue::null() };
            }
            return;
        };
        // SAFETY: the driver's device and the caller's pointers.
        unsafe { get(device, info, queue) };
        // SAFETY: `queue` is the application's pQueue, null or writable for this call
        // (VUID-vkGetDeviceQueue2-pQueue-parameter), which is what `stamp_queue` needs.
        unsafe { stamp_queue(data, queue, "vkGetDeviceQueue2") };
    });
}

/// `vkAllocateCommandBuffers` hook: the driver's command buffers with word 0 set.
///
/// # Safety
/// Vulkan's contract for the command, with a device of this loader.
pub unsafe extern "system" fn allocate_command_buffers(
    device: vk::Device,
    info: *const vk::CommandBufferAllocateInfo<'_>,
    out: *mut vk::CommandBuffer,
) -> vk::Result {
    guard(
        "vkAllocateCommandBuffers",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let _trace = crate::trace::section("AllocateCommandBuffers");
            // SAFETY: the application's `device` is a live device of this loader, reached through
            // its dispatch (VUID-vkAllocateCommandBuffers-device-parameter).
            let Some(data) = (unsafe { device_data(vk::Handle::as_raw(device) as usize) }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAllocateCommandBuffers: not a device of this loader"
                );
            };
            // SAFETY: the driver's device and the caller's pointers.
            let result = unsafe { (data.term.allocate_command_buffers)(device, info, out) };
            if result != vk::Result::SUCCESS || info.is_null() || out.is_null() {
                return result;
            }
            // SAFETY: `info` is non-null (checked above) and the application's valid allocate info
            // (VUID-vkAllocateCommandBuffers-pAllocateInfo-parameter).
            let info = unsafe { &*info };
            let count = info.command_buffer_count as usize;
            // SAFETY: the driver wrote `count` handles.
            let buffers = unsafe { std::slice::from_raw_parts_mut(out, count) };
            let word = std::ptr::from_ref(data) as usize;
            let stamped = buffers.iter().all(|cb| {
                // SAFETY: the driver's new command buffers.
                unsafe { install(vk::Handle::as_raw(*cb) as usize, word, "VkCommandBuffer") }
                    .is_ok()
            });
            if !stamped {
                // SAFETY: freeing exactly what the driver just allocated from this pool.
                unsafe {
                    (data.term.free_command_buffers)(
                        device,
                        info.command_pool,
                        info.command_buffer_count,
                        out,
                    )
                };
                buffers.fill(vk::CommandBuffer::null());
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAllocateCommandBuffers: a command buffer cannot carry the loader's data; \
                     all are freed"
                );
            }
            vk::Result::SUCCESS
        },
    )
}
