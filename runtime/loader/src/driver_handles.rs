//! Loader handles resolved to the drivers' (the lookups the terminator and the WSI share): a
//! `VkPhysicalDevice` handed up by the terminator → its driver instance and the driver's own
//! handle ([`resolve`]; the wrapped devices of a loader-owned instance are enumerated here once,
//! [`wrap_all`]), a driver's raw device extension list, and a command's dispatch-table slot.

use std::ffi::CStr;

use crate::dispatch_data::{
    instance_data, DriverInstance, InstanceData, PhysicalDeviceWrapper, TermInstance,
};
use crate::ffi::enumerate;
use crate::host_alloc::{oom, HostAllocator, HostVec};
use vkgen_generated::vk;

/// The dispatch-table slot of a command.
pub(crate) fn slot_of(name: &CStr) -> Option<usize> {
    vkgen_generated::commands::lookup(name)
        .and_then(|id| vkgen_generated::commands::info(id).slot())
}

impl TermInstance {
    /// The wrapped physical devices (not passthrough), enumerated from every driver once; a
    /// failed allocation of the array is `VK_ERROR_OUT_OF_HOST_MEMORY` and is retried at the
    /// next call.
    pub(crate) fn wrapped_physical_devices(
        &self,
        data: &InstanceData,
    ) -> Result<&[PhysicalDeviceWrapper], vk::Result> {
        if let Some(wrapped) = self.physical_devices.get() {
            return Ok(wrapped);
        }
        // Two threads racing here both build a list; the loser's is dropped (freed through the
        // allocator that made it) and every caller gets the one stored, so handles stay stable.
        let built = wrap_all(data)?;
        Ok(self.physical_devices.get_or_init(|| built))
    }
}

/// Enumerates every driver instance's physical devices and wraps them (drivers whose
/// enumeration fails are skipped with a log line), in the instance's allocator.
pub(crate) fn wrap_all(
    data: &InstanceData,
) -> Result<HostVec<PhysicalDeviceWrapper, HostAllocator>, vk::Result> {
    let mut per_driver = Vec::with_capacity(data.term.drivers.len());
    for (index, driver) in data.term.drivers.iter().enumerate() {
        let devices = enumerate(|c, o| {
            // SAFETY: the driver's live instance and `enumerate`'s valid pointers.
            unsafe { (driver.table.enumerate_physical_devices)(driver.handle, c, o) }
        });
        match devices {
            Ok(devices) => per_driver.push((index, driver, devices)),
            Err(e) => log::error!(
                "driver {}: vkEnumeratePhysicalDevices failed ({e:?}); its devices are skipped",
                driver.name()
            ),
        }
    }
    let total = per_driver.iter().map(|(_, _, devices)| devices.len()).sum();
    let alloc = data
        .allocator
        .with_scope(vk::SystemAllocationScope::INSTANCE);
    let mut wrappers = HostVec::new_in(alloc);
    // Exactly the devices' number: the block is kept for the instance's lifetime.
    wrappers
        .try_reserve_exact(total)
        .map_err(|_| oom("vkEnumeratePhysicalDevices", "the wrapped physical devices"))?;
    for (index, driver, devices) in &per_driver {
        wrappers.extend(devices.iter().map(|&pd| PhysicalDeviceWrapper {
            loader_data: std::ptr::from_ref(data) as usize,
            driver_handle: pd,
            driver_table: std::ptr::from_ref(&*driver.table),
            driver_index: *index,
        }));
    }
    Ok(wrappers)
}

/// A physical device resolved to its driver.
pub(crate) struct Resolved<'a> {
    /// The instance's loader data.
    pub data: &'a InstanceData,
    /// The driver instance the device belongs to.
    pub driver: &'a DriverInstance,
    /// The driver's own handle.
    pub handle: vk::PhysicalDevice,
}

/// Finds the driver of a physical device handed up by the terminator.
///
/// # Safety
/// `pd` must be null or a live physical device of this loader; the result must not outlive
/// its instance.
pub(crate) unsafe fn resolve<'a>(pd: vk::PhysicalDevice) -> Option<Resolved<'a>> {
    let raw = vk::Handle::as_raw(pd) as usize;
    // SAFETY: the caller passes null or a live physical device of this loader, whose word 0
    // points at its instance's data; the caller keeps that instance alive for 'a.
    let data: &'a InstanceData = unsafe { instance_data(raw) }?;
    let term = &data.term;
    if term.passthrough {
        return Some(Resolved {
            data,
            driver: &term.drivers[0],
            handle: pd,
        });
    }
    let wrapper = term
        .wrapped_physical_devices(data)
        .ok()?
        .iter()
        .find(|w| w.handle() == pd)?;
    Some(Resolved {
        data,
        driver: &term.drivers[wrapper.driver_index],
        handle: wrapper.driver_handle,
    })
}

/// The driver's raw device extension list for its physical device `pd`.
///
/// # Safety
/// `pd` must be the driver's live physical device.
pub(crate) unsafe fn driver_device_extensions(
    driver: &DriverInstance,
    pd: vk::PhysicalDevice,
) -> Result<Vec<vk::ExtensionProperties>, vk::Result> {
    let _trace = crate::trace::section("driver.EnumerateDeviceExtensionProperties");
    enumerate(|c, o| {
        // SAFETY: `pd` is the driver's live physical device (the caller's guarantee), `driver`'s
        // table holds that driver's function, and `enumerate` passes valid count/array pointers.
        unsafe { (driver.table.enumerate_device_extension_properties)(pd, std::ptr::null(), c, o) }
    })
    .inspect_err(|e| {
        log::error!(
            "driver {}: vkEnumerateDeviceExtensionProperties failed: {e:?}",
            driver.name()
        )
    })
}
