//! Loader handles resolved to the drivers' (the lookups the terminator and the WSI share): a
//! `VkPhysicalDevice` handed up by the terminator → its driver instance and the driver's own
//! handle ([`resolve`]; the wrapped devices of a loader-owned instance are enumerated here once,
//! [`wrap_all`]), a driver's raw device extension list, and a command's dispatch-table slot.

use std::ffi::CStr;

use crate::dispatch_data::{
    instance_data, DriverInstance, InstanceData, PhysicalDeviceWrapper, TermInstance,
};
use crate::ffi::enumerate;
use crate::vk;

/// The dispatch-table slot of a command.
pub(crate) fn slot_of(name: &CStr) -> Option<usize> {
    vkgen_generated::commands::lookup(name)
        .and_then(|id| vkgen_generated::commands::info(id).slot())
}

impl TermInstance {
    /// The wrapped physical devices (not passthrough), enumerated from every driver once.
    pub(crate) fn wrapped_physical_devices(&self, data: &InstanceData) -> &[PhysicalDeviceWrapper] {
        self.physical_devices.get_or_init(|| wrap_all(data))
    }
}

/// Enumerates every driver instance's physical devices and wraps them (drivers whose
/// enumeration fails are skipped with a log line).
pub(crate) fn wrap_all(data: &InstanceData) -> Vec<PhysicalDeviceWrapper> {
    let mut out = Vec::new();
    for (index, driver) in data.term.drivers.iter().enumerate() {
        let devices = enumerate(|c, o| {
            // SAFETY: the driver's live instance and `enumerate`'s valid pointers.
            unsafe { (driver.table.enumerate_physical_devices)(driver.handle, c, o) }
        });
        match devices {
            Ok(devices) => out.extend(devices.into_iter().map(|pd| PhysicalDeviceWrapper {
                loader_data: std::ptr::from_ref(data) as usize,
                driver_handle: pd,
                driver_table: std::ptr::from_ref(&*driver.table),
                driver_index: index,
            })),
            Err(e) => log::error!(
                "driver {}: vkEnumeratePhysicalDevices failed ({e:?}); its devices are skipped",
                driver.name()
            ),
        }
    }
    out
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
